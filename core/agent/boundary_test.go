package agent_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/starweaver-go/starweaver/core/agent"
	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/tool"
)

// hostSurfaces are strings that only the host surfaces of the returns
// below carry; no model may ever see one of them.
var hostSurfaces = []string{"app_value", "user_content", "private_metadata", "APP-SECRET", "USER-SECRET",
	"PRIVATE-SECRET", "/home/me/tool.py", "RAW-CONTENT"}

// boundaryTools returns a tool using every result surface and a tool
// failing with private detail (as a host traceback is).
func boundaryTools() []tool.Tool {
	rich := tool.New("rich", "", nil, func(context.Context, *tool.Context, json.RawMessage) (tool.Result, error) {
		return tool.Result{Content: "RAW-CONTENT", ModelContent: "model view", Metadata: map[string]any{"public": "yes"},
			AppValue: "APP-SECRET", UserContent: "USER-SECRET", PrivateMetadata: map[string]any{"evidence": "PRIVATE-SECRET"}}, nil
	})
	broken := tool.New("broken", "", nil, func(context.Context, *tool.Context, json.RawMessage) (tool.Result, error) {
		return tool.Result{}, &tool.Error{Kind: tool.ErrorKindUserError, Message: "misconfigured",
			PrivateMetadata: map[string]any{"python_traceback": "File /home/me/tool.py, line 3"}}
	})
	return []tool.Tool{rich, broken}
}

func boundaryCalls() model.Message {
	return calls(model.Call("c1", "rich", nil), model.Call("c2", "broken", nil))
}

// checkBoundary asserts that what models received hides the host surfaces
// while the result and the exported state keep them.
func checkBoundary(t *testing.T, received [][]model.Message, res *agent.RunResult, s *agent.Session) {
	t.Helper()
	if len(received) == 0 {
		t.Fatal("the model received nothing")
	}
	sawReturn := false
	for _, msgs := range received {
		b, err := json.Marshal(msgs)
		if err != nil {
			t.Fatal(err)
		}
		for _, secret := range hostSurfaces {
			if strings.Contains(string(b), secret) {
				t.Fatalf("the model received %q: %s", secret, b)
			}
		}
		sawReturn = sawReturn || strings.Contains(string(b), `"model view"`)
	}
	if !sawReturn {
		t.Fatal("the model never saw the tool's model content")
	}
	rets := res.Returns()
	if len(rets) != 2 || rets[0].AppValue != "APP-SECRET" || rets[0].UserContent != "USER-SECRET" ||
		rets[0].PrivateMetadata["evidence"] != "PRIVATE-SECRET" || rets[1].PrivateMetadata["python_traceback"] == nil {
		t.Fatalf("the result lost host surfaces: %+v", rets)
	}
	state, err := s.ExportState()
	if err != nil {
		t.Fatal(err)
	}
	for _, secret := range []string{"APP-SECRET", "USER-SECRET", "PRIVATE-SECRET", "/home/me/tool.py"} {
		if !strings.Contains(string(state), secret) {
			t.Fatalf("exported state lost %q", secret)
		}
	}
}

func TestTestModelReceivesOnlyTheVisibleProjection(t *testing.T) {
	m := model.NewTestModel(boundaryCalls(), text("done"), text("again"))
	a := agent.NewBuilder(m).Tool(boundaryTools()...).MustBuild()
	s := a.NewSession()
	var evRets []tool.Return
	res, err := s.Run(context.Background(), "go", agent.WithEvents(func(ev agent.Event) {
		if ev.Kind == agent.EventToolReturn {
			evRets = append(evRets, *ev.Return)
		}
	}))
	if err != nil {
		t.Fatal(err)
	}
	if len(evRets) != 2 || evRets[0].AppValue != "APP-SECRET" {
		t.Fatalf("events lost host surfaces: %+v", evRets)
	}
	var received [][]model.Message
	for _, r := range m.Requests() {
		received = append(received, r.Messages)
	}
	checkBoundary(t, received, res, s)

	// A restored session projects the history it was given.
	state, _ := s.ExportState()
	restored, err := a.SessionFromState(state, agent.AllowUnsigned())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := restored.Run(context.Background(), "more"); err != nil {
		t.Fatal(err)
	}
	reqs := m.Requests()
	checkBoundary(t, [][]model.Message{reqs[len(reqs)-1].Messages}, res, restored)
}

func TestFunctionModelReceivesOnlyTheVisibleProjection(t *testing.T) {
	var mu sync.Mutex
	var received [][]model.Message
	fm := model.NewFunctionModel(func(_ context.Context, msgs []model.Message, _ model.Params) (model.Message, error) {
		mu.Lock()
		defer mu.Unlock()
		received = append(received, msgs)
		if len(received) == 1 {
			return boundaryCalls(), nil
		}
		return text("done"), nil
	})
	s := agent.NewBuilder(fm).Tool(boundaryTools()...).MustBuild().NewSession()
	res, err := s.Run(context.Background(), "go")
	if err != nil {
		t.Fatal(err)
	}
	checkBoundary(t, received, res, s)
}

// recordingModel is a model implemented outside core/model, as a provider
// is: it must get the same projection.
type recordingModel struct {
	script   []model.Message
	received [][]model.Message
}

func (m *recordingModel) Request(_ context.Context, msgs []model.Message, _ model.Params) (model.Message, error) {
	m.received = append(m.received, msgs)
	r := m.script[0]
	m.script = m.script[1:]
	return r, nil
}

func TestAnyModelReceivesOnlyTheVisibleProjection(t *testing.T) {
	m := &recordingModel{script: []model.Message{boundaryCalls(), text("done")}}
	s := agent.NewBuilder(m).Tool(boundaryTools()...).MustBuild().NewSession()
	res, err := s.Run(context.Background(), "go")
	if err != nil {
		t.Fatal(err)
	}
	checkBoundary(t, m.received, res, s)
}
