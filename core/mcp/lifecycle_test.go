package mcp_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/starweaver-go/starweaver/core/agent"
	"github.com/starweaver-go/starweaver/core/mcp"
	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/tool"
)

func TestEnterAndExitStartAndStopTheServer(t *testing.T) {
	ts := open(t, "everything", everything(t), mcp.Options{})
	ctx := context.Background()
	if err := ts.Enter(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if !ts.Connected() {
		t.Fatal("not connected after Enter")
	}
	if _, err := ts.Tools(nil); err != nil {
		t.Fatal(err)
	}
	if err := ts.Exit(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if ts.Connected() {
		t.Fatal("still connected after Exit")
	}
	// Used again, it connects again.
	if ret := call(t, registry(t, ts), "echo", `{"message":"again"}`); ret.Content != "Echo: again" {
		t.Fatalf("echo after Exit: %+v", ret)
	}
}

func TestARunHoldsALazyConnectionUntilItEnds(t *testing.T) {
	ts := open(t, "everything", everything(t), mcp.Options{})
	ctx, cancel := context.WithCancel(context.Background())
	if _, err := ts.Tools(&tool.RunContext{Ctx: ctx}); err != nil {
		t.Fatal(err)
	}
	if !ts.Connected() {
		t.Fatal("not connected")
	}
	cancel()
	deadline := time.Now().Add(10 * time.Second)
	for ts.Connected() {
		if time.Now().After(deadline) {
			t.Fatal("still connected after the run ended")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestAgentCallsMCPTools(t *testing.T) {
	ts := open(t, "everything", everything(t), mcp.Options{ToolPrefix: "ev"})
	m := model.NewTestModel(
		model.CallsResponse(model.Call("c1", "ev_echo", map[string]any{"message": "hello"}),
			model.Call("c2", "ev_get-sum", map[string]any{"a": 40, "b": 2})),
		model.Response(model.TextPart("done")),
	)
	a := agent.NewBuilder(m).Toolset(ts).MustBuild()
	res, err := a.NewSession().Run(context.Background(), "go")
	if err != nil || res.Output != "done" {
		t.Fatalf("run: %+v %v", res, err)
	}
	reqs := m.Requests()
	msgs := reqs[len(reqs)-1].Messages
	rets := msgs[len(msgs)-1].Returns()
	if len(rets) != 2 || rets[0].Content != "Echo: hello" {
		t.Fatalf("returns %+v", rets)
	}
	if s, _ := rets[1].Content.(string); s == "" || rets[1].IsError {
		t.Fatalf("get-sum %+v", rets[1])
	}
	names := map[string]bool{}
	for _, d := range reqs[0].Params.Tools {
		names[d.Name] = true
	}
	if !names["ev_echo"] || !names["ev_get-sum"] {
		t.Errorf("the model was offered %v", names)
	}
}

func TestCloseEndsCallsInFlight(t *testing.T) {
	slow := map[string][2]string{
		"stdio":           {"trigger-long-running-operation", `{"duration":30,"steps":3}`},
		"streamable_http": {"slow", `{"seconds":30}`},
	}
	for _, tr := range []mcp.Transport{everything(t), mcp.StreamableHTTP(httpServer(t), nil)} {
		t.Run(tr.Kind, func(t *testing.T) {
			ts := open(t, "slow", tr, mcp.Options{})
			r := registry(t, ts)
			done := make(chan tool.Return, 1)
			go func() { done <- call(t, r, slow[tr.Kind][0], slow[tr.Kind][1]) }()
			time.Sleep(500 * time.Millisecond)
			start := time.Now()
			if err := ts.Close(); err != nil {
				t.Fatal(err)
			}
			select {
			case ret := <-done:
				if ret.ErrorKind() != tool.ErrorKindCancelled {
					t.Errorf("call: %+v", ret)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("the call is still running 10s after Close")
			}
			if d := time.Since(start); d > 10*time.Second {
				t.Errorf("Close took %s", d)
			}
		})
	}
}

// A server that cannot start fails the run with an error naming it,
// unless the toolset is optional: then the run goes on without its tools,
// with a toolset_unavailable event and a warning. Optional wins over the
// agent's fail-closed policy on unavailable tools.
func TestAServerThatCannotStartFailsTheRunUnlessOptional(t *testing.T) {
	for _, c := range []struct {
		name     string
		optional bool
		policy   agent.UnavailablePolicy
	}{
		{"required", false, agent.SkipUnavailable},
		{"required, fail closed", false, agent.FailOnUnavailable},
		{"optional", true, agent.SkipUnavailable},
		{"optional, fail closed", true, agent.FailOnUnavailable},
	} {
		t.Run(c.name, func(t *testing.T) {
			ts := open(t, "broken", mcp.Stdio("/nonexistent/mcp-server"), mcp.Options{InitTimeout: 5 * time.Second, Optional: c.optional})
			a := agent.NewBuilder(model.TextModel("fine without it")).Toolset(ts).UnavailableTools(c.policy).MustBuild()
			var events []agent.Event
			var warnings []agent.Warning
			res, err := a.NewSession().Run(context.Background(), "go",
				agent.WithEvents(func(ev agent.Event) { events = append(events, ev) }),
				agent.WithWarnings(func(w agent.Warning) { warnings = append(warnings, w) }))
			unavailable := 0
			for _, ev := range events {
				if ev.Custom != nil && ev.Custom.Kind == agent.CustomToolsetUnavailable {
					unavailable++
				}
			}
			if unavailable != 1 {
				t.Errorf("%d toolset_unavailable events", unavailable)
			}
			if !c.optional {
				if !errors.Is(err, agent.ErrConfig) || !errors.Is(err, mcp.ErrUnavailable) ||
					!strings.Contains(err.Error(), `toolset "broken"`) || !strings.Contains(err.Error(), "/nonexistent/mcp-server") ||
					!strings.Contains(err.Error(), "mark it optional") {
					t.Fatalf("err = %v", err)
				}
				if len(warnings) != 0 {
					t.Errorf("warnings %+v", warnings)
				}
				return
			}
			if err != nil || res.Output != "fine without it" {
				t.Fatalf("%+v %v", res, err)
			}
			if len(warnings) != 1 || warnings[0].Kind != agent.WarningToolsetUnavailable || warnings[0].Toolset != "broken" ||
				!strings.Contains(warnings[0].Message, `toolset "broken"`) || !strings.Contains(warnings[0].Message, "without its tools") {
				t.Fatalf("warnings %+v", warnings)
			}
		})
	}
}
