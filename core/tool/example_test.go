package tool_test

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/starweaver-go/starweaver/core/tool"
)

// LookupArgs are the arguments of the lookup tool.
type LookupArgs struct {
	// Search query to look up.
	Query string `json:"query"`
}

// A typed tool derives its schema from a Go struct and receives decoded
// arguments.
func ExampleTyped() {
	lookup := tool.Typed("lookup", "Lookup a value",
		func(_ context.Context, _ *tool.Context, args LookupArgs) (tool.Result, error) {
			return tool.JSON(map[string]any{"value": args.Query}), nil
		},
		// Field doc comments become argument descriptions. Types declared
		// in an external test package live under the "_test" import path.
		tool.WithGoComments("github.com/starweaver-go/starweaver/core/tool_test", "."))

	registry, err := tool.NewRegistry(lookup)
	if err != nil {
		panic(err)
	}
	fmt.Println(registry.Len() > 0)

	def, _ := registry.Definition("lookup")
	query := def.Parameters["properties"].(map[string]any)["query"].(map[string]any)
	fmt.Println(query["description"])

	ret := registry.Execute(context.Background(), nil, tool.Call{ID: "1", Name: "lookup", Arguments: json.RawMessage(`{"query":"go"}`)})
	fmt.Println(ret.Content)
	// Output:
	// true
	// Search query to look up.
	// map[value:go]
}

// A function tool takes a schema given as data, for example from MCP.
func ExampleNew() {
	parameters := map[string]any{
		"type": "object",
		"properties": map[string]any{
			"value": map[string]any{"type": "string", "description": "Value to echo."},
		},
		"required": []any{"value"},
	}
	echo := tool.New("echo", "Echo a JSON value", parameters,
		func(_ context.Context, _ *tool.Context, args json.RawMessage) (tool.Result, error) {
			var v any
			err := json.Unmarshal(args, &v)
			return tool.JSON(v), err
		})
	registry, err := tool.NewRegistry(echo)
	if err != nil {
		panic(err)
	}
	fmt.Println(registry.Len() > 0)

	ok := registry.Execute(context.Background(), nil, tool.Call{ID: "1", Name: "echo", Arguments: json.RawMessage(`{"value":"hi"}`)})
	fmt.Println(ok.Content, ok.IsError)

	bad := registry.Execute(context.Background(), nil, tool.Call{ID: "2", Name: "echo", Arguments: json.RawMessage(`{}`)})
	fmt.Println(bad.ErrorKind(), bad.IsError)
	// Output:
	// true
	// map[value:hi] false
	// invalid_arguments true
}

func ExampleFunction_WithReturnSchema() {
	schema := map[string]any{
		"type":       "object",
		"properties": map[string]any{"ok": map[string]any{"type": "boolean"}},
		"required":   []any{"ok"},
	}
	status := tool.New("status", "Return status", map[string]any{"type": "object", "properties": map[string]any{}},
		func(context.Context, *tool.Context, json.RawMessage) (tool.Result, error) {
			return tool.JSON(map[string]any{"ok": true}), nil
		}).WithReturnSchema(schema)

	registry, _ := tool.NewRegistry(status)
	def := registry.Definitions()[0]
	b, _ := json.Marshal(def.ReturnSchema)
	fmt.Println(string(b))
	// Output:
	// {"properties":{"ok":{"type":"boolean"}},"required":["ok"],"type":"object"}
}

func ExampleFunction_WithTags() {
	t := tool.New("search_files", "Search files", nil, nil).
		WithTags("filesystem", "search").
		WithHiddenByTags("remote-search")

	def := t.Definition()
	fmt.Println(tool.MetadataTags(def.Metadata))
	fmt.Println(tool.MetadataHiddenByTags(def.Metadata))
	fmt.Println(tool.HiddenByActiveTags(def.Metadata, []string{"remote-search"}))
	// Output:
	// [filesystem search]
	// [remote-search]
	// true
}

func ExampleFunction_WithKind() {
	t := tool.New("external_search", "Search externally", nil, nil).WithKind(tool.KindExternal)
	kind, ok := tool.MetadataKind(t.Definition().Metadata)
	fmt.Println(kind, ok)
	// Output:
	// external true
}

func ExampleFunction_WithStrict() {
	t := tool.New("status", "Return status", map[string]any{"type": "object", "properties": map[string]any{}}, nil).
		WithStrict(true).
		WithSequential(true)
	def := t.Definition()
	fmt.Println(*def.Strict, *def.Sequential)
	// Output:
	// true true
}

func ExampleFunction_WithAvailability() {
	gated := tool.New("gated", "Only visible when enabled", nil, nil).
		WithAvailability(func(rc *tool.RunContext) bool {
			enabled, _ := rc.Metadata["enable_gated_tool"].(bool)
			return enabled
		})
	registry, _ := tool.NewRegistry(gated)

	hidden := registry.DefinitionsFor(&tool.RunContext{})
	visible := registry.DefinitionsFor(&tool.RunContext{Metadata: map[string]any{"enable_gated_tool": true}})
	fmt.Println(len(hidden.Definitions), hidden.Available, hidden.Unavailable)
	fmt.Println(visible.Definitions[0].Name)
	// Output:
	// 0 [] [gated]
	// gated
}

func ExampleFunction_WithPrepareDefinition() {
	t := tool.New("tenant_lookup", "Lookup tenant data", nil, nil).
		WithPrepareDefinition(func(rc *tool.RunContext, d tool.Definition) (tool.Definition, bool) {
			tenant, ok := rc.Metadata["tenant"].(string)
			if !ok {
				return d, false // hidden for this run, still registered
			}
			d.Description = "Lookup data for tenant " + tenant
			return d, true
		})
	registry, _ := tool.NewRegistry(t)
	fmt.Println(len(registry.DefinitionsFor(&tool.RunContext{}).Definitions))
	fmt.Println(registry.DefinitionsFor(&tool.RunContext{Metadata: map[string]any{"tenant": "acme"}}).Definitions[0].Description)
	// Output:
	// 0
	// Lookup data for tenant acme
}

func ExampleFunction_WithArgumentValidator() {
	t := tool.New("validated", "Validated tool", map[string]any{"type": "object", "properties": map[string]any{}},
		func(_ context.Context, _ *tool.Context, args json.RawMessage) (tool.Result, error) {
			return tool.Text(string(args)), nil
		}).
		WithArgumentValidator(func(_ *tool.Context, args map[string]any) error {
			if args["allow"] == true {
				args["normalized"] = true
				return nil
			}
			return tool.InvalidArguments("allow must be true")
		})
	registry, _ := tool.NewRegistry(t)
	fmt.Println(registry.Names())

	ok := registry.Execute(context.Background(), nil, tool.Call{ID: "1", Name: "validated", Arguments: json.RawMessage(`{"allow":true}`)})
	fmt.Println(ok.Content)
	denied := registry.Execute(context.Background(), nil, tool.Call{ID: "2", Name: "validated", Arguments: json.RawMessage(`{}`)})
	fmt.Println(denied.ErrorKind(), denied.Content.(map[string]any)["message"])
	// Output:
	// [validated]
	// {"allow":true,"normalized":true}
	// invalid_arguments allow must be true
}

// NewFunction builds a function tool from one FunctionOptions and returns
// an invalid setting as its error.
func ExampleNewFunction() {
	retries := 1
	lookup, err := tool.NewFunction("lookup",
		func(context.Context, *tool.Context, json.RawMessage) (tool.Result, error) {
			return tool.Text("found"), nil
		},
		tool.FunctionOptions{
			Description: "Look up a document",
			Parameters:  map[string]any{"type": "object", "properties": map[string]any{"query": map[string]any{"type": "string"}}},
			Tags:        []string{"search"},
			MaxRetries:  &retries,
			Timeout:     2 * time.Second,
		})
	if err != nil {
		panic(err)
	}
	var registry tool.Registry
	if err := registry.Add(lookup); err != nil {
		panic(err)
	}
	fmt.Println(registry.TimeoutFor("lookup"), lookup.Definition().Metadata["tags"])

	_, err = tool.NewFunction("slow", nil, tool.FunctionOptions{Timeout: -time.Second})
	fmt.Println(err)
	// Output:
	// 2s [search]
	// tool: invalid option: timeout_ms must be positive, got -1000
}

func ExampleRegistry_TimeoutFor() {
	echo := tool.New("echo", "Echo a JSON value", map[string]any{"type": "object", "properties": map[string]any{}}, nil).
		WithTimeout(time.Second)
	var registry tool.Registry
	registry.SetTimeout(5 * time.Second)
	if err := registry.Add(echo); err != nil {
		panic(err)
	}
	fmt.Println(registry.TimeoutFor("echo"))
	fmt.Println(registry.TimeoutFor("other"))
	// Output:
	// 1s
	// 5s
}

func ExampleFunction_WithUserInputPreprocessor() {
	t := tool.New("write_file", "Write a reviewed file", map[string]any{"type": "object"}, nil).
		WithUserInputPreprocessor(func(_ context.Context, _ *tool.Context, input json.RawMessage) (tool.PreprocessResult, error) {
			return tool.PreprocessResult{OverrideArguments: input}, nil
		})
	pre := tool.ConfigOf(t).PreprocessUserInput
	out, _ := pre(context.Background(), &tool.Context{}, json.RawMessage(`{"path":"notes.txt"}`))
	fmt.Println(string(out.OverrideArguments))
	// Output:
	// {"path":"notes.txt"}
}

// Calls of one model response run in parallel unless something asks for
// model order; returns always come back in model order.
func ExampleRegistry_ExecuteBatch() {
	mk := func(name string) tool.Tool {
		return tool.New(name, "", nil, func(_ context.Context, tc *tool.Context, _ json.RawMessage) (tool.Result, error) {
			return tool.Text(tc.ToolName + " done"), nil
		})
	}
	registry, _ := tool.NewRegistry(mk("a"), mk("b"), mk("c"))
	calls := []tool.Call{{ID: "1", Name: "c"}, {ID: "2", Name: "a"}, {ID: "3", Name: "a"}}
	fmt.Printf("sequential because: %q\n", registry.SequentialReason(calls, false))
	for _, ret := range registry.ExecuteBatch(context.Background(), &tool.Context{RunID: "run"}, calls, tool.BatchOptions{}) {
		fmt.Println(ret.ToolCallID, ret.Content)
	}
	// Output:
	// sequential because: "repeated_name"
	// 1 c done
	// 2 a done
	// 3 a done
}

// A hook answered elsewhere (another process, a queue) takes the Start
// forms: it begins its phase and reports through done, and a started call
// holds no goroutine while it waits.
func ExampleHook_startForms() {
	answers := make(chan func())
	go func() {
		for f := range answers {
			f() // the answers arrive here, as from another process
		}
	}()
	defer close(answers)
	audit := tool.Hook{
		Name: "audit",
		StartBefore: func(_ context.Context, _ *tool.Context, args map[string]any, done func(error)) {
			answers <- func() {
				args["audited"] = true
				done(nil)
			}
		},
		StartAfter: func(_ context.Context, _ *tool.Context, out *tool.Outcome, done func(error)) {
			answers <- func() {
				out.Result.Metadata = map[string]any{"checked": true}
				done(nil)
			}
		},
	}
	t := tool.New("echo", "", nil, func(_ context.Context, _ *tool.Context, args json.RawMessage) (tool.Result, error) {
		return tool.Text(string(args)), nil
	}).WithHook(audit)
	registry, _ := tool.NewRegistry(t)
	ret := registry.Execute(context.Background(), nil, tool.Call{ID: "1", Name: "echo", Arguments: json.RawMessage(`{"q":"x"}`)})
	fmt.Println(ret.Content, ret.Metadata["checked"])
	// Output:
	// {"audited":true,"q":"x"} true
}
