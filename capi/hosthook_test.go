package main

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/starweaver-go/starweaver/core/tool"
)

// TestHookItemEncoding pins the hook item's wire shape (starweaver.h).
func TestHookItemEncoding(t *testing.T) {
	b, err := encodeItem(hookItem{Kind: "hook", Token: 7, Hook: 3, Phase: phaseBefore,
		Context: wireContext{RunID: "r", ToolName: "t"}, Arguments: json.RawMessage(`{"a":1}`)})
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if got["kind"] != "hook" || got["token"] != 7.0 || got["hook"] != 3.0 || got["phase"] != "before" {
		t.Fatalf("item = %s", b)
	}
	if _, ok := got["outcome"]; ok {
		t.Fatalf("a before item carries no outcome: %s", b)
	}
	if got["context"].(map[string]any)["tool_name"] != "t" || !reflect.DeepEqual(got["arguments"], map[string]any{"a": 1.0}) {
		t.Fatalf("item = %s", b)
	}
}

// TestEncodeOutcomeRoundTrip: what an after hook observes decodes back to
// the same result or error, so an unchanged outcome survives the host.
func TestEncodeOutcomeRoundTrip(t *testing.T) {
	res, err := decodeOutcome(encodeOutcome(tool.Outcome{Result: tool.Result{Content: map[string]any{"x": 1}, Metadata: map[string]any{"m": "v"}}}))
	if err != nil {
		t.Fatal(err)
	}
	if string(res.Content.(json.RawMessage)) != `{"x":1}` || res.Metadata["m"] != "v" {
		t.Fatalf("result = %+v", res)
	}
	_, err = decodeOutcome(encodeOutcome(tool.Outcome{Err: tool.ModelRetry("again")}))
	if te := tool.AsError(err); te.Kind != tool.ErrorKindModelRetry || te.Message != "again" {
		t.Fatalf("err = %v", err)
	}
}

func TestHookSpecNeedsAPhase(t *testing.T) {
	if _, err := (hookSpec{ID: 1}).build(); err == nil {
		t.Fatal("a hook without phases was accepted")
	}
	h, err := (hookSpec{ID: 1, After: true}).build()
	if err != nil || h.Before != nil || h.After == nil {
		t.Fatalf("hook = %+v, %v", h, err)
	}
}

// TestToolSpecHooksThenValidators: a tool's validators run after its own
// before-hooks, where core/tool runs validators.
func TestToolSpecHooksThenValidators(t *testing.T) {
	built, err := toolSpec{ID: 9, Definition: tool.Definition{Name: "t"},
		Hooks: []hookSpec{{ID: 1, Name: "audit", Before: true, After: true}}, Validators: []int64{2, 3}}.build()
	if err != nil {
		t.Fatal(err)
	}
	hooks := tool.ConfigOf(built).Hooks
	var names []string
	for _, h := range hooks {
		names = append(names, h.Name)
	}
	if want := []string{"audit", "argument_validator", "argument_validator"}; !reflect.DeepEqual(names, want) {
		t.Fatalf("hooks = %v, want %v", names, want)
	}
	if hooks[1].After != nil || hooks[1].Before == nil {
		t.Fatal("a validator has a before phase only")
	}
	if _, err := (toolSpec{ID: 9, Definition: tool.Definition{Name: "t"}, Hooks: []hookSpec{{ID: 1}}}).build(); err == nil {
		t.Fatal("a hook without phases was accepted")
	}
}
