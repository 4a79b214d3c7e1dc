package agent_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/starweaver-go/starweaver/core/agent"
	"github.com/starweaver-go/starweaver/core/model"
)

func TestNewBuilderFromStartsFromTheOptions(t *testing.T) {
	instructions := make([]string, 1, 4)
	instructions[0] = "first"
	o := agent.Options{Name: "from", Instructions: instructions, Metadata: map[string]any{"k": "v"}}
	b := agent.NewBuilderFrom(model.NewTestModel(model.Response(model.TextPart("ok"))), o)
	// Builder methods add to the options without writing into the
	// caller's slices and maps.
	b.Instructions("second").Metadata(map[string]any{"k": "w"})
	if got := instructions[:2][1]; got != "" {
		t.Fatalf("the caller's instructions were written: %q", got)
	}
	if o.Metadata["k"] != "v" {
		t.Fatalf("the caller's metadata were written: %v", o.Metadata)
	}
	a, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	if a.Name() != "from" {
		t.Fatalf("name %q, want %q", a.Name(), "from")
	}
}

func TestNewBuilderFromReportsTheOptionsErrorFirst(t *testing.T) {
	o := agent.Options{MaxRetries: new(-1)}
	_, err := agent.NewBuilderFrom(model.NewTestModel(), o).OutputRetries(-2).Build()
	if !errors.Is(err, agent.ErrConfig) || !strings.Contains(err.Error(), "max_retries must not be negative, got -1") {
		t.Fatalf("got %v, want the max_retries error", err)
	}
}
