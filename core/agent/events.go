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
)

// Custom event kinds published by the runtime.
const (
	CustomToolsUnavailable = "tools_unavailable"
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
}

// CustomEvent carries runtime notices such as tools_unavailable.
type CustomEvent struct {
	Kind    string         `json:"kind"`
	Payload map[string]any `json:"payload"`
}

// EventHandler receives a run's events. It runs on the loop's goroutine, so
// it should return quickly.
type EventHandler func(Event)
