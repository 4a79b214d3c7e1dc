package modeltest

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/starweaver-go/starweaver/core/model"
)

// Collect returns a stream handler appending each delta to *got, its Call
// and the call's arguments copied (a handler may not keep them).
func Collect(got *[]model.Delta) model.DeltaHandler {
	return func(d model.Delta) {
		if d.Call != nil {
			c := *d.Call
			c.Arguments = slices.Clone(c.Arguments)
			d.Call = &c
		}
		*got = append(*got, d)
	}
}

// DeltaLines is ds as JSON, one line a delta: the form a test compares a
// stream's deltas with.
func DeltaLines(tb testing.TB, ds []model.Delta) string {
	tb.Helper()
	var b strings.Builder
	for _, d := range ds {
		j, err := json.Marshal(d)
		if err != nil {
			tb.Fatal(err)
		}
		b.Write(j)
		b.WriteByte('\n')
	}
	return b.String()
}
