package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/starweaver-go/starweaver/core/agent"
	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/tool"
)

// turnScript is a model's answers for turns turns, each a tool call and a
// text answer.
func turnScript(turns int) []model.Message {
	var out []model.Message
	for i := range turns {
		out = append(out,
			model.CallsResponse(model.ToolCall{ID: fmt.Sprintf("c%d", i), Name: "add", Arguments: json.RawMessage(`{"a":1,"b":2}`)}),
			model.Response(model.TextPart(fmt.Sprintf("answer %d", i))))
	}
	return out
}

func prompts(msgs []model.Message) []string {
	var out []string
	for _, m := range msgs {
		for _, p := range m.Parts {
			if p.Kind == model.KindUserPrompt && len(p.Content) > 0 {
				out = append(out, p.Content[0].Text)
			}
		}
	}
	return out
}

// KeepLastTurns sends the last n turns (each a call and its return kept
// together) behind the system prompt; the session keeps every message.
func TestKeepLastTurns(t *testing.T) {
	m := model.NewTestModel(turnScript(4)...)
	a := agent.NewBuilder(m).SystemPrompt("be brief").Tool(addTool()).HistoryProcessors(agent.KeepLastTurns(2)).MustBuild()
	s := a.NewSession()
	for i := range 4 {
		if _, err := s.Run(context.Background(), fmt.Sprintf("q%d", i)); err != nil {
			t.Fatal(err)
		}
	}
	reqs := m.Requests()
	last := reqs[len(reqs)-1].Messages
	if got := prompts(last); strings.Join(got, ",") != "q2,q3" {
		t.Fatalf("the last request holds the prompts %v", got)
	}
	if last[0].Parts[0].Kind != model.KindSystemPrompt || last[0].Parts[0].Text != "be brief" {
		t.Fatalf("first part %+v", last[0].Parts[0])
	}
	// The second request of the fourth turn answers call c3: the call and
	// its return are both sent.
	for _, r := range reqs {
		assertPaired(t, r.Messages)
	}
	if got := prompts(s.Messages()); strings.Join(got, ",") != "q0,q1,q2,q3" {
		t.Fatalf("the session holds %v", got)
	}
	if s.Messages()[0].Parts[0].Kind != model.KindSystemPrompt {
		t.Fatal("the stored history lost its system prompt")
	}
}

func assertPaired(t *testing.T, msgs []model.Message) {
	t.Helper()
	open := map[string]bool{}
	for _, m := range msgs {
		for _, p := range m.Parts {
			switch {
			case p.Kind == model.KindToolCall:
				open[p.ToolCall.ID] = true
			case p.Kind == model.KindToolReturn, p.Kind == model.KindRetryPrompt && p.ToolCallID != "":
				id := p.ToolCallID
				if p.Return != nil {
					id = p.Return.ToolCallID
				}
				if !open[id] {
					t.Fatalf("answer of %s without its call", id)
				}
				delete(open, id)
			}
		}
	}
	if len(open) > 0 {
		t.Fatalf("calls without returns: %v", open)
	}
}

// A processor that separates a call from its return, or leaves no request
// at the end, fails the run with ErrConfig before the model is asked; a
// processor's own error fails it too; dropping a call with its return is
// fine.
func TestHistoryProcessorChecks(t *testing.T) {
	dropReturns := agent.HistoryProcessorFunc(func(_ context.Context, msgs []model.Message) ([]model.Message, error) {
		out := make([]model.Message, 0, len(msgs))
		for _, m := range msgs {
			c := m
			c.Parts = nil
			for _, p := range m.Parts {
				if p.Kind != model.KindToolReturn {
					c.Parts = append(c.Parts, p)
				}
			}
			out = append(out, c)
		}
		return out, nil
	})
	failing := agent.HistoryProcessorFunc(func(context.Context, []model.Message) ([]model.Message, error) {
		return nil, errors.New("budget service down")
	})
	endsWithResponse := agent.HistoryProcessorFunc(func(_ context.Context, msgs []model.Message) ([]model.Message, error) {
		return append(msgs, model.Response(model.TextPart("x"))), nil
	})
	for name, tc := range map[string]struct {
		p    agent.HistoryProcessor
		want string
		cfg  bool
	}{
		"split":      {dropReturns, `separated tool call "c0"`, true},
		"error":      {failing, "history processor 0: budget service down", false},
		"no request": {endsWithResponse, "does not end with a request", true},
	} {
		t.Run(name, func(t *testing.T) {
			m := model.NewTestModel(turnScript(1)...)
			a := agent.NewBuilder(m).Tool(addTool()).HistoryProcessors(tc.p).MustBuild()
			_, err := a.Run(context.Background(), "q")
			if err == nil || !strings.Contains(err.Error(), tc.want) || errors.Is(err, agent.ErrConfig) != tc.cfg {
				t.Fatalf("err %v", err)
			}
		})
	}
	// Dropping a call with its return is allowed; the processors run in
	// order, each over the previous one's result.
	var seen []int
	count := func(i int) agent.HistoryProcessor {
		return agent.HistoryProcessorFunc(func(_ context.Context, msgs []model.Message) ([]model.Message, error) {
			seen = append(seen, i)
			return msgs, nil
		})
	}
	m := model.NewTestModel(turnScript(2)...)
	a := agent.NewBuilder(m).Tool(addTool()).HistoryProcessors(count(1), agent.KeepLastTurns(1), count(2)).MustBuild()
	s := a.NewSession()
	for _, q := range []string{"a", "b"} {
		if _, err := s.Run(context.Background(), q); err != nil {
			t.Fatal(err)
		}
	}
	if fmt.Sprint(seen) != "[1 2 1 2 1 2 1 2]" {
		t.Fatalf("processors ran %v", seen)
	}
}

// Over random conversations, KeepLastTurns never separates a call from
// its return, keeps the last n turns whole, and never modifies its input.
func TestKeepLastTurnsNeverSplitsCalls(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	cuts := 0
	for range 300 {
		var msgs []model.Message
		call := 0
		for turn := range 1 + rng.IntN(6) {
			msgs = append(msgs, model.Request(model.UserPrompt(fmt.Sprintf("q%d", turn))))
			for range rng.IntN(3) { // steps with calls, some parallel, one answered by a retry prompt
				var calls []model.ToolCall
				var answers []model.Part
				for range 1 + rng.IntN(3) {
					id := fmt.Sprintf("c%d", call)
					call++
					calls = append(calls, model.ToolCall{ID: id, Name: "add", Arguments: json.RawMessage(`{}`)})
					if rng.IntN(4) == 0 {
						answers = append(answers, model.RetryPrompt("again", id))
					} else {
						answers = append(answers, model.ToolReturn(tool.Return{ToolCallID: id, Name: "add", Content: 3}))
					}
				}
				if rng.IntN(3) == 0 {
					answers = append(answers, model.UserPrompt("steering"))
				}
				msgs = append(msgs, model.CallsResponse(calls...), model.Request(answers...))
			}
			if turn < 5 {
				msgs = append(msgs, model.Response(model.TextPart("done")))
			}
		}
		if msgs[len(msgs)-1].Kind != model.KindRequest {
			msgs = append(msgs, model.Request(model.UserPrompt("last")))
		}
		before, _ := json.Marshal(msgs)
		n := 1 + rng.IntN(3)
		out, err := agent.KeepLastTurns(n).Process(context.Background(), msgs)
		if err != nil {
			t.Fatal(err)
		}
		if after, _ := json.Marshal(msgs); string(after) != string(before) {
			t.Fatal("KeepLastTurns modified its input")
		}
		assertPaired(t, out)
		if len(out) > len(msgs) || out[len(out)-1].Kind != model.KindRequest {
			t.Fatalf("kept %d of %d messages, last %s", len(out), len(msgs), out[len(out)-1].Kind)
		}
		if len(out) < len(msgs) {
			cuts++
		}
	}
	if cuts < 100 {
		t.Fatalf("only %d of 300 conversations were cut", cuts)
	}
}

// A long conversation sends only its last turns; the session keeps all.
func ExampleKeepLastTurns() {
	m := model.NewTestModel(model.Response(model.TextPart("one")), model.Response(model.TextPart("two")), model.Response(model.TextPart("three")))
	a := agent.NewBuilder(m).HistoryProcessors(agent.KeepLastTurns(1)).MustBuild()
	s := a.NewSession()
	for _, q := range []string{"first", "second", "third"} {
		if _, err := s.Run(context.Background(), q); err != nil {
			panic(err)
		}
	}
	reqs := m.Requests()
	fmt.Println(len(reqs[2].Messages), "message sent,", len(s.Messages()), "stored")
	// Output: 1 message sent, 6 stored
}
