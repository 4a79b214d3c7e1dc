package model_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/starweaver-go/starweaver/core/model"
)

// A model that cannot stream reports its calls once the response is whole,
// in order, so callers have one path for both kinds of models.
func TestStreamOrRequestReportsCallsOfAWholeResponse(t *testing.T) {
	// Embedding the interface hides TestModel's own Stream.
	m := struct{ model.Model }{model.NewTestModel(model.Message{Kind: model.KindResponse, Parts: []model.Part{
		model.TextPart("two calls"),
		model.ToolCallPart("c1", "a", json.RawMessage(`{"x":1}`)),
		model.ToolCallPart("c2", "b", nil),
	}})}
	var got []model.Delta
	msg, err := model.StreamOrRequest(context.Background(), m, nil, model.Params{}, func(d model.Delta) { got = append(got, d) })
	if err != nil || len(msg.Parts) != 3 {
		t.Fatalf("StreamOrRequest = %+v, %v", msg, err)
	}
	if len(got) != 2 || got[0].Kind != model.DeltaToolCallDone || got[0].Index != 0 || got[0].Call.ID != "c1" ||
		got[1].Index != 1 || got[1].Call.Name != "b" || string(got[1].Call.Arguments) != `{}` {
		t.Fatalf("deltas = %+v", got)
	}
}

type streamer struct{ model.Model }

func (s streamer) Stream(ctx context.Context, msgs []model.Message, p model.Params, deltas model.DeltaHandler) (model.Message, error) {
	deltas(model.Delta{Kind: model.DeltaText, Text: "hi"})
	return s.Request(ctx, msgs, p)
}

// A Streamer streams; with no handler it is asked as a plain model.
func TestStreamOrRequestStreamsFromAStreamer(t *testing.T) {
	s := streamer{model.NewTestModel(model.Message{Kind: model.KindResponse, Parts: []model.Part{model.TextPart("hi")}})}
	var got []model.Delta
	if _, err := model.StreamOrRequest(context.Background(), s, nil, model.Params{}, func(d model.Delta) { got = append(got, d) }); err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Kind != model.DeltaText || got[0].Text != "hi" {
		t.Fatalf("deltas = %+v", got)
	}
}

type configured struct {
	streamer
	on bool
}

func (c configured) Streaming() bool { return c.on }

// Only models that stream anyway are streamed from for eager dispatch: a
// provider not configured to stream may sit behind a server that cannot.
func TestStreamsByDefault(t *testing.T) {
	tm := model.NewTestModel()
	plain := struct{ model.Model }{tm}
	for name, tc := range map[string]struct {
		m    model.Model
		want bool
	}{
		"plain model":           {plain, false},
		"streamer":              {streamer{plain}, true},
		"configured to stream":  {configured{streamer{plain}, true}, true},
		"configured not to":     {configured{streamer{plain}, false}, false},
		"test model (streamer)": {tm, true},
	} {
		if got := model.StreamsByDefault(tc.m); got != tc.want {
			t.Errorf("%s: StreamsByDefault = %v, want %v", name, got, tc.want)
		}
	}
}
