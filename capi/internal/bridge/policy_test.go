package bridge

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/starweaver-go/starweaver/core/agent"
	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/tool"
)

// runFromJSON runs prompt on a fresh session of a with the run spec.
func runFromJSON(t *testing.T, a *agent.Agent, spec string) (*agent.RunResult, error) {
	t.Helper()
	var rs runSpec
	if err := decodeStrict([]byte(spec), &rs); err != nil {
		return nil, err
	}
	opts, err := rs.options()
	if err != nil {
		return nil, err
	}
	return a.Run(t.Context(), rs.Prompt, opts...)
}

// The spec keys reach core: an agent's "tool_error_policy", a run's
// "tool_error_policy" over it and a run's "grants" (null: every tool, []:
// none). A call of the bundle's tool that the run does not grant is
// refused, and under fail_fast the run fails with "tool_failed".
func TestPolicySpecs(t *testing.T) {
	ask := model.CallsResponse(model.Call("c1", "ask_user_question", map[string]any{}))
	newAgent := func(policy string) (*agent.Agent, *model.TestModel) {
		h := testModelHandle(t, ask, model.Response(model.TextPart("done")))
		spec := `{"model":` + strconv.FormatInt(h, 10) + `,"toolsets":[{"bundle":"user_input"}]` + policy + `}`
		a, err := agentFromJSON(t, spec)
		if err != nil {
			t.Fatalf("%s: %v", spec, err)
		}
		return a, mustModel(t, h)
	}

	a, m := newAgent(`,"tool_error_policy":"fail_fast"`)
	_, err := runFromJSON(t, a, `{"prompt":"x","grants":[]}`)
	ae := toABIError(err)
	if ae.Type != "tool_failed" || ae.Tool != "ask_user_question" || ae.ToolCallID != "c1" || ae.Kind != "user_error" ||
		!strings.Contains(ae.Message, "is not granted to this run") {
		t.Fatalf("%+v", ae)
	}
	if tools := m.Requests()[0].Params.Tools; len(tools) != 0 {
		t.Fatalf("a run granting nothing offered %v", tools)
	}
	b, _ := json.Marshal(ae)
	if !strings.Contains(string(b), `"kind":"user_error"`) {
		t.Fatalf("%s", b)
	}

	a, m = newAgent(`,"tool_error_policy":"fail_fast"`)
	res, err := runFromJSON(t, a, `{"prompt":"x","grants":[],"tool_error_policy":"return_to_model"}`)
	if err != nil || res.Output != "done" || res.Returns()[0].ErrorKind() != tool.ErrorKindUserError {
		t.Fatalf("return_to_model over fail_fast: %v %v", res, err)
	}
	if len(m.Requests()) != 2 {
		t.Fatalf("%d requests", len(m.Requests()))
	}

	a, m = newAgent(``)
	if _, err := runFromJSON(t, a, `{"prompt":"x","grants":null}`); err != nil {
		t.Fatal(err)
	}
	if tools := m.Requests()[0].Params.Tools; len(tools) != 1 || tools[0].Name != "ask_user_question" {
		t.Fatalf("grants null offered %v", tools)
	}

	a, _ = newAgent(``)
	if ae := toABIError(func() error { _, err := runFromJSON(t, a, `{"prompt":"x","grants":["ask_user"]}`); return err }()); ae.Type != "config" ||
		!strings.Contains(ae.Message, `"ask_user"`) {
		t.Fatalf("unknown grant: %+v", ae)
	}
	for _, spec := range []string{`,"tool_error_policy":"fail_slow"`, `,"tool_error_policy":1`} {
		h := testModelHandle(t, model.Response(model.TextPart("x")))
		_, err := agentFromJSON(t, `{"model":`+strconv.FormatInt(h, 10)+spec+`}`)
		if ae := toABIError(err); ae.Type != "invalid_spec" {
			t.Errorf("%s: %+v", spec, ae)
		}
	}
	var rs runSpec
	if ae := toABIError(decodeStrict([]byte(`{"prompt":"x","tool_error_policy":"never"}`), &rs)); ae.Type != "invalid_spec" ||
		!strings.Contains(ae.Message, "fail_fast") {
		t.Errorf("run policy: %+v", ae)
	}
}
