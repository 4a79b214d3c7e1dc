package filesystem_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/starweaver-go/starweaver/core/bundles/filesystem"
	"github.com/starweaver-go/starweaver/core/env"
	"github.com/starweaver-go/starweaver/core/tool"
	"github.com/starweaver-go/starweaver/core/toolset"
)

// harness runs the bundle's tools over one provider.
type harness struct {
	t   *testing.T
	reg *tool.Registry
	p   env.Provider
}

func newHarness(t *testing.T, p env.Provider) *harness {
	t.Helper()
	r := &tool.Registry{}
	if err := toolset.Register(r, nil, filesystem.Tools()); err != nil {
		t.Fatalf("register: %v", err)
	}
	return &harness{t: t, reg: r, p: p}
}

// run calls a tool with args (a JSON string or a value) and returns its
// return.
func (h *harness) run(name string, args any) tool.Return {
	h.t.Helper()
	raw, ok := args.(string)
	if !ok {
		b, err := json.Marshal(args)
		if err != nil {
			h.t.Fatal(err)
		}
		raw = string(b)
	}
	deps := &tool.Deps{}
	if h.p != nil {
		deps.SetNamed(filesystem.EnvironmentCapability, h.p)
	}
	return h.reg.Execute(context.Background(), &tool.Context{Deps: deps},
		tool.Call{ID: "call_1", Name: name, Arguments: json.RawMessage(raw)})
}

// ok calls a tool, requires success and returns its content as plain JSON.
func (h *harness) ok(name string, args any) any {
	h.t.Helper()
	ret := h.run(name, args)
	if ret.Runtime != nil && ret.Runtime.ErrorKind != "" {
		h.t.Fatalf("%s(%v) failed: %s %v", name, args, ret.Runtime.ErrorKind, ret.Content)
	}
	return plain(h.t, ret.Content)
}

// obj is ok for tools returning an object.
func (h *harness) obj(name string, args any) map[string]any {
	h.t.Helper()
	m, isMap := h.ok(name, args).(map[string]any)
	if !isMap {
		h.t.Fatalf("%s returned %T, not an object", name, m)
	}
	return m
}

// feedback calls a tool, requires feedback and returns its message, which
// must contain every one of want.
func (h *harness) feedback(name string, args any, want ...string) string {
	h.t.Helper()
	return h.kind(tool.ErrorKindFeedback, name, args, want...)
}

func (h *harness) kind(k tool.ErrorKind, name string, args any, want ...string) string {
	h.t.Helper()
	ret := h.run(name, args)
	if ret.Runtime == nil || ret.Runtime.ErrorKind != k {
		h.t.Fatalf("%s(%v): want %s, got %+v", name, args, k, ret.Content)
	}
	msg := tool.ErrorMessage(ret)
	for _, w := range want {
		if !strings.Contains(msg, w) {
			h.t.Fatalf("%s(%v): message %q does not contain %q", name, args, msg, w)
		}
	}
	return msg
}

func plain(t *testing.T, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// paths returns the "path" of every match of a glob or grep result.
func paths(t *testing.T, res map[string]any) []string {
	t.Helper()
	ms, _ := res["matches"].([]any)
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i], _ = m.(map[string]any)["path"].(string)
	}
	return out
}

// files lists a virtual provider's files with their content.
func files(t *testing.T, v *env.Virtual) map[string]string {
	t.Helper()
	s, err := v.ExportState()
	if err != nil {
		t.Fatal(err)
	}
	return s.Files
}

// broken is a provider whose every operation fails unexpectedly, and
// which counts the operations that reached it.
type broken struct {
	env.Provider
	calls int
}

var errDisk = errors.New("disk on fire")

func (b *broken) ReadFile(context.Context, string, int64, int64) ([]byte, error) {
	b.calls++
	return nil, errDisk
}

func (b *broken) WriteFile(context.Context, string, []byte, env.WriteOptions) error {
	b.calls++
	return errDisk
}

func (b *broken) Stat(context.Context, string) (env.FileInfo, error) {
	b.calls++
	return env.FileInfo{}, errDisk
}

func (b *broken) ReadDir(context.Context, string) ([]env.FileInfo, error) {
	b.calls++
	return nil, errDisk
}

func (b *broken) Walk(context.Context, string, func(env.FileInfo) error) error {
	b.calls++
	return errDisk
}

func (b *broken) Mkdir(context.Context, string, bool) error {
	b.calls++
	return errDisk
}

func (b *broken) Remove(context.Context, string, bool) error {
	b.calls++
	return errDisk
}

func (b *broken) Rename(context.Context, string, string, bool) error {
	b.calls++
	return errDisk
}

func (b *broken) Copy(context.Context, string, string, bool) error {
	b.calls++
	return errDisk
}

func (b *broken) WriteScratch(context.Context, string, []byte) (string, error) {
	b.calls++
	return "", errDisk
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
