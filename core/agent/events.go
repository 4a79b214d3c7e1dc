package agent

import (
	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/tool"
)

// Event kinds.
const (
	EventRunStart      = "run_start"
	EventModelRequest  = "model_request"
	EventModelResponse = "model_response"
	// EventModelFallback reports a request a model of a model.Fallback
	// failed (Attempt): one per failed attempt, in order, as each fails
	// (see model.AttemptReporter), so after model_request, before the
	// deltas and the model_response of the next model (or the run_failed
	// of a request every model failed). A model an executor asks in
	// another process (a durable run's activity) reports its attempts
	// once its request ends, before its model_response or run_failed.
	EventModelFallback = "model_fallback"
	EventToolCall      = "tool_call"
	EventToolReturn    = "tool_return"
	EventCustom        = "custom"
	EventRunWaiting    = "run_waiting"
	// EventDeferredRequested announces each deferred call of a waiting run.
	EventDeferredRequested = "deferred_requested"
	// EventHITLResolved reports each pending item answered by a resume.
	EventHITLResolved = "hitl_resolved"
	EventRunComplete  = "run_complete"
	EventRunFailed    = "run_failed"
	EventRunCancelled = "run_cancelled"
	// The live events below are emitted only by runs with WithDeltas, so
	// observers of other runs see the same sequence as before them.
	//
	// EventTextDelta, EventThinkingDelta and EventToolCallDelta carry a
	// response's pieces (Delta) while it streams, between model_request and
	// model_response.
	EventTextDelta     = "text_delta"
	EventThinkingDelta = "thinking_delta"
	EventToolCallDelta = "tool_call_delta"
	// EventRetry follows the tool_return of a call that spent one unit of
	// the model-correction budget (Return holds its retry count).
	EventRetry = "retry"
	// EventUsage follows each model_response with the run's usage so far.
	EventUsage = "usage"
	// EventSuspended announces that the run ends waiting for people or
	// deferred work; run_waiting follows it. Custom's payload lists the
	// pending items under "pending".
	EventSuspended = "suspended"
)

// Custom event kinds published by the runtime.
const (
	CustomToolsUnavailable = "tools_unavailable"
	// CustomInterrupt rides on the run_cancelled event of an interrupted
	// run; its payload holds the "reason".
	CustomInterrupt = "interrupt"
)

// Event is one step of a run as observers see it. Events of one run are
// delivered in order, from the goroutine running the loop.
type Event struct {
	Kind     string          `json:"kind"`
	Sequence int             `json:"sequence"`
	RunID    string          `json:"run_id"`
	Step     int             `json:"step"`
	ToolCall *model.ToolCall `json:"tool_call,omitempty"`
	Return   *tool.Return    `json:"tool_return,omitempty"`
	Custom   *CustomEvent    `json:"custom,omitempty"`
	Output   string          `json:"output,omitempty"`
	Error    string          `json:"error,omitempty"`
	Usage    *model.Usage    `json:"usage,omitempty"`
	Delta    *model.Delta    `json:"delta,omitempty"`
	// Response describes the response of a model_response event.
	Response *ResponseInfo `json:"response,omitempty"`
	// Attempt is the failed request of a model_fallback event.
	Attempt *model.Attempt `json:"attempt,omitempty"`
	// AgentName names the agent whose run made the event when it is not
	// the run observed: a child agent called as a tool (see AsTool).
	AgentName string `json:"agent_name,omitempty"`
	// ParentToolCallID is, for an event of a child run, the call of this
	// run that ran the child (and for a grandchild's, the call of this run
	// that ran its parent).
	ParentToolCallID string `json:"parent_tool_call_id,omitempty"`
}

// ResponseInfo says who answered a model request and why it stopped,
// without the response's content (observers that need the content read
// the history).
type ResponseInfo struct {
	ModelName    string `json:"model_name,omitempty"`
	FinishReason string `json:"finish_reason,omitempty"`
	Provider     string `json:"provider,omitempty"`
	ResponseID   string `json:"response_id,omitempty"`
}

// CustomEvent carries runtime notices such as tools_unavailable.
type CustomEvent struct {
	Kind    string         `json:"kind"`
	Payload map[string]any `json:"payload"`
}

// EventHandler receives a run's events. It runs on the loop's goroutine, so
// it should return quickly.
type EventHandler func(Event)
