package batch

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"strings"

	"github.com/starweaver-go/starweaver/core/tool"
	"github.com/starweaver-go/starweaver/core/toolset"
)

// Names and limits of the batch tool.
const (
	// Name is the name of the batch tool.
	Name = "batch"
	// ToolsetName is the name and id of the toolset holding it.
	ToolsetName = "batch"
	// MaxCalls is how many calls one batch may hold; a batch with more is
	// refused as a whole (invalid_arguments) and none of its calls runs.
	MaxCalls = 25
)

// Metadata keys of the batch call's return and approval request.
const (
	// MetaCalls is the batch result's metadata key listing its children,
	// in index order: {"index", "tool", "tool_call_id"} and, for a failed
	// child, "error_kind".
	MetaCalls = "batch_calls"
	// MetaApprovals is the approval request's metadata key listing the
	// children waiting for approval: {"index", "tool", "tool_call_id",
	// "arguments", "reason", "metadata"} (the child's own request).
	MetaApprovals = "batch_approvals"
)

// Description is the description of the batch tool the model reads.
const Description = "Run up to 25 independent tool calls in one call. " +
	"Each entry of tool_calls names a tool and gives its parameters, exactly as a direct call of that tool would. " +
	"The calls may run concurrently, so do not batch calls that depend on each other's results. " +
	"The result lists one entry per call, by index, with success, the tool's result or an error; " +
	"a failed call does not stop the others. A batch of more than 25 calls is refused and none of them runs. " +
	"batch itself cannot be called inside batch."

// Failure texts of the entries the batch fails itself.
const (
	nestedText      = "Tool '%s' is not allowed inside batch"
	unavailableText = "Tool '%s' is unavailable in this session"
	overflowText    = "Maximum of 25 tool calls allowed in batch, got %d: none of them ran; " +
		"send at most 25 calls per batch call"
	unsafeText = "Tool '%s' requires approval, which cannot be asked for inside this batch because other calls in it " +
		"have already run and would run again; call it on its own"
	deferredText = "Tool '%s' deferred its result, which cannot be waited for inside batch; call it on its own"
	isErrorText  = "Tool '%s' reported an error"
)

// Options configure a batch tool. The zero value runs children in
// parallel where the registry's rules allow, without a cap.
type Options struct {
	// Sequential runs the children one at a time in index order (an agent
	// that runs every batch in order passes its policy on).
	Sequential bool
	// MaxConcurrency caps the children running at once; zero means no cap.
	MaxConcurrency int
	// Drain, when set, is called once every child of a batch has its final
	// Return (never for a batch that pauses for approval), with the
	// children in index order, before the batch returns; an error fails
	// the batch call with it. It runs on the batch call's goroutine.
	Drain func(ctx context.Context, tc *tool.Context, children []Child) error
}

// Child is one call of a finished batch, as Options.Drain receives it.
type Child struct {
	// Index is the call's position in tool_calls.
	Index int
	// Call is the child call: ID [ChildID], the tool, its parameters, and
	// Index as its index.
	Call tool.Call
	// Return is the child's final Return. A child the batch failed itself
	// (nested, unavailable, an approval or deferral that
	// cannot be waited for) has an error Return built from its entry's text.
	Return tool.Return
	// Dispatched reports whether the call went through the registry.
	Dispatched bool
}

// Output is the content of a batch call's return.
type Output struct {
	Results []Entry `json:"results"`
}

// Entry is the outcome of one child, in Output.Results.
type Entry struct {
	Index   int    `json:"index"`
	Tool    string `json:"tool"`
	Success bool   `json:"success"`
	// DurationMS is always 0, so that a batch run again returns the same
	// bytes.
	DurationMS int64 `json:"duration_ms"`
	// Result is the tool's result (its rich parts when it returned some),
	// or, for a tool that returned an error result, that result.
	Result any `json:"result,omitempty"`
	// Error is why the child failed.
	Error string `json:"error,omitempty"`
}

// ChildID is the tool call id of child index of the call parent:
// "{parent}:{index:02}".
func ChildID(parent string, index int) string { return fmt.Sprintf("%s:%02d", parent, index) }

// Tools returns a new "batch" toolset (id "batch") holding [New]'s tool.
// Agents add it when asked to (agent.Builder.BatchTool).
func Tools(opts Options) *toolset.Static {
	return toolset.New(ToolsetName, New(opts)).WithID(ToolsetName)
}

// New returns a new batch tool (see the package comment).
//
// Its arguments are checked by an argument validator before the JSON
// Schema, so malformed ones come back to the model as invalid_arguments
// with the reference's texts ("Missing required parameter: tool_calls",
// "Invalid tool_calls[i].tool: expected non-empty string"). The schema
// sets no maximum number of calls, so that more than [MaxCalls] calls get
// the validator's one refusal ("Maximum of 25 tool calls allowed in batch,
// got N: ...") and none of them runs.
func New(opts Options) *tool.Function {
	return tool.New(Name, Description, parametersSchema(), opts.call).
		WithReturnSchema(returnSchema()).
		WithKind(tool.KindFunction).
		WithArgumentValidator(validateArguments)
}

// validateArguments checks the shape of tool_calls, naming the first
// problem.
func validateArguments(_ *tool.Context, args map[string]any) error {
	raw, ok := args["tool_calls"]
	if !ok || raw == nil {
		return tool.InvalidArguments("Missing required parameter: tool_calls")
	}
	calls, ok := raw.([]any)
	if !ok {
		return tool.InvalidArguments("Invalid tool_calls: expected an array of calls")
	}
	if len(calls) == 0 {
		return tool.InvalidArguments("Invalid tool_calls: expected at least one call")
	}
	if len(calls) > MaxCalls {
		// One refusal, whatever the count: answering each call past the
		// limit would put output proportional to the request in history.
		return tool.InvalidArguments(overflowText, len(calls))
	}
	for i, c := range calls {
		m, ok := c.(map[string]any)
		if !ok {
			return tool.InvalidArguments("Invalid tool_calls[%d]: expected an object with tool and parameters", i)
		}
		if name, ok := m["tool"].(string); !ok || strings.TrimSpace(name) == "" {
			return tool.InvalidArguments("Invalid tool_calls[%d].tool: expected non-empty string", i)
		}
		if p, ok := m["parameters"]; ok {
			if _, ok := p.(map[string]any); !ok {
				return tool.InvalidArguments("Invalid tool_calls[%d].parameters: expected an object", i)
			}
		}
	}
	return nil
}

// arguments are the batch call's arguments once validated.
type arguments struct {
	ToolCalls []struct {
		Tool       string          `json:"tool"`
		Parameters json.RawMessage `json:"parameters"`
	} `json:"tool_calls"`
}

func (o Options) call(ctx context.Context, tc *tool.Context, args json.RawMessage) (tool.Result, error) {
	var in arguments
	if err := json.Unmarshal(args, &in); err != nil {
		return tool.Result{}, tool.InvalidArguments("Invalid tool_calls: %v", err)
	}
	self := Name
	if tc.ToolName != "" {
		self = tc.ToolName
	}
	if len(in.ToolCalls) > MaxCalls {
		// validateArguments refuses these first; this keeps the bound for
		// a caller that skips argument validation.
		return tool.Result{}, tool.InvalidArguments(overflowText, len(in.ToolCalls))
	}
	children := make([]Child, len(in.ToolCalls))
	var run []int // the children to dispatch
	for i, c := range in.ToolCalls {
		params := c.Parameters
		if s := strings.TrimSpace(string(params)); s == "" || s == "null" {
			params = json.RawMessage("{}")
		}
		call := tool.Call{ID: ChildID(tc.ToolCallID, i), Name: c.Tool, Arguments: params, Index: i}
		children[i] = Child{Index: i, Call: call}
		switch {
		case c.Tool == self || c.Tool == Name:
			children[i].Return = tool.ErrorReturn(call, tool.UserError(nestedText, c.Tool))
		case !tc.Offers(c.Tool):
			children[i].Return = tool.ErrorReturn(call, &tool.Error{Kind: tool.ErrorKindNotFound, Message: fmt.Sprintf(unavailableText, c.Tool)})
		default:
			children[i].Dispatched = true
			run = append(run, i)
		}
	}
	o.dispatch(ctx, tc, children, run, nil)
	if err := ctx.Err(); err != nil {
		return tool.Result{}, tool.Cancelled("the batch was cancelled: " + err.Error())
	}

	var asking []int
	for _, i := range run {
		if children[i].Return.ErrorKind() == tool.ErrorKindApprovalRequired {
			asking = append(asking, i)
		}
	}
	if len(asking) > 0 {
		switch {
		case tc.Approval != nil:
			// The batch was approved: the children asking again get its
			// decision, with their own arguments.
			approvals := make([]*tool.Approval, len(asking))
			for k, i := range asking {
				approvals[k] = &tool.Approval{Status: tc.Approval.Status, Arguments: children[i].Call.Arguments,
					Metadata: maps.Clone(tc.Approval.Metadata)}
			}
			o.dispatch(ctx, tc, children, asking, approvals)
			if err := ctx.Err(); err != nil {
				return tool.Result{}, tool.Cancelled("the batch was cancelled: " + err.Error())
			}
		case pausable(tc, children, run):
			return tool.Result{}, approvalRequest(children, asking)
		default:
			for _, i := range asking {
				children[i].Return = tool.ErrorReturn(children[i].Call, tool.UserError(unsafeText, children[i].Call.Name))
			}
		}
	}
	for _, i := range run {
		if children[i].Return.ErrorKind() == tool.ErrorKindCallDeferred {
			children[i].Return = tool.ErrorReturn(children[i].Call, tool.UserError(deferredText, children[i].Call.Name))
		}
	}
	if o.Drain != nil {
		if err := o.Drain(ctx, tc, children); err != nil {
			return tool.Result{}, err
		}
	}
	return result(children), nil
}

// dispatch runs the children at indices idx through the registry and
// stores their Returns.
func (o Options) dispatch(ctx context.Context, tc *tool.Context, children []Child, idx []int, approvals []*tool.Approval) {
	if len(idx) == 0 {
		return
	}
	calls := make([]tool.Call, len(idx))
	for k, i := range idx {
		calls[k] = children[i].Call
	}
	rets := tc.DispatchBatch(ctx, calls, tool.DispatchOptions{Sequential: o.Sequential, MaxConcurrency: o.MaxConcurrency, Approvals: approvals})
	for k, i := range idx {
		children[i].Return = rets[k]
	}
}

// pausable reports whether the batch may pause for the approval its
// children ask for: running it again after the decision cannot repeat an
// effect, since every dispatched child that is not waiting either never
// ran (its arguments were refused) or is repeat-safe.
func pausable(tc *tool.Context, children []Child, run []int) bool {
	for _, i := range run {
		switch children[i].Return.ErrorKind() {
		case tool.ErrorKindApprovalRequired, tool.ErrorKindInvalidArguments:
			continue
		}
		if !tc.RepeatSafe(children[i].Call.Name) {
			return false
		}
	}
	return true
}

// approvalRequest is the batch call's approval request for the children
// at indices asking.
func approvalRequest(children []Child, asking []int) *tool.Error {
	list := make([]any, 0, len(asking))
	names := make([]string, 0, len(asking))
	for _, i := range asking {
		c := children[i]
		req := plainJSON(c.Return.Runtime.Request)
		reason, _ := c.Return.Runtime.Request["reason"].(string)
		list = append(list, map[string]any{
			"index": i, "tool": c.Call.Name, "tool_call_id": c.Call.ID,
			"arguments": plainJSON(c.Call.Arguments), "reason": reason, "metadata": req,
		})
		names = append(names, fmt.Sprintf("'%s' (index %d)", c.Call.Name, i))
	}
	reason := "batch calls need approval: " + strings.Join(names, ", ")
	return tool.ApprovalRequired(reason, map[string]any{MetaApprovals: list})
}

// result is the batch call's result: one entry per child, in index order.
func result(children []Child) tool.Result {
	out := Output{Results: make([]Entry, len(children))}
	calls := make([]any, len(children))
	hostOnly := false
	for i, c := range children {
		ret := c.Return
		e := Entry{Index: c.Index, Tool: c.Call.Name}
		md := map[string]any{"index": c.Index, "tool": c.Call.Name, "tool_call_id": c.Call.ID}
		kind := ret.ErrorKind()
		switch {
		case ret.HostOnly:
			// Its output must never reach a model: nor must the batch's.
			hostOnly = true
			e.Success = kind == "" && !ret.IsError
		case kind != "":
			e.Error, _ = ret.Metadata[tool.MetaMessage].(string)
			if e.Error == "" {
				e.Error = string(kind)
			}
			md["error_kind"] = string(kind)
		case ret.IsError:
			e.Result = visible(ret)
			e.Error = fmt.Sprintf(isErrorText, c.Call.Name)
		default:
			e.Success = true
			e.Result = visible(ret)
		}
		out.Results[i] = e
		calls[i] = md
	}
	return tool.Result{Content: out, Metadata: map[string]any{MetaCalls: calls}, HostOnly: hostOnly}
}

// visible is what the model would read of a child's return.
func visible(ret tool.Return) any {
	if ret.Parts != nil {
		return ret.Parts
	}
	return ret.Content
}

// plainJSON converts v to decoded JSON values (maps, slices, strings,
// numbers, bools), so that request metadata survives exported state
// unchanged; a value that does not encode is left out.
func plainJSON(v any) any {
	b, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	var out any
	if json.Unmarshal(b, &out) != nil {
		return nil
	}
	return out
}

func parametersSchema() map[string]any {
	return map[string]any{
		"type": "object",
		"properties": map[string]any{
			"tool_calls": map[string]any{
				"type":        "array",
				"description": "The calls to run, 1 to 25 of them; a batch with more is refused and none of its calls runs.",
				"minItems":    1,
				"items": map[string]any{
					"type": "object",
					"properties": map[string]any{
						"tool":       map[string]any{"type": "string", "minLength": 1, "description": "The name of the tool to call."},
						"parameters": map[string]any{"type": "object", "description": "The tool's arguments, as for a direct call."},
					},
					"required":             []any{"tool"},
					"additionalProperties": false,
				},
			},
		},
		"required":             []any{"tool_calls"},
		"additionalProperties": false,
	}
}

func returnSchema() map[string]any {
	return map[string]any{
		"type": "object",
		"properties": map[string]any{
			"results": map[string]any{
				"type": "array",
				"items": map[string]any{
					"type": "object",
					"properties": map[string]any{
						"index":       map[string]any{"type": "integer"},
						"tool":        map[string]any{"type": "string"},
						"success":     map[string]any{"type": "boolean"},
						"duration_ms": map[string]any{"type": "integer"},
						"result":      map[string]any{},
						"error":       map[string]any{"type": "string"},
					},
					"required": []any{"index", "tool", "success", "duration_ms"},
				},
			},
		},
		"required": []any{"results"},
	}
}
