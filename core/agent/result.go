package agent

import (
	"encoding/json"

	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/tool"
)

// Status is where a run ended.
type Status string

// Run statuses.
const (
	StatusCompleted Status = "completed"
	StatusWaiting   Status = "waiting"
	StatusFailed    Status = "failed"
	StatusCancelled Status = "cancelled"
)

// RunResult is the outcome of a run.
type RunResult struct {
	RunID  string `json:"run_id"`
	Status Status `json:"status"`
	// Output is the model's final text (empty unless completed). When the
	// agent asks for structured output it is the text of OutputValue.
	Output string `json:"output"`
	// OutputValue is the validated structured answer of a completed run
	// of an agent with an OutputSpec (nil otherwise).
	OutputValue json.RawMessage `json:"output_value,omitempty"`
	// Messages is the whole conversation after the run, with every host
	// surface of its tool returns. It shares storage with the session's
	// history (results of a long session would otherwise cost quadratic
	// memory): treat it and its messages as read-only, and use
	// Session.Messages for a copy to modify.
	Messages []model.Message `json:"messages"`
	// NewMessages are the messages this run added (a tail of Messages).
	NewMessages []model.Message `json:"new_messages"`
	Usage       model.Usage     `json:"usage"`
	// UsageByAgent splits Usage by agent when agents ran as tools of the
	// run (nil otherwise): each child agent's (and its children's) under
	// its name, the rest under the run's agent's name.
	UsageByAgent map[string]model.Usage `json:"usage_by_agent,omitempty"`
	// Pending lists what a waiting run waits for.
	Pending []Pending `json:"pending,omitempty"`
	// Batch holds, for a waiting run, the returns of the paused batch in
	// model order: finished calls keep their returns, pending ones show
	// their approval_required or call_deferred return until resumed.
	Batch []tool.Return `json:"batch,omitempty"`
	// Error describes a failed or cancelled run.
	Error string `json:"error,omitempty"`
	// LastAgent is the agent that answered last: the session's agent, or
	// the agent the run was handed off to last (see Handoff).
	// LastAgentName is its name.
	LastAgent     *Agent `json:"-"`
	LastAgentName string `json:"last_agent,omitempty"`
}

// Returns collects the tool returns of the run's new messages, in order.
func (r *RunResult) Returns() []tool.Return {
	var out []tool.Return
	for _, m := range r.NewMessages {
		out = append(out, m.Returns()...)
	}
	return out
}

// Pending kinds.
const (
	PendingApproval = "approval"
	PendingDeferred = "deferred"
)

// Pending is a call that waits for a person (approval) or an external
// worker (deferred).
type Pending struct {
	Kind       string          `json:"kind"`
	ID         string          `json:"id"`
	ToolCallID string          `json:"tool_call_id"`
	ToolName   string          `json:"tool_name"`
	Arguments  json.RawMessage `json:"arguments"`
	// Metadata is the request metadata the tool gave (reason included).
	Metadata map[string]any `json:"metadata"`
	// Path names the agents the request came through when a child run
	// asked (an agent tool's, see AsTool), outermost first; empty for the
	// run's own calls. ToolCallID and ToolName are then the child's call.
	Path []string `json:"path,omitempty"`
	// ParentToolCallID is, for a child's request, the call of this run
	// that ran the child.
	ParentToolCallID string `json:"parent_tool_call_id,omitempty"`
	// CompletionKey, on a deferral of a tool that may defer (tool.Pending),
	// is the completion key reserved for the call: a resume may answer
	// the item by it as by its id.
	CompletionKey string `json:"completion_key,omitempty"`
}
