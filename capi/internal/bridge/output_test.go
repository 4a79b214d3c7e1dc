package bridge

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/starweaver-go/starweaver/core/agent"
	"github.com/starweaver-go/starweaver/core/model"
)

func testModelHandle(t *testing.T, responses ...model.Message) int64 {
	t.Helper()
	mh, err := buildModel(modelSpec{Kind: "test", Responses: responses})
	if err != nil {
		t.Fatal(err)
	}
	h := handles.add(mh)
	t.Cleanup(func() { handles.remove(h) })
	return h
}

func agentFromJSON(t *testing.T, spec string) (*agent.Agent, error) {
	t.Helper()
	var s agentSpec
	if err := decodeStrict([]byte(spec), &s); err != nil {
		return nil, err
	}
	return buildAgent(s)
}

func TestSettingsSpecs(t *testing.T) {
	prefix := `{"model":` + strconv.FormatInt(testModelHandle(t, model.Response(model.TextPart("x"))), 10)
	_, err := agentFromJSON(t, prefix+`,"settings":{"temperature":5,"max_tokens":-1}}`)
	if ae := toABIError(err); ae.Type != "invalid_spec" || !strings.Contains(ae.Message, "temperature must be between 0 and 2, got 5; max_tokens must be positive, got -1") {
		t.Fatalf("%+v", ae)
	}
	_, err = agentFromJSON(t, prefix+`,"settings":{"temprature":1}}`)
	if ae := toABIError(err); ae.Type != "invalid_spec" || !strings.Contains(ae.Message, "temprature") {
		t.Fatalf("unknown setting: %+v", ae)
	}
	a, err := agentFromJSON(t, prefix+`,"settings":{"temperature":0.5,"timeout_ms":2000}}`)
	if err != nil {
		t.Fatal(err)
	}
	var rs runSpec
	if err := decodeStrict([]byte(`{"prompt":"x","settings":{"top_p":2}}`), &rs); err != nil {
		t.Fatal(err)
	}
	opts, err := rs.options()
	if err != nil {
		t.Fatal(err)
	}
	_, err = a.Run(t.Context(), "x", opts...)
	if ae := toABIError(err); ae.Type != "invalid_spec" || !strings.Contains(ae.Message, "top_p") {
		t.Fatalf("run settings: %+v", ae)
	}
}

func TestOutputErrorSlugs(t *testing.T) {
	ae := toABIError(&agent.RetryLimitError{Tool: "final_result", MaxRetries: 1, Output: true})
	if ae.Type != "retry_limit" || !ae.Output || ae.Tool != "final_result" {
		t.Fatalf("%+v", ae)
	}
	b, _ := json.Marshal(ae)
	if !strings.Contains(string(b), `"output":true`) {
		t.Fatalf("%s", b)
	}
	if ae := toABIError(agent.ErrOutput); ae.Type != "output" {
		t.Fatalf("%+v", ae)
	}
}

// The host's output validator is called like a host tool reading its
// context: a call item whose arguments are the answer; its outcome's
// content replaces the answer, a model_retry goes back to the model.
func TestHostOutputValidator(t *testing.T) {
	out := func(id string, v any) model.Message {
		return model.CallsResponse(model.Call(id, "final_result", v))
	}
	h := testModelHandle(t, out("o1", map[string]any{"n": 1}), out("o2", map[string]any{"n": 2}))
	a, err := agentFromJSON(t, `{"model":`+strconv.FormatInt(h, 10)+
		`,"output":{"schema":{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]},"validator":77}}`)
	if err != nil {
		t.Fatal(err)
	}
	rh, run, err := startRun(a.NewSession(), runSpec{Prompt: "go"})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { handles.remove(rh); run.close() }()
	var seen []string
	done := host(t, run, func(it hostItem) string {
		if it.Tool != 77 {
			t.Errorf("tool %d", it.Tool)
		}
		seen = append(seen, string(it.Arguments))
		if string(it.Arguments) == `{"n":1}` {
			return `{"ok":false,"kind":"model_retry","message":"n must be even"}`
		}
		return `{"ok":true,"content":{"n":20}}`
	})
	if done.Error != nil || done.Result.Status != "completed" || done.Result.Output != `{"n":20}` {
		t.Fatalf("done %+v %+v", done.Result, done.Error)
	}
	if len(seen) != 2 {
		t.Fatalf("validator calls %v", seen)
	}
	tm := mustModel(t, h)
	msgs := tm.Requests()[1].Messages
	if p := msgs[len(msgs)-1].Parts[0]; p.Kind != model.KindRetryPrompt || p.Text != "n must be even" {
		t.Fatalf("retry %+v", p)
	}
}

func mustModel(t *testing.T, h int64) *model.TestModel {
	t.Helper()
	mh, err := lookup[*modelHandle](h)
	if err != nil {
		t.Fatal(err)
	}
	return mh.m.(*model.TestModel)
}
