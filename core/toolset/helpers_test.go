package toolset_test

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/starweaver-go/starweaver/core/tool"
	"github.com/starweaver-go/starweaver/core/toolset"
)

// probe records the calls a test tool received.
type probe struct {
	mu    sync.Mutex
	calls int
	args  []string
	names []string
}

func (p *probe) record(tc *tool.Context, args json.RawMessage) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.calls++
	p.args = append(p.args, string(args))
	p.names = append(p.names, tc.ToolName)
}

func (p *probe) count() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.calls
}

func (p *probe) lastArgs() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.args) == 0 {
		return ""
	}
	return p.args[len(p.args)-1]
}

var valueSchema = map[string]any{
	"type":       "object",
	"properties": map[string]any{"value": map[string]any{"type": "string"}},
	"required":   []any{"value"},
}

// echo returns a tool named name that returns its arguments as content
// and {"ran": name} as metadata.
func echo(name string, p *probe) *tool.Function {
	return tool.New(name, "Echo for "+name, valueSchema, func(_ context.Context, tc *tool.Context, args json.RawMessage) (tool.Result, error) {
		if p != nil {
			p.record(tc, args)
		}
		var v map[string]any
		if err := json.Unmarshal(args, &v); err != nil {
			return tool.Result{}, err
		}
		return tool.Result{Content: v, Metadata: map[string]any{"ran": name}}, nil
	})
}

// blocking returns a tool that waits until its context ends.
func blocking(name string, p *probe) *tool.Function {
	return tool.New(name, "Blocks", nil, func(ctx context.Context, tc *tool.Context, args json.RawMessage) (tool.Result, error) {
		if p != nil {
			p.record(tc, args)
		}
		<-ctx.Done()
		return tool.Result{}, ctx.Err()
	})
}

func register(t *testing.T, rc *tool.RunContext, sets ...toolset.Toolset) *tool.Registry {
	t.Helper()
	r := &tool.Registry{}
	if err := toolset.Register(r, rc, sets...); err != nil {
		t.Fatalf("Register: %v", err)
	}
	return r
}

func execute(r *tool.Registry, tc *tool.Context, name, args string) tool.Return {
	if tc == nil {
		tc = &tool.Context{RunID: "run1"}
	}
	return r.Execute(context.Background(), tc, tool.Call{ID: "call1", Name: name, Arguments: json.RawMessage(args)})
}

func names(t *testing.T, ts toolset.Toolset, rc *tool.RunContext) []string {
	t.Helper()
	tools, err := ts.Tools(rc)
	if err != nil {
		t.Fatalf("%s.Tools: %v", ts.Name(), err)
	}
	out := make([]string, len(tools))
	for i, tl := range tools {
		out[i] = tl.Definition().Name
	}
	return out
}

func definition(t *testing.T, ts toolset.Toolset, name string) tool.Definition {
	t.Helper()
	tools, err := ts.Tools(nil)
	if err != nil {
		t.Fatalf("%s.Tools: %v", ts.Name(), err)
	}
	for _, tl := range tools {
		if d := tl.Definition(); d.Name == name {
			return d
		}
	}
	t.Fatalf("toolset %s has no tool %q", ts.Name(), name)
	return tool.Definition{}
}

func content(t *testing.T, ret tool.Return) map[string]any {
	t.Helper()
	m, ok := ret.Content.(map[string]any)
	if !ok {
		t.Fatalf("content is %T (%v), want an object", ret.Content, ret.Content)
	}
	return m
}

func wantSuccess(t *testing.T, ret tool.Return) {
	t.Helper()
	if ret.IsError || ret.ErrorKind() != "" {
		t.Fatalf("want success, got kind %q: %v", ret.ErrorKind(), ret.Content)
	}
}

func wantKind(t *testing.T, ret tool.Return, kind tool.ErrorKind) {
	t.Helper()
	if got := ret.ErrorKind(); got != kind {
		t.Fatalf("error kind = %q, want %q (content %v)", got, kind, ret.Content)
	}
	if got := content(t, ret)["kind"]; got != string(kind) {
		t.Fatalf("content kind = %v, want %q", got, kind)
	}
}

const shortTimeout = 20 * time.Millisecond
