package bedrock_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws/protocol/eventstream"

	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/model/bedrock"
	"github.com/starweaver-go/starweaver/core/model/modeltest"
)

// The fake speaks Bedrock Runtime's Converse and ConverseStream as the API
// reference documents them
// (https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Converse.html,
// https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ConverseStream.html):
// POST /model/{modelId}/converse answers JSON, POST
// /model/{modelId}/converse-stream answers the binary AWS event stream
// (application/vnd.amazon.eventstream), each event a frame whose
// :event-type header names the member (messageStart, contentBlockDelta...)
// and whose payload is that member's JSON; an exception is a frame with
// :message-type exception and :exception-type naming it. Errors before a
// stream are restJson1 errors: the X-Amzn-ErrorType header names the
// exception and the body is {"message": ...}.

// event is one frame of an event stream, as the fixtures write it.
type event struct {
	Event     string          `json:"event,omitempty"`
	Exception string          `json:"exception,omitempty"`
	Payload   json.RawMessage `json:"payload"`
}

// reply is one answer of the fake.
type reply struct {
	status int
	header map[string]string
	file   string  // a testdata file: a JSON body, or for stream an event list
	raw    []byte  // a JSON body (file when nil)
	events []event // the events of a stream reply (file when empty)
	stream bool    // answer as an event stream
	cut    bool    // the connection is dropped after the body
	stall  bool    // the stream sends its events, then nothing
}

// fake is an httptest server answering its replies in order and recording
// what each request held.
type fake struct {
	*modeltest.Replay[reply]
	t testing.TB
}

func newFake(t testing.TB, replies ...reply) fake {
	t.Helper()
	return fake{modeltest.NewReplay(t, func(r *http.Request, n int, rp reply) modeltest.Reply {
		streamed := strings.HasSuffix(r.URL.Path, "/converse-stream")
		if !streamed && !strings.HasSuffix(r.URL.Path, "/converse") || !strings.HasPrefix(r.URL.Path, "/model/") {
			t.Errorf("path = %s, want /model/{id}/converse[-stream]", r.URL.Path)
		}
		if !strings.HasPrefix(r.Header.Get("Authorization"), "AWS4-HMAC-SHA256 Credential="+testAccessKey+"/") {
			t.Errorf("Authorization = %q, want a SigV4 signature by %s", r.Header.Get("Authorization"), testAccessKey)
		}
		a := modeltest.Reply{Status: rp.status, Header: map[string]string{}, Cut: rp.cut, Stall: rp.stall}
		for k, v := range rp.header {
			a.Header[k] = v
		}
		a.Header["X-Amzn-Requestid"] = fmt.Sprintf("req-%d", n)
		if !rp.stream || rp.status != 0 && rp.status != http.StatusOK {
			a.Header["Content-Type"] = "application/json"
			a.Body = rp.raw
			if a.Body == nil && rp.file != "" {
				a.Body = fixture(t, rp.file)
			}
			return a
		}
		a.Header["Content-Type"] = "application/vnd.amazon.eventstream"
		events := rp.events
		if len(events) == 0 && rp.file != "" {
			events = eventsFixture(t, rp.file)
		}
		var buf bytes.Buffer
		enc := eventstream.NewEncoder()
		for _, ev := range events {
			if err := enc.Encode(&buf, frame(ev)); err != nil {
				t.Errorf("encoding %+v: %v", ev, err)
			}
		}
		a.Body = buf.Bytes()
		return a
	}, replies...), t}
}

// frame encodes ev as an event stream message.
func frame(ev event) eventstream.Message {
	h := eventstream.Headers{}
	if ev.Exception != "" {
		h.Set(":message-type", eventstream.StringValue("exception"))
		h.Set(":exception-type", eventstream.StringValue(ev.Exception))
	} else {
		h.Set(":message-type", eventstream.StringValue("event"))
		h.Set(":event-type", eventstream.StringValue(ev.Event))
	}
	h.Set(":content-type", eventstream.StringValue("application/json"))
	return eventstream.Message{Headers: h, Payload: ev.Payload}
}

func fixture(t testing.TB, name string) []byte {
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// eventsFixture reads a stream fixture: {"_fixture_source", "events": [...]}.
func eventsFixture(t testing.TB, name string) []event {
	var v struct {
		Events []event `json:"events"`
	}
	if err := json.Unmarshal(fixture(t, name), &v); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return v.Events
}

// renderTurn is the reply of a scripted turn: an error, a Converse JSON
// response or its event stream.
func renderTurn(t testing.TB, turn *modeltest.Turn, streamed bool) reply {
	if turn.Status != 0 {
		rp := reply{status: turn.Status, header: map[string]string{"X-Amzn-ErrorType": turn.Code + ":http://internal.amazon.com/coral/com.amazon.bedrock/"}}
		if turn.RetryAfter > 0 {
			rp.header["Retry-After"] = fmt.Sprint(int(math.Ceil(turn.RetryAfter.Seconds())))
		}
		rp.raw = mustJSON(t, map[string]string{"message": turn.Message})
		return rp
	}
	var content []any
	if turn.Thinking != "" {
		content = append(content, map[string]any{"reasoningContent": map[string]any{"reasoningText": map[string]any{"text": turn.Thinking, "signature": "sig-" + turn.Thinking[:min(8, len(turn.Thinking))]}}})
	}
	if turn.Text != "" {
		content = append(content, map[string]any{"text": turn.Text})
	}
	for _, c := range turn.Calls {
		args := c.Arguments
		if len(args) == 0 {
			args = json.RawMessage(`{}`)
		}
		content = append(content, map[string]any{"toolUse": map[string]any{"toolUseId": c.ID, "name": c.Name, "input": args}})
	}
	stop := stopReason(turn)
	u := turn.Usage
	usage := map[string]any{
		"inputTokens":  u.InputTokens - u.CacheReadTokens - u.CacheWriteTokens,
		"outputTokens": u.OutputTokens,
		"totalTokens":  u.InputTokens + u.OutputTokens,
	}
	if u.CacheReadTokens > 0 {
		usage["cacheReadInputTokens"] = u.CacheReadTokens
	}
	if u.CacheWriteTokens > 0 {
		usage["cacheWriteInputTokens"] = u.CacheWriteTokens
	}
	if !streamed {
		body := map[string]any{
			"output":     map[string]any{"message": map[string]any{"role": "assistant", "content": content}},
			"stopReason": stop,
			"usage":      usage,
			"metrics":    map[string]any{"latencyMs": 12},
		}
		return reply{raw: mustJSON(t, body)}
	}
	evs := []event{{Event: "messageStart", Payload: mustJSON(t, map[string]any{"role": "assistant"})}}
	idx := 0
	if turn.Thinking != "" {
		half := len(turn.Thinking) / 2
		for _, piece := range []string{turn.Thinking[:half], turn.Thinking[half:]} {
			evs = append(evs, delta(t, idx, map[string]any{"reasoningContent": map[string]any{"text": piece}}))
		}
		evs = append(evs, delta(t, idx, map[string]any{"reasoningContent": map[string]any{"signature": "sig-" + turn.Thinking[:min(8, len(turn.Thinking))]}}))
		evs = append(evs, event{Event: "contentBlockStop", Payload: mustJSON(t, map[string]any{"contentBlockIndex": idx})})
		idx++
	}
	if turn.Text != "" {
		half := len(turn.Text) / 2
		for _, piece := range []string{turn.Text[:half], turn.Text[half:]} {
			if piece != "" {
				evs = append(evs, delta(t, idx, map[string]any{"text": piece}))
			}
		}
		evs = append(evs, event{Event: "contentBlockStop", Payload: mustJSON(t, map[string]any{"contentBlockIndex": idx})})
		idx++
	}
	for _, c := range turn.Calls {
		evs = append(evs, event{Event: "contentBlockStart", Payload: mustJSON(t, map[string]any{
			"contentBlockIndex": idx, "start": map[string]any{"toolUse": map[string]any{"toolUseId": c.ID, "name": c.Name}}})})
		args := string(c.Arguments)
		half := len(args) / 2
		for _, piece := range []string{args[:half], args[half:]} {
			if piece != "" {
				evs = append(evs, delta(t, idx, map[string]any{"toolUse": map[string]any{"input": piece}}))
			}
		}
		evs = append(evs, event{Event: "contentBlockStop", Payload: mustJSON(t, map[string]any{"contentBlockIndex": idx})})
		idx++
	}
	evs = append(evs,
		event{Event: "messageStop", Payload: mustJSON(t, map[string]any{"stopReason": stop})},
		event{Event: "metadata", Payload: mustJSON(t, map[string]any{"usage": usage, "metrics": map[string]any{"latencyMs": 12}})})
	return reply{stream: true, events: evs}
}

func delta(t testing.TB, idx int, d map[string]any) event {
	return event{Event: "contentBlockDelta", Payload: mustJSON(t, map[string]any{"contentBlockIndex": idx, "delta": d})}
}

func stopReason(turn *modeltest.Turn) string {
	switch turn.Finish {
	case model.FinishLength:
		return "max_tokens"
	case model.FinishContentFilter:
		return "content_filtered"
	case model.FinishToolCalls:
		return "tool_use"
	case model.FinishStop:
		return "end_turn"
	}
	if len(turn.Calls) > 0 {
		return "tool_use"
	}
	return "end_turn"
}

func mustJSON(t testing.TB, v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// wireRequest is the part of a Converse request the fake reads.
type wireRequest struct {
	Messages []struct {
		Role    string `json:"role"`
		Content []struct {
			ReasoningContent *struct {
				ReasoningText *struct {
					Text      string `json:"text"`
					Signature string `json:"signature"`
				} `json:"reasoningText"`
			} `json:"reasoningContent"`
			ToolUse *struct {
				ToolUseID string          `json:"toolUseId"`
				Name      string          `json:"name"`
				Input     json.RawMessage `json:"input"`
			} `json:"toolUse"`
			ToolResult *struct {
				ToolUseID string                       `json:"toolUseId"`
				Status    string                       `json:"status"`
				Content   []map[string]json.RawMessage `json:"content"`
			} `json:"toolResult"`
		} `json:"content"`
	} `json:"messages"`
	ToolConfig *struct {
		Tools []struct {
			ToolSpec struct {
				Name string `json:"name"`
			} `json:"toolSpec"`
		} `json:"tools"`
	} `json:"toolConfig"`
	OutputConfig *struct {
		TextFormat json.RawMessage `json:"textFormat"`
	} `json:"outputConfig"`
}

func seenOf(t testing.TB, path string, body []byte, h http.Header) modeltest.Seen {
	var r wireRequest
	if err := json.Unmarshal(body, &r); err != nil {
		t.Errorf("request body: %v", err)
	}
	s := modeltest.Seen{Header: h.Clone(), Stream: strings.HasSuffix(path, "/converse-stream")}
	id := strings.TrimPrefix(path, "/model/")
	id = id[:strings.LastIndex(id, "/")]
	s.Model, _ = url.PathUnescape(id)
	if r.ToolConfig != nil {
		for _, tl := range r.ToolConfig.Tools {
			s.Tools = append(s.Tools, tl.ToolSpec.Name)
		}
	}
	s.NativeOutput = r.OutputConfig != nil && len(r.OutputConfig.TextFormat) > 0
	for _, m := range r.Messages {
		for _, c := range m.Content {
			if rc := c.ReasoningContent; rc != nil && rc.ReasoningText != nil && m.Role == "assistant" {
				if rc.ReasoningText.Signature == "" {
					t.Errorf("reasoningText sent back without its signature")
				}
				s.Thinking = append(s.Thinking, rc.ReasoningText.Text)
			}
			if c.ToolUse != nil && m.Role == "assistant" {
				s.Calls = append(s.Calls, modeltest.Call{ID: c.ToolUse.ToolUseID, Name: c.ToolUse.Name, Arguments: compact(c.ToolUse.Input)})
			}
			if tr := c.ToolResult; tr != nil {
				res := modeltest.Result{CallID: tr.ToolUseID, IsError: tr.Status == "error"}
				var text []string
				for _, blk := range tr.Content {
					switch {
					case blk["text"] != nil:
						var s string
						_ = json.Unmarshal(blk["text"], &s)
						res.Kinds = append(res.Kinds, modeltest.KindText)
						text = append(text, s)
					case blk["json"] != nil:
						res.Kinds = append(res.Kinds, modeltest.KindJSON)
						text = append(text, string(compact(blk["json"])))
					case blk["image"] != nil:
						res.Kinds = append(res.Kinds, modeltest.KindImage)
					case blk["document"] != nil:
						res.Kinds = append(res.Kinds, modeltest.KindDocument)
					default:
						t.Errorf("tool result block of unknown type: %v", blk)
					}
				}
				res.Text = strings.Join(text, "")
				s.Results = append(s.Results, res)
			}
		}
	}
	return s
}

func compact(b []byte) json.RawMessage {
	var buf bytes.Buffer
	if err := json.Compact(&buf, b); err != nil {
		return b
	}
	return buf.Bytes()
}

// Test credentials: static, never valid anywhere.
const (
	testAccessKey = "AKIAIOSFODNN7EXAMPLE"
	testSecret    = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
	testModel     = "anthropic.claude-sonnet-4-5-20250929-v1:0"
)

// isolate keeps the AWS chain away from the machine's own configuration
// and from the network: no shared files, no profile, no instance role.
func isolate(t testing.TB) {
	dir := t.TempDir()
	for k, v := range map[string]string{
		"AWS_CONFIG_FILE":             filepath.Join(dir, "config"),
		"AWS_SHARED_CREDENTIALS_FILE": filepath.Join(dir, "credentials"),
		"AWS_EC2_METADATA_DISABLED":   "true",
		"AWS_PROFILE":                 "",
		"AWS_ACCESS_KEY_ID":           "",
		"AWS_SECRET_ACCESS_KEY":       "",
		"AWS_SESSION_TOKEN":           "",
		bedrock.EnvAPIKey:             "",
		"AWS_REGION":                  "",
		"AWS_DEFAULT_REGION":          "",
		"AWS_ENDPOINT_URL":            "",
		bedrock.EnvEndpointURL:        "",
	} {
		t.Setenv(k, v)
	}
}

// model returns a model over the fake with retries set to n.
// body returns the i-th request body, decoded with its numbers as sent.
func (f fake) body(i int) map[string]any {
	f.t.Helper()
	var v map[string]any
	d := json.NewDecoder(bytes.NewReader(f.Request(i).Body))
	d.UseNumber()
	if err := d.Decode(&v); err != nil {
		f.t.Fatalf("request %d: %v", i, err)
	}
	return v
}

func (f fake) model(retries int) *bedrock.Model {
	return f.modelWith(retries, bedrock.Options{})
}

func (f fake) modelWith(retries int, o bedrock.Options) *bedrock.Model {
	isolate(f.t)
	o.Config = bedrock.Config{
		Region:          "us-east-1",
		EndpointURL:     f.URL,
		AccessKeyID:     testAccessKey,
		SecretAccessKey: testSecret,
		MaxRetries:      &retries,
	}
	return must(bedrock.NewFromConfig(testModel, o))
}

func must[M any](m M, err error) M {
	if err != nil {
		panic(err)
	}
	return m
}

func ask(text string) []model.Message {
	return []model.Message{model.Request(model.UserPrompt(text))}
}

func writeFile(t testing.TB, path, text string) {
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}
