package main

import (
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/starweaver-go/starweaver/core/agent"
	"github.com/starweaver-go/starweaver/core/model"
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
		var s agentSpec
		err := decodeStrict([]byte(spec), &s)
		if err == nil {
			_, err = buildAgent(s)
		}
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
