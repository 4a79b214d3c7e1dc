package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/starweaver-go/starweaver/core/effect"
	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/tool"
)

// ErrHandoff: a handoff could not take place (its OnHandoff or
// InputFilter failed, or its target could not be resolved); the run fails.
var ErrHandoff = errors.New("agent: handoff failed")

// CustomHandoff is the custom event a run emits when it hands the
// conversation to another agent; its payload holds "from", "to" (the
// agents' names), "tool_name" and "tool_call_id". It is made by the
// receiving agent, so its AgentName is the receiving agent's.
const CustomHandoff = "handoff"

// HandoffToolPrefix starts the default name of a transfer tool.
const HandoffToolPrefix = "transfer_to_"

// Tool-return texts of transfer calls; they are what the model reads.
const (
	handoffIgnored = "Multiple handoffs detected, ignoring this one."
)

// Handoff lets an agent transfer the conversation to another agent, as
// the OpenAI Agents SDK does: the agent's model sees a tool (named
// transfer_to_<agent name> unless ToolName says otherwise) taking no
// arguments, and a call of it hands the run to Agent. The receiving agent
// continues the same run over the conversation so far (filtered by
// InputFilter), with its own instructions, model, tools, handoffs, output
// type and settings; the agent that handed off is not asked again.
//
// What a handoff keeps and changes:
//
//   - The transfer call gets a plain return ("Transferred to <name>."),
//     and the other calls of the same response run as usual. Only the
//     first transfer call of a response (in model order) is honoured;
//     the others get the return "Multiple handoffs detected, ignoring
//     this one." and change nothing. A response that also gives the
//     structured output ends the run (the output wins, as for any call).
//   - The run keeps its id, usage, usage limits (the starting agent's,
//     over the run's own: the receiving agent's limits do not apply),
//     run options (run tools, toolsets, deps, metadata, grants) and
//     event handlers. Each agent asks its model at least once, so a
//     cycle of handoffs ends at the run's request limit.
//   - The system prompt, sent once at the start of a conversation, stays
//     the starting agent's; Instructions, sent with every request, are
//     the receiving agent's from the first request after the handoff.
//   - Events made after the handoff carry the receiving agent's name in
//     AgentName (a CustomHandoff event opens them), and RunResult names
//     the agent that answered last (LastAgent).
//   - The session keeps the whole history (InputFilter shapes only what
//     the receiving agent's model reads, see HandoffInputFilter), and its
//     next run starts again with the session's own agent, as a new run of
//     the Agents SDK starts with its starting agent.
//
// A run that waits for people after a handoff (an approval, a deferred
// call) resumes with the agent that was answering, over the whole history.
type Handoff struct {
	// Agent receives the conversation. Exactly one of Agent and Target is
	// set.
	Agent *Agent
	// Target, when set instead of Agent, resolves the receiving agent at
	// each handoff: agents are immutable once built, so a graph with
	// cycles (an agent handing back to the one that handed off to it)
	// names one side late. ToolName is then required.
	Target func() *Agent
	// ToolName is the transfer tool's name; "" makes it
	// transfer_to_<agent name>, lowercased, with every character outside
	// [a-z0-9_-] replaced by '_'.
	ToolName string
	// Description is the transfer tool's description; "" makes it
	// "Handoff to the <name> agent to handle the request."
	Description string
	// InputFilter, when set, chooses what the receiving agent's model
	// reads of the conversation so far.
	InputFilter HandoffInputFilter
	// OnHandoff, when set, runs when the handoff takes place, before the
	// receiving agent is asked; an error fails the run with ErrHandoff.
	OnHandoff func(ctx context.Context, in HandoffInput) error
}

// HandoffInput describes a handoff taking place.
type HandoffInput struct {
	// From handed off; To receives the conversation.
	From, To *Agent
	// Call is the transfer call.
	Call tool.Call
	// Context is the transfer call's tool context (the run's id,
	// metadata and dependencies).
	Context *tool.Context
}

// HandoffInputFilter returns what the receiving agent's model reads of
// the conversation at a handoff. history is the conversation so far as
// the handing-off agent's model read it, then what followed: the response
// with the transfer call and the request holding its return come last.
// The filter must not modify history's messages; it returns a new list
// (which should end with a request: the receiving agent's model answers
// it). Messages the run adds later follow the filtered list. The run's
// messages and the session keep the whole conversation. An error fails
// the run with ErrHandoff.
type HandoffInputFilter func(ctx context.Context, in HandoffInput, history []model.Message) ([]model.Message, error)

// handoff is a Handoff compiled by New: its transfer tool and name.
type handoff struct {
	spec Handoff
	name string
	tool tool.Tool
}

// target is the receiving agent.
func (h *handoff) target() (*Agent, error) {
	if h.spec.Agent != nil {
		return h.spec.Agent, nil
	}
	if a := h.spec.Target(); a != nil {
		return a, nil
	}
	return nil, fmt.Errorf("%w: the target of %q resolved to no agent", ErrHandoff, h.name)
}

// label names the receiving agent for the model: its name, else the tool's.
func (h *handoff) label() string {
	if h.spec.Agent != nil && h.spec.Agent.Name() != "" {
		return h.spec.Agent.Name()
	}
	return strings.TrimPrefix(h.name, HandoffToolPrefix)
}

// HandoffToolName is the default transfer tool name for an agent named
// name (see Handoff.ToolName).
func HandoffToolName(name string) string {
	var b strings.Builder
	b.WriteString(HandoffToolPrefix)
	for _, c := range strings.ToLower(name) {
		switch {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9', c == '_', c == '-':
			b.WriteRune(c)
		default:
			b.WriteByte('_')
		}
	}
	return b.String()
}

// compileHandoffs checks hs and makes their transfer tools; a name used
// twice is ErrConfig (a name a tool of the agent uses is refused when the
// agent's registry is made).
func compileHandoffs(hs []Handoff) ([]*handoff, error) {
	out := make([]*handoff, 0, len(hs))
	seen := map[string]bool{}
	for i, h := range hs {
		if (h.Agent == nil) == (h.Target == nil) {
			return nil, fmt.Errorf("%w: handoff %d needs exactly one of Agent and Target", ErrConfig, i)
		}
		name := h.ToolName
		if name == "" {
			if h.Agent == nil || h.Agent.Name() == "" {
				return nil, fmt.Errorf("%w: handoff %d needs a ToolName (its agent has no name)", ErrConfig, i)
			}
			name = HandoffToolName(h.Agent.Name())
		}
		if seen[name] {
			return nil, fmt.Errorf("%w: two handoffs use the tool name %q", ErrConfig, name)
		}
		seen[name] = true
		c := &handoff{spec: h, name: name}
		desc := h.Description
		if desc == "" {
			desc = fmt.Sprintf("Handoff to the %s agent to handle the request.", c.label())
		}
		text := fmt.Sprintf("Transferred to %s.", c.label())
		f := tool.New(name, desc, map[string]any{"type": "object", "properties": map[string]any{}, "additionalProperties": false},
			func(context.Context, *tool.Context, json.RawMessage) (tool.Result, error) {
				return tool.Text(text), nil
			})
		// The transfer changes nothing outside the run: safe to run again.
		f.ToolConfig().Effect = effect.ClassPure
		if err := f.Err(); err != nil {
			return nil, fmt.Errorf("%w: handoff %q: %w", ErrConfig, name, err)
		}
		c.tool = f
		out = append(out, c)
	}
	return out, nil
}

// handoffTools are the transfer tools of the agent's handoffs.
func (a *Agent) handoffTools() []tool.Tool {
	ts := make([]tool.Tool, len(a.handoffs))
	for i, h := range a.handoffs {
		ts[i] = h.tool
	}
	return ts
}

// handoffNamed is the agent's handoff whose tool is name, or nil.
func (a *Agent) handoffNamed(name string) *handoff {
	for _, h := range a.handoffs {
		if h.name == name {
			return h
		}
	}
	return nil
}

// findAgent is the agent named name among a and the agents its handoffs
// reach, breadth first (a itself first); nil when none is.
func (a *Agent) findAgent(name string) *Agent {
	seen := map[*Agent]bool{a: true}
	queue := []*Agent{a}
	for len(queue) > 0 {
		x := queue[0]
		queue = queue[1:]
		if x.name == name {
			return x
		}
		for _, h := range x.handoffs {
			t, err := h.target()
			if err != nil || seen[t] {
				continue
			}
			seen[t] = true
			queue = append(queue, t)
		}
	}
	return nil
}

// handoffView is what the model reads after a filtered handoff: the
// filter's list, then the history from index from on.
type handoffView struct {
	full    []model.Message
	visible []model.Message
	from    int
}

// modelMessages are the messages the model reads at the next request.
func (r *runner) modelMessages() []model.Message {
	if !r.handedOff {
		return r.history.forModel()
	}
	msgs := r.history.forModel()
	if r.view != nil {
		tail := r.history.visible[r.view.from:]
		out := make([]model.Message, 0, len(r.view.visible)+len(tail))
		msgs = append(append(out, r.view.visible...), tail...)
	}
	return withInstructions(msgs, r.instructions)
}

// withInstructions makes the last request of msgs carry instr: models
// read the instructions of the last request, and the request answering a
// transfer call entered history with the instructions of the agent that
// handed off. msgs is copied, never modified, when it changes.
func withInstructions(msgs []model.Message, instr string) []model.Message {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Kind != model.KindRequest {
			continue
		}
		if msgs[i].Instructions == instr {
			return msgs
		}
		out := slices.Clone(msgs)
		out[i].Instructions = instr
		return clip(out)
	}
	return msgs
}

// conversation is the conversation as the agent answering reads it, with
// every host surface: what a handoff's input filter receives.
func (r *runner) conversation() []model.Message {
	if r.view == nil {
		return clip(r.history.full)
	}
	tail := r.history.full[r.view.from:]
	out := make([]model.Message, 0, len(r.view.full)+len(tail))
	return append(append(out, r.view.full...), tail...)
}

// pickHandoff finds the handoff of a batch: the first transfer call of
// the answering agent, in model order, whose return is no error. Later
// transfer calls get the return that says they were ignored.
func (r *runner) pickHandoff(calls []tool.Call, returns []tool.Return) (*handoff, int) {
	if len(r.a.handoffs) == 0 {
		return nil, -1
	}
	var chosen *handoff
	at := -1
	for i := range calls {
		h := r.a.handoffNamed(calls[i].Name)
		if h == nil || i >= len(returns) || returns[i].IsError {
			continue
		}
		if chosen == nil {
			chosen, at = h, i
			continue
		}
		returns[i].Content = handoffIgnored
	}
	return chosen, at
}

// handOff moves the run to h's agent after the batch whose next request
// is next: next enters history (it answers the transfer call), OnHandoff
// and the input filter run, and the receiving agent's registry,
// instructions and settings replace the answering agent's.
func (r *runner) handOff(ctx context.Context, step int, h *handoff, call tool.Call, next model.Message) error {
	r.history.append(r.request(next))
	to, err := h.target()
	if err != nil {
		return err
	}
	tc := r.baseContext(step)
	tc.ToolCallID, tc.ToolName = call.ID, call.Name
	in := HandoffInput{From: r.a, To: to, Call: call, Context: tc}
	if h.spec.OnHandoff != nil {
		if err := h.spec.OnHandoff(ctx, in); err != nil {
			return fmt.Errorf("%w: on_handoff of %q: %w", ErrHandoff, h.name, err)
		}
	}
	if h.spec.InputFilter != nil {
		filtered, err := h.spec.InputFilter(ctx, in, r.conversation())
		if err != nil {
			return fmt.Errorf("%w: input filter of %q: %w", ErrHandoff, h.name, err)
		}
		v := &handoffView{full: clip(filtered), from: len(r.history.full)}
		v.visible = make([]model.Message, len(filtered))
		for i, m := range filtered {
			v.visible[i] = model.Visible(m)
		}
		r.view = v
	}
	from := r.a.Name()
	r.closeToolsets()
	if err := r.enter(to); err != nil {
		return fmt.Errorf("%w: entering %q: %w", ErrHandoff, to.Name(), err)
	}
	r.handedOff = true
	r.emit(Event{Kind: EventCustom, Step: step, Custom: &CustomEvent{Kind: CustomHandoff, Payload: map[string]any{
		"from": from, "to": to.Name(), "tool_name": call.Name, "tool_call_id": call.ID,
	}}})
	return nil
}

// appendRequest adds req to history, unless it is the empty request that
// follows a handoff (the request answering the transfer call is already
// there).
func (r *runner) appendRequest(req model.Message) {
	if r.handedOff && len(req.Parts) == 0 {
		return
	}
	r.history.append(r.request(req))
}

// answering names the agent answering a handed-off run, for the state a
// resume or a recovery continues from; "" before any handoff.
func (r *runner) answering() string {
	if !r.handedOff {
		return ""
	}
	return r.a.Name()
}

// reenter gives a resumed or recovered run back to the agent named name
// (the agent answering when it stopped, see answering); "" keeps the
// session's agent. The agent is found among those the session's agent
// hands off to, breadth first.
func (r *runner) reenter(name string) error {
	if name == "" {
		return nil
	}
	to := r.s.agent.findAgent(name)
	if to == nil {
		return fmt.Errorf("%w: the run was handed off to agent %q, which the session's agent does not reach", ErrHandoff, name)
	}
	r.closeToolsets()
	if err := r.enter(to); err != nil {
		return fmt.Errorf("%w: entering %q: %w", ErrHandoff, name, err)
	}
	r.handedOff = true
	return nil
}
