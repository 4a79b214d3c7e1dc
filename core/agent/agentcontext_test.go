package agent_test

import (
	"context"
	"encoding/json"
	"slices"
	"testing"

	"github.com/starweaver-go/starweaver/core/agent"
	"github.com/starweaver-go/starweaver/core/agentctx"
	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/tool"
)

// A tool's context events reach the run's event stream as custom events,
// in order with the run's own; events published between runs wait for the
// next run.
func TestContextEventsAreCustomEventsOfTheRun(t *testing.T) {
	note := tool.New("note", "", nil, func(_ context.Context, tc *tool.Context, _ json.RawMessage) (tool.Result, error) {
		tc.Agent.Publish("note_taken", map[string]any{"call": tc.ToolCallID})
		return tool.Text("ok"), nil
	})
	m := model.NewTestModel(calls(model.Call("c1", "note", nil)), text("done"), text("again"))
	s := agent.NewBuilder(m).Tool(note).MustBuild().NewSession()
	var kinds []string
	var payload map[string]any
	record := agent.WithEvents(func(ev agent.Event) {
		if ev.Kind == agent.EventCustom {
			kinds = append(kinds, ev.Custom.Kind)
			if ev.Custom.Kind == "note_taken" {
				payload = ev.Custom.Payload
			}
		} else {
			kinds = append(kinds, ev.Kind)
		}
	})
	if _, err := s.Run(context.Background(), "go", record); err != nil {
		t.Fatal(err)
	}
	// The tool may start before its tool_call event (eager dispatch), but
	// its event comes within the step that called it.
	i := slices.Index(kinds, "note_taken")
	if i < 0 || payload["call"] != "c1" || kinds[i-1] != agent.EventModelRequest && !slices.Contains(kinds[:i], agent.EventToolCall) ||
		!slices.Contains(kinds[i:], agent.EventToolReturn) || slices.Index(kinds[i:], agent.EventModelRequest) < slices.Index(kinds[i:], agent.EventToolReturn) {
		t.Fatalf("events %v payload %v", kinds, payload)
	}
	s.Context().Publish("between_runs", nil)
	kinds = nil
	if _, err := s.Run(context.Background(), "again", record); err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(kinds, "between_runs") {
		t.Fatalf("an event published between runs was not delivered to the next: %v", kinds)
	}
}

// The seed's read_note example: a Legacy tool reads the session's notes
// through the broad agent context.
func TestLegacyToolReadsTheAgentContext(t *testing.T) {
	type args struct {
		Key string `json:"key" jsonschema:"description=Note key to read from AgentContext."`
	}
	readNote := tool.Typed("read_note", "Read one AgentContext note", func(_ context.Context, tc *tool.Context, a args) (tool.Result, error) {
		v, _ := tc.Agent.Note(a.Key)
		return tool.JSON(map[string]any{"value": v}), nil
	})
	m := model.NewTestModel(calls(model.Call("c1", "read_note", map[string]string{"key": "lang"})), text("done"))
	s := agent.NewBuilder(m).Tool(readNote).MustBuild().NewSession()
	s.Context().SetNote("lang", "Chinese")
	res, err := s.Run(context.Background(), "read note")
	if err != nil || res.Output != "done" {
		t.Fatal(res, err)
	}
	if got := contentMap(t, res.Returns()[0].Content); got["value"] != "Chinese" {
		t.Fatalf("read_note returned %v", got)
	}
}

// The agent context is part of exported state: grants, notes and the
// tool-search loaded state survive an export and a restore into another
// agent; named dependencies, host configuration, do not.
func TestAgentContextTravelsWithExportedState(t *testing.T) {
	s := agent.NewBuilder(model.TextModel("ok")).MustBuild().NewSession()
	c := s.Context()
	c.SetNote("lang", "fr")
	c.GrantToolCapabilities("mail", agentctx.Grant{HostCapabilities: []string{"smtp"}})
	c.RecordToolSearchLoaded([]string{"lookup_docs"}, []string{"docs_ns"})
	c.InsertNamedDependency("smtp", "secret-client")
	if _, err := s.Run(context.Background(), "hi"); err != nil {
		t.Fatal(err)
	}
	state, err := s.ExportState()
	if err != nil {
		t.Fatal(err)
	}
	restored, err := agent.NewBuilder(model.TextModel("ok")).MustBuild().SessionFromState(state, agent.AllowUnsigned())
	if err != nil {
		t.Fatal(err)
	}
	rc := restored.Context()
	if v, _ := rc.Note("lang"); v != "fr" {
		t.Fatalf("note = %q", v)
	}
	if g, ok := rc.ToolCapabilityGrant("mail"); !ok || !slices.Equal(g.HostCapabilities, []string{"smtp"}) {
		t.Fatalf("grant = %+v %v", g, ok)
	}
	if tools, spaces := rc.ToolSearchLoaded(); !slices.Equal(tools, []string{"lookup_docs"}) || !slices.Equal(spaces, []string{"docs_ns"}) {
		t.Fatalf("loaded = %v %v", tools, spaces)
	}
	if len(rc.NamedDependencies()) != 0 {
		t.Fatal("named dependencies must not be exported")
	}
	if rc.Usage().Requests != 0 || c.Usage().Requests != 1 {
		t.Fatalf("usage: restored %+v, original %+v", rc.Usage(), c.Usage())
	}
	// A tampered context is refused like any tampered state.
	tampered := []byte(string(state))
	if i := indexOf(tampered, `"fr"`); i >= 0 {
		copy(tampered[i:], `"de"`)
	}
	if _, err := agent.NewBuilder(model.TextModel("ok")).MustBuild().SessionFromState(tampered, agent.AllowUnsigned()); err == nil {
		t.Fatal("a tampered agent context was accepted")
	}
}

func indexOf(b []byte, s string) int {
	for i := 0; i+len(s) <= len(b); i++ {
		if string(b[i:i+len(s)]) == s {
			return i
		}
	}
	return -1
}

// A Strict tool gets what it asks for only where the session's grant
// allows it, in its calls, in its user-input preprocessing and in its
// approved re-run alike; named dependencies inserted in the agent context
// are dependencies of the run.
func TestStrictToolIsNarrowedInEveryEntryPoint(t *testing.T) {
	seen := map[string][]string{}
	var preSeen []string
	strict := tool.Dependencies{Profile: tool.ProfileStrict, HostCapabilities: []string{"smtp", "db"}}
	mk := func(name string) *tool.Function {
		return tool.New(name, "", nil, func(_ context.Context, tc *tool.Context, _ json.RawMessage) (tool.Result, error) {
			seen[tc.ToolCallID] = tc.Deps.Names()
			if tc.Agent != nil {
				t.Error("a Strict tool received the broad agent context")
			}
			return tool.Text("sent"), nil
		}).WithDependencies(strict)
	}
	gated := mk("send").WithUserInputPreprocessor(func(_ context.Context, tc *tool.Context, _ json.RawMessage) (tool.PreprocessResult, error) {
		preSeen = tc.Deps.Names()
		return tool.PreprocessResult{}, nil
	})
	deps := &tool.Deps{}
	deps.SetNamed("db", "db-conn")
	deps.SetNamed("vault", "keys")
	m := model.NewTestModel(calls(model.Call("c1", "notify", nil)), text("ran"),
		calls(model.Call("c2", "notify", nil)), text("ran"),
		calls(model.Call("c3", "send", nil)), text("approved"))
	s := agent.NewBuilder(m).Tool(mk("notify"), gated).ApprovalRequiredTools("send").Deps(deps).MustBuild().NewSession()
	s.Context().InsertNamedDependency("smtp", "smtp-client")

	// Without a grant: nothing.
	if _, err := s.Run(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	s.Context().GrantToolCapabilities("notify", agentctx.Grant{HostCapabilities: []string{"smtp", "vault"}})
	s.Context().GrantToolCapabilities("send", agentctx.Grant{HostCapabilities: []string{"smtp", "vault"}})
	if _, err := s.Run(context.Background(), "again"); err != nil {
		t.Fatal(err)
	}
	res, err := s.Run(context.Background(), "send")
	if err != nil || res.Status != agent.StatusWaiting {
		t.Fatal(res, err)
	}
	if _, err := s.Resume(context.Background(), agent.Resolution{Approvals: []agent.ApprovalDecision{{ID: "c3", Approved: true, UserInput: json.RawMessage(`"yes"`)}}}); err != nil {
		t.Fatal(err)
	}
	if len(seen["c1"]) != 0 || !slices.Equal(seen["c2"], []string{"smtp"}) || !slices.Equal(seen["c3"], []string{"smtp"}) {
		t.Fatalf("calls saw %v", seen)
	}
	if !slices.Equal(preSeen, []string{"smtp"}) {
		t.Fatalf("the preprocessor saw %v", preSeen)
	}
}

// An agent's grants are every session's defaults; a session's own grant
// replaces the default for its tool, and restored sessions get the
// restoring agent's defaults (host configuration, never exported).
func TestAgentGrantsAreSessionDefaults(t *testing.T) {
	seen := map[string][]string{}
	probe := tool.New("probe", "", nil, func(_ context.Context, tc *tool.Context, _ json.RawMessage) (tool.Result, error) {
		seen[tc.ToolCallID] = tc.HostCapabilities
		return tool.Text("ok"), nil
	}).WithDependencies(tool.Dependencies{Profile: tool.ProfileStrict, HostCapabilities: []string{"a", "b"}})
	m := model.NewTestModel(calls(model.Call("c1", "probe", nil)), text("1"), calls(model.Call("c2", "probe", nil)), text("2"),
		calls(model.Call("c3", "probe", nil)), text("3"))
	a := agent.NewBuilder(m).Tool(probe).GrantToolCapabilities("probe", agentctx.Grant{HostCapabilities: []string{"a"}}).MustBuild()
	s := a.NewSession()
	if _, err := s.Run(context.Background(), "x"); err != nil {
		t.Fatal(err)
	}
	s.Context().GrantToolCapabilities("probe", agentctx.Grant{HostCapabilities: []string{"b"}})
	if _, err := s.Run(context.Background(), "y"); err != nil {
		t.Fatal(err)
	}
	s.Context().RevokeToolCapabilities("probe")
	state, err := s.ExportState()
	if err != nil {
		t.Fatal(err)
	}
	restored, err := a.SessionFromState(state, agent.AllowUnsigned())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := restored.Run(context.Background(), "z"); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(seen["c1"], []string{"a"}) || !slices.Equal(seen["c2"], []string{"b"}) || !slices.Equal(seen["c3"], []string{"a"}) {
		t.Fatalf("seen %v", seen)
	}
}
