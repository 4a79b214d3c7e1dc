package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/starweaver-go/starweaver/core/agent"
	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/tool"
)

func usedBy(m model.Message, in, out int) model.Message {
	m.Usage = &model.Usage{Requests: 1, InputTokens: in, OutputTokens: out}
	return m
}

func mustAsTool(t *testing.T, child *agent.Agent, opts agent.AsToolOptions) tool.Tool {
	t.Helper()
	at, err := agent.AsTool(child, opts)
	if err != nil {
		t.Fatal(err)
	}
	return at
}

// The child's output text is the tool's return the parent's model reads,
// and the child's usage is added to the parent's.
func TestAgentToolReturnsOutputAndSumsUsage(t *testing.T) {
	childModel := model.NewTestModel(usedBy(text("four"), 7, 3))
	child := agent.NewBuilder(childModel).Name("maths").MustBuild()
	at := mustAsTool(t, child, agent.AsToolOptions{Description: "does sums"})
	if d := at.Definition(); d.Name != "maths" || d.Description != "does sums" {
		t.Fatalf("definition %+v", d)
	}
	parentModel := model.NewTestModel(
		usedBy(calls(model.Call("c1", "maths", map[string]string{"prompt": "2+2?"})), 100, 10),
		usedBy(text("it is four"), 120, 5))
	parent := agent.NewBuilder(parentModel).Tool(at).MustBuild()
	res, err := parent.Run(context.Background(), "ask maths")
	if err != nil || res.Output != "it is four" {
		t.Fatalf("run: %+v %v", res, err)
	}
	rets := res.Returns()
	if len(rets) != 1 || rets[0].IsError || rets[0].Content != "four" {
		t.Fatalf("returns %+v", rets)
	}
	reqs := childModel.Requests()
	if len(reqs) != 1 || !strings.Contains(lastUserText(reqs[0].Messages), "2+2?") {
		t.Fatalf("child requests %+v", reqs)
	}
	want := model.Usage{Requests: 3, InputTokens: 227, OutputTokens: 18, ToolCalls: 1}
	if res.Usage != want {
		t.Fatalf("usage %+v, want %+v", res.Usage, want)
	}
}

func lastUserText(msgs []model.Message) string {
	b, _ := json.Marshal(msgs[len(msgs)-1])
	return string(b)
}

// A child with an output type returns its structured value.
func TestAgentToolTypedOutput(t *testing.T) {
	childModel := model.NewTestModel(calls(model.Call("o", agent.DefaultOutputName, map[string]any{"city": "Paris", "pop": 2})))
	child := agent.NewBuilder(childModel).Name("geo").Output(agent.OutputSpec{Schema: map[string]any{
		"type": "object", "properties": map[string]any{"city": map[string]any{"type": "string"}, "pop": map[string]any{"type": "integer"}},
		"required": []any{"city", "pop"}}}).MustBuild()
	parentModel := model.NewTestModel(calls(model.Call("c1", "geo", map[string]string{"prompt": "capital of France"})), text("done"))
	parent := agent.NewBuilder(parentModel).Tool(mustAsTool(t, child, agent.AsToolOptions{})).MustBuild()
	res, err := parent.Run(context.Background(), "go")
	if err != nil || res.Output != "done" {
		t.Fatalf("run: %+v %v", res, err)
	}
	got := contentMap(t, res.Returns()[0].Content)
	if got["city"] != "Paris" || got["pop"] != float64(2) {
		t.Fatalf("typed return %#v", res.Returns()[0].Content)
	}
}

// Grants narrow the child's run: an ungranted tool is not offered, a call
// of it is refused and never runs; a grant the child lacks fails AsTool.
func TestAgentToolGrants(t *testing.T) {
	var ran, hooked atomic.Int32
	childModel := model.NewTestModel(calls(model.Call("d", "delete_file", nil)), text("refused"))
	child := grantedAgent(childModel, &ran, &hooked, agent.ReturnToModel)
	if _, err := agent.AsTool(child, agent.AsToolOptions{Name: "helper", Grants: []string{"search", "nope"}}); !errors.Is(err, agent.ErrConfig) ||
		!strings.Contains(err.Error(), "nope") {
		t.Fatalf("unknown grant: %v", err)
	}
	at := mustAsTool(t, child, agent.AsToolOptions{Name: "helper", Grants: []string{"search"}})
	parent := agent.NewBuilder(model.NewTestModel(calls(model.Call("c1", "helper", map[string]string{"prompt": "clean up"})), text("ok"))).
		Tool(at).MustBuild()
	if _, err := parent.Run(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	if ran.Load() != 0 {
		t.Fatalf("an ungranted tool ran %d times", ran.Load())
	}
	reqs := childModel.Requests()
	if got := sentTools(reqs[0]); len(got) != 1 || got[0] != "search" {
		t.Fatalf("child offered %v", got)
	}
	b, _ := json.Marshal(reqs[1].Messages)
	if !strings.Contains(string(b), `not granted to this run`) {
		t.Fatalf("child's model did not read the refusal: %s", b)
	}
}

// The child's events reach the parent's handlers tagged with its name.
func TestAgentToolForwardsEvents(t *testing.T) {
	child := agent.NewBuilder(model.NewTestModel(text("hi"))).Name("greeter").MustBuild()
	parent := agent.NewBuilder(model.NewTestModel(calls(model.Call("c1", "greeter", map[string]string{"prompt": "hello"})), text("ok"))).
		Tool(mustAsTool(t, child, agent.AsToolOptions{})).MustBuild()
	var mu sync.Mutex
	var evs []agent.Event
	res, err := parent.Run(context.Background(), "go", agent.WithEvents(func(ev agent.Event) {
		mu.Lock()
		evs = append(evs, ev)
		mu.Unlock()
	}))
	if err != nil {
		t.Fatal(err)
	}
	var childKinds []string
	for i, ev := range evs {
		if ev.Sequence != i+1 {
			t.Fatalf("event %d has sequence %d", i, ev.Sequence)
		}
		switch ev.AgentName {
		case "greeter":
			if ev.RunID == res.RunID || ev.ParentToolCallID != "c1" {
				t.Fatalf("a child event carries the parent's run id or not its call: %+v", ev)
			}
			childKinds = append(childKinds, ev.Kind)
		case "":
			if ev.RunID != res.RunID {
				t.Fatalf("parent event with run id %q", ev.RunID)
			}
		default:
			t.Fatalf("event of %q", ev.AgentName)
		}
	}
	if len(childKinds) == 0 || childKinds[0] != agent.EventRunStart || childKinds[len(childKinds)-1] != agent.EventRunComplete {
		t.Fatalf("child events %v", childKinds)
	}
}

// A failing child gives the parent's model an error return naming it.
func TestAgentToolChildFailureIsErrorReturn(t *testing.T) {
	child := agent.NewBuilder(model.NewFunctionModel(func(context.Context, []model.Message, model.Params) (model.Message, error) {
		return model.Message{}, errors.New("provider down")
	})).Name("flaky").MustBuild()
	parent := agent.NewBuilder(model.NewTestModel(calls(model.Call("c1", "flaky", map[string]string{"prompt": "x"})), text("coped"))).
		Tool(mustAsTool(t, child, agent.AsToolOptions{})).MustBuild()
	res, err := parent.Run(context.Background(), "go")
	if err != nil || res.Output != "coped" {
		t.Fatalf("run: %+v %v", res, err)
	}
	ret := res.Returns()[0]
	msg, _ := contentMap(t, ret.Content)["message"].(string)
	if !ret.IsError || !strings.Contains(msg, `agent "flaky" failed`) || !strings.Contains(msg, "provider down") {
		t.Fatalf("return %+v", ret)
	}
}

// Cancelling the parent's run cancels the child's, and the run ends.
func TestAgentToolCancellationReachesChild(t *testing.T) {
	started := make(chan struct{})
	childSaw := make(chan error, 1)
	child := agent.NewBuilder(model.NewFunctionModel(func(ctx context.Context, _ []model.Message, _ model.Params) (model.Message, error) {
		close(started)
		select {
		case <-ctx.Done():
			childSaw <- ctx.Err()
			return model.Message{}, ctx.Err()
		case <-time.After(30 * time.Second):
			childSaw <- nil
			return text("late"), nil
		}
	})).Name("slow").MustBuild()
	parent := agent.NewBuilder(model.NewTestModel(calls(model.Call("c1", "slow", map[string]string{"prompt": "x"})), text("unreached"))).
		Tool(mustAsTool(t, child, agent.AsToolOptions{})).MustBuild()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan *agent.RunResult, 1)
	go func() {
		res, _ := parent.Run(ctx, "go")
		done <- res
	}()
	select {
	case <-started:
	case <-time.After(10 * time.Second):
		t.Fatal("the child never started")
	}
	cancel()
	select {
	case err := <-childSaw:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("the child saw %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the child was not cancelled")
	}
	select {
	case res := <-done:
		if res == nil || res.Status != agent.StatusCancelled {
			t.Fatalf("parent ended %+v", res)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the parent's run did not end")
	}
}

// Children called in parallel by one response all add their usage.
func TestAgentToolParallelChildrenSumUsage(t *testing.T) {
	child := agent.NewBuilder(model.NewFunctionModel(func(context.Context, []model.Message, model.Params) (model.Message, error) {
		return usedBy(text("ok"), 10, 1), nil
	})).Name("worker").MustBuild()
	var cs []model.ToolCall
	for i := range 8 {
		cs = append(cs, model.Call("c"+string(rune('a'+i)), "worker", map[string]string{"prompt": "work"}))
	}
	parent := agent.NewBuilder(model.NewTestModel(usedBy(calls(cs...), 1, 1), usedBy(text("done"), 1, 1))).
		Tool(mustAsTool(t, child, agent.AsToolOptions{})).MustBuild()
	res, err := parent.Run(context.Background(), "go")
	if err != nil {
		t.Fatal(err)
	}
	want := model.Usage{Requests: 10, InputTokens: 82, OutputTokens: 10, ToolCalls: 8}
	if res.Usage != want {
		t.Fatalf("usage %+v, want %+v", res.Usage, want)
	}
}

// A child run gets what the parent run has left of each limit the parent
// sets: here two of the parent's three requests, which the child's third
// request passes.
func TestAgentToolChildGetsTheParentsRemainingLimits(t *testing.T) {
	echo := tool.New("echo", "", nil, func(context.Context, *tool.Context, json.RawMessage) (tool.Result, error) {
		return tool.Text("again"), nil
	})
	var childRequests atomic.Int32
	child := agent.NewBuilder(model.NewFunctionModel(func(context.Context, []model.Message, model.Params) (model.Message, error) {
		childRequests.Add(1)
		return calls(model.Call("e", "echo", nil)), nil
	})).Name("looper").Tool(echo).MustBuild()
	parent := agent.NewBuilder(model.NewTestModel(calls(model.Call("c1", "looper", map[string]string{"prompt": "loop"})), text("done"))).
		Tool(mustAsTool(t, child, agent.AsToolOptions{})).MustBuild()
	res, err := parent.Run(context.Background(), "go", agent.WithUsageLimits(agent.UsageLimits{RequestLimit: 3}))
	if err != nil || res.Output != "done" {
		t.Fatalf("run: %+v %v", res, err)
	}
	if n := childRequests.Load(); n != 2 {
		t.Fatalf("the child made %d requests, want the 2 the parent had left", n)
	}
	ret := res.Returns()[0]
	msg, _ := contentMap(t, ret.Content)["message"].(string)
	if !ret.IsError || !strings.Contains(msg, `agent "looper" failed`) || !strings.Contains(msg, "request_limit") {
		t.Fatalf("return %+v", ret)
	}
}

// Agent tools nest: a grandchild's events keep its name, and its usage
// reaches the top run through its parent's.
func TestAgentToolNests(t *testing.T) {
	leaf := agent.NewBuilder(model.NewTestModel(usedBy(text("leaf says hi"), 5, 5))).Name("leaf").MustBuild()
	mid := agent.NewBuilder(model.NewTestModel(usedBy(calls(model.Call("l", "leaf", map[string]string{"prompt": "hi"})), 1, 1),
		usedBy(text("mid done"), 1, 1))).Name("mid").Tool(mustAsTool(t, leaf, agent.AsToolOptions{})).MustBuild()
	top := agent.NewBuilder(model.NewTestModel(usedBy(calls(model.Call("m", "mid", map[string]string{"prompt": "go"})), 1, 1),
		usedBy(text("top done"), 1, 1))).Tool(mustAsTool(t, mid, agent.AsToolOptions{})).MustBuild()
	names := map[string]int{}
	res, err := top.Run(context.Background(), "go", agent.WithEvents(func(ev agent.Event) { names[ev.AgentName]++ }))
	if err != nil || res.Output != "top done" {
		t.Fatalf("run: %+v %v", res, err)
	}
	if names[""] == 0 || names["mid"] == 0 || names["leaf"] == 0 {
		t.Fatalf("events by agent %v", names)
	}
	want := model.Usage{Requests: 5, InputTokens: 9, OutputTokens: 9, ToolCalls: 2}
	if res.Usage != want {
		t.Fatalf("usage %+v, want %+v", res.Usage, want)
	}
}

// A streaming parent streams its children: their deltas reach the
// parent's handlers tagged with the child's name.
func TestAgentToolChildDeltasStreamTagged(t *testing.T) {
	child := agent.NewBuilder(model.NewTestModel(text("from the child"))).Name("helper").MustBuild()
	parent := agent.NewBuilder(model.NewTestModel(calls(model.Call("c1", "helper", map[string]string{"prompt": "x"})), text("done"))).
		Tool(mustAsTool(t, child, agent.AsToolOptions{})).MustBuild()
	var mu sync.Mutex
	var childText, parentText strings.Builder
	_, err := parent.Run(context.Background(), "go", agent.WithDeltas(), agent.WithEvents(func(ev agent.Event) {
		if ev.Kind != agent.EventTextDelta {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		switch ev.AgentName {
		case "helper":
			childText.WriteString(ev.Delta.Text)
		case "":
			parentText.WriteString(ev.Delta.Text)
		}
	}))
	if err != nil {
		t.Fatal(err)
	}
	if childText.String() != "from the child" || parentText.String() != "done" {
		t.Fatalf("child streamed %q, parent %q", childText.String(), parentText.String())
	}
}

// A child's tools get the child agent's dependencies, plus the parent's
// named ones the tool grants, and no other of the parent's.
func TestAgentToolDepsOnlyNarrow(t *testing.T) {
	seen := map[string][]string{}
	var mu sync.Mutex
	look := tool.New("look", "", nil, func(_ context.Context, tc *tool.Context, _ json.RawMessage) (tool.Result, error) {
		mu.Lock()
		defer mu.Unlock()
		names := tc.Deps.Names()
		slices.Sort(names)
		seen[tc.RunID] = names
		return tool.Text("looked"), nil
	})
	child := func(name string) *agent.Agent {
		own := &tool.Deps{}
		own.SetNamed("own", name)
		return agent.NewBuilder(model.NewTestModel(calls(model.Call("l", "look", nil)), text("ok"))).
			Name(name).Tool(look).Deps(own).MustBuild()
	}
	parentDeps := &tool.Deps{}
	parentDeps.SetNamed("db", "the database")
	parentDeps.SetNamed("secret", "the key")
	parent := agent.NewBuilder(model.NewTestModel(
		calls(model.Call("a", "narrow", map[string]string{"prompt": "x"}), model.Call("b", "granted", map[string]string{"prompt": "x"})),
		text("done"))).
		Tool(mustAsTool(t, child("narrow"), agent.AsToolOptions{}), mustAsTool(t, child("granted"), agent.AsToolOptions{Deps: []string{"db"}})).
		Deps(parentDeps).MustBuild()
	if _, err := parent.Run(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	var got [][]string
	for _, names := range seen {
		got = append(got, names)
	}
	slices.SortFunc(got, func(a, b []string) int { return len(a) - len(b) })
	if len(got) != 2 || !slices.Equal(got[0], []string{"own"}) || !slices.Equal(got[1], []string{"db", "own"}) {
		t.Fatalf("the children's tools saw %v", got)
	}
}
