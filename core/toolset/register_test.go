package toolset_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/starweaver-go/starweaver/core/tool"
	"github.com/starweaver-go/starweaver/core/toolset"
)

func TestRegisterAddsEveryToolsetWithItsIdentity(t *testing.T) {
	a := toolset.New("a", echo("a1", nil)).WithID("a_id")
	b := toolset.New("b", echo("b1", nil))
	r := register(t, nil, a, b)
	if got := r.Names(); !slices.Equal(got, []string{"a1", "b1"}) {
		t.Fatalf("names = %v", got)
	}
	if e, _ := r.Entry("a1"); e.Toolset != "a" || e.ToolsetID != "a_id" || e.MaxRetries != nil || e.Timeout != 0 {
		t.Fatalf("entry a1 = %+v", e)
	}
	if e, _ := r.Entry("b1"); e.Toolset != "b" || e.ToolsetID != "" {
		t.Fatalf("entry b1 = %+v", e)
	}
}

func TestRegisterDuplicateAcrossToolsetsIsAtomic(t *testing.T) {
	r := &tool.Registry{}
	err := toolset.Register(r, nil,
		toolset.New("docs", echo("fresh", nil), echo("lookup", nil)),
		toolset.New("web", echo("lookup", nil)))
	var dup *toolset.DuplicateError
	if !errors.As(err, &dup) || dup.Tool != "lookup" || dup.First != "docs" || dup.Second != "web" {
		t.Fatalf("err = %v", err)
	}
	if !errors.Is(err, tool.ErrDuplicateTool) {
		t.Fatalf("err does not wrap tool.ErrDuplicateTool: %v", err)
	}
	if r.Len() != 0 {
		t.Fatalf("registry holds %v after a failed Register", r.Names())
	}
}

func TestRegisterDuplicateAgainstTheRegistry(t *testing.T) {
	r, err := tool.NewRegistry(echo("lookup", nil))
	if err != nil {
		t.Fatal(err)
	}
	err = toolset.Register(r, nil, toolset.New("docs", echo("other", nil), echo("lookup", nil)))
	var dup *toolset.DuplicateError
	if !errors.As(err, &dup) || dup.Tool != "lookup" || dup.First != "" || dup.Second != "docs" {
		t.Fatalf("err = %v", err)
	}
	if !strings.Contains(err.Error(), "already registered") {
		t.Fatalf("message = %v", err)
	}
	if got := r.Names(); !slices.Equal(got, []string{"lookup"}) {
		t.Fatalf("registry = %v after a failed Register", got)
	}

	// Against a tool contributed by an earlier Register, both toolsets are named.
	r = register(t, nil, toolset.New("docs", echo("lookup", nil)))
	err = toolset.Register(r, nil, toolset.New("web", echo("lookup", nil)))
	if !errors.As(err, &dup) || dup.First != "docs" || dup.Second != "web" {
		t.Fatalf("err = %v", err)
	}
}

func TestRegisterReportsToolErrorsWithTheToolset(t *testing.T) {
	bad := tool.New("bad", "", map[string]any{"type": "string"}, nil)
	r := &tool.Registry{}
	err := toolset.Register(r, nil, toolset.New("ok", echo("fine", nil)), toolset.New("broken", bad))
	if !errors.Is(err, tool.ErrSchema) || !strings.Contains(err.Error(), `toolset "broken"`) {
		t.Fatalf("err = %v", err)
	}
	if r.Len() != 0 {
		t.Fatalf("registry = %v after a failed Register", r.Names())
	}

	err = toolset.Register(r, nil, toolset.Prefixed("", toolset.New("named", echo("x", nil))))
	if err == nil || !strings.Contains(err.Error(), `toolset "_named"`) {
		t.Fatalf("err = %v", err)
	}
}

func TestRegisterMisuse(t *testing.T) {
	if err := toolset.Register(nil, nil, toolset.New("s")); err == nil {
		t.Fatal("nil registry accepted")
	}
	if err := toolset.Register(&tool.Registry{}, nil, nil); err == nil {
		t.Fatal("nil toolset accepted")
	}
	if err := toolset.Register(&tool.Registry{}, nil, nilTools{}); err == nil || !strings.Contains(err.Error(), "nil tool") {
		t.Fatalf("nil tool: err = %v", err)
	}
	if err := toolset.Register(&tool.Registry{}, nil); err != nil {
		t.Fatalf("no toolsets: %v", err)
	}
}

// nilTools is a misbehaving toolset that returns a nil tool.
type nilTools struct{}

func (nilTools) Name() string                                        { return "nil_tools" }
func (nilTools) ID() string                                          { return "" }
func (nilTools) Tools(*tool.RunContext) ([]tool.Tool, error)         { return []tool.Tool{nil}, nil }
func (nilTools) Instructions(*tool.RunContext) []toolset.Instruction { return nil }
func (nilTools) Defaults() toolset.Defaults                          { return toolset.Defaults{} }

func TestRegisterCompilesWithTheRegistrysSchemaCache(t *testing.T) {
	cache := &tool.SchemaCache{}
	ts := toolset.New("s", echo("a", nil), echo("b", nil))
	register := func() {
		r := &tool.Registry{}
		r.SetSchemaCache(cache)
		if err := toolset.Register(r, nil, ts); err != nil {
			t.Fatal(err)
		}
	}
	register()
	// Registering again finds the compiled schema: compiling it once more
	// would cost thousands of allocations.
	if n := testing.AllocsPerRun(10, register); n > 200 {
		t.Fatalf("%v allocations per registration", n)
	}
}
