package toolset_test

import (
	"context"
	"fmt"
	"time"

	"github.com/starweaver-go/starweaver/core/tool"
	"github.com/starweaver-go/starweaver/core/toolset"
)

// server is a toolset backed by a connection the agent opens before the
// first read of a run and closes when the run ends.
type server struct {
	*toolset.Static
}

func (s server) Enter(context.Context, *tool.RunContext) error { fmt.Println("connect"); return nil }
func (s server) Exit(context.Context, *tool.RunContext) error  { fmt.Println("disconnect"); return nil }

func ExampleWithLifecycle() {
	ts := toolset.WithLifecycle(server{toolset.New("remote")}, toolset.LifecyclePolicy{
		InitializationTimeout: 5 * time.Second,
		ReadTimeout:           time.Second,
	})
	// A combinator keeps the lifecycle reachable.
	wrapped := toolset.Prefixed("r", ts)
	fmt.Println(toolset.Managed(wrapped), len(toolset.LifecyclesOf(wrapped)), toolset.PolicyOf(wrapped).ReadTimeout)
	// Output: true 1 1s
}
