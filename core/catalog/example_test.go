package catalog_test

import (
	"fmt"

	"github.com/starweaver-go/starweaver/core/agentctx"
	"github.com/starweaver-go/starweaver/core/catalog"
	"github.com/starweaver-go/starweaver/core/tool"
	"github.com/starweaver-go/starweaver/core/toolset"
)

func ExampleNewSearch() {
	docs := toolset.New("docs", tool.New("lookup_docs", "Look up documentation by topic", object("topic"), echo)).WithID("docs_ns")
	search := catalog.NewSearch([]toolset.Toolset{docs}, catalog.Options{})
	r := &tool.Registry{}
	if err := toolset.Register(r, nil, search); err != nil {
		panic(err)
	}
	ctx := agentctx.New()
	fmt.Println(r.DefinitionsFor(&tool.RunContext{Agent: ctx}).Available)
	ctx.RecordToolSearchLoaded([]string{"lookup_docs"}, []string{"docs_ns"})
	fmt.Println(r.DefinitionsFor(&tool.RunContext{Agent: ctx}).Available)
	// Output:
	// [tool_search]
	// [lookup_docs tool_search]
}

func ExampleNewProxy() {
	docs := toolset.New("docs", tool.New("lookup_docs", "Look up documentation by topic", object("topic"), echo)).WithID("docs_ns")
	proxy, err := catalog.NewProxy([]toolset.Toolset{docs}, "workspace", catalog.Options{})
	if err != nil {
		panic(err)
	}
	r := &tool.Registry{}
	if err := toolset.Register(r, nil, proxy); err != nil {
		panic(err)
	}
	fmt.Println(r.Names(), r.UnlistedNames())
	// Output:
	// [workspace_call_tool workspace_search_tool] [lookup_docs]
}
