package bedrock_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/model/bedrock"
	"github.com/starweaver-go/starweaver/core/model/modeltest"
)

func bytesReader(b []byte) *bytes.Reader { return bytes.NewReader(b) }

// collect returns a delta handler and the deltas it received.
func collect() (model.DeltaHandler, *[]model.Delta) {
	var ds []model.Delta
	return modeltest.Collect(&ds), &ds
}

func TestStreamText(t *testing.T) {
	f := newFake(t, reply{stream: true, file: "stream_text.json"})
	h, ds := collect()
	got, err := f.model(0).Stream(context.Background(), ask("Hi"), model.Params{}, h)
	if err != nil {
		t.Fatal(err)
	}
	if got.Text() != "Hello! How can I help you today?" || *got.Usage != (model.Usage{Requests: 1, InputTokens: 12, OutputTokens: 9}) {
		t.Fatalf("got %q usage %+v", got.Text(), *got.Usage)
	}
	if len(*ds) != 2 || (*ds)[0].Text != "Hello! How" || (*ds)[1].Kind != model.DeltaText {
		t.Fatalf("deltas = %+v", *ds)
	}
	if !strings.HasSuffix(f.Request(0).Path, "/converse-stream") {
		t.Fatalf("path = %s", f.Request(0).Path)
	}
}

// TestStreamToolCallsDoneAtBlockStop: each call is reported done at its
// contentBlockStop, before the next call starts (eager dispatch).
func TestStreamToolCallsDoneAtBlockStop(t *testing.T) {
	f := newFake(t, reply{stream: true, file: "stream_tool_use_parallel.json"})
	h, ds := collect()
	got, err := f.model(0).Stream(context.Background(), ask("Top songs?"), model.Params{}, h)
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, d := range *ds {
		kinds = append(kinds, d.Kind)
	}
	want := "text tool_call_start tool_call_arguments tool_call_arguments tool_call_done tool_call_start tool_call_arguments tool_call_done"
	if strings.Join(kinds, " ") != want {
		t.Fatalf("deltas = %v", kinds)
	}
	done := (*ds)[4]
	if done.Index != 0 || done.Call.ID != "tooluse_kZJMlvQmRJ6eAyJE5GIl7Q" || string(done.Call.Arguments) != `{"sign": "WZPZ"}` {
		t.Fatalf("done = %+v %s", done, done.Call.Arguments)
	}
	if (*ds)[7].Index != 1 {
		t.Fatalf("second call index = %d", (*ds)[7].Index)
	}
	calls := got.ToolCalls()
	if len(calls) != 2 || got.FinishReason != model.FinishToolCalls || got.Text() != "I'll look up both stations." {
		t.Fatalf("got %+v", got)
	}
	if string(calls[1].Arguments) != `{"sign": "WKRP"}` {
		t.Fatalf("call 1 = %s", calls[1].Arguments)
	}
}

func TestStreamReasoning(t *testing.T) {
	f := newFake(t, reply{stream: true, file: "stream_reasoning.json"})
	h, ds := collect()
	got, err := f.model(0).Stream(context.Background(), ask("2+2?"), model.Params{}, h)
	if err != nil {
		t.Fatal(err)
	}
	th := got.Parts[0]
	if th.Kind != model.KindThinking || th.Text != "The user asks for 2+2. That is 4." || th.Thinking.Signature != "ErUBCkgIARABGAIiQJ0" || th.Thinking.Provider != "bedrock" {
		t.Fatalf("thinking = %+v %+v", th, th.Thinking)
	}
	if (*ds)[0].Kind != model.DeltaThinking || (*ds)[2].Kind != model.DeltaText {
		t.Fatalf("deltas = %+v", *ds)
	}
	if got.Usage.InputTokens != 70 || got.Usage.CacheReadTokens != 30 {
		t.Fatalf("usage = %+v", *got.Usage)
	}
}

// TestStreamingRequest: Options.Streaming makes Request use ConverseStream
// and return the same message.
func TestStreamingRequest(t *testing.T) {
	f := newFake(t, reply{stream: true, file: "stream_tool_use_parallel.json"}, reply{file: "tool_use_parallel.json"})
	streamed, err := f.modelWith(0, bedrock.Options{Streaming: true}).Request(context.Background(), ask("Top songs?"), model.Params{})
	if err != nil {
		t.Fatal(err)
	}
	whole, err := f.model(0).Request(context.Background(), ask("Top songs?"), model.Params{})
	if err != nil {
		t.Fatal(err)
	}
	if streamed.Text() != whole.Text() || len(streamed.ToolCalls()) != 2 || streamed.ToolCalls()[0].Name != whole.ToolCalls()[0].Name {
		t.Fatalf("streamed %+v\nwhole %+v", streamed, whole)
	}
	if !model.StreamsByDefault(f.modelWith(0, bedrock.Options{Streaming: true})) || model.StreamsByDefault(f.model(0)) {
		t.Fatal("StreamsByDefault does not follow Options.Streaming")
	}
}

func TestStreamException(t *testing.T) {
	f := newFake(t, reply{stream: true, file: "stream_exception.json"})
	h, ds := collect()
	_, err := f.model(2).Stream(context.Background(), ask("Hi"), model.Params{}, h)
	pe := modeltest.ProviderError(t, err, testSecret)
	if pe.StatusCode != 429 || pe.Code != "ThrottlingException" || pe.Message != "Too many tokens, please wait before trying again." {
		t.Fatalf("provider error = %+v", *pe)
	}
	if len(*ds) != 1 || f.Requests() != 1 {
		t.Fatalf("deltas = %+v after %d requests (an exception mid-stream is not retried)", *ds, f.Requests())
	}
}

func TestStreamCut(t *testing.T) {
	for name, rp := range map[string]reply{
		"no messageStop": {stream: true, file: "stream_cut.json"},
		"connection cut": {stream: true, file: "stream_cut.json", cut: true},
	} {
		t.Run(name, func(t *testing.T) {
			f := newFake(t, rp)
			_, err := f.model(0).Stream(context.Background(), ask("Hi"), model.Params{}, func(model.Delta) {})
			pe := modeltest.ProviderError(t, err, testSecret)
			if pe.Code != "stream_error" {
				t.Fatalf("provider error = %+v", *pe)
			}
		})
	}
}
