package tool_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/starweaver-go/starweaver/core/tool"
)

func TestFunctionDefinition(t *testing.T) {
	params := map[string]any{
		"type":       "object",
		"properties": map[string]any{"value": map[string]any{"type": "string", "description": "Value to echo."}},
		"required":   []any{"value"},
	}
	ret := map[string]any{"type": "object", "properties": map[string]any{"ok": map[string]any{"type": "boolean"}}}
	f := tool.New("echo", "Echo a value", params, echoHandler).
		WithReturnSchema(ret).
		WithStrict(true).
		WithSequential(true).
		WithMetadata(map[string]any{"bundle": "demo", "auto_inherit": true})
	d := f.Definition()
	if d.Name != "echo" || d.Description != "Echo a value" {
		t.Fatalf("name/description = %q/%q", d.Name, d.Description)
	}
	if !jsonEqual(t, d.Parameters, params) || !jsonEqual(t, d.ReturnSchema, ret) {
		t.Fatalf("schemas = %v / %v", d.Parameters, d.ReturnSchema)
	}
	if !d.IsStrict() || !d.IsSequential() || d.Strict == nil || d.Sequential == nil {
		t.Fatal("strict/sequential not set")
	}
	if d.Metadata["bundle"] != "demo" || d.Metadata["auto_inherit"] != true {
		t.Fatalf("metadata = %v", d.Metadata)
	}
	f.WithMetadata(map[string]any{"more": 1})
	if d2 := f.Definition(); d2.Metadata["bundle"] != "demo" || d2.Metadata["more"] != 1 {
		t.Fatalf("WithMetadata does not merge: %v", d2.Metadata)
	}

	// Unset flags stay absent.
	plain := tool.New("p", "", nil, okHandler).Definition()
	if plain.Strict != nil || plain.Sequential != nil || plain.IsStrict() || plain.IsSequential() {
		t.Fatal("unset flags are set")
	}
	b, _ := json.Marshal(plain)
	if string(b) != `{"name":"p","parameters":null}` {
		t.Fatalf("definition json = %s", b)
	}
	// WithStrict(false) is explicit.
	if d := tool.New("p", "", nil, okHandler).WithStrict(false).Definition(); d.Strict == nil || *d.Strict {
		t.Fatal("WithStrict(false) must record false")
	}
}

func TestFunctionDefinitionIsACopy(t *testing.T) {
	f := tool.New("t", "", nil, okHandler).WithMetadata(map[string]any{"a": 1})
	d := f.Definition()
	d.Metadata["a"] = "changed"
	d.Metadata["b"] = 2
	if got := f.Definition().Metadata; got["a"] != 1 || len(got) != 1 {
		t.Fatalf("changing a returned definition changed the tool: %v", got)
	}
	c := d.Clone()
	c.Metadata["c"] = 3
	if _, ok := d.Metadata["c"]; ok {
		t.Fatal("Clone shares metadata")
	}
}

func TestNewFromJSON(t *testing.T) {
	f, err := tool.NewFromJSON("echo", "Echo", []byte(`{"type":"object","properties":{"value":{"type":"string"}},"required":["value"]}`), echoHandler)
	if err != nil {
		t.Fatal(err)
	}
	r := mustRegistry(t, f)
	d, _ := r.Definition("echo")
	if !jsonEqual(t, d.Parameters, json.RawMessage(`{"type":"object","properties":{"value":{"type":"string"}},"required":["value"]}`)) {
		t.Fatalf("parameters = %v", d.Parameters)
	}
	ret := r.Execute(context.Background(), nil, call("1", "echo", `{"value":"hi"}`))
	wantSuccess(t, ret)
	if !jsonEqual(t, ret.Content, map[string]any{"value": "hi"}) {
		t.Fatalf("content = %v", ret.Content)
	}

	for _, bad := range []string{`[1]`, `"x"`, `{`, `nope`} {
		if _, err := tool.NewFromJSON("b", "", []byte(bad), okHandler); err == nil || !strings.Contains(err.Error(), `"b"`) {
			t.Errorf("NewFromJSON(%s) error = %v", bad, err)
		}
	}
	for _, none := range []string{``, `null`} {
		f, err := tool.NewFromJSON("n", "", []byte(none), okHandler)
		if err != nil {
			t.Fatalf("NewFromJSON(%q): %v", none, err)
		}
		d, _ := mustRegistry(t, f).Definition("n")
		if !jsonEqual(t, d.Parameters, map[string]any{"type": "object", "properties": map[string]any{}}) {
			t.Fatalf("parameters of %q = %v", none, d.Parameters)
		}
	}
}

func TestFunctionRuntimeOptionsInMetadata(t *testing.T) {
	f := tool.New("t", "", nil, okHandler).WithMaxRetries(5).WithTimeout(1500 * time.Millisecond)
	md := f.Definition().Metadata
	if md[tool.MetaMaxRetries] != 5 {
		t.Fatalf("max_retries metadata = %v", md[tool.MetaMaxRetries])
	}
	if md[tool.MetaTimeoutMS] != int64(1500) {
		t.Fatalf("timeout_ms metadata = %#v", md[tool.MetaTimeoutMS])
	}
	cfg := tool.ConfigOf(f)
	if cfg.MaxRetries == nil || *cfg.MaxRetries != 5 || cfg.Timeout != 1500*time.Millisecond {
		t.Fatalf("config = %+v", cfg)
	}
}

// tools that are not Configured get an empty config.
type bareTool struct{ name string }

func (b bareTool) Definition() tool.Definition { return tool.Definition{Name: b.name} }
func (b bareTool) Call(context.Context, *tool.Context, json.RawMessage) (tool.Result, error) {
	return tool.Text(b.name), nil
}

func TestConfigOfBareTool(t *testing.T) {
	cfg := tool.ConfigOf(bareTool{"b"})
	if cfg == nil || cfg.MaxRetries != nil || cfg.Timeout != 0 || len(cfg.Validators) != 0 {
		t.Fatalf("ConfigOf(bare) = %+v", cfg)
	}
	r := mustRegistry(t, bareTool{"b"})
	ret := r.Execute(context.Background(), nil, call("1", "b", `{"any":"thing"}`))
	wantSuccess(t, ret)
	if ret.Content != "b" {
		t.Fatalf("content = %v", ret.Content)
	}
}

func TestNilHandlerIsUserError(t *testing.T) {
	r := mustRegistry(t, tool.New("nohandler", "", nil, nil))
	ret := r.Execute(context.Background(), nil, call("1", "nohandler", `{}`))
	wantKind(t, ret, tool.ErrorKindUserError)
	if !strings.Contains(content(t, ret)["message"].(string), "no handler") {
		t.Fatalf("message = %v", content(t, ret)["message"])
	}
}

func TestUserInputPreprocessor(t *testing.T) {
	f := tool.New("write_file", "Write a reviewed file", map[string]any{"type": "object"}, echoHandler).
		WithUserInputPreprocessor(func(_ context.Context, _ *tool.Context, input json.RawMessage) (tool.PreprocessResult, error) {
			return tool.PreprocessResult{OverrideArguments: input, Metadata: map[string]any{"reviewed": true}}, nil
		})
	p := tool.ConfigOf(f).PreprocessUserInput
	if p == nil {
		t.Fatal("preprocessor not recorded")
	}
	got, err := p(context.Background(), &tool.Context{}, json.RawMessage(`{"path":"a.txt"}`))
	if err != nil || string(got.OverrideArguments) != `{"path":"a.txt"}` || got.Metadata["reviewed"] != true {
		t.Fatalf("preprocess = %+v, %v", got, err)
	}
}
