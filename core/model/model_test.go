package model_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/tool"
)

func TestPartsRoundTrip(t *testing.T) {
	req := model.Request(
		model.SystemPrompt("sys"),
		model.Instruction("be brief"),
		model.UserPrompt("hi"),
		model.ToolReturn(tool.Return{ToolCallID: "c1", Name: "add", Content: map[string]any{"total": 5.0}, PrivateMetadata: map[string]any{"p": 1.0}}),
		model.RetryPrompt("fix it", "c1"),
	)
	resp := model.Response(model.TextPart("ok"), model.ToolCallPart("c2", "echo", json.RawMessage(`{"v":1}`)))
	b, err := json.Marshal([]model.Message{req, resp})
	if err != nil {
		t.Fatal(err)
	}
	want := `[{"kind":"request","parts":[{"kind":"system_prompt","text":"sys"},{"kind":"instruction","text":"be brief"},` +
		`{"kind":"user_prompt","content":[{"kind":"text","text":"hi"}]},` +
		`{"kind":"tool_return","tool_call_id":"c1","name":"add","content":{"total":5},"is_error":false,"private_metadata":{"p":1},"metadata":{}},` +
		`{"kind":"retry_prompt","text":"fix it","tool_call_id":"c1"}]},` +
		`{"kind":"response","parts":[{"kind":"text","text":"ok"},{"kind":"tool_call","id":"c2","name":"echo","arguments":{"v":1}}]}]`
	if string(b) != want {
		t.Fatalf("got  %s\nwant %s", b, want)
	}
	var back []model.Message
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	again, _ := json.Marshal(back)
	if string(again) != want {
		t.Fatalf("round trip changed the messages:\n%s", again)
	}
	if calls := back[1].ToolCalls(); len(calls) != 1 || calls[0].Name != "echo" || back[1].Text() != "ok" {
		t.Fatalf("calls %+v", calls)
	}
	if rets := back[0].Returns(); len(rets) != 1 || rets[0].ToolCallID != "c1" {
		t.Fatalf("returns %+v", rets)
	}
}

func TestBadPartsAreErrors(t *testing.T) {
	for _, raw := range []string{`{"kind":"hologram"}`, `{"kind":"tool_call","id":"x"}`, `{"kind":`, `{"kind":"tool_return","content":` + "\"\x00\"" + `}`} {
		var p model.Part
		if err := json.Unmarshal([]byte(raw), &p); err == nil {
			t.Errorf("%q accepted", raw)
		}
	}
	if _, err := json.Marshal(model.Part{Kind: "nope"}); err == nil {
		t.Error("unknown kind marshalled")
	}
	if _, err := json.Marshal(model.Part{Kind: model.KindToolCall}); err == nil {
		t.Error("tool_call without a call marshalled")
	}
}

func TestTestModelScriptAndCapture(t *testing.T) {
	m := model.NewTestModel(model.Response(model.TextPart("one")))
	msgs := []model.Message{model.Request(model.UserPrompt("q"))}
	params := model.Params{Tools: []tool.Definition{{Name: "t"}}}
	r, err := m.Request(context.Background(), msgs, params)
	if err != nil || r.Text() != "one" || r.Usage == nil || r.Usage.Requests != 1 {
		t.Fatalf("%+v %v", r, err)
	}
	// Callers only append (see Model), so the capture needs no copy.
	msgs = append(msgs, r, model.Request(model.UserPrompt("again")))
	if _, err := m.Request(context.Background(), msgs, params); !errors.Is(err, model.ErrModel) || !strings.Contains(err.Error(), "exhausted") {
		t.Fatalf("err = %v", err)
	}
	reqs := m.Requests()
	if len(reqs) != 2 || len(reqs[0].Messages) != 1 || len(reqs[1].Messages) != 3 ||
		reqs[0].Messages[0].Parts[0].Content[0].Text != "q" || reqs[0].Params.Tools[0].Name != "t" {
		t.Fatalf("captured %+v", reqs)
	}
	if &reqs[1].Messages[0] != &msgs[0] {
		t.Fatal("the test model copied the messages it was given")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := model.TextModel("x").Request(ctx, nil, model.Params{}); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled ctx: %v", err)
	}
}

func TestFunctionModelFailures(t *testing.T) {
	var nilModel *model.FunctionModel
	if _, err := nilModel.Request(context.Background(), nil, model.Params{}); !errors.Is(err, model.ErrModel) {
		t.Fatalf("nil model: %v", err)
	}
	boom := model.NewFunctionModel(func(context.Context, []model.Message, model.Params) (model.Message, error) {
		return model.Message{}, errors.New("provider down")
	})
	if _, err := boom.Request(context.Background(), nil, model.Params{}); !errors.Is(err, model.ErrModel) || !strings.Contains(err.Error(), "provider down") {
		t.Fatalf("err = %v", err)
	}
	panics := model.NewFunctionModel(func(context.Context, []model.Message, model.Params) (model.Message, error) { panic("bad") })
	if _, err := panics.Request(context.Background(), nil, model.Params{}); !errors.Is(err, model.ErrModel) {
		t.Fatalf("panic: %v", err)
	}
}
