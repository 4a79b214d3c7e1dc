package bridge

import (
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/starweaver-go/starweaver/core/agent"
	"github.com/starweaver-go/starweaver/core/model"

	"github.com/starweaver-go/starweaver/core/tool"

	"github.com/starweaver-go/starweaver/core/effect"
)

func TestUsageLimitSpecs(t *testing.T) {
	mh, err := buildModel(modelSpec{Kind: "test", Responses: []model.Message{model.Response(model.TextPart("x"))}})
	if err != nil {
		t.Fatal(err)
	}
	h := handles.add(mh)
	t.Cleanup(func() { handles.remove(h) })
	prefix := `{"model":` + strconv.FormatInt(h, 10)
	for spec, want := range map[string]string{
		prefix + `,"max_steps":0}`:                          "request_limit (max steps) is 0",
		prefix + `,"max_steps":-3}`:                         "request_limit (max steps) is -3",
		prefix + `,"usage_limits":{"request_limit":0}}`:     "request_limit is 0",
		prefix + `,"usage_limits":{"tool_calls_limit":-1}}`: "tool_calls_limit is -1",
	} {
		_, err := agentFromJSON(t, spec)
		if ae := toABIError(err); ae.Type != "invalid_spec" || !strings.Contains(ae.Message, want) {
			t.Errorf("%s: %+v", spec, ae)
		}
	}
	var rs runSpec
	if ae := toABIError(decodeStrict([]byte(`{"prompt":"x","usage_limits":{"total_tokens_limit":0}}`), &rs)); ae.Type != "invalid_spec" ||
		!strings.Contains(ae.Message, "usage limits must be positive: total_tokens_limit is 0") {
		t.Errorf("run spec: %+v", ae)
	}
	var s agentSpec
	if err := decodeStrict([]byte(prefix+`,"max_steps":7,"usage_limits":{"tool_calls_limit":2}}`), &s); err != nil {
		t.Fatal(err)
	}
	if _, err := buildAgent(s); err != nil {
		t.Fatal(err)
	}
}

func TestUsageLimitErrorSlug(t *testing.T) {
	ae := toABIError(&agent.UsageLimitError{Limit: agent.LimitRequests, Value: 50, Used: 51})
	if ae.Type != "usage_limit_exceeded" || ae.Limit != "request_limit" || ae.Value == nil || *ae.Value != 50 ||
		ae.Message != "agent: usage limit exceeded: the next request would exceed the request_limit of 50" {
		t.Fatalf("%+v", ae)
	}
	if ae := toABIError(&agent.RetryLimitError{Tool: "nope", MaxRetries: 3, Unknown: true}); ae.Type != "retry_limit" ||
		ae.Tool != "nope" || !strings.Contains(ae.Message, `unknown tool "nope"`) {
		t.Fatalf("%+v", ae)
	}
	if !errors.Is(agent.ErrInvalidLimit, agent.ErrConfig) {
		t.Fatal("ErrInvalidLimit must match ErrConfig")
	}
}

// Ranges and shapes are core's rules; capi reports them as invalid_spec
// with core's message wherever the spec gives them.
func TestSpecRangesComeFromCore(t *testing.T) {
	mh, err := buildModel(modelSpec{Kind: "test", Responses: []model.Message{model.Response(model.TextPart("x"))}})
	if err != nil {
		t.Fatal(err)
	}
	h := handles.add(mh)
	t.Cleanup(func() { handles.remove(h) })
	prefix := `{"model":` + strconv.FormatInt(h, 10)
	tool := `{"id":1,"definition":{"name":"t"}`
	for spec, want := range map[string]string{
		prefix + `,"max_retries":-1}`:                                                           "max_retries must not be negative, got -1",
		prefix + `,"timeout_ms":0}`:                                                             "timeout_ms must be positive, got 0",
		prefix + `,"tools":[` + tool + `,"max_retries":-2}]}`:                                   `tool "t": tool: invalid option: max_retries must not be negative, got -2`,
		prefix + `,"tools":[` + tool + `,"timeout_ms":0}]}`:                                     `tool "t": tool: invalid option: timeout_ms must be positive, got 0`,
		prefix + `,"toolsets":[{"name":"s","max_retries":-1}]}`:                                 `toolset "s": tool: invalid option: max_retries must not be negative, got -1`,
		prefix + `,"toolsets":[{"name":"s","timeout_ms":-5}]}`:                                  `toolset "s": tool: invalid option: timeout_ms must be positive, got -5`,
		prefix + `,"unavailable_tools":"maybe"}`:                                                `unavailable_tools must be "skip" or "fail", got "maybe"`,
		`{"kind":"test","responses":[{"kind":"response","parts":[]}]}`:                          "response 0 is not a non-empty response message",
		`{"kind":"test","responses":[{"kind":"request","parts":[{"kind":"text","text":"x"}]}]}`: "response 0 is not a non-empty response message",
	} {
		if strings.HasPrefix(spec, `{"kind"`) {
			var ms modelSpec
			err = decodeStrict([]byte(spec), &ms)
			if err == nil {
				_, err = buildModel(ms)
			}
		} else {
			var s agentSpec
			err = decodeStrict([]byte(spec), &s)
			if err == nil {
				_, err = buildAgent(s)
			}
		}
		if ae := toABIError(err); ae.Type != "invalid_spec" || !strings.Contains(ae.Message, want) {
			t.Errorf("%s: %+v, want %q", spec, ae, want)
		}
	}
	var rs runSpec
	err = decodeStrict([]byte(`{"toolsets":[{"name":"s","timeout_ms":0}]}`), &rs)
	if err == nil {
		_, err = rs.options()
	}
	if ae := toABIError(err); ae.Type != "invalid_spec" || !strings.Contains(ae.Message, "timeout_ms must be positive, got 0") {
		t.Errorf("run toolset: %+v", ae)
	}
}

// A host tool records its budget and timeout like a core tool.
func TestHostToolOptionsReachTheDefinition(t *testing.T) {
	var s toolSpec
	if err := decodeStrict([]byte(`{"id":1,"definition":{"name":"t"},"max_retries":2,"timeout_ms":1500}`), &s); err != nil {
		t.Fatal(err)
	}
	built, err := s.build()
	if err != nil {
		t.Fatal(err)
	}
	ht := built.(*hostTool)
	if md := built.Definition().Metadata; md["max_retries"] != 2 || md["timeout_ms"] != int64(1500) || *ht.cfg.MaxRetries != 2 || ht.cfg.Timeout.Milliseconds() != 1500 {
		t.Fatalf("metadata %v, config %+v", md, ht.cfg)
	}
}

// A decision without "approved" is refused by core with the type Python's
// own check reports (invalid_decision, a state error).
func TestResumeDecisionNeedsApproved(t *testing.T) {
	var rs runSpec
	err := decodeStrict([]byte(`{"resume":{"approvals":[{"id":"a1"}]}}`), &rs)
	if ae := toABIError(err); ae.Type != "invalid_decision" || !strings.Contains(ae.Message, `approval decision "a1" needs an explicit approved: bool`) {
		t.Fatalf("missing approved: %+v", ae)
	}
	if !errors.Is(err, agent.ErrState) {
		t.Fatalf("err = %v, want agent.ErrState", err)
	}
	rs = runSpec{}
	if err := decodeStrict([]byte(`{"resume":{"approvals":[{"id":"a1","approved":false}]}}`), &rs); err != nil || rs.Resume.Approvals[0].Approved {
		t.Fatalf("explicit denial: %v, %+v", err, rs.Resume)
	}
}

// A tool's effect class and the agent's default reach core; an unknown
// class is an invalid spec.
func TestEffectSpecKeys(t *testing.T) {
	var s toolSpec
	if err := decodeStrict([]byte(`{"id":1,"definition":{"name":"t"},"effect":"destructive"}`), &s); err != nil {
		t.Fatal(err)
	}
	built, err := s.build()
	if err != nil {
		t.Fatal(err)
	}
	if ht := built.(*hostTool); ht.cfg.Effect != effect.ClassDestructive || built.Definition().Metadata[tool.MetaEffect] != "destructive" {
		t.Fatalf("config %+v metadata %v", ht.cfg, built.Definition().Metadata)
	}
	if err := decodeStrict([]byte(`{"id":1,"definition":{"name":"t"},"effect":"sometimes"}`), &s); err == nil {
		t.Fatal("an unknown effect was accepted")
	}
	var a agentSpec
	if err := decodeStrict([]byte(`{"default_effect":"maybe"}`), &a); err == nil {
		t.Fatal("an unknown default effect was accepted")
	}
	if err := decodeStrict([]byte(`{"default_effect":"unknown"}`), &a); err != nil || a.DefaultEffect != effect.ClassUnknown {
		t.Fatalf("default_effect: %v %q", err, a.DefaultEffect)
	}
}

// A spec is one JSON value: bytes after it are refused, whitespace is not.
func TestSpecRefusesTrailingData(t *testing.T) {
	for _, spec := range []string{`{"model":1} x`, `{"model":1}{}`, `{"model":1}]`, `{"model":1} {"model":2}`, `{"model":1}` + "\x00"} {
		var s agentSpec
		if ae := toABIError(decodeStrict([]byte(spec), &s)); ae.Type != "invalid_spec" || !strings.Contains(ae.Message, "after the JSON value") {
			t.Errorf("%q: %+v", spec, ae)
		}
	}
	for _, spec := range []string{`{"model":1}`, `{"model":1}` + " \n\t"} {
		var s agentSpec
		if err := decodeStrict([]byte(spec), &s); err != nil || s.Model != 1 {
			t.Errorf("%q: %v", spec, err)
		}
	}
}

// An empty state key is refused by core, not taken for "no key"; a spec
// without one exports unsigned state.
func TestEmptyStateKeyIsRefused(t *testing.T) {
	mh, err := buildModel(modelSpec{Kind: "test", Responses: []model.Message{model.Response(model.TextPart("x"))}})
	if err != nil {
		t.Fatal(err)
	}
	h := handles.add(mh)
	t.Cleanup(func() { handles.remove(h) })
	prefix := `{"model":` + strconv.FormatInt(h, 10)
	for spec, want := range map[string]string{prefix + `,"state_key":""}`: "config", prefix + `,"state_key":"k"}`: "", prefix + `}`: ""} {
		_, err := agentFromJSON(t, spec)
		if want == "" {
			if err != nil {
				t.Errorf("%s: %v", spec, err)
			}
			continue
		}
		if ae := toABIError(err); ae.Type != want || !strings.Contains(ae.Message, "the state key is empty") {
			t.Errorf("%s: %+v", spec, ae)
		}
	}
}
