package tool_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/starweaver-go/starweaver/core/tool"
)

// echoHandler returns its arguments, decoded, as the content.
func echoHandler(_ context.Context, _ *tool.Context, args json.RawMessage) (tool.Result, error) {
	var v any
	if err := json.Unmarshal(args, &v); err != nil {
		return tool.Result{}, err
	}
	return tool.JSON(v), nil
}

// okHandler returns "ok".
func okHandler(context.Context, *tool.Context, json.RawMessage) (tool.Result, error) {
	return tool.Text("ok"), nil
}

// mustRegistry builds a registry or fails the test.
func mustRegistry(t testing.TB, tools ...tool.Tool) *tool.Registry {
	t.Helper()
	r, err := tool.NewRegistry(tools...)
	if err != nil {
		t.Fatalf("NewRegistry: %v", err)
	}
	return r
}

// call builds a tool.Call with JSON arguments.
func call(id, name, args string) tool.Call {
	return tool.Call{ID: id, Name: name, Arguments: json.RawMessage(args)}
}

// content returns the error content object of a return.
func content(t testing.TB, r tool.Return) map[string]any {
	t.Helper()
	m, ok := r.Content.(map[string]any)
	if !ok {
		t.Fatalf("content is %T (%v), want an object", r.Content, r.Content)
	}
	return m
}

// wantKind fails unless r is an error return of kind k.
func wantKind(t testing.TB, r tool.Return, k tool.ErrorKind) {
	t.Helper()
	if got := r.ErrorKind(); got != k {
		t.Fatalf("error kind = %q, want %q (content %v)", got, k, r.Content)
	}
	if got := content(t, r)["kind"]; got != string(k) {
		t.Fatalf("content kind = %v, want %q", got, k)
	}
}

// wantSuccess fails unless r is a successful return.
func wantSuccess(t testing.TB, r tool.Return) {
	t.Helper()
	if k := r.ErrorKind(); k != "" {
		t.Fatalf("want success, got error kind %q: %v", k, r.Content)
	}
}

// mustJSON marshals v or fails.
func mustJSON(t testing.TB, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("marshal %v: %v", v, err)
	}
	return string(b)
}

// jsonEqual compares two values by their JSON encodings.
func jsonEqual(t testing.TB, got, want any) bool {
	t.Helper()
	var g, w any
	if err := json.Unmarshal([]byte(mustJSON(t, got)), &g); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(mustJSON(t, want)), &w); err != nil {
		t.Fatal(err)
	}
	return mustJSON(t, g) == mustJSON(t, w)
}

func ptr[T any](v T) *T { return &v }
