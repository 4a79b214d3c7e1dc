package modeltest

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/tool"
)

// testHistory: what a model refuses to send, and what it never sends.
func testHistory(t *testing.T, p Provider) {
	t.Run("BadHistory", func(t *testing.T) {
		// A history the model cannot map fails before any request (the
		// fake has nothing scripted: a request would fail the test). A
		// history of a system prompt alone is the API's business: OpenAI
		// takes it, others' tests check that it fails.
		e := newEnv(t, p)
		m := e.model(Options{})
		for name, history := range map[string][]model.Message{
			"unknown request part":       {model.Request(model.Part{Kind: "audio"})},
			"unknown response part":      {model.Request(model.UserPrompt("Hi")), model.Response(model.Part{Kind: "citation"})},
			"response part in a request": {model.Request(model.TextPart("Hi"))},
			"image content":              {model.Request(model.Part{Kind: model.KindUserPrompt, Content: []model.UserContent{{Kind: "image", Text: "x"}}})},
			"unknown message kind":       {{Kind: "note"}},
		} {
			_, err := m.Request(ctx(t), history, model.Params{})
			if !errors.Is(err, model.ErrModel) {
				t.Errorf("%s: err = %v, want model.ErrModel", name, err)
			}
		}
		e.seen(0)
	})
	t.Run("UnknownOutputMode", func(t *testing.T) {
		e := newEnv(t, p)
		_, err := e.model(Options{}).Request(ctx(t), []model.Message{prompt("hi")}, model.Params{Output: &model.Output{Mode: "grammar"}})
		if !errors.Is(err, model.ErrModel) || !strings.Contains(err.Error(), `unknown output mode "grammar"`) {
			t.Errorf("err = %v, want model.ErrModel naming the mode", err)
		}
		e.seen(0)
	})
	t.Run("OnlyTheVisibleReturnIsSent", func(t *testing.T) {
		// The application, user and private surfaces of a tool return
		// never reach the wire, even in a history a caller did not
		// project.
		e := newEnv(t, p)
		e.fake.Script(Turn{Text: "ok", Usage: usage})
		history := []model.Message{
			prompt("Weather?"),
			model.Response(model.ToolCallPart("call-1", weather.Name, json.RawMessage(`{"city":"Paris"}`))),
			model.Request(model.ToolReturn(tool.Return{
				ToolCallID: "call-1", Name: weather.Name, Content: "sunny",
				AppValue: "APP-SECRET", UserContent: "USER-ONLY", PrivateMetadata: map[string]any{"traceback": "PRIVATE-TB"},
			})),
		}
		if _, err := e.model(Options{}).Request(ctx(t), history, model.Params{Tools: []tool.Definition{weather}}); err != nil {
			t.Fatal(err)
		}
		raw := string(e.seen(1)[0].Body)
		for _, secret := range []string{"APP-SECRET", "USER-ONLY", "PRIVATE-TB"} {
			if strings.Contains(raw, secret) {
				t.Errorf("%s reached the wire: %s", secret, raw)
			}
		}
		if !strings.Contains(raw, "sunny") {
			t.Errorf("the visible return is not sent: %s", raw)
		}
	})
}
