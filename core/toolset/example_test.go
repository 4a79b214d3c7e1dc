package toolset_test

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/starweaver-go/starweaver/core/tool"
	"github.com/starweaver-go/starweaver/core/toolset"
)

func lookupTool() *tool.Function {
	return tool.New("lookup", "Look up a document", map[string]any{
		"type":       "object",
		"properties": map[string]any{"query": map[string]any{"type": "string"}},
		"required":   []any{"query"},
	}, func(_ context.Context, _ *tool.Context, args json.RawMessage) (tool.Result, error) {
		var a struct{ Query string }
		if err := json.Unmarshal(args, &a); err != nil {
			return tool.Result{}, err
		}
		return tool.Text("found " + a.Query), nil
	})
}

// A static toolset shares instructions and defaults; Register adds its
// tools to the registry of a run.
func ExampleNew() {
	docs := toolset.New("docs", lookupTool()).
		WithID("docs_ns").
		WithInstruction("docs", "Prefer exact lookup before answering.").
		WithTimeout(5 * time.Second)

	r := &tool.Registry{}
	if err := toolset.Register(r, nil, docs); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(r.Names(), r.TimeoutFor("lookup"))
	fmt.Println(toolset.RenderInstructions(toolset.CollectInstructions(nil, docs)))
	// Output:
	// [lookup] 5s
	// <tool-instruction name="docs">Prefer exact lookup before answering.</tool-instruction>
}

// NewStatic builds the same toolset from one StaticOptions and returns a
// building problem as its error.
func ExampleNewStatic() {
	docs, err := toolset.NewStatic("docs", toolset.StaticOptions{
		ID:           "docs_ns",
		Tools:        []tool.Tool{lookupTool()},
		Instructions: []toolset.Instruction{{Content: "Prefer exact lookup before answering."}},
		Timeout:      5 * time.Second,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	r := &tool.Registry{}
	if err := toolset.Register(r, nil, docs); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(r.Names(), r.TimeoutFor("lookup"))

	_, err = toolset.NewStatic("twice", toolset.StaticOptions{Tools: []tool.Tool{lookupTool(), lookupTool()}})
	fmt.Println(err)
	// Output:
	// [lookup] 5s
	// toolset: duplicate tool name "lookup" in toolset "twice"
}

// Combinators stack: here the docs tools are namespaced and renamed, and
// calls still run the original tool.
func ExamplePrefixed() {
	ts := toolset.Prefixed("ws", toolset.Renamed(toolset.New("docs", lookupTool()), map[string]string{"lookup": "find"}))
	r := &tool.Registry{}
	if err := toolset.Register(r, nil, ts); err != nil {
		fmt.Println(err)
		return
	}
	def, _ := r.Definition("ws_find")
	fmt.Println(ts.Name(), r.Names(), def.Metadata[tool.MetaOriginalName])
	ret := r.Execute(context.Background(), &tool.Context{}, tool.Call{ID: "1", Name: "ws_find", Arguments: json.RawMessage(`{"query":"go"}`)})
	fmt.Println(ret.Content)
	// Output:
	// ws_docs [ws_find] lookup
	// found go
}

// A gated tool returns approval_required until the call carries an
// approval; the approved call may replace the model's arguments.
func ExampleApprovalRequired() {
	ts := toolset.ApprovalRequired(toolset.New("docs", lookupTool()), "lookup")
	r := &tool.Registry{}
	if err := toolset.Register(r, nil, ts); err != nil {
		fmt.Println(err)
		return
	}
	call := tool.Call{ID: "1", Name: "lookup", Arguments: json.RawMessage(`{"query":"secrets"}`)}

	ret := r.Execute(context.Background(), &tool.Context{}, call)
	fmt.Println(ret.ErrorKind())

	approved := &tool.Context{Approval: &tool.Approval{Status: "approved", OverrideArguments: json.RawMessage(`{"query":"public"}`)}}
	ret = r.Execute(context.Background(), approved, call)
	fmt.Println(ret.Content, ret.Metadata["approval_state"])
	// Output:
	// approval_required
	// found public approved
}

// Deferred calls pause the run and describe the work for an external
// worker; ClientTool declares a tool the client itself executes.
func ExampleDeferred() {
	ts := toolset.Combined("remote",
		toolset.Deferred(toolset.New("docs", lookupTool())),
		toolset.New("client", toolset.ClientTool("pick_file", "Ask the user for a file", nil)),
	)
	r := &tool.Registry{}
	if err := toolset.Register(r, nil, ts); err != nil {
		fmt.Println(err)
		return
	}
	for _, name := range r.Names() {
		ret := r.Execute(context.Background(), &tool.Context{RunID: "run1"}, tool.Call{ID: "c_" + name, Name: name, Arguments: json.RawMessage(`{"query":"x"}`)})
		req := ret.Runtime.Request
		fmt.Println(name, ret.ErrorKind(), req["deferred_id"])
	}
	// Output:
	// lookup call_deferred deferred_run1_c_lookup
	// pick_file call_deferred deferred_run1_c_pick_file
}

// Prepared rewrites definitions per run context: here the tool is hidden
// unless the run names a tenant, and described for that tenant otherwise.
func ExamplePrepared() {
	ts := toolset.Prepared(toolset.New("docs", lookupTool()), func(rc *tool.RunContext, defs []tool.Definition) []tool.Definition {
		tenant, ok := rc.Metadata["tenant"].(string)
		if !ok {
			return []tool.Definition{}
		}
		for i := range defs {
			defs[i].Description += " for " + tenant
		}
		return defs
	})
	for _, rc := range []*tool.RunContext{{}, {Metadata: map[string]any{"tenant": "acme"}}} {
		tools, _ := ts.Tools(rc)
		for _, t := range tools {
			fmt.Println(t.Definition().Description)
		}
		fmt.Println(len(tools), "tool(s)")
	}
	// Output:
	// 0 tool(s)
	// Look up a document for acme
	// 1 tool(s)
}

// Duplicate names are errors, never silent replacements.
func ExampleRegister_duplicate() {
	err := toolset.Register(&tool.Registry{}, nil,
		toolset.New("docs", lookupTool()),
		toolset.New("web", lookupTool()))
	fmt.Println(err)
	// Output:
	// toolset: duplicate tool name "lookup" in toolsets "docs" and "web"
}

func ExampleRenderInstructions() {
	fmt.Println(toolset.RenderInstructions([]toolset.Instruction{
		{Group: "search", Content: "Search before reading."},
		{Group: "files", Content: "Read files in full."},
		{Group: "search", Content: "Ignored: the first instruction of a group wins."},
	}))
	// Output:
	// <tool-instruction name="files">Read files in full.</tool-instruction>
	// <tool-instruction name="search">Search before reading.</tool-instruction>
}

func ExampleInclude() {
	ts := toolset.New("fs", toolset.ClientTool("read", "", nil), toolset.ClientTool("write", "", nil), toolset.ClientTool("delete", "", nil))
	for _, sub := range []toolset.Toolset{toolset.Include(ts, "read"), toolset.Exclude(ts, "delete")} {
		tools, _ := sub.Tools(nil)
		var names []string
		for _, t := range tools {
			names = append(names, t.Definition().Name)
		}
		fmt.Println(names)
	}
	// Output:
	// [read]
	// [read write]
}
