package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/starweaver-go/starweaver/core/agent"
	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/tool"
)

// repeating is a model that answers every request with resp, counting them.
func repeating(requests *atomic.Int32, resp func(n int32) model.Message) *model.FunctionModel {
	return model.NewFunctionModel(func(context.Context, []model.Message, model.Params) (model.Message, error) {
		return resp(requests.Add(1)), nil
	})
}

func echoTool(ran *atomic.Int32) tool.Tool {
	return tool.New("echo", "", nil, func(context.Context, *tool.Context, json.RawMessage) (tool.Result, error) {
		ran.Add(1)
		return tool.Text("ok"), nil
	})
}

func TestUnknownToolSpendsTheRetryBudget(t *testing.T) {
	for _, tc := range []struct {
		name string
		max  *int
		want int32 // requests: the budget's returns reach the model, then the run fails
	}{{"default budget", nil, 4}, {"agent budget", ptr(1), 2}} {
		t.Run(tc.name, func(t *testing.T) {
			var n atomic.Int32
			m := repeating(&n, func(int32) model.Message { return calls(model.Call("", "nope", nil)) })
			b := agent.NewBuilder(m).Tool(addTool())
			if tc.max != nil {
				b.MaxRetries(*tc.max)
			}
			res, err := b.MustBuild().Run(context.Background(), "go")
			var rl *agent.RetryLimitError
			if !errors.As(err, &rl) || rl.Tool != "nope" || !rl.Unknown || !errors.Is(err, agent.ErrRetryLimit) {
				t.Fatalf("err = %v", err)
			}
			if !strings.Contains(err.Error(), `unknown tool "nope"`) || res.Status != agent.StatusFailed || n.Load() != tc.want {
				t.Fatalf("err %q status %s requests %d", err, res.Status, n.Load())
			}
		})
	}
	// Within the budget the model may recover; each unknown name counts on
	// its own.
	m := model.NewTestModel(calls(model.Call("1", "nope", nil), model.Call("2", "other", nil)),
		calls(model.Call("3", "nope", nil)), calls(model.Call("4", "other", nil)), text("sorry"))
	res := mustRun(t, agent.NewBuilder(m).MaxRetries(2).MustBuild(), "go")
	if res.Output != "sorry" {
		t.Fatalf("output %q", res.Output)
	}
	if rt := res.Returns()[2].Runtime; rt.Retry != 2 || rt.MaxRetries != 2 {
		t.Fatalf("runtime %+v", rt)
	}
}

func ptr[T any](v T) *T { return &v }

func TestDefaultRequestLimit(t *testing.T) {
	var n, ran atomic.Int32
	m := repeating(&n, func(i int32) model.Message { return calls(model.Call("", "echo", nil)) })
	res, err := agent.NewBuilder(m).Tool(echoTool(&ran)).MustBuild().Run(context.Background(), "go")
	var ul *agent.UsageLimitError
	if !errors.As(err, &ul) || ul.Limit != agent.LimitRequests || ul.Value != agent.DefaultRequestLimit ||
		!errors.Is(err, agent.ErrUsageLimitExceeded) || !errors.Is(err, agent.ErrMaxSteps) {
		t.Fatalf("err = %v", err)
	}
	if n.Load() != 50 || ran.Load() != 50 || res.Status != agent.StatusFailed || res.Usage.Requests != 50 {
		t.Fatalf("requests %d ran %d status %s usage %+v", n.Load(), ran.Load(), res.Status, res.Usage)
	}
	if want := "agent: usage limit exceeded: the next request would exceed the request_limit of 50"; err.Error() != want {
		t.Fatalf("message %q", err)
	}
}

func TestRequestLimitPrecedence(t *testing.T) {
	for _, tc := range []struct {
		name  string
		build func(*agent.Builder)
		opts  []agent.RunOption
		want  int32
	}{
		{"max steps", func(b *agent.Builder) { b.MaxSteps(5) }, nil, 5},
		{"agent limits", func(b *agent.Builder) { b.MaxSteps(5).UsageLimits(agent.UsageLimits{RequestLimit: 4}) }, nil, 4},
		{"unset field keeps max steps", func(b *agent.Builder) { b.MaxSteps(5).UsageLimits(agent.UsageLimits{ToolCallsLimit: 100}) }, nil, 5},
		{"run option", func(b *agent.Builder) { b.MaxSteps(5) }, []agent.RunOption{agent.WithUsageLimits(agent.UsageLimits{RequestLimit: 3})}, 3},
		{"run option may raise it", func(b *agent.Builder) { b.MaxSteps(2) }, []agent.RunOption{agent.WithUsageLimits(agent.UsageLimits{RequestLimit: 60})}, 60},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var n, ran atomic.Int32
			b := agent.NewBuilder(repeating(&n, func(int32) model.Message { return calls(model.Call("", "echo", nil)) })).Tool(echoTool(&ran))
			tc.build(b)
			_, err := b.MustBuild().Run(context.Background(), "go", tc.opts...)
			if !errors.Is(err, agent.ErrUsageLimitExceeded) || n.Load() != tc.want {
				t.Fatalf("err %v requests %d", err, n.Load())
			}
		})
	}
}

func TestToolCallsLimit(t *testing.T) {
	var n, ran atomic.Int32
	m := repeating(&n, func(int32) model.Message { return calls(model.Call("", "echo", nil), model.Call("", "echo", nil)) })
	a := agent.NewBuilder(m).Tool(echoTool(&ran)).UsageLimits(agent.UsageLimits{ToolCallsLimit: 3}).MustBuild()
	res, err := a.Run(context.Background(), "go")
	var ul *agent.UsageLimitError
	if !errors.As(err, &ul) || ul.Limit != agent.LimitToolCalls || ul.Value != 3 || ul.Used != 4 {
		t.Fatalf("err = %v", err)
	}
	// The second batch would pass the limit: it never runs.
	if ran.Load() != 2 || n.Load() != 2 || res.Usage.ToolCalls != 2 {
		t.Fatalf("ran %d requests %d usage %+v", ran.Load(), n.Load(), res.Usage)
	}
	if !strings.Contains(err.Error(), "tool_calls_limit of 3 (tool_calls=4)") {
		t.Fatalf("message %q", err)
	}
}

func TestTokenLimitsAfterEachResponse(t *testing.T) {
	for _, tc := range []struct {
		limits agent.UsageLimits
		name   string
		used   int
	}{
		{agent.UsageLimits{InputTokensLimit: 100}, agent.LimitInputTokens, 120},
		{agent.UsageLimits{OutputTokensLimit: 15}, agent.LimitOutputTokens, 20},
		{agent.UsageLimits{TotalTokensLimit: 100}, agent.LimitTotalTokens, 140},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var n, ran atomic.Int32
			m := repeating(&n, func(int32) model.Message {
				r := calls(model.Call("", "echo", nil))
				r.Usage = &model.Usage{Requests: 1, InputTokens: 60, OutputTokens: 10}
				return r
			})
			a := agent.NewBuilder(m).Tool(echoTool(&ran)).MustBuild()
			res, err := a.Run(context.Background(), "go", agent.WithUsageLimits(tc.limits))
			var ul *agent.UsageLimitError
			if !errors.As(err, &ul) || ul.Limit != tc.name || ul.Used != tc.used {
				t.Fatalf("err = %v", err)
			}
			// Checked after the second response, before its calls run.
			if n.Load() != 2 || ran.Load() != 1 || res.Status != agent.StatusFailed {
				t.Fatalf("requests %d ran %d status %s", n.Load(), ran.Load(), res.Status)
			}
			if !strings.Contains(err.Error(), "exceeded the "+tc.name) {
				t.Fatalf("message %q", err)
			}
		})
	}
}

func TestInvalidLimits(t *testing.T) {
	m := model.TextModel("x")
	for name, b := range map[string]*agent.Builder{
		"max steps 0":        agent.NewBuilder(m).MaxSteps(0),
		"max steps negative": agent.NewBuilder(m).MaxSteps(-1),
		"negative limit":     agent.NewBuilder(m).UsageLimits(agent.UsageLimits{TotalTokensLimit: -5}),
	} {
		if _, err := b.Build(); !errors.Is(err, agent.ErrInvalidLimit) || !errors.Is(err, agent.ErrConfig) {
			t.Errorf("%s: %v", name, err)
		}
	}
	s := agent.NewBuilder(model.TextModel("fine")).MustBuild().NewSession()
	if _, err := s.Run(context.Background(), "go", agent.WithUsageLimits(agent.UsageLimits{RequestLimit: -1})); !errors.Is(err, agent.ErrInvalidLimit) ||
		err.Error() != "agent: invalid configuration: usage limits must be positive: request_limit is -1" {
		t.Fatalf("run option: %v", err)
	}
	if res, err := s.Run(context.Background(), "go"); err != nil || res.Output != "fine" {
		t.Fatalf("the refused run left the session unusable: %v", err)
	}
}

func TestUsageLimitsJSON(t *testing.T) {
	var l agent.UsageLimits
	if err := json.Unmarshal([]byte(`{"request_limit":7,"total_tokens_limit":9}`), &l); err != nil ||
		l != (agent.UsageLimits{RequestLimit: 7, TotalTokensLimit: 9}) {
		t.Fatalf("%+v %v", l, err)
	}
	for raw, want := range map[string]string{
		`{"request_limit":0}`:        "usage limits must be positive: request_limit is 0",
		`{"tool_calls_limit":-2}`:    "usage limits must be positive: tool_calls_limit is -2",
		`{"request_limits":3}`:       "unknown field",
		`{"input_tokens_limit":"x"}`: "cannot unmarshal",
	} {
		var l agent.UsageLimits
		if err := json.Unmarshal([]byte(raw), &l); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v", raw, err)
		}
	}
	b, _ := json.Marshal(agent.UsageLimits{ToolCallsLimit: 2})
	if string(b) != `{"tool_calls_limit":2}` {
		t.Fatalf("%s", b)
	}
}

// A run stopped by its request limit right after a batch keeps that
// batch's real returns: the calls ran.
func TestRequestLimitKeepsTheLastBatchReturns(t *testing.T) {
	m := model.NewTestModel(calls(model.Call("c1", "add", map[string]int{"left": 2, "right": 3})), text("never"))
	a := agent.NewBuilder(m).Tool(addTool()).MustBuild()
	res, err := a.Run(context.Background(), "add", agent.WithUsageLimits(agent.UsageLimits{RequestLimit: 1}))
	var ul *agent.UsageLimitError
	if !errors.As(err, &ul) || ul.Limit != agent.LimitRequests {
		t.Fatalf("err = %v", err)
	}
	last := res.Messages[len(res.Messages)-1]
	if last.Kind != model.KindRequest || len(last.Parts) != 1 || last.Parts[0].Return == nil {
		t.Fatalf("last message %+v", last)
	}
	ret := last.Parts[0].Return
	if b, _ := json.Marshal(ret.Content); ret.IsError || string(b) != `{"total":5}` {
		t.Fatalf("the real return was replaced: %+v", ret)
	}
}
