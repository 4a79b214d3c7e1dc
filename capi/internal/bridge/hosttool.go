package bridge

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"github.com/starweaver-go/starweaver/core/intent"
	"github.com/starweaver-go/starweaver/core/tool"
)

// hostTool is a tool implemented by the host (a Python function). Calls
// are queued to the host through the run and awaited.
type hostTool struct {
	id  int64
	def tool.Definition
	cfg tool.Config
	// context says the host function reads its call context.
	context bool
}

func (t *hostTool) Definition() tool.Definition { return t.def }
func (t *hostTool) ToolConfig() *tool.Config    { return &t.cfg }

// Start begins a call without blocking: the item is queued for the host
// and done runs when the host completes it (or ctx ends), so a parallel
// batch needs no goroutine per host call.
func (t *hostTool) Start(ctx context.Context, tc *tool.Context, args json.RawMessage, done func(tool.Result, error)) {
	run := runFrom(ctx)
	if run == nil {
		done(tool.Result{}, tool.UserError("host tool %q called outside a host run", t.def.Name))
		return
	}
	run.start(ctx, &startedCall{t: t, tc: tc, args: args, withContext: t.context || run.traced, session: tc.ConversationID, done: done})
}

// startedCall is a started call of a host tool (a startedItem): one
// allocation holds what two closures held.
type startedCall struct {
	t           *hostTool
	tc          *tool.Context // read only while the item is built
	args        json.RawMessage
	withContext bool
	session     string
	done        func(tool.Result, error)
}

func (c *startedCall) appendItem(token int64) ([]byte, error) {
	b, err := appendCallItem(make([]byte, 0, 64+len(c.args)), token, c.t.id, c.tc, c.args, c.withContext)
	c.tc = nil
	return b, err
}

func (c *startedCall) complete(data []byte, err error) {
	if err != nil {
		c.done(tool.Result{}, err)
		return
	}
	res, err := decodeOutcome(data)
	c.done(withSession(res, c.session), err)
}

// Cooperative reports that calls return as soon as their context ends: the
// wait on the host selects on ctx.Done().
func (t *hostTool) Cooperative() bool { return true }

type wireContext struct {
	RunID          string         `json:"run_id"`
	ConversationID string         `json:"conversation_id"`
	RunStep        int            `json:"run_step"`
	ToolCallID     string         `json:"tool_call_id"`
	ToolName       string         `json:"tool_name"`
	Retry          int            `json:"retry"`
	MaxRetries     int            `json:"max_retries"`
	IdempotencyKey string         `json:"idempotency_key"`
	CompletionKey  string         `json:"completion_key,omitempty"`
	Approval       *tool.Approval `json:"approval"`
	Metadata       map[string]any `json:"metadata"`
	// Authority is what the call may receive beyond the run's fields,
	// when core narrowed it (see authorityOf); absent for a Legacy call
	// with no context capabilities and no shell environment.
	Authority *wireAuthority `json:"authority,omitempty"`
	// Runtime is the call's read-only runtime snapshot: the run's limits,
	// its budgets and, for a Legacy call, the shell values.
	Runtime tool.RuntimeSnapshot `json:"runtime"`
}

// wireAuthority is the authority core gave a call (tool.Context's
// Profile, HostCapabilities, ContextCapabilities and ShellEnv): the host
// narrows its own dependencies by it, so the rule stays in core.
type wireAuthority struct {
	Profile             tool.Profile      `json:"profile"`
	HostCapabilities    []string          `json:"host_capabilities"`
	ContextCapabilities []string          `json:"context_capabilities"`
	ShellEnvironment    map[string]string `json:"shell_environment"`
}

// authorityOf is the call's authority on the wire, or nil when the call
// has the whole run's (Legacy, nothing more).
func authorityOf(tc *tool.Context) *wireAuthority {
	if (tc.Profile == "" || tc.Profile == tool.ProfileLegacy) && len(tc.ContextCapabilities) == 0 && tc.ShellEnv == nil {
		return nil
	}
	a := &wireAuthority{Profile: tc.Profile, HostCapabilities: tc.HostCapabilities, ContextCapabilities: tc.ContextCapabilities, ShellEnvironment: tc.ShellEnv}
	if a.HostCapabilities == nil {
		a.HostCapabilities = []string{}
	}
	if a.ContextCapabilities == nil {
		a.ContextCapabilities = []string{}
	}
	return a
}

// outcome is what the host reports for a call.
type outcome struct {
	OK              bool            `json:"ok"`
	Content         json.RawMessage `json:"content"`
	Metadata        map[string]any  `json:"metadata"`
	AppValue        json.RawMessage `json:"app_value"`
	ModelContent    json.RawMessage `json:"model_content"`
	UserContent     json.RawMessage `json:"user_content"`
	PrivateMetadata map[string]any  `json:"private_metadata"`
	IsError         bool            `json:"is_error"`
	// Parts, StructuredContent and HostOnly carry a rich output (a Python
	// ToolOutput); see tool.Result.
	Parts             json.RawMessage `json:"parts"`
	StructuredContent json.RawMessage `json:"structured_content"`
	HostOnly          bool            `json:"host_only"`
	// Intents are the intents the call declares (see tool.Result.Intents).
	Intents   json.RawMessage `json:"intents"`
	Kind      string          `json:"kind"`
	Message   string          `json:"message"`
	TimeoutMS int64           `json:"timeout_ms"`
	// Pending, when set, makes the outcome a pending attempt with this
	// completion (tool.Pending); core checks it and the tool's declaration.
	Pending *tool.PendingCompletion `json:"pending"`
}

func (t *hostTool) Call(ctx context.Context, tc *tool.Context, args json.RawMessage) (tool.Result, error) {
	run := runFrom(ctx)
	if run == nil {
		return tool.Result{}, tool.UserError("host tool %q called outside a host run", t.def.Name)
	}
	data, err := run.await(ctx, func(token int64) ([]byte, error) {
		return appendCallItem(make([]byte, 0, 256+len(args)), token, t.id, tc, args, t.context || run.traced)
	})
	if err != nil {
		return tool.Result{}, err
	}
	res, err := decodeOutcome(data)
	return withSession(res, tc.ConversationID), err
}

type preprocessItem struct {
	Kind    string          `json:"kind"`
	Token   int64           `json:"token"`
	Tool    int64           `json:"tool"`
	Context wireContext     `json:"context"`
	Input   json.RawMessage `json:"input"`
}

// preprocess runs the host tool's user-input preprocessor through the host.
func (t *hostTool) preprocess(ctx context.Context, tc *tool.Context, input json.RawMessage) (tool.PreprocessResult, error) {
	run := runFrom(ctx)
	if run == nil {
		return tool.PreprocessResult{}, tool.UserError("host tool %q preprocessed outside a host run", t.def.Name)
	}
	data, err := run.await(ctx, func(token int64) ([]byte, error) {
		return encodeItem(preprocessItem{Kind: "preprocess", Token: token, Tool: t.id, Input: input, Context: wireContextOf(tc)})
	})
	if err != nil {
		return tool.PreprocessResult{}, err
	}
	var o struct {
		OK                bool            `json:"ok"`
		OverrideArguments json.RawMessage `json:"override_arguments"`
		Metadata          map[string]any  `json:"metadata"`
	}
	if err := json.Unmarshal(data, &o); err != nil {
		return tool.PreprocessResult{}, fmt.Errorf("host returned a malformed preprocessing outcome: %w", err)
	}
	if !o.OK {
		_, err := decodeOutcome(data)
		return tool.PreprocessResult{}, err
	}
	return tool.PreprocessResult{OverrideArguments: o.OverrideArguments, Metadata: o.Metadata}, nil
}

func wireContextOf(tc *tool.Context) wireContext {
	return wireContext{
		RunID: tc.RunID, ConversationID: tc.ConversationID, RunStep: tc.RunStep, ToolCallID: tc.ToolCallID,
		ToolName: tc.ToolName, Retry: tc.Retry, MaxRetries: tc.MaxRetries, IdempotencyKey: tc.IdempotencyKey(), CompletionKey: tc.CompletionKey(),
		Approval: tc.Approval, Metadata: tc.Metadata, Authority: authorityOf(tc), Runtime: tc.Runtime,
	}
}

// okPrefix starts the outcome the Python host writes for a plain value.
const okPrefix = `{"ok":true,"content":`

// decodeOutcome turns the host's outcome into a result or a typed error.
func decodeOutcome(data []byte) (tool.Result, error) {
	// The common outcome, a bare value, is taken without decoding it.
	if n := len(data); n > len(okPrefix) && data[n-1] == '}' && string(data[:len(okPrefix)]) == okPrefix {
		if content := data[len(okPrefix) : n-1]; json.Valid(content) && !bytes.Equal(bytes.TrimSpace(content), []byte("null")) {
			return tool.Result{Content: json.RawMessage(content)}, nil
		}
	}
	var o outcome
	if err := json.Unmarshal(data, &o); err != nil {
		// The same outcome would come back on every attempt: not retried.
		return tool.Result{}, tool.UserError("the host returned a malformed outcome: %v", err)
	}
	var in intent.Intents
	if raw(o.Intents) != nil {
		if err := json.Unmarshal(o.Intents, &in); err != nil {
			return tool.Result{}, tool.UserError("the tool declared malformed intents: %v", err)
		}
	}
	if o.Pending != nil {
		// Intents with a Pending: the registry refuses them, as with a
		// pause (tool.Result.Intents).
		return tool.Result{Intents: in}, tool.Pending(o.Message, *o.Pending)
	}
	if !o.OK {
		kind, err := tool.ParseErrorKind(o.Kind)
		if err != nil || !kind.ToolRaisable() {
			kind = tool.ErrorKindExecution
		}
		e := &tool.Error{Kind: kind, Message: o.Message, PrivateMetadata: o.PrivateMetadata, TimeoutMS: o.TimeoutMS}
		if kind == tool.ErrorKindApprovalRequired || kind == tool.ErrorKindCallDeferred {
			e.Metadata = o.Metadata
			if e.Metadata == nil {
				e.Metadata = map[string]any{}
			}
		}
		// Intents with an error: the registry refuses them with a pause
		// and discards them with a failure (tool.Result.Intents).
		return tool.Result{Intents: in}, e
	}
	res := tool.Result{Metadata: o.Metadata, PrivateMetadata: o.PrivateMetadata, IsError: o.IsError, Intents: in}
	res.Content = raw(o.Content)
	if res.Content == nil {
		res.Content = json.RawMessage("null")
	}
	res.AppValue = raw(o.AppValue)
	res.ModelContent = raw(o.ModelContent)
	res.UserContent = raw(o.UserContent)
	res.StructuredContent = raw(o.StructuredContent)
	res.HostOnly = o.HostOnly
	if raw(o.Parts) != nil {
		// Parts are checked as they are decoded; a malformed one is the
		// tool's output, refused like an oversized one.
		if err := json.Unmarshal(o.Parts, &res.Parts); err != nil {
			return tool.Result{}, tool.InvalidOutput("content parts: %v", err)
		}
		if res.Parts == nil {
			res.Parts = []tool.Part{} // an empty list, refused as such
		}
	}
	return res, nil
}

// raw keeps host JSON undecoded; absent or null fields stay nil.
func raw(m json.RawMessage) any {
	if len(m) == 0 || string(m) == "null" {
		return nil
	}
	return m
}
