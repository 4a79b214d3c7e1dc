package shell_test

import (
	"context"
	"fmt"

	"github.com/starweaver-go/starweaver/core/agent"
	"github.com/starweaver-go/starweaver/core/bundles/shell"
	"github.com/starweaver-go/starweaver/core/env"
	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/tool"
)

// A model runs a command through shell_exec. The shell is a named
// dependency: here a virtual environment with a canned output; a host
// gives an env.LocalShell under env.ShellCapability the same way.
func Example() {
	shellEnv := env.NewVirtual("demo").WithShellOutput("go test ./...", env.Output{Stdout: "ok  \texample\t0.01s\n"})
	deps := &tool.Deps{}
	deps.SetNamed(shell.EnvironmentCapability, shellEnv)

	m := model.NewTestModel(
		model.CallsResponse(model.Call("call_1", shell.ExecTool, map[string]any{"command": "go test ./..."})),
		model.Response(model.TextPart("The tests pass.")),
	)
	a := agent.NewBuilder(m).Toolset(shell.Tools(shell.Options{})).Deps(deps).MustBuild()
	res, err := a.Run(context.Background(), "Run the tests")
	if err != nil {
		fmt.Println(err)
		return
	}
	out := res.Returns()[0].Content.(map[string]any)
	fmt.Printf("%d %q\n", out["return_code"], out["stdout"])
	fmt.Println(res.Output)
	// Output:
	// 0 "ok  \texample\t0.01s\n"
	// The tests pass.
}
