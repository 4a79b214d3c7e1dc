package mcp_test

import (
	"context"
	"fmt"
	"time"

	"github.com/starweaver-go/starweaver/core/agent"
	"github.com/starweaver-go/starweaver/core/mcp"
	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/toolset"
)

// An agent whose tools come from mcp-server-time, started as a child
// process; its tools are named time_{name}.
func ExampleNew() {
	ts := mcp.New("time", mcp.Stdio("python3", "-m", "mcp_server_time"), mcp.Options{
		ToolPrefix:  "time",
		InitTimeout: 20 * time.Second,
		Defaults:    toolset.Defaults{Timeout: 10 * time.Second},
	})
	defer ts.Close()

	m := model.NewTestModel(
		model.CallsResponse(model.Call("c1", "time_get_current_time", map[string]any{"timezone": "Europe/Paris"})),
		model.Response(model.TextPart("It is late in Paris.")),
	)
	a := agent.NewBuilder(m).Toolset(ts).MustBuild()
	res, err := a.NewSession().Run(context.Background(), "What time is it in Paris?")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Output)
}
