package tool_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/invopop/jsonschema"

	"github.com/starweaver-go/starweaver/core/tool"
)

// SearchArgs are the arguments of the search tool. Its doc comments are read
// by WithGoComments in TestTypedGoComments; invopop reads _test.go files
// too, but only for exported types.
type SearchArgs struct {
	// Query text submitted by the model.
	Query string `json:"query"`
	// Limit is documented here, but the tag description wins.
	Limit int `json:"limit,omitempty" jsonschema:"description=Maximum number of results to return.,default=10,minimum=1,maximum=100"`
	// Mode selects the ranking.
	Mode string `json:"mode,omitempty" jsonschema:"enum=fast,enum=exact,default=fast"`
	// Filter narrows the search.
	Filter *SearchFilter `json:"filter,omitempty"`
	// Tags must all match.
	Tags []string `json:"tags,omitempty"`
}

// SearchFilter narrows a search.
type SearchFilter struct {
	// Owner of the documents.
	Owner string `json:"owner"`
}

const testPkg = "github.com/starweaver-go/starweaver/core/tool"

func prop(t *testing.T, schema map[string]any, name string) map[string]any {
	t.Helper()
	props, ok := schema["properties"].(map[string]any)
	if !ok {
		t.Fatalf("schema has no properties: %v", schema)
	}
	p, ok := props[name].(map[string]any)
	if !ok {
		t.Fatalf("schema has no property %q: %v", name, props)
	}
	return p
}

func TestSchemaOfTags(t *testing.T) {
	s, err := tool.SchemaOf[SearchArgs]()
	if err != nil {
		t.Fatal(err)
	}
	if s["type"] != "object" {
		t.Fatalf("type = %v", s["type"])
	}
	limit := prop(t, s, "limit")
	if limit["description"] != "Maximum number of results to return." || !jsonEqual(t, limit["default"], 10) ||
		!jsonEqual(t, limit["minimum"], 1) || !jsonEqual(t, limit["maximum"], 100) || limit["type"] != "integer" {
		t.Fatalf("limit = %v", limit)
	}
	mode := prop(t, s, "mode")
	if !jsonEqual(t, mode["enum"], []string{"fast", "exact"}) || mode["default"] != "fast" {
		t.Fatalf("mode = %v", mode)
	}
	if d, has := prop(t, s, "query")["description"]; has {
		t.Fatalf("query has description %v without WithGoComments", d)
	}
	req, _ := s["required"].([]any)
	if !jsonEqual(t, req, []string{"query"}) {
		t.Fatalf("required = %v", s["required"])
	}
	if s["additionalProperties"] != false {
		t.Fatalf("additionalProperties = %v", s["additionalProperties"])
	}
}

// WithGoComments reads _test.go files. invopop keys comments by the import
// path given as base, and looks types up by their package path, so types
// declared in this external test package need the "_test" path.
func TestTypedGoComments(t *testing.T) {
	s, err := tool.SchemaOf[SearchArgs](tool.WithGoComments(testPkg+"_test", "."))
	if err != nil {
		t.Fatal(err)
	}
	if got := prop(t, s, "query")["description"]; got != "Query text submitted by the model." {
		t.Fatalf("query description = %v", got)
	}
	if got := prop(t, s, "limit")["description"]; got != "Maximum number of results to return." {
		t.Fatalf("limit description = %v (tag must win over the comment)", got)
	}
	if got := prop(t, s, "mode")["description"]; got != "Mode selects the ranking." {
		t.Fatalf("mode description = %v", got)
	}
	defs, _ := s["$defs"].(map[string]any)
	filter, _ := defs["SearchFilter"].(map[string]any)
	if filter == nil || prop(t, filter, "owner")["description"] != "Owner of the documents." {
		t.Fatalf("nested definition = %v", defs)
	}
	// With the package's own path, types of the external test package are
	// not found (their package path ends in _test).
	s, err = tool.SchemaOf[SearchArgs](tool.WithGoComments(testPkg, "."))
	if err != nil {
		t.Fatal(err)
	}
	if d := prop(t, s, "query")["description"]; d != nil {
		t.Fatalf("unexpected description %v", d)
	}
	// A missing directory is a build error that registration reports.
	f := tool.Typed("bad", "", func(context.Context, *tool.Context, SearchArgs) (tool.Result, error) {
		return tool.Text("x"), nil
	}, tool.WithGoComments(testPkg, "./does-not-exist"))
	if f.Err() == nil {
		t.Fatal("Err() = nil for a missing comments directory")
	}
	if _, err := tool.NewRegistry(f); err == nil || !strings.Contains(err.Error(), `"bad"`) {
		t.Fatalf("registration error = %v", err)
	}
}

func TestTypedTool(t *testing.T) {
	var got []SearchArgs
	search := tool.Typed("search", "Search documents", func(_ context.Context, tc *tool.Context, args SearchArgs) (tool.Result, error) {
		if tc.ToolName != "search" {
			return tool.Result{}, errors.New("wrong context")
		}
		got = append(got, args)
		return tool.JSON(map[string]any{"query": args.Query, "limit": args.Limit}), nil
	}, tool.WithGoComments(testPkg+"_test", "."))
	if search.Err() != nil {
		t.Fatal(search.Err())
	}
	r := mustRegistry(t, search)
	d, _ := r.Definition("search")
	if d.Description != "Search documents" {
		t.Fatalf("description = %q", d.Description)
	}
	if _, has := d.Parameters["$schema"]; has {
		t.Fatal("$schema kept in the registered definition")
	}
	if prop(t, d.Parameters, "query")["description"] != "Query text submitted by the model." {
		t.Fatalf("parameters = %v", d.Parameters)
	}

	// Defaults are honoured when arguments omit them.
	ret := r.Execute(context.Background(), nil, call("1", "search", `{"query":"go"}`))
	wantSuccess(t, ret)
	if !jsonEqual(t, ret.Content, map[string]any{"query": "go", "limit": 10}) {
		t.Fatalf("content = %v", ret.Content)
	}
	// Given arguments win over defaults and nested values decode.
	wantSuccess(t, r.Execute(context.Background(), nil, call("2", "search",
		`{"query":"rust","limit":3,"mode":"exact","filter":{"owner":"ann"},"tags":["a","b"]}`)))
	want := []SearchArgs{
		{Query: "go", Limit: 10, Mode: "fast"},
		{Query: "rust", Limit: 3, Mode: "exact", Filter: &SearchFilter{Owner: "ann"}, Tags: []string{"a", "b"}},
	}
	if len(got) != 2 || got[0].Query != want[0].Query || got[0].Limit != want[0].Limit || got[0].Mode != want[0].Mode || got[0].Filter != nil ||
		got[1].Limit != 3 || got[1].Mode != "exact" || got[1].Filter == nil || got[1].Filter.Owner != "ann" || !slices.Equal(got[1].Tags, want[1].Tags) {
		t.Fatalf("decoded = %+v", got)
	}

	// The schema is enforced before the function runs.
	for _, bad := range []string{
		`{}`,
		`{"query":"x","limit":0}`,
		`{"query":"x","limit":101}`,
		`{"query":"x","mode":"slow"}`,
		`{"query":"x","filter":{}}`,
		`{"query":"x","extra":1}`,
		`{"query":"x","LIMIT":500}`,
		`{"query":1}`,
	} {
		n := len(got)
		wantKind(t, r.Execute(context.Background(), nil, call("3", "search", bad)), tool.ErrorKindInvalidArguments)
		if len(got) != n {
			t.Fatalf("function ran for %s", bad)
		}
	}
}

// A default makes an argument optional even without omitempty, as serde's
// #[serde(default)] does.
type PagedArgs struct {
	Page int    `json:"page" jsonschema:"default=1"`
	Size int    `json:"size" jsonschema:"default=20"`
	Term string `json:"term"`
}

func TestTypedDefaultsMakeArgumentsOptional(t *testing.T) {
	var got PagedArgs
	f := tool.Typed("paged", "", func(_ context.Context, _ *tool.Context, args PagedArgs) (tool.Result, error) {
		got = args
		return tool.Text("ok"), nil
	})
	r := mustRegistry(t, f)
	d, _ := r.Definition("paged")
	if !jsonEqual(t, d.Parameters["required"], []string{"term"}) {
		t.Fatalf("required = %v", d.Parameters["required"])
	}
	wantSuccess(t, r.Execute(context.Background(), nil, call("1", "paged", `{"term":"x","size":5}`)))
	if got != (PagedArgs{Page: 1, Size: 5, Term: "x"}) {
		t.Fatalf("args = %+v", got)
	}
}

func TestTypedArgumentValidatorRunsBeforeDecoding(t *testing.T) {
	var got SearchArgs
	f := tool.Typed("s", "", func(_ context.Context, _ *tool.Context, args SearchArgs) (tool.Result, error) {
		got = args
		return tool.Text("ok"), nil
	}).WithArgumentValidator(func(_ *tool.Context, args map[string]any) error {
		q, _ := args["query"].(string)
		args["query"] = strings.ToLower(strings.TrimSpace(q))
		if args["query"] == "" {
			return tool.InvalidArguments("query must not be blank")
		}
		return nil
	})
	r := mustRegistry(t, f)
	wantSuccess(t, r.Execute(context.Background(), nil, call("1", "s", `{"query":"  GoLang "}`)))
	if got.Query != "golang" {
		t.Fatalf("query = %q", got.Query)
	}
	wantKind(t, r.Execute(context.Background(), nil, call("2", "s", `{"query":"   "}`)), tool.ErrorKindInvalidArguments)
}

func TestTypedEdgeCases(t *testing.T) {
	// A nil function is a user error at call time, not a panic.
	f := tool.Typed[SearchArgs]("nilfn", "", nil)
	r := mustRegistry(t, f)
	wantKind(t, r.Execute(context.Background(), nil, call("1", "nilfn", `{"query":"x"}`)), tool.ErrorKindUserError)

	// A non-object argument type cannot be registered.
	s := tool.Typed("str", "", func(context.Context, *tool.Context, string) (tool.Result, error) { return tool.Text("x"), nil })
	if _, err := tool.NewRegistry(s); !errors.Is(err, tool.ErrSchema) {
		t.Fatalf("string arguments: %v, want ErrSchema", err)
	}

	// A struct without fields takes no arguments.
	type none struct{}
	n := tool.Typed("none", "", func(context.Context, *tool.Context, none) (tool.Result, error) { return tool.Text("x"), nil })
	r = mustRegistry(t, n)
	wantSuccess(t, r.Execute(context.Background(), nil, call("1", "none", ``)))
	wantKind(t, r.Execute(context.Background(), nil, call("2", "none", `{"x":1}`)), tool.ErrorKindInvalidArguments)

	// A custom reflector is used as given.
	loose := tool.Typed("loose", "", func(_ context.Context, _ *tool.Context, a SearchArgs) (tool.Result, error) {
		return tool.Text(a.Query), nil
	},
		tool.WithReflector(&jsonschema.Reflector{ExpandedStruct: true, AllowAdditionalProperties: true}))
	r = mustRegistry(t, loose)
	ret := r.Execute(context.Background(), nil, call("1", "loose", `{"query":"q","extra":1}`))
	wantSuccess(t, ret)
	if ret.Content != "q" {
		t.Fatalf("content = %v", ret.Content)
	}
}
