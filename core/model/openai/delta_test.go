package openai

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/openai/openai-go/v3/option"

	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/model/modeltest"
	"github.com/starweaver-go/starweaver/core/tool"
)

func wantDeltas(t *testing.T, got []model.Delta, want string) {
	t.Helper()
	if g := modeltest.DeltaLines(t, got); g != want {
		t.Fatalf("deltas\n%s\nwant\n%s", g, want)
	}
}

// sameAsRequest asserts that a streamed message equals the one Request
// returns for the same response unstreamed (from the JSON fixture file).
func sameAsRequest(t *testing.T, streamed model.Message, file string, ask func(m model.Model) (model.Message, error), newModel func(*fakeServer) model.Model) {
	t.Helper()
	srv := newServer(t, ok(t, file))
	plain, err := ask(newModel(srv))
	if err != nil {
		t.Fatal(err)
	}
	if srv.last(t).body["stream"] != nil {
		t.Fatal("Request streamed without Options.Streaming")
	}
	if !reflect.DeepEqual(streamed, plain) {
		t.Fatalf("Stream  = %s\nRequest = %s", jsonOf(t, streamed), jsonOf(t, plain))
	}
}

func jsonOf(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func chatModel(srv *fakeServer) model.Model { return must(New(srv.client(), "gpt-4o-mini", Options{})) }
func responsesModel(srv *fakeServer) model.Model {
	return must(NewResponses(srv.client(), "gpt-4.1", Options{}))
}

func streamWith(t *testing.T, m model.Model, params model.Params) (model.Message, []model.Delta) {
	t.Helper()
	var got []model.Delta
	msg, err := m.(model.Streamer).Stream(context.Background(), hello(), params, modeltest.Collect(&got))
	if err != nil {
		t.Fatal(err)
	}
	return msg, got
}

func request(params model.Params) func(model.Model) (model.Message, error) {
	return func(m model.Model) (model.Message, error) { return m.Request(context.Background(), hello(), params) }
}

// Stream always streams (no Options.Streaming here), reports content as it
// arrives, and returns what Request returns.
func TestChatStreamText(t *testing.T) {
	srv := newServer(t, sse(t, "chat_stream_text.sse"))
	msg, got := streamWith(t, chatModel(srv), model.Params{})
	if b := srv.last(t).body; b["stream"] != true || b["stream_options"] == nil {
		t.Fatalf("not streamed: %v", b)
	}
	wantDeltas(t, got, `{"kind":"text","text":"Hello! "}
{"kind":"text","text":"How can I "}
{"kind":"text","text":"assist you today?"}
`)
	sameAsRequest(t, msg, "chat_text.json", request(model.Params{}), chatModel)
}

// Interleaved arguments: a call is not done when the next one starts while
// its arguments are incomplete; both are done when the choice finishes.
func TestChatStreamInterleavedToolCalls(t *testing.T) {
	srv := newServer(t, sse(t, "chat_stream_tool_calls.sse"))
	msg, got := streamWith(t, chatModel(srv), model.Params{Tools: []tool.Definition{weatherTool(false)}})
	wantDeltas(t, got, `{"kind":"tool_call_start","tool_call":{"id":"call_s1","name":"get_current_weather","arguments":null}}
{"kind":"tool_call_arguments","text":"{\"loca"}
{"kind":"tool_call_start","index":1,"tool_call":{"id":"call_s2","name":"get_time","arguments":null}}
{"kind":"tool_call_arguments","text":"tion\": \"Bos"}
{"kind":"tool_call_arguments","index":1,"text":"{\"timezone\": "}
{"kind":"tool_call_arguments","text":"ton, MA\"}"}
{"kind":"tool_call_arguments","index":1,"text":"\"UTC\"}"}
{"kind":"tool_call_done","tool_call":{"id":"call_s1","name":"get_current_weather","arguments":{"location":"Boston, MA"}}}
{"kind":"tool_call_done","index":1,"tool_call":{"id":"call_s2","name":"get_time","arguments":{"timezone":"UTC"}}}
`)
	if len(msg.ToolCalls()) != 2 {
		t.Fatalf("calls = %+v", msg.ToolCalls())
	}
}

// Calls one after the other: each is done when the next starts, the last
// when the choice finishes; strict tools' added nulls are dropped in the
// done call as in the response.
func TestChatStreamParallelToolCalls(t *testing.T) {
	params := model.Params{Tools: []tool.Definition{weatherTool(true)}}
	srv := newServer(t, sse(t, "chat_stream_parallel.sse"))
	msg, got := streamWith(t, chatModel(srv), params)
	var kinds []string
	for _, d := range got {
		kinds = append(kinds, d.Kind+"/"+string(rune('0'+d.Index)))
	}
	want := "tool_call_start/0 tool_call_arguments/0 tool_call_arguments/0 " +
		"tool_call_done/0 tool_call_start/1 tool_call_arguments/1 tool_call_arguments/1 " +
		"tool_call_done/1 tool_call_start/2 tool_call_arguments/2 tool_call_arguments/2 tool_call_done/2"
	if g := strings.Join(kinds, " "); g != want {
		t.Fatalf("deltas %s\nwant   %s", g, want)
	}
	calls := msg.ToolCalls()
	for _, d := range got {
		if d.Kind != model.DeltaToolCallDone {
			continue
		}
		c := d.Call.Call()
		c.Index = d.Index
		if !reflect.DeepEqual(c, calls[d.Index]) {
			t.Fatalf("done %d = %+v, response has %+v", d.Index, d.Call, calls[d.Index])
		}
	}
	sameAsRequest(t, msg, "chat_tool_calls.json", request(params), chatModel)
}

// Reasoning fragments of compatible servers are thinking deltas.
func TestChatStreamReasoningContent(t *testing.T) {
	body := `data: {"id":"c1","model":"deepseek-reasoner","choices":[{"index":0,"delta":{"reasoning_content":"Think"}}]}

data: {"id":"c1","choices":[{"index":0,"delta":{"reasoning_content":"ing.","content":"Hi"}}]}

data: {"id":"c1","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}

data: [DONE]

`
	srv := newServer(t, reply{body: body, sse: true})
	msg, got := streamWith(t, chatModel(srv), model.Params{})
	wantDeltas(t, got, `{"kind":"thinking","text":"Think"}
{"kind":"thinking","text":"ing."}
{"kind":"text","text":"Hi"}
`)
	if msg.Parts[0].Kind != model.KindThinking || msg.Parts[0].Text != "Thinking." || msg.Text() != "Hi" {
		t.Fatalf("message = %+v", msg)
	}
}

// holdingServer sends body up to the end of the event holding mark, then
// waits for release before sending the rest; it gives up waiting after a
// bound (the test then fails, it does not hang) and says so on timedOut.
func holdingServer(t *testing.T, body, mark string) (url string, release, timedOut chan struct{}) {
	t.Helper()
	i := strings.Index(body, mark)
	if i < 0 {
		t.Fatalf("mark %q not in the body", mark)
	}
	cut := i + strings.Index(body[i:], "\n\n") + 2
	release, timedOut = make(chan struct{}), make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = w.Write([]byte(body[:cut]))
		w.(http.Flusher).Flush()
		select {
		case <-release:
		case <-r.Context().Done():
			return
		case <-time.After(10 * time.Second):
			close(timedOut)
		}
		_, _ = w.Write([]byte(body[cut:]))
	}))
	t.Cleanup(srv.Close)
	return srv.URL, release, timedOut
}

// doneBeforeTheEnd streams from a server that holds back the rest of the
// response after mark, releasing it only once call 0 is reported done.
func doneBeforeTheEnd(t *testing.T, m model.Streamer, release, timedOut chan struct{}, wantID string) {
	t.Helper()
	released := false
	msg, err := m.Stream(context.Background(), hello(), model.Params{}, func(d model.Delta) {
		if d.Kind == model.DeltaToolCallDone && d.Index == 0 {
			if d.Call.ID != wantID {
				t.Errorf("done 0 = %+v", d.Call)
			}
			released = true
			close(release)
		}
	})
	select {
	case <-timedOut:
		t.Fatal("call 0 was not reported done before the rest of the response was sent")
	default:
	}
	if err != nil || !released || len(msg.ToolCalls()) < 2 {
		t.Fatalf("Stream = %+v, %v (released %v)", msg, err, released)
	}
}

func TestChatStreamCallDoneBeforeResponseEnds(t *testing.T) {
	// Held back after the chunk that starts call 1: call 0 is whole.
	url, release, timedOut := holdingServer(t, fixture(t, "chat_stream_parallel.sse"), `"id":"call_def456"`)
	m := must(New(newSDKClient(option.WithBaseURL(url), option.WithAPIKey(testKey), option.WithMaxRetries(0)), "gpt-4o-mini", Options{}))
	doneBeforeTheEnd(t, m, release, timedOut, "call_abc123")
}

// Responses

func TestResponsesStreamText(t *testing.T) {
	srv := newServer(t, sse(t, "responses_stream_text.sse"))
	msg, got := streamWith(t, responsesModel(srv), model.Params{})
	if srv.last(t).body["stream"] != true {
		t.Fatal("not streamed")
	}
	wantDeltas(t, got, `{"kind":"text","text":"In a peaceful grove "}
{"kind":"text","text":"beneath a silver moon, "}
{"kind":"text","text":"a unicorn named Lumina "}
{"kind":"text","text":"discovered a hidden pool "}
{"kind":"text","text":"that reflected the stars."}
`)
	sameAsRequest(t, msg, "responses_text.json", request(model.Params{}), responsesModel)
}

func TestResponsesStreamParallelToolCalls(t *testing.T) {
	srv := newServer(t, sse(t, "responses_stream_tool_calls.sse"))
	msg, got := streamWith(t, responsesModel(srv), model.Params{})
	wantDeltas(t, got, `{"kind":"tool_call_start","tool_call":{"id":"call_s1","name":"get_current_weather","arguments":null}}
{"kind":"tool_call_arguments","text":"{\"loca"}
{"kind":"tool_call_arguments","text":"tion\":\"Boston, MA\"}"}
{"kind":"tool_call_done","tool_call":{"id":"call_s1","name":"get_current_weather","arguments":{"location":"Boston, MA"}}}
{"kind":"tool_call_start","index":1,"tool_call":{"id":"call_s2","name":"get_time","arguments":null}}
{"kind":"tool_call_arguments","index":1,"text":"{\"timezone\":"}
{"kind":"tool_call_arguments","index":1,"text":"\"UTC\"}"}
{"kind":"tool_call_done","index":1,"tool_call":{"id":"call_s2","name":"get_time","arguments":{"timezone":"UTC"}}}
`)
	if len(msg.ToolCalls()) != 2 {
		t.Fatalf("calls = %+v", msg.ToolCalls())
	}
}

// Reasoning summaries stream as thinking; strict tools' added nulls are
// dropped from the done call as from the response, which equals Request's.
func TestResponsesStreamReasoningAndStrictCalls(t *testing.T) {
	params := model.Params{Tools: []tool.Definition{weatherTool(true)}}
	srv := newServer(t, sse(t, "responses_stream_reasoning_tools.sse"))
	msg, got := streamWith(t, must(NewResponses(srv.client(), "o4-mini", Options{})), params)
	var thinking strings.Builder
	var done []string
	for _, d := range got {
		switch d.Kind {
		case model.DeltaThinking:
			thinking.WriteString(d.Text)
		case model.DeltaToolCallDone:
			done = append(done, string(d.Call.Arguments))
		}
	}
	if thinking.String() != msg.Parts[0].Text {
		t.Fatalf("thinking deltas %q, part %q", thinking.String(), msg.Parts[0].Text)
	}
	if strings.Join(done, " ") != `{"location":"Boston, MA","unit":"celsius"} {"location":"Paris, France"}` {
		t.Fatalf("done calls %v", done)
	}
	sameAsRequest(t, msg, "responses_reasoning_tools.json", request(params), func(s *fakeServer) model.Model { return must(NewResponses(s.client(), "o4-mini", Options{})) })
}

func TestResponsesStreamCallDoneBeforeResponseEnds(t *testing.T) {
	// Held back after call 0's arguments are done, before its item is.
	url, release, timedOut := holdingServer(t, fixture(t, "responses_stream_tool_calls.sse"), `"response.function_call_arguments.done","sequence_number":4`)
	m := must(NewResponses(newSDKClient(option.WithBaseURL(url), option.WithAPIKey(testKey), option.WithMaxRetries(0)), "gpt-4.1", Options{}))
	doneBeforeTheEnd(t, m, release, timedOut, "call_s1")
}

// A failure after deltas is Request's failure.
func TestStreamDisconnectAfterDeltas(t *testing.T) {
	full := fixture(t, "responses_stream_tool_calls.sse")
	partial := full[:strings.Index(full, "event: response.output_item.added\ndata: {\"type\":\"response.output_item.added\",\"sequence_number\":6")]
	srv := newServer(t, reply{body: partial, sse: true, cut: true})
	var got []model.Delta
	_, err := must(NewResponses(srv.client(), "gpt-4.1", Options{})).Stream(context.Background(), hello(), model.Params{}, modeltest.Collect(&got))
	var pe *model.ProviderError
	if !errors.As(err, &pe) || pe.Code != "stream_incomplete" || len(got) != 4 {
		t.Fatalf("err = %v after %d deltas", err, len(got))
	}
}

// With a nil handler Stream is Request: not streamed without Options.Streaming.
func TestStreamNilHandlerIsRequest(t *testing.T) {
	srv := newServer(t, ok(t, "chat_text.json"))
	msg, err := must(New(srv.client(), "gpt-4o-mini", Options{})).Stream(context.Background(), hello(), model.Params{}, nil)
	if err != nil || msg.Text() != "Hello! How can I assist you today?" || srv.last(t).body["stream"] != nil {
		t.Fatalf("Stream = %+v, %v", msg, err)
	}
}

// A call whose item arrives only whole (no output_item.added, no argument
// events) is still started and done.
func TestResponsesStreamCallWithoutAddedEvent(t *testing.T) {
	full := fixture(t, "responses_stream_tool_calls.sse")
	var kept []string
	for _, ev := range strings.Split(full, "\n\n") {
		if strings.Contains(ev, `"call_s2"`) && !strings.Contains(ev, "output_item.done") || strings.Contains(ev, `"fc_s2"`) && !strings.Contains(ev, "output_item.done") {
			continue
		}
		kept = append(kept, ev)
	}
	srv := newServer(t, reply{body: strings.Join(kept, "\n\n"), sse: true})
	msg, got := streamWith(t, responsesModel(srv), model.Params{})
	n := len(got)
	if n < 2 || got[n-2].Kind != model.DeltaToolCallStart || got[n-2].Index != 1 ||
		got[n-1].Kind != model.DeltaToolCallDone || got[n-1].Index != 1 || string(got[n-1].Call.Arguments) != `{"timezone":"UTC"}` {
		t.Fatalf("deltas\n%s", modeltest.DeltaLines(t, got))
	}
	if len(msg.ToolCalls()) != 2 {
		t.Fatalf("calls = %+v", msg.ToolCalls())
	}
}

// Retries happen before the first byte only: the failed attempt reports
// nothing, the retried stream reports its deltas once.
func TestStreamRetriesBeforeTheStream(t *testing.T) {
	srv := newServer(t,
		reply{status: http.StatusInternalServerError, body: fixture(t, "error_500.json"), headers: map[string]string{"Retry-After-Ms": "1"}},
		sse(t, "chat_stream_text.sse"))
	msg, got := streamWith(t, chatModel(srv), model.Params{})
	if len(srv.requests()) != 2 || len(got) != 3 || msg.Text() != "Hello! How can I assist you today?" {
		t.Fatalf("%d requests, %d deltas, %+v", len(srv.requests()), len(got), msg)
	}
}
