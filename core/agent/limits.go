package agent

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/tool"
)

// DefaultRequestLimit bounds the model requests of a run whose agent and
// options set no request limit. It is pydantic-ai's default: a model that
// repeats itself (an unknown tool, a call it cannot get right) fails fast.
const DefaultRequestLimit = 50

// DefaultMaxSteps is DefaultRequestLimit under its older name.
const DefaultMaxSteps = DefaultRequestLimit

// UsageLimits bounds what one run may consume, as pydantic-ai's UsageLimits
// does. A zero field is unset: the request limit then falls back to the
// agent's (DefaultRequestLimit when neither sets one) and the other limits
// do not apply. A negative field is invalid (ErrInvalidLimit).
//
// The request limit is checked before each model request, the tool-call
// limit before each batch of calls runs (counting the batch), and the token
// limits after each response (against the run's accumulated usage); the
// first limit exceeded fails the run with a *UsageLimitError.
type UsageLimits struct {
	// RequestLimit bounds the model requests of a run (resumed runs
	// included).
	RequestLimit int `json:"request_limit,omitempty"`
	// ToolCallsLimit bounds the successful tool calls of a run.
	ToolCallsLimit int `json:"tool_calls_limit,omitempty"`
	// InputTokensLimit, OutputTokensLimit and TotalTokensLimit bound the
	// tokens the model reported for the run (total = input + output).
	InputTokensLimit  int `json:"input_tokens_limit,omitempty"`
	OutputTokensLimit int `json:"output_tokens_limit,omitempty"`
	TotalTokensLimit  int `json:"total_tokens_limit,omitempty"`
}

// Names of the limits, as they appear in JSON and in UsageLimitError.
const (
	LimitRequests     = "request_limit"
	LimitToolCalls    = "tool_calls_limit"
	LimitInputTokens  = "input_tokens_limit"
	LimitOutputTokens = "output_tokens_limit"
	LimitTotalTokens  = "total_tokens_limit"
)

// fields lists the limits by name, in a fixed order for messages.
func (l *UsageLimits) fields() []struct {
	name string
	v    *int
} {
	return []struct {
		name string
		v    *int
	}{
		{LimitRequests, &l.RequestLimit}, {LimitToolCalls, &l.ToolCallsLimit},
		{LimitInputTokens, &l.InputTokensLimit}, {LimitOutputTokens, &l.OutputTokensLimit},
		{LimitTotalTokens, &l.TotalTokensLimit},
	}
}

// check rejects negative limits.
func (l UsageLimits) check() error {
	for _, f := range l.fields() {
		if *f.v < 0 {
			return invalidLimit(f.name, *f.v)
		}
	}
	return nil
}

// invalidLimit is the one message for a limit that is not positive.
func invalidLimit(name string, v int) error {
	return fmt.Errorf("%w: %s is %d", ErrInvalidLimit, name, v)
}

// over returns l with the fields set in o replacing its own.
func (l UsageLimits) over(o UsageLimits) UsageLimits {
	src := o.fields()
	for i, f := range l.fields() {
		if *src[i].v != 0 {
			*f.v = *src[i].v
		}
	}
	return l
}

// forTools is l as the runtime snapshot of a run's calls holds it
// (tool.RuntimeSnapshot.Limits), with the effective request limit
// (DefaultRequestLimit when unset).
func (l UsageLimits) forTools() tool.RunLimits {
	return tool.RunLimits{RequestLimit: l.requests(), ToolCallsLimit: l.ToolCallsLimit,
		InputTokensLimit: l.InputTokensLimit, OutputTokensLimit: l.OutputTokensLimit, TotalTokensLimit: l.TotalTokensLimit}
}

// UnmarshalJSON reads limits written by a host, where a limit left out is
// unset and any limit given must be positive: an explicit 0 is refused
// rather than read as unset. Unknown fields are refused too.
func (l *UsageLimits) UnmarshalJSON(b []byte) error {
	var raw struct {
		RequestLimit      *int `json:"request_limit"`
		ToolCallsLimit    *int `json:"tool_calls_limit"`
		InputTokensLimit  *int `json:"input_tokens_limit"`
		OutputTokensLimit *int `json:"output_tokens_limit"`
		TotalTokensLimit  *int `json:"total_tokens_limit"`
	}
	d := json.NewDecoder(bytes.NewReader(b))
	d.DisallowUnknownFields()
	if err := d.Decode(&raw); err != nil {
		return fmt.Errorf("agent: usage limits: %w", err)
	}
	var out UsageLimits
	given := []*int{raw.RequestLimit, raw.ToolCallsLimit, raw.InputTokensLimit, raw.OutputTokensLimit, raw.TotalTokensLimit}
	for i, f := range out.fields() {
		if given[i] == nil {
			continue
		}
		if *given[i] <= 0 {
			return invalidLimit(f.name, *given[i])
		}
		*f.v = *given[i]
	}
	*l = out
	return nil
}

// requests is the effective request limit.
func (l UsageLimits) requests() int {
	if l.RequestLimit > 0 {
		return l.RequestLimit
	}
	return DefaultRequestLimit
}

// beforeRequest fails when a run that made done requests may not make
// another.
func (l UsageLimits) beforeRequest(done int) error {
	if n := l.requests(); done >= n {
		return &UsageLimitError{Limit: LimitRequests, Value: n, Used: done + 1}
	}
	return nil
}

// beforeToolCalls fails when running next more calls after used successful
// ones could pass the tool-call limit.
func (l UsageLimits) beforeToolCalls(used, next int) error {
	if n := l.ToolCallsLimit; n > 0 && used+next > n {
		return &UsageLimitError{Limit: LimitToolCalls, Value: n, Used: used + next}
	}
	return nil
}

// afterResponse fails when the run's token usage passed a token limit.
func (l UsageLimits) afterResponse(u model.Usage) error {
	for _, c := range []struct {
		name       string
		limit, use int
	}{
		{LimitInputTokens, l.InputTokensLimit, u.InputTokens},
		{LimitOutputTokens, l.OutputTokensLimit, u.OutputTokens},
		{LimitTotalTokens, l.TotalTokensLimit, u.InputTokens + u.OutputTokens},
	} {
		if c.limit > 0 && c.use > c.limit {
			return &UsageLimitError{Limit: c.name, Value: c.limit, Used: c.use}
		}
	}
	return nil
}
