package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/starweaver-go/starweaver/core/agent"
	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/tool"
)

// grantedAgent registers search, read_file and delete_file, counting the
// runs of their code and of a global hook; m answers its requests.
func grantedAgent(m model.Model, ran, hooked *atomic.Int32, policy agent.ToolErrorPolicy) *agent.Agent {
	mk := func(name string) tool.Tool {
		return tool.New(name, "", nil, func(context.Context, *tool.Context, json.RawMessage) (tool.Result, error) {
			ran.Add(1)
			return tool.Text(name + " ok"), nil
		})
	}
	return agent.NewBuilder(m).Tool(mk("search"), mk("read_file"), mk("delete_file")).
		Hook(tool.Hook{Name: "count", Before: func(context.Context, *tool.Context, map[string]any) error {
			hooked.Add(1)
			return nil
		}}).ToolErrorPolicy(policy).MustBuild()
}

func sentTools(req model.CapturedRequest) []string {
	var names []string
	for _, d := range req.Params.Tools {
		names = append(names, d.Name)
	}
	slices.Sort(names)
	return names
}

// The model is told of the granted tools only; a call of an ungranted one
// (a guess) is refused as user_error before its code or any hook runs,
// spends no correction budget, and the run goes on.
func TestGrantsHideAndRefuseUngrantedTools(t *testing.T) {
	var ran, hooked atomic.Int32
	m := model.NewTestModel(
		calls(model.Call("c1", "delete_file", map[string]string{"path": "/"}), model.Call("c2", "search", nil)),
		calls(model.Call("c3", "delete_file", nil)), calls(model.Call("c4", "delete_file", nil)),
		calls(model.Call("c5", "delete_file", nil)), calls(model.Call("c6", "delete_file", nil)), text("done"))
	a := grantedAgent(m, &ran, &hooked, agent.ReturnToModel)
	res, err := a.Run(context.Background(), "go", agent.WithGrants("search", "read_file"))
	if err != nil || res.Output != "done" {
		t.Fatalf("run: %v %v (more refusals than the budget of 3 must not fail the run)", res, err)
	}
	for i, req := range m.Requests() {
		if got := sentTools(req); !slices.Equal(got, []string{"read_file", "search"}) {
			t.Fatalf("request %d offered %v", i, got)
		}
	}
	if ran.Load() != 1 || hooked.Load() != 1 {
		t.Fatalf("tool code ran %d times and the hook %d times; want 1 each (search only)", ran.Load(), hooked.Load())
	}
	rets := res.Returns()
	if len(rets) != 6 {
		t.Fatalf("%d returns", len(rets))
	}
	refused := rets[0]
	if refused.ErrorKind() != tool.ErrorKindUserError || !refused.IsError ||
		!strings.Contains(contentMap(t, refused.Content)["message"].(string), `"delete_file" is not granted to this run`) {
		t.Fatalf("refusal = %+v", refused)
	}
	if rets[1].Content != "search ok" {
		t.Fatalf("granted call = %+v", rets[1])
	}
}

// Under FailFast, a refused call fails the run like any user_error.
func TestGrantRefusalFailsFast(t *testing.T) {
	var ran, hooked atomic.Int32
	m := model.NewTestModel(calls(model.Call("c1", "delete_file", nil)), text("never"))
	a := grantedAgent(m, &ran, &hooked, agent.FailFast)
	_, err := a.Run(context.Background(), "go", agent.WithGrants("search"))
	var tf *agent.ToolFailedError
	if !errors.As(err, &tf) || tf.Tool != "delete_file" || tf.Kind != tool.ErrorKindUserError || ran.Load() != 0 || hooked.Load() != 0 {
		t.Fatalf("err = %v, ran %d, hooked %d", err, ran.Load(), hooked.Load())
	}
}

func TestGrantsAllNoneAndRunTools(t *testing.T) {
	extra := tool.New("extra", "", nil, okTool)
	for name, c := range map[string]struct {
		opts []agent.RunOption
		want []string
	}{
		"no grants":     {nil, []string{"delete_file", "extra", "read_file", "search"}},
		"star":          {[]agent.RunOption{agent.WithGrants("*")}, []string{"delete_file", "extra", "read_file", "search"}},
		"empty":         {[]agent.RunOption{agent.WithGrants()}, nil},
		"a run's tool":  {[]agent.RunOption{agent.WithGrants("extra")}, []string{"extra"}},
		"the last wins": {[]agent.RunOption{agent.WithGrants("search"), agent.WithGrants("read_file")}, []string{"read_file"}},
		"read_artifact": {[]agent.RunOption{agent.WithGrants(agent.ReadArtifactToolName, "search")}, []string{"search"}},
	} {
		t.Run(name, func(t *testing.T) {
			var ran, hooked atomic.Int32
			m := model.NewTestModel(text("done"))
			a := grantedAgent(m, &ran, &hooked, agent.ReturnToModel)
			mustRun(t, a, "go", append([]agent.RunOption{agent.WithTools(extra)}, c.opts...)...)
			if got := sentTools(m.Requests()[0]); !slices.Equal(got, c.want) {
				t.Fatalf("offered %v, want %v", got, c.want)
			}
		})
	}
}

// A grant naming a tool the run does not register fails the run before
// the model is asked.
func TestGrantsOfUnknownToolsFailTheRun(t *testing.T) {
	var ran, hooked atomic.Int32
	m := model.NewTestModel(text("never"))
	a := grantedAgent(m, &ran, &hooked, agent.ReturnToModel)
	_, err := a.Run(context.Background(), "go", agent.WithGrants("search", "serach"))
	if !errors.Is(err, agent.ErrConfig) || !errors.Is(err, tool.ErrUnknownGrant) || !strings.Contains(err.Error(), `"serach"`) {
		t.Fatalf("err = %v", err)
	}
	if len(m.Requests()) != 0 {
		t.Fatal("the model was asked")
	}
}

// A resumed run has its own grants: an approved call of a tool it does
// not grant is refused, and the tool does not run again.
func TestResumeWithGrantsRefusesUngrantedApprovedCalls(t *testing.T) {
	d := &deployTool{}
	s, _ := waitingSession(t, d, text("done"))
	res, err := s.Resume(context.Background(), agent.Resolution{Approvals: []agent.ApprovalDecision{{
		ID: s.Pending()[0].ID, Approved: true}}}, agent.WithGrants("add"))
	if err != nil || res.Status != agent.StatusCompleted {
		t.Fatalf("resume: %v %v", res, err)
	}
	if d.calls.Load() != 1 {
		t.Fatalf("deploy ran %d times, want only the first (paused) call", d.calls.Load())
	}
	var deploy *tool.Return
	for _, r := range res.Returns() {
		if r.ToolCallID == "call_deploy" {
			deploy = &r
		}
	}
	if deploy == nil || deploy.ErrorKind() != tool.ErrorKindUserError {
		t.Fatalf("deploy's return = %+v", deploy)
	}
}

func okTool(context.Context, *tool.Context, json.RawMessage) (tool.Result, error) {
	return tool.Text("ok"), nil
}
