package bridge

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/starweaver-go/starweaver/core/agent"
	"github.com/starweaver-go/starweaver/core/bundles"
	"github.com/starweaver-go/starweaver/core/effect"
	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/store"
	"github.com/starweaver-go/starweaver/core/tool"
)

// abiErrorTypes is the one list of the slugs an abiError's type may hold
// (sw_error_kinds exports it; the Python package maps each to an exception).
// "forked" is written by forkguard.c without entering Go. A new slug joins
// this list; TestABIErrorTypesListed fails for one written only in code.
var abiErrorTypes = []string{
	"internal", "invalid_argument", "invalid_spec", "bad_handle", "state", "invalid_decision", "invalid_result", "busy", "config",
	"unavailable_tools", "cancelled", "output", "model", "retry_limit", "usage_limit_exceeded",
	"bridge", "unsupported", "forked", "session_not_found", "store_unavailable",
	"tool_output_not_visible", "tool_failed", "handoff",
	"artifact_invalid", "artifact_not_found", "artifact_conflict", "artifact_integrity", "artifact_expired",
}

// errorKindsJSON is what sw_error_kinds returns: the tool error kinds
// (tool.ErrorKinds), the C-ABI error slugs and the effect classes
// (effect.Classes), each in its list's order.
func errorKindsJSON() []byte {
	v := struct {
		ErrorKinds    []tool.ErrorKind `json:"error_kinds"`
		ErrorTypes    []string         `json:"error_types"`
		EffectClasses []effect.Class   `json:"effect_classes"`
		ToolKinds     []tool.Kind      `json:"tool_kinds"`
		CoreBundles   []string         `json:"core_bundles"`
	}{tool.ErrorKinds(), abiErrorTypes, effect.Classes(), tool.Kinds(), bundles.CoreNames()}
	b, _ := json.Marshal(v) // strings only: cannot fail
	return b
}

// abiError is the JSON error object given to the host: a stable slug plus
// a message, and details for the errors that have them.
type abiError struct {
	Type       string `json:"type"`
	Message    string `json:"message"`
	Tool       string `json:"tool,omitempty"`
	ToolCallID string `json:"tool_call_id,omitempty"`
	// Kind is the tool error kind of a "tool_failed" error.
	Kind       string `json:"kind,omitempty"`
	MaxRetries *int   `json:"max_retries,omitempty"`
	// Limit and Value name the usage limit a run would have passed.
	Limit string `json:"limit,omitempty"`
	Value *int   `json:"value,omitempty"`
	// Output marks a retry_limit of the output-retry budget.
	Output bool `json:"output,omitempty"`
	// Provider, StatusCode and Code describe a provider's failure (a
	// "model" error from model.ProviderError). Code also tells the
	// "state" errors of durable sessions apart: "session_conflict",
	// "resume_claimed" and "run_in_flight" (stateCodes).
	Provider   string `json:"provider,omitempty"`
	StatusCode int    `json:"status_code,omitempty"`
	Code       string `json:"code,omitempty"`
	// Attempts are the failed requests of a "model" error of code
	// "fallback_failed", in order.
	Attempts []model.Attempt `json:"attempts,omitempty"`
}

func (e *abiError) Error() string { return e.Type + ": " + e.Message }

// toABIError classifies err into a slug the host maps to an exception.
func toABIError(err error) *abiError {
	var ae *abiError
	if errors.As(err, &ae) {
		return ae
	}
	e := &abiError{Type: "internal", Message: err.Error()}
	var rl *agent.RetryLimitError
	var ul *agent.UsageLimitError
	var pe *model.ProviderError
	var fe *model.FallbackError
	var nv *agent.ToolOutputNotVisibleError
	var tf *agent.ToolFailedError
	switch {
	case errors.As(err, &nv):
		e.Type, e.Tool, e.ToolCallID = "tool_output_not_visible", nv.Tool, nv.ToolCallID
	case errors.As(err, &tf):
		e.Type, e.Tool, e.ToolCallID, e.Kind = "tool_failed", tf.Tool, tf.ToolCallID, string(tf.Kind)
	case artifactRunError(err) != "":
		e.Type = artifactRunError(err)
	case errors.As(err, &rl):
		e.Type, e.Tool, e.MaxRetries, e.Output = "retry_limit", rl.Tool, &rl.MaxRetries, rl.Output
	case errors.As(err, &ul):
		e.Type, e.Limit, e.Value = "usage_limit_exceeded", ul.Limit, &ul.Value
	case errors.As(err, &fe):
		// Several providers failed: the message names each; no one
		// provider or status stands for them.
		e.Type, e.Code, e.Attempts = "model", "fallback_failed", fe.Attempts
	case errors.As(err, &pe):
		e.Type, e.Provider, e.StatusCode, e.Code = "model", pe.Provider, pe.StatusCode, pe.Code
	case errors.Is(err, agent.ErrModel):
		e.Type = "model"
	case errors.Is(err, agent.ErrCancelled):
		e.Type = "cancelled"
	case errors.Is(err, agent.ErrUnavailableTools):
		e.Type = "unavailable_tools"
	case errors.Is(err, agent.ErrInvalidLimit), errors.Is(err, agent.ErrInvalidSettings), errors.Is(err, agent.ErrInvalidHistory):
		e.Type = "invalid_spec"
	case errors.Is(err, agent.ErrOutput):
		e.Type = "output"
	case errors.Is(err, agent.ErrHandoff):
		e.Type = "handoff"
	case errors.Is(err, agent.ErrSessionBusy):
		e.Type = "busy"
	case errors.Is(err, agent.ErrInvalidDecision):
		e.Type = "invalid_decision"
	case errors.Is(err, agent.ErrInvalidResult):
		e.Type = "invalid_result"
	case errors.Is(err, agent.ErrSessionNotFound):
		e.Type = "session_not_found"
	case errors.Is(err, agent.ErrState):
		e.Type = "state"
		for _, c := range stateCodes {
			if errors.Is(err, c.err) {
				e.Code = c.code
				break
			}
		}
	case errors.Is(err, agent.ErrConfig):
		e.Type = "config"
	case errors.Is(err, store.ErrUnavailable), errors.Is(err, store.ErrClosed):
		e.Type = "store_unavailable"
	}
	return e
}

// stateCodes are the "code"s of the "state" errors a host of durable
// sessions handles apart from the others, checked in order.
var stateCodes = []struct {
	err  error
	code string
}{
	{agent.ErrResumeClaimed, "resume_claimed"},
	{agent.ErrSessionConflict, "session_conflict"},
	{agent.ErrRunInFlight, "run_in_flight"},
}

func errorJSON(err error) []byte {
	b, mErr := json.Marshal(toABIError(err))
	if mErr != nil {
		return []byte(fmt.Sprintf(`{"type":"internal","message":%q}`, err.Error()))
	}
	return b
}

func specError(format string, a ...any) error {
	return &abiError{Type: "invalid_spec", Message: fmt.Sprintf(format, a...)}
}
