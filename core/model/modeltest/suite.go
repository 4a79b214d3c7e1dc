package modeltest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/tool"
)

// testKey is the API key every model of the suite sends; the error
// scenarios check that no error shows it.
const testKey = "sk-conformance-0123456789abcdefSECRETkey"

// timeout bounds each request of the suite: the fakes answer at once, so
// only a hung model reaches it.
const timeout = 20 * time.Second

// Run checks p against every scenario of the suite, each in a subtest
// with a fake of its own.
func Run(t *testing.T, p Provider) {
	t.Helper()
	if p.NewFake == nil || p.NewModel == nil {
		t.Fatal("modeltest: Provider needs NewFake and NewModel")
	}
	t.Run("Text", func(t *testing.T) { testText(t, p) })
	t.Run("Length", func(t *testing.T) { testLength(t, p) })
	t.Run("ToolRoundTrip", func(t *testing.T) { testToolRoundTrip(t, p) })
	t.Run("ParallelCalls", func(t *testing.T) { testParallelCalls(t, p) })
	t.Run("ThinkingSentBack", func(t *testing.T) { testThinkingSentBack(t, p) })
	t.Run("OutputTool", func(t *testing.T) { testOutputTool(t, p) })
	t.Run("OutputNative", func(t *testing.T) { testOutputNative(t, p) })
	t.Run("Stream", func(t *testing.T) { testStream(t, p) })
	t.Run("StreamingOption", func(t *testing.T) { testStreamingOption(t, p) })
	t.Run("Errors", func(t *testing.T) { testErrors(t, p) })
	t.Run("Bounds", func(t *testing.T) { testBounds(t, p) })
	t.Run("History", func(t *testing.T) { testHistory(t, p) })
	t.Run("Content", func(t *testing.T) { testContent(t, p) })
}

// env is one scenario's fake and the options of its models.
type env struct {
	t    *testing.T
	p    Provider
	fake Fake
}

func newEnv(t *testing.T, p Provider) *env {
	t.Helper()
	return &env{t: t, p: p, fake: p.NewFake(t)}
}

// model builds a model over the scenario's fake; o's APIKey is the
// suite's key unless set.
func (e *env) model(o Options) model.Model {
	e.t.Helper()
	if o.APIKey == "" {
		o.APIKey = testKey
	}
	m := e.p.NewModel(e.t, e.fake.URL(), o)
	if m == nil {
		e.t.Fatal("NewModel returned nil")
	}
	return m
}

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), timeout)
	t.Cleanup(cancel)
	return c
}

// seen returns the requests the fake received, failing unless there are n.
func (e *env) seen(n int) []Seen {
	e.t.Helper()
	s := e.fake.Seen()
	if len(s) != n {
		e.t.Fatalf("the fake received %d requests, want %d", len(s), n)
	}
	return s
}

// weather is the tool of the tool scenarios.
var weather = tool.Definition{
	Name:        "get_weather",
	Description: "Returns the weather of a city.",
	Parameters: map[string]any{
		"type":                 "object",
		"properties":           map[string]any{"city": map[string]any{"type": "string"}},
		"required":             []any{"city"},
		"additionalProperties": false,
	},
}

// timeTool is the second tool of the parallel scenario.
var timeTool = tool.Definition{
	Name:        "get_time",
	Description: "Returns the local time of a city.",
	Parameters: map[string]any{
		"type":                 "object",
		"properties":           map[string]any{"city": map[string]any{"type": "string"}},
		"required":             []any{"city"},
		"additionalProperties": false,
	},
}

// answerSchema is the schema of the structured output scenarios.
var answerSchema = map[string]any{
	"type":                 "object",
	"properties":           map[string]any{"answer": map[string]any{"type": "integer"}},
	"required":             []any{"answer"},
	"additionalProperties": false,
}

func prompt(text string) model.Message { return model.Request(model.UserPrompt(text)) }

// usage is a usage a wire format can report whole: cached input within
// the input, reasoning within the output.
var usage = model.Usage{InputTokens: 120, OutputTokens: 40, CacheReadTokens: 30, CacheWriteTokens: 10, ReasoningTokens: 15}

// checkUsage compares the usage of msg with want on the counts p's wire
// format reports.
func checkUsage(t *testing.T, p Provider, msg model.Message, want model.Usage) {
	t.Helper()
	if msg.Usage == nil {
		t.Fatal("the response has no usage")
	}
	got := *msg.Usage
	counts := p.Usage
	if counts == nil {
		counts = []string{UsageInput, UsageOutput}
	}
	for _, c := range counts {
		var g, w int
		switch c {
		case UsageInput:
			g, w = got.InputTokens, want.InputTokens
		case UsageOutput:
			g, w = got.OutputTokens, want.OutputTokens
		case UsageCacheRead:
			g, w = got.CacheReadTokens, want.CacheReadTokens
		case UsageCacheWrite:
			g, w = got.CacheWriteTokens, want.CacheWriteTokens
		case UsageReasoning:
			g, w = got.ReasoningTokens, want.ReasoningTokens
		default:
			t.Fatalf("Provider.Usage lists an unknown count %q", c)
		}
		if g != w {
			t.Errorf("usage %s = %d, want %d (usage %+v)", c, g, w, got)
		}
	}
}

// jsonEqual reports whether a and b are the same JSON value.
func jsonEqual(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	xb, _ := json.Marshal(x)
	yb, _ := json.Marshal(y)
	return bytes.Equal(xb, yb)
}

// canonical is m as normalised JSON, so that two messages compare equal
// whatever the spelling of their arguments' JSON.
func canonical(t *testing.T, m model.Message) string {
	t.Helper()
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	// Thinking metadata is not in Part's JSON: compare it too.
	type th struct {
		Text string
		T    model.Thinking
	}
	var ths []th
	for _, p := range m.Parts {
		if p.Thinking != nil {
			ths = append(ths, th{p.Text, *p.Thinking})
		}
	}
	out, _ := json.Marshal([]any{v, ths})
	return string(out)
}

// calls returns the tool call parts of msg.
func calls(msg model.Message) []model.ToolCall {
	var out []model.ToolCall
	for _, p := range msg.Parts {
		if p.Kind == model.KindToolCall && p.ToolCall != nil {
			out = append(out, *p.ToolCall)
		}
	}
	return out
}

// checkCalls checks that got are want, in order, arguments compared as JSON.
func checkCalls(t *testing.T, what string, got []model.ToolCall, want []Call) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d calls, want %d (%+v)", what, len(got), len(want), got)
	}
	for i, w := range want {
		g := got[i]
		if g.ID != w.ID || g.Name != w.Name || !jsonEqual(g.Arguments, w.Arguments) {
			t.Errorf("%s: call %d = {%s %s %s}, want {%s %s %s}", what, i, g.ID, g.Name, g.Arguments, w.ID, w.Name, w.Arguments)
		}
	}
}

// checkSeenCalls checks the calls a request sent back.
func checkSeenCalls(t *testing.T, got []Call, want []Call) {
	t.Helper()
	tc := make([]model.ToolCall, len(got))
	for i, c := range got {
		tc[i] = model.ToolCall{ID: c.ID, Name: c.Name, Arguments: c.Arguments}
	}
	checkCalls(t, "the calls the request sent back", tc, want)
}

func wantProviderError(t *testing.T, p Provider, err error) *model.ProviderError {
	t.Helper()
	if err == nil {
		t.Fatal("the request succeeded, want an error")
	}
	if !errors.Is(err, model.ErrModel) {
		t.Errorf("errors.Is(err, model.ErrModel) is false for %v", err)
	}
	var pe *model.ProviderError
	if !errors.As(err, &pe) {
		t.Fatalf("err is %T (%v), want a *model.ProviderError", err, err)
	}
	if pe.Provider != p.Name {
		t.Errorf("ProviderError.Provider = %q, want %q", pe.Provider, p.Name)
	}
	return pe
}

// errorNames reports whether err's text names kind.
func errorNames(err error, kind string) bool {
	return err != nil && strings.Contains(err.Error(), kind)
}
