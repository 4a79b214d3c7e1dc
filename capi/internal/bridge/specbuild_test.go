package bridge

import (
	"strconv"
	"testing"
)

// testHandle registers v as a handle until the test ends and returns the
// handle as a spec writes it.
func testHandle(t *testing.T, v any) string {
	t.Helper()
	h := handles.add(v)
	t.Cleanup(func() { handles.remove(h) })
	return strconv.FormatInt(h, 10)
}
