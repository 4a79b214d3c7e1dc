package modeltest

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/tool"
)

// testText: a plain answer, its finish reason and its usage.
func testText(t *testing.T, p Provider) {
	e := newEnv(t, p)
	e.fake.Script(Turn{Text: "Hello from the fake.", Usage: usage})
	m := e.model(Options{})
	msg, err := m.Request(ctx(t), []model.Message{prompt("Say hello.")}, model.Params{})
	if err != nil {
		t.Fatal(err)
	}
	if got := msg.Text(); got != "Hello from the fake." {
		t.Errorf("text = %q, want %q", got, "Hello from the fake.")
	}
	if msg.Kind != model.KindResponse {
		t.Errorf("kind = %q, want %q", msg.Kind, model.KindResponse)
	}
	if msg.Provider != p.Name {
		t.Errorf("provider = %q, want %q", msg.Provider, p.Name)
	}
	if msg.FinishReason != model.FinishStop {
		t.Errorf("finish reason = %q, want %q", msg.FinishReason, model.FinishStop)
	}
	if msg.ModelName == "" {
		t.Error("the response names no model")
	}
	checkUsage(t, p, msg, usage)
	s := e.seen(1)[0]
	if s.Stream {
		t.Error("a model without Streaming streamed")
	}
	if s.Model == "" {
		t.Error("the request named no model")
	}
	if len(s.Tools) != 0 || len(s.Calls) != 0 || len(s.Results) != 0 || s.NativeOutput {
		t.Errorf("a plain request carried tools, calls, results or an output: %+v", s)
	}
}

// testLength: a response a token limit cut says so, whole or streamed.
func testLength(t *testing.T, p Provider) {
	e := newEnv(t, p)
	tn := Turn{Text: "The answer is cut sh", Finish: model.FinishLength, Usage: usage}
	e.fake.Script(tn, tn)
	for _, streaming := range []bool{false, true} {
		msg, err := e.model(Options{Streaming: streaming}).Request(ctx(t), []model.Message{prompt("Tell me everything.")}, model.Params{})
		if err != nil {
			t.Fatalf("streaming %v: %v", streaming, err)
		}
		if msg.Text() != tn.Text || msg.FinishReason != model.FinishLength {
			t.Errorf("streaming %v: %q (%s), want %q (length)", streaming, msg.Text(), msg.FinishReason, tn.Text)
		}
	}
	e.seen(2)
}

// testToolRoundTrip: a call arrives whole, then goes back with its result.
func testToolRoundTrip(t *testing.T, p Provider) {
	e := newEnv(t, p)
	call := Call{ID: "call_weather_1", Name: weather.Name, Arguments: json.RawMessage(`{"city":"Paris"}`)}
	e.fake.Script(Turn{Calls: []Call{call}, Usage: usage}, Turn{Text: "It is sunny in Paris.", Usage: usage})
	m := e.model(Options{})
	params := model.Params{Tools: []tool.Definition{weather}}
	history := []model.Message{prompt("What is the weather in Paris?")}
	resp, err := m.Request(ctx(t), history, params)
	if err != nil {
		t.Fatal(err)
	}
	checkCalls(t, "the response", calls(resp), []Call{call})
	if resp.FinishReason != model.FinishToolCalls {
		t.Errorf("finish reason = %q, want %q", resp.FinishReason, model.FinishToolCalls)
	}
	history = append(history, resp, model.Request(model.ToolReturn(tool.Return{
		ToolCallID: call.ID, Name: call.Name, Content: "sunny, 21 degrees",
	})))
	final, err := m.Request(ctx(t), history, params)
	if err != nil {
		t.Fatal(err)
	}
	if final.Text() != "It is sunny in Paris." || final.FinishReason != model.FinishStop {
		t.Errorf("final = %q (%s), want the scripted text (stop)", final.Text(), final.FinishReason)
	}
	seen := e.seen(2)
	for i, s := range seen {
		if !slices.Equal(s.Tools, []string{weather.Name}) {
			t.Errorf("request %d offered tools %v, want [%s]", i, s.Tools, weather.Name)
		}
	}
	checkSeenCalls(t, seen[1].Calls, []Call{call})
	if len(seen[1].Results) != 1 {
		t.Fatalf("the second request carried %d results, want 1", len(seen[1].Results))
	}
	r := seen[1].Results[0]
	if r.CallID != call.ID || !strings.Contains(r.Text, "sunny, 21 degrees") || r.IsError {
		t.Errorf("result = %+v, want the text of call %s, not an error", r, call.ID)
	}
	if r.Name != "" && r.Name != call.Name {
		t.Errorf("result name = %q, want %q", r.Name, call.Name)
	}
}

// testThinkingSentBack: the thinking of a response with a call goes back
// with the call.
func testThinkingSentBack(t *testing.T, p Provider) {
	if !p.Thinking || !p.ThinkingSentBack {
		t.Skip("the provider does not send its thinking back")
	}
	e := newEnv(t, p)
	call := Call{ID: "call_t", Name: weather.Name, Arguments: json.RawMessage(`{"city":"Rome"}`)}
	first := Turn{Thinking: "Rome: the weather tool answers that.", Calls: []Call{call}, Usage: usage}
	e.fake.Script(first, Turn{Text: "Warm.", Usage: usage})
	m := e.model(Options{})
	params := model.Params{Tools: []tool.Definition{weather}}
	history := []model.Message{prompt("Weather in Rome?")}
	resp, err := m.Request(ctx(t), history, params)
	if err != nil {
		t.Fatal(err)
	}
	var thinking []string
	for _, part := range resp.Parts {
		if part.Kind == model.KindThinking {
			thinking = append(thinking, part.Text)
		}
	}
	if !slices.Equal(thinking, []string{first.Thinking}) {
		t.Fatalf("thinking parts %q, want [%q]", thinking, first.Thinking)
	}
	history = append(history, resp, model.Request(model.ToolReturn(tool.Return{ToolCallID: call.ID, Name: call.Name, Content: "warm"})))
	if _, err := m.Request(ctx(t), history, params); err != nil {
		t.Fatal(err)
	}
	s := e.seen(2)[1]
	if !slices.Equal(s.Thinking, []string{first.Thinking}) {
		t.Errorf("the request sent back thinking %q, want [%q]", s.Thinking, first.Thinking)
	}
	checkSeenCalls(t, s.Calls, []Call{call})
}

// testParallelCalls: two calls of one response, and their two results.
func testParallelCalls(t *testing.T, p Provider) {
	e := newEnv(t, p)
	want := []Call{
		{ID: "call_a", Name: weather.Name, Arguments: json.RawMessage(`{"city":"Paris"}`)},
		{ID: "call_b", Name: timeTool.Name, Arguments: json.RawMessage(`{"city":"Tokyo"}`)},
	}
	e.fake.Script(Turn{Calls: want, Usage: usage}, Turn{Text: "Done.", Usage: usage})
	m := e.model(Options{})
	params := model.Params{Tools: []tool.Definition{weather, timeTool}}
	history := []model.Message{prompt("Weather in Paris and time in Tokyo?")}
	resp, err := m.Request(ctx(t), history, params)
	if err != nil {
		t.Fatal(err)
	}
	checkCalls(t, "the response", calls(resp), want)
	history = append(history, resp, model.Request(
		model.ToolReturn(tool.Return{ToolCallID: "call_a", Name: weather.Name, Content: "rain"}),
		model.ToolReturn(tool.Return{ToolCallID: "call_b", Name: timeTool.Name, Content: "09:30"}),
	))
	if _, err := m.Request(ctx(t), history, params); err != nil {
		t.Fatal(err)
	}
	s := e.seen(2)[1]
	if !slices.Equal(s.Tools, []string{weather.Name, timeTool.Name}) {
		t.Errorf("tools = %v, want [%s %s]", s.Tools, weather.Name, timeTool.Name)
	}
	checkSeenCalls(t, s.Calls, want)
	if len(s.Results) != 2 {
		t.Fatalf("the request carried %d results, want 2", len(s.Results))
	}
	for i, w := range []struct{ id, text string }{{"call_a", "rain"}, {"call_b", "09:30"}} {
		if r := s.Results[i]; r.CallID != w.id || !strings.Contains(r.Text, w.text) {
			t.Errorf("result %d = %+v, want %s's %q", i, r, w.id, w.text)
		}
	}
}

// testOutputTool: structured output through an output tool.
func testOutputTool(t *testing.T, p Provider) {
	e := newEnv(t, p)
	out := tool.Definition{Name: "final_result", Description: "The final answer.", Parameters: answerSchema}
	call := Call{ID: "call_out", Name: out.Name, Arguments: json.RawMessage(`{"answer":42}`)}
	e.fake.Script(Turn{Calls: []Call{call}, Usage: usage})
	m := e.model(Options{})
	resp, err := m.Request(ctx(t), []model.Message{prompt("The answer?")}, model.Params{
		Tools:  []tool.Definition{weather, out},
		Output: &model.Output{Mode: model.OutputTool, Name: out.Name, Schema: answerSchema},
	})
	if err != nil {
		t.Fatal(err)
	}
	checkCalls(t, "the response", calls(resp), []Call{call})
	s := e.seen(1)[0]
	if !slices.Equal(s.Tools, []string{weather.Name, out.Name}) {
		t.Errorf("tools = %v, want [%s %s]", s.Tools, weather.Name, out.Name)
	}
	if s.NativeOutput {
		t.Error("tool output mode asked for native structured output")
	}
}

// testOutputNative: structured output through the API's own schema, or a
// clear failure before anything is sent where the API has none.
func testOutputNative(t *testing.T, p Provider) {
	e := newEnv(t, p)
	m := e.model(Options{})
	params := model.Params{Output: &model.Output{Mode: model.OutputNative, Name: "answer", Schema: answerSchema}}
	if !p.NativeOutput {
		_, err := m.Request(ctx(t), []model.Message{prompt("The answer?")}, params)
		if err == nil {
			t.Fatal("native output succeeded on a provider without it")
		}
		if !strings.Contains(err.Error(), "native") && !strings.Contains(err.Error(), "output") {
			t.Errorf("the error does not say what failed: %v", err)
		}
		e.seen(0)
		return
	}
	e.fake.Script(Turn{Text: `{"answer":42}`, Usage: usage})
	resp, err := m.Request(ctx(t), []model.Message{prompt("The answer?")}, params)
	if err != nil {
		t.Fatal(err)
	}
	if !jsonEqual([]byte(resp.Text()), []byte(`{"answer":42}`)) {
		t.Errorf("text = %q, want {\"answer\":42}", resp.Text())
	}
	if resp.FinishReason != model.FinishStop {
		t.Errorf("finish reason = %q, want %q", resp.FinishReason, model.FinishStop)
	}
	s := e.seen(1)[0]
	if !s.NativeOutput {
		t.Error("the request did not ask for native structured output")
	}
	if len(s.Tools) != 0 {
		t.Errorf("native output offered tools %v", s.Tools)
	}
}

// streamTurn is the turn of the streaming scenarios: every part kind.
func streamTurn(p Provider) Turn {
	tn := Turn{
		Text: "Let me check both cities, one after the other.",
		Calls: []Call{
			{ID: "call_s1", Name: weather.Name, Arguments: json.RawMessage(`{"city":"Lisbon"}`)},
			{ID: "call_s2", Name: timeTool.Name, Arguments: json.RawMessage(`{"city":"Oslo"}`)},
		},
		Usage: usage,
	}
	if p.Thinking {
		tn.Thinking = "The user wants two things; two calls answer them."
	}
	return tn
}

// testStream: deltas as they stream, and the same message as Request.
func testStream(t *testing.T, p Provider) {
	e := newEnv(t, p)
	tn := streamTurn(p)
	e.fake.Script(tn, tn)
	m := e.model(Options{})
	s, ok := m.(model.Streamer)
	if !ok {
		t.Fatalf("%T is not a model.Streamer", m)
	}
	params := model.Params{Tools: []tool.Definition{weather, timeTool}}
	history := []model.Message{prompt("Weather in Lisbon, time in Oslo?")}
	var deltas []model.Delta
	streamed, err := s.Stream(ctx(t), history, params, Collect(&deltas))
	if err != nil {
		t.Fatal(err)
	}
	whole, err := m.Request(ctx(t), history, params)
	if err != nil {
		t.Fatal(err)
	}
	seen := e.seen(2)
	if !seen[0].Stream || seen[1].Stream {
		t.Errorf("stream flags = %v, %v; want Stream to stream and Request not to", seen[0].Stream, seen[1].Stream)
	}
	if a, b := canonical(t, streamed), canonical(t, whole); a != b {
		t.Errorf("Stream returned\n%s\nRequest returned\n%s", a, b)
	}
	checkCalls(t, "the streamed response", calls(streamed), tn.Calls)
	if streamed.Text() != tn.Text {
		t.Errorf("streamed text = %q, want %q", streamed.Text(), tn.Text)
	}
	checkUsage(t, p, streamed, usage)
	checkDeltas(t, tn, deltas)
}

// checkDeltas checks the deltas of tn's stream: text and thinking join to
// the parts, each call starts, streams its arguments and is done, in that
// order.
func checkDeltas(t *testing.T, tn Turn, deltas []model.Delta) {
	t.Helper()
	var text, thinking strings.Builder
	type state struct {
		started, done bool
		args          strings.Builder
	}
	st := make([]state, len(tn.Calls))
	for _, d := range deltas {
		switch d.Kind {
		case model.DeltaText:
			text.WriteString(d.Text)
		case model.DeltaThinking:
			thinking.WriteString(d.Text)
		case model.DeltaToolCallStart, model.DeltaToolCallArguments, model.DeltaToolCallDone:
			if d.Index < 0 || d.Index >= len(st) {
				t.Fatalf("a %s delta for call %d; the response has %d calls", d.Kind, d.Index, len(st))
			}
			c, w := &st[d.Index], tn.Calls[d.Index]
			switch d.Kind {
			case model.DeltaToolCallStart:
				if c.started {
					t.Errorf("call %d started twice", d.Index)
				}
				// Eager dispatch: a call is done once its arguments are
				// whole, before the next one starts.
				if d.Index > 0 && !st[d.Index-1].done {
					t.Errorf("call %d started before call %d was reported done", d.Index, d.Index-1)
				}
				c.started = true
				if d.Call == nil || d.Call.ID != w.ID || d.Call.Name != w.Name {
					t.Errorf("call %d starts as %+v, want id %s name %s", d.Index, d.Call, w.ID, w.Name)
				}
			case model.DeltaToolCallArguments:
				if !c.started || c.done {
					t.Errorf("arguments of call %d outside its start and done", d.Index)
				}
				c.args.WriteString(d.Text)
			case model.DeltaToolCallDone:
				if !c.started || c.done {
					t.Errorf("call %d done before its start, or twice", d.Index)
				}
				c.done = true
				if d.Call == nil {
					t.Fatalf("call %d done without its call", d.Index)
				}
				checkCalls(t, "a done delta", []model.ToolCall{*d.Call}, []Call{w})
			}
		default:
			t.Errorf("unknown delta kind %q", d.Kind)
		}
	}
	if text.String() != tn.Text {
		t.Errorf("text deltas join to %q, want %q", text.String(), tn.Text)
	}
	if thinking.String() != tn.Thinking {
		t.Errorf("thinking deltas join to %q, want %q", thinking.String(), tn.Thinking)
	}
	for i := range st {
		if !st[i].done {
			t.Errorf("call %d was not reported done before Stream returned", i)
		}
		if a := st[i].args.String(); a != "" && !jsonEqual([]byte(a), tn.Calls[i].Arguments) {
			t.Errorf("argument deltas of call %d join to %q, want %s", i, a, tn.Calls[i].Arguments)
		}
	}
}

// testStreamingOption: Options.Streaming makes Request stream, with the
// same result.
func testStreamingOption(t *testing.T, p Provider) {
	e := newEnv(t, p)
	tn := streamTurn(p)
	e.fake.Script(tn, tn)
	params := model.Params{Tools: []tool.Definition{weather, timeTool}}
	history := []model.Message{prompt("Weather in Lisbon, time in Oslo?")}
	streamed, err := e.model(Options{Streaming: true}).Request(ctx(t), history, params)
	if err != nil {
		t.Fatal(err)
	}
	whole, err := e.model(Options{}).Request(ctx(t), history, params)
	if err != nil {
		t.Fatal(err)
	}
	seen := e.seen(2)
	if !seen[0].Stream || seen[1].Stream {
		t.Errorf("stream flags = %v, %v; want Streaming to stream and the default not to", seen[0].Stream, seen[1].Stream)
	}
	if a, b := canonical(t, streamed), canonical(t, whole); a != b {
		t.Errorf("the streaming model returned\n%s\nthe other\n%s", a, b)
	}
}

// testErrors: the mapping of provider errors, retries and redaction.
func testErrors(t *testing.T, p Provider) {
	short := 20 * time.Millisecond
	t.Run("BadRequest", func(t *testing.T) {
		e := newEnv(t, p)
		e.fake.Script(Turn{Status: 400, Code: "invalid_request_error", Message: "the request is malformed"})
		_, err := e.model(Options{MaxRetries: 1}).Request(ctx(t), []model.Message{prompt("hi")}, model.Params{})
		pe := wantProviderError(t, p, err)
		if pe.StatusCode != 400 || pe.Code != "invalid_request_error" || !strings.Contains(pe.Message, "the request is malformed") {
			t.Errorf("ProviderError = %+v, want status 400, code invalid_request_error and the server's message", pe)
		}
		e.seen(1) // not retried
	})
	t.Run("StreamBadRequest", func(t *testing.T) {
		e := newEnv(t, p)
		e.fake.Script(Turn{Status: 400, Code: "invalid_request_error", Message: "the request is malformed"})
		s, ok := e.model(Options{}).(model.Streamer)
		if !ok {
			t.Skip("not a model.Streamer")
		}
		_, err := s.Stream(ctx(t), []model.Message{prompt("hi")}, model.Params{}, func(model.Delta) {})
		if pe := wantProviderError(t, p, err); pe.StatusCode != 400 {
			t.Errorf("ProviderError = %+v, want status 400", pe)
		}
		e.seen(1)
	})
	t.Run("RetryServerError", func(t *testing.T) {
		e := newEnv(t, p)
		e.fake.Script(
			Turn{Status: 500, Code: "server_error", Message: "try again", RetryAfter: short},
			Turn{Text: "recovered", Usage: usage},
		)
		msg, err := e.model(Options{MaxRetries: 1}).Request(ctx(t), []model.Message{prompt("hi")}, model.Params{})
		if err != nil {
			t.Fatal(err)
		}
		if msg.Text() != "recovered" {
			t.Errorf("text = %q, want recovered", msg.Text())
		}
		e.seen(2)
	})
	t.Run("ServerErrorSpent", func(t *testing.T) {
		e := newEnv(t, p)
		e.fake.Script(Turn{Status: 503, Code: "overloaded", Message: "busy", RetryAfter: short})
		_, err := e.model(Options{MaxRetries: 0}).Request(ctx(t), []model.Message{prompt("hi")}, model.Params{})
		if pe := wantProviderError(t, p, err); pe.StatusCode != 503 {
			t.Errorf("ProviderError = %+v, want status 503", pe)
		}
		e.seen(1)
	})
	t.Run("RetryAfter429", func(t *testing.T) {
		// A 429's Retry-After of a second (within the cap) is waited out whole
		// before the retry: no retry of the SDK's own, with its shorter
		// backoff, comes first.
		e := newEnv(t, p)
		wait := time.Second
		e.fake.Script(
			Turn{Status: 429, Code: "rate_limit_exceeded", Message: "slow down", RetryAfter: wait},
			Turn{Text: "after the wait", Usage: usage},
		)
		msg, err := e.model(Options{MaxRetries: 2}).Request(ctx(t), []model.Message{prompt("hi")}, model.Params{})
		if err != nil {
			t.Fatal(err)
		}
		if msg.Text() != "after the wait" {
			t.Errorf("text = %q", msg.Text())
		}
		s := e.seen(2)
		if gap := s[1].At.Sub(s[0].At); gap < wait-50*time.Millisecond {
			t.Errorf("retried after %v, want at least the %v the server asked for", gap, wait)
		}
	})
	t.Run("RetryAfterTooLong", func(t *testing.T) {
		// A wait within the cap is waited out; one above it
		// (model.DefaultMaxRetryAfter) is not: the request fails at
		// once, by no retry of the SDK either, keeping the status and
		// code and naming the wait.
		e := newEnv(t, p)
		e.fake.Script(
			Turn{Status: 429, Code: "rate_limit_exceeded", Message: "slow down", RetryAfter: short},
			Turn{Status: 429, Code: "rate_limit_exceeded", Message: "slow down", RetryAfter: time.Hour},
		)
		start := time.Now()
		_, err := e.model(Options{MaxRetries: 2}).Request(ctx(t), []model.Message{prompt("hi")}, model.Params{})
		if pe := wantProviderError(t, p, err); pe.StatusCode != 429 || pe.Code != "rate_limit_exceeded" || !strings.Contains(pe.Message, "retry after 1h0m0s") {
			t.Errorf("ProviderError = %+v, want status 429, code rate_limit_exceeded and a message saying the wait asked for (model.HTTPPolicy.Describe)", pe)
		}
		if d := time.Since(start); d > 10*time.Second {
			t.Errorf("the request took %v: the long Retry-After was waited out", d)
		}
		e.seen(2)
	})
	t.Run("Cut", func(t *testing.T) {
		// A response whose connection drops halfway fails as a provider
		// error, streamed (after the deltas already reported) or not.
		e := newEnv(t, p)
		tn := Turn{Text: strings.Repeat("A long answer that never ends. ", 20), Usage: usage, Cut: true}
		e.fake.Script(tn, tn)
		m := e.model(Options{})
		s, ok := m.(model.Streamer)
		if !ok {
			t.Fatalf("%T is not a model.Streamer", m)
		}
		var text strings.Builder
		_, err := s.Stream(ctx(t), []model.Message{prompt("hi")}, model.Params{}, func(d model.Delta) { text.WriteString(d.Text) })
		wantProviderError(t, p, err)
		if text.Len() >= len(tn.Text) {
			t.Errorf("the whole text streamed (%d bytes) although the stream was cut", text.Len())
		}
		_, err = m.Request(ctx(t), []model.Message{prompt("hi")}, model.Params{})
		wantProviderError(t, p, err)
		e.seen(2)
	})
	t.Run("KeyRedacted", func(t *testing.T) {
		e := newEnv(t, p)
		e.fake.Script(Turn{Status: 401, Code: "invalid_api_key", Message: "Incorrect API key provided: " + testKey + "."})
		_, err := e.model(Options{}).Request(ctx(t), []model.Message{prompt("hi")}, model.Params{})
		pe := wantProviderError(t, p, err)
		if pe.StatusCode != 401 {
			t.Errorf("status = %d, want 401", pe.StatusCode)
		}
		if strings.Contains(err.Error(), testKey) || strings.Contains(pe.Message, testKey) {
			t.Errorf("the error shows the API key: %v", err)
		}
		if !strings.Contains(pe.Message, "Incorrect API key provided") {
			t.Errorf("the server's message is lost: %q", pe.Message)
		}
		e.seen(1)
	})
	t.Run("KeyEchoed", func(t *testing.T) {
		// A gateway that quotes the request it rejects, headers and all,
		// with a key no shape rule recognises and credentials in extra
		// headers: only masking the values the model was configured with
		// hides them, in the error's text, its fields and its message,
		// for any status, streamed or not.
		const key = "gw-Zk81QmP3vX7sT2nR"
		headers := map[string]string{"Proxy-Authorization": "Basic cHJveHk6c2VjcmV0MTIz", "X-Custom-Token": "hdr-secret-0987654321"}
		for _, status := range []int{400, 401, 500} {
			for _, streaming := range []bool{false, true} {
				e := newEnv(t, p)
				e.fake.Script(Turn{Status: status, Code: "invalid_request_error", Message: "rejected key " + key, Echo: true})
				m := e.model(Options{APIKey: key, Headers: headers, Streaming: streaming})
				_, err := m.Request(ctx(t), []model.Message{prompt("hi")}, model.Params{})
				pe := wantProviderError(t, p, err)
				if pe.StatusCode != status {
					t.Errorf("%d streaming=%v: status %d", status, streaming, pe.StatusCode)
				}
				for _, s := range []string{err.Error(), fmt.Sprintf("%+v", err), fmt.Sprintf("%#v", pe), pe.Message} {
					if strings.Contains(s, key) || strings.Contains(s, "cHJveHk6c2VjcmV0MTIz") || strings.Contains(s, "hdr-secret") {
						t.Errorf("%d streaming=%v: a credential shows: %s", status, streaming, s)
					}
				}
				if !strings.Contains(pe.Message, model.Redacted) {
					t.Errorf("%d streaming=%v: the message %q masks nothing", status, streaming, pe.Message)
				}
				e.seen(1)
			}
		}
	})
}
