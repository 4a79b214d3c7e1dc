package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/starweaver-go/starweaver/core/agent"
	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/session"
	"github.com/starweaver-go/starweaver/core/tool"
)

// A run waits for approval on one worker; another worker opens the session
// by id and resumes it. The first worker's resume of the same run is
// refused: the approved call runs once.
func ExampleAgent_OpenSession() {
	ctx := context.Background()
	// A store shared by the workers: sqlite.NewSessionStore or
	// postgres.NewSessionStore in a deployment.
	st := &session.MemoryStore{}
	deploy := tool.New("deploy", "Deploy a release", nil, func(_ context.Context, tc *tool.Context, _ json.RawMessage) (tool.Result, error) {
		if tc.Approval == nil {
			return tool.Result{}, tool.ApprovalRequired("deploys to production", nil)
		}
		fmt.Println("deploying")
		return tool.JSON("deployed"), nil
	})
	worker := func(m model.Model) *agent.Agent {
		return agent.NewBuilder(m).Tool(deploy).StateKey([]byte("shared key")).SessionStore(st).MustBuild()
	}

	first := worker(model.NewTestModel(model.CallsResponse(model.Call("call_1", "deploy", map[string]string{}))))
	s := first.NewSession()
	res, _ := s.Run(ctx, "deploy")
	fmt.Println(res.Status)

	second := worker(model.TextModel("done"))
	other, _ := second.OpenSession(ctx, s.ID())
	approve := agent.Resolution{Approvals: []agent.ApprovalDecision{{ID: other.Pending()[0].ID, Approved: true}}}
	res, _ = other.Resume(ctx, approve)
	fmt.Println(res.Status, res.Output)

	_, err := s.Resume(ctx, approve)
	fmt.Println(errors.Is(err, agent.ErrState))
	// Output:
	// waiting
	// deploying
	// completed done
	// true
}
