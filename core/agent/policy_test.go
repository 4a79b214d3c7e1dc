package agent_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/starweaver-go/starweaver/core/agent"
	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/tool"
)

func TestUnavailablePolicyText(t *testing.T) {
	for text, want := range map[string]agent.UnavailablePolicy{"": agent.SkipUnavailable, "skip": agent.SkipUnavailable, "fail": agent.FailOnUnavailable} {
		p := agent.FailOnUnavailable
		if text != "" {
			p = agent.SkipUnavailable
		}
		if err := p.UnmarshalText([]byte(text)); err != nil || p != want {
			t.Errorf("UnmarshalText(%q) = %v, %v; want %v", text, p, err, want)
		}
	}
	for _, p := range []agent.UnavailablePolicy{agent.SkipUnavailable, agent.FailOnUnavailable} {
		b, err := json.Marshal(p)
		var back agent.UnavailablePolicy
		if err != nil || json.Unmarshal(b, &back) != nil || back != p {
			t.Errorf("round trip of %v: %s, %v, %v", p, b, err, back)
		}
	}
	p := agent.FailOnUnavailable
	err := json.Unmarshal([]byte(`"maybe"`), &p)
	if !errors.Is(err, agent.ErrConfig) || !strings.Contains(err.Error(), `unavailable_tools must be "skip" or "fail", got "maybe"`) || p != agent.FailOnUnavailable {
		t.Errorf("Unmarshal(maybe) = %v, policy %v", err, p)
	}
	if _, err := agent.UnavailablePolicy(9).MarshalText(); !errors.Is(err, agent.ErrConfig) {
		t.Errorf("MarshalText(9) = %v", err)
	}
}

func TestBuilderRefusesOutOfRangeBudgetAndTimeout(t *testing.T) {
	cases := map[string]*agent.Builder{
		"max_retries must not be negative, got -1": agent.NewBuilder(model.TextModel("hi")).MaxRetries(-1),
		"timeout_ms must be positive, got 0":       agent.NewBuilder(model.TextModel("hi")).Timeout(0),
	}
	for want, b := range cases {
		_, err := b.Build()
		if !errors.Is(err, agent.ErrConfig) || !errors.Is(err, tool.ErrInvalidOption) || !strings.Contains(err.Error(), want) {
			t.Errorf("Build = %v, want %q", err, want)
		}
	}
	if _, err := agent.NewBuilder(model.TextModel("hi")).MaxRetries(0).Timeout(time.Second).Build(); err != nil {
		t.Errorf("Build with valid values = %v", err)
	}
}
