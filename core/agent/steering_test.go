package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/starweaver-go/starweaver/core/agent"
	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/tool"
)

// userTexts returns the user prompts of the last request's message.
func userTexts(msgs []model.Message) []string {
	var out []string
	for _, p := range msgs[len(msgs)-1].Parts {
		if p.Kind == model.KindUserPrompt {
			out = append(out, p.Content[0].Text)
		}
	}
	return out
}

// bothStarted returns tools a and b, each of which signals its start and
// waits for release, and a channel closed once both started.
func bothStarted(release <-chan struct{}) (tool.Tool, tool.Tool, <-chan struct{}) {
	var wg sync.WaitGroup
	wg.Add(2)
	all := make(chan struct{})
	go func() { wg.Wait(); close(all) }()
	mk := func(name string) tool.Tool {
		return tool.New(name, "", map[string]any{"type": "object"}, func(ctx context.Context, _ *tool.Context, _ json.RawMessage) (tool.Result, error) {
			wg.Done()
			select {
			case <-release:
				return tool.Text(name), nil
			case <-ctx.Done():
				return tool.Result{}, ctx.Err()
			}
		})
	}
	return mk("a"), mk("b"), all
}

// Texts steered while a parallel batch runs go with the next request,
// after the batch's returns.
func TestSteerDuringParallelBatch(t *testing.T) {
	release := make(chan struct{})
	a, b, all := bothStarted(release)
	m := &streamer{responses: []model.Message{twoCalls("a", "b"), text("done")}}
	s := agent.NewSteering()
	go func() {
		if waitFor(context.Background(), all) == nil {
			s.Steer("also check c")
			s.Steer("and d")
		}
		close(release)
	}()
	res, err := agent.NewBuilder(m).Tool(a, b).MustBuild().Run(context.Background(), "go", agent.WithSteering(s))
	if err != nil || res.Output != "done" {
		t.Fatal(err)
	}
	last := m.lastRequest()
	if got := strings.Join(userTexts(last), "|"); got != "also check c|and d" {
		t.Fatalf("steered prompts %q", got)
	}
	parts := last[len(last)-1].Parts
	if parts[0].Kind != model.KindToolReturn || parts[1].Kind != model.KindToolReturn {
		t.Fatalf("returns must come first: %+v", parts)
	}
	if s.Steer("late") {
		t.Fatal("Steer accepted a text after the run ended")
	}
	if len(s.Undelivered()) != 0 {
		t.Fatalf("undelivered %v", s.Undelivered())
	}
}

// A text steered while the model gives its final answer is not lost: the
// run asks the model once more.
func TestSteerBeforeCompletionContinuesRun(t *testing.T) {
	s := agent.NewSteering()
	m := &streamer{responses: []model.Message{text("first answer"), text("second answer")}}
	m.afterDone = nil
	steered := &steerOnRequest{Model: m, s: s, text: "wait, one more thing"}
	res, err := agent.NewBuilder(steered).MustBuild().Run(context.Background(), "go", agent.WithSteering(s))
	if err != nil || res.Output != "second answer" {
		t.Fatalf("%v %v", res, err)
	}
	if got := userTexts(m.lastRequest()); len(got) != 1 || got[0] != "wait, one more thing" {
		t.Fatalf("prompts %v", got)
	}
}

// steerOnRequest steers once, during its first request.
type steerOnRequest struct {
	model.Model
	s    *agent.Steering
	text string
	once sync.Once
}

func (m *steerOnRequest) Request(ctx context.Context, msgs []model.Message, p model.Params) (model.Message, error) {
	m.once.Do(func() { m.s.Steer(m.text) })
	return m.Model.Request(ctx, msgs, p)
}

// A run that fails keeps the texts it never sent as undelivered.
func TestSteerUndeliveredWhenRunFails(t *testing.T) {
	s := agent.NewSteering()
	fail := model.NewFunctionModel(func(context.Context, []model.Message, model.Params) (model.Message, error) {
		s.Steer("too late")
		return model.Message{}, errors.New("down")
	})
	if _, err := agent.NewBuilder(fail).MustBuild().Run(context.Background(), "go", agent.WithSteering(s)); err == nil {
		t.Fatal("want an error")
	}
	if got := s.Undelivered(); len(got) != 1 || got[0] != "too late" {
		t.Fatalf("undelivered %v", got)
	}
}

// Interrupting a run during a parallel batch cancels its tools and ends it
// cancelled, with its messages and the reason.
func TestInterruptDuringParallelBatch(t *testing.T) {
	a, b, all := bothStarted(nil)
	m := &streamer{responses: []model.Message{twoCalls("a", "b"), text("never")}}
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	go func() {
		if waitFor(ctx, all) == nil {
			cancel(agent.Interrupt("user pressed stop"))
		}
	}()
	var last agent.Event
	res, err := agent.NewBuilder(m).Tool(a, b).MustBuild().Run(ctx, "go", agent.WithEvents(func(ev agent.Event) { last = ev }))
	if !errors.Is(err, agent.ErrCancelled) || res.Status != agent.StatusCancelled {
		t.Fatalf("status %v, err %v", res.Status, err)
	}
	var ie *agent.InterruptError
	if !errors.As(err, &ie) || ie.Reason != "user pressed stop" {
		t.Fatalf("err %v", err)
	}
	if last.Kind != agent.EventRunCancelled || !strings.Contains(last.Error, "user pressed stop") ||
		last.Custom == nil || last.Custom.Payload["reason"] != "user pressed stop" {
		t.Fatalf("last event %+v", last)
	}
	var cancelled int
	for _, msg := range res.Messages {
		for _, p := range msg.Parts {
			if p.Kind == model.KindToolReturn && p.Return.ErrorKind() == tool.ErrorKindCancelled {
				cancelled++
			}
		}
	}
	if cancelled != 2 {
		t.Fatalf("want both calls cancelled in the kept messages: %+v", res.Messages)
	}
}
