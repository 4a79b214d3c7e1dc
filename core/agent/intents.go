package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"strconv"
	"strings"

	"github.com/starweaver-go/starweaver/core/batch"
	"github.com/starweaver-go/starweaver/core/intent"
	"github.com/starweaver-go/starweaver/core/tool"
)

// Intents makes the agent realise the intents its tools declare
// (tool.Result.Intents) through r, journal first: once a call's final
// attempt has ended (its internal retries included, whose intents are
// discarded), the agent commits the call's Return and its intents to
// r.Journal as the call's final attempt, then drains the intents in
// source order, each under the replay key derived from the session, the
// turn (the run and its step: "<run id>:<step>"), the call id and the
// intent's index. Calls that declare no intents are not recorded, except
// successful batch calls (see BatchTool), whose children may have: a
// redrive of a committed batch runs none of its children again.
//
// A call the journal holds committed already (a run recovered with
// Session.Recover, or resumed, after a crash) is not run again: its
// recorded Return comes back and its intents replay their recorded
// outcomes, byte for byte, or are realised if the crash came first.
//
// The outcomes reach hosts in the return's metadata, under
// tool.MetaIntents (each outcome's JSON; IntentOutcomes decodes them), and
// the model: each outcome's addendum line ("[tool intent start_process #0
// executed: {...}]") is appended to what the model reads, and an intent
// its command refused (command_failed) turns the return into a failure.
// The children of a batch call (see BatchTool) drain in call order, then
// intent index, under their own call ids ("{parent}:{index:02}").
//
// r's fields must be set, and must not change once the agent is built.
// A nil r turns intents off: a tool that declares some then fails with a
// user_error.
func (b *Builder) Intents(r *intent.Realiser) *Builder {
	if err := checkIntents(r); err != nil {
		b.fail(err)
		return b
	}
	b.opts.Intents = r
	return b
}

// IntentJournal is Intents with a Realiser over j whose commands are
// intent.Local's (a process runtime kept in j).
func (b *Builder) IntentJournal(j intent.Journal) *Builder {
	if j == nil {
		b.fail(fmt.Errorf("%w: IntentJournal needs a journal", ErrConfig))
		return b
	}
	return b.Intents(&intent.Realiser{Journal: j})
}

// ErrNoIntents reports an agent built without an intent journal asked
// for what only one provides.
var ErrNoIntents = errors.New("agent: the agent has no intent journal (Python: intent_journal=; Go: Builder.Intents)")

// IntentRealiser returns the agent's Realiser, nil when it has none.
func (a *Agent) IntentRealiser() *intent.Realiser { return a.intents }

// ToolIntents returns the host ingress of scope in session, over the
// agent's intent journal (see intent.Realiser.ToolIntents): hosts outside
// a tool call submit intents there, and settle the scope's parent-end
// actions when it ends.
func (a *Agent) ToolIntents(session string, scope intent.Scope) (*intent.Ingress, error) {
	if a.intents == nil {
		return nil, ErrNoIntents
	}
	return a.intents.ToolIntents(session, scope)
}

// TurnScope returns the execution scope of the calls of step of run: the
// turn "<run id>:<step>".
func TurnScope(runID string, step int) intent.Scope {
	return intent.TurnScope(runID + ":" + strconv.Itoa(step))
}

// IntentOutcomes returns the intent outcomes recorded in ret's metadata
// (tool.MetaIntents), in source order; none when ret carries none.
func IntentOutcomes(ret tool.Return) ([]intent.Outcome, error) {
	v, ok := ret.Metadata[tool.MetaIntents]
	if !ok {
		return nil, nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var raws []json.RawMessage
	if err := json.Unmarshal(b, &raws); err != nil {
		return nil, fmt.Errorf("agent: %s: %w", tool.MetaIntents, err)
	}
	out := make([]intent.Outcome, len(raws))
	for i, r := range raws {
		if out[i], err = intent.UnmarshalOutcome(r); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// intentCall names the call id of the call tc runs for the realiser.
func intentCall(tc *tool.Context, callID string) intent.Call {
	return intent.Call{Session: tc.ConversationID, Scope: TurnScope(tc.RunID, tc.RunStep), CallID: callID}
}

// callIntents is the agent's tool.IntentRealiser.
type callIntents struct{ r *intent.Realiser }

// RealiseCall implements tool.IntentRealiser.
func (x callIntents) RealiseCall(ctx context.Context, tc *tool.Context, call tool.Call, run func(context.Context) tool.Return) tool.Return {
	ic := intentCall(tc, call.ID)
	if ic.Session != "" && ic.CallID != "" {
		if o, ok, err := x.r.Final(ctx, ic); err != nil {
			return intentFailure(call, "the intent journal could not be read, so the call did not run", err)
		} else if ok {
			if p, pending := o.(intent.Pending); pending {
				return replayPending(tc, call, p)
			}
			return x.realise(ctx, call, ic, o)
		}
	}
	ret := run(ctx)
	if c, ok := pendingCompletion(ret); ok && ic.Session != "" && ic.CallID != "" {
		return x.commitPending(ctx, call, ic, ret, c)
	}
	in, err := declared(ret)
	if err != nil {
		return intentFailure(call, "the call's declared intents cannot be read, so they were not realised", err)
	}
	if in.Empty() && (call.Name != batch.Name || ret.ErrorKind() != "") {
		return ret
	}
	if ic.Session == "" || ic.CallID == "" {
		return tool.ErrorReturn(call, tool.UserError("the tool declared intents outside a session's call, where no replay key can name them"))
	}
	return x.commit(ctx, call, ic, ret, in)
}

// declared returns the intents ret carries, not realised yet: a tool's
// batch, or the JSON of one the effect journal replayed.
func declared(ret tool.Return) (intent.Intents, error) {
	if ret.Runtime == nil {
		return intent.Intents{}, nil
	}
	return intent.BatchOf(ret.Runtime.Intents)
}

// commit records ret with its intents as ic's final attempt and realises
// them. A successful batch call is committed even without intents of its
// own: its children drained theirs, and a redrive must not run them again.
func (x callIntents) commit(ctx context.Context, call tool.Call, ic intent.Call, ret tool.Return, in intent.Intents) tool.Return {
	if ret.Runtime != nil {
		rt := *ret.Runtime
		rt.Intents = nil
		ret.Runtime = &rt
		if rt.ErrorKind == "" && rt.Retry == 0 && len(rt.Request) == 0 && len(rt.Arguments) == 0 {
			ret.Runtime = nil
		}
	}
	raw, err := json.Marshal(ret)
	if err != nil {
		return intentFailure(call, "the call's return cannot be recorded, so its intents were not realised", err)
	}
	return x.realise(ctx, call, ic, intent.Done{Result: raw, Intents: in})
}

// realise commits o as ic's final attempt (or replays the commit) and
// drains its intents: the Return is the recorded one, with the outcomes.
func (x callIntents) realise(ctx context.Context, call tool.Call, ic intent.Call, o intent.AttemptOutcome) tool.Return {
	rep, err := x.r.Realise(ctx, ic, o)
	if rep.Outcome == nil {
		if ctx.Err() != nil {
			return tool.ErrorReturn(call, tool.Cancelled("the run was cancelled before the call's result was committed; its intents were not realised"))
		}
		return intentFailure(call, "the intent journal could not commit the call, so its intents were not realised", err)
	}
	d, ok := rep.Outcome.(intent.Done)
	if !ok {
		return intentFailure(call, "the intent journal holds a pending attempt for this call", nil)
	}
	var ret tool.Return
	if uerr := json.Unmarshal(d.Result, &ret); uerr != nil {
		return intentFailure(call, "the call's recorded return cannot be read", uerr)
	}
	ret.ToolCallID, ret.Name = call.ID, call.Name
	return projectIntents(ret, rep.Intents, err)
}

// intentFailure is the execution error of a call whose intents could not
// be committed or realised; cause stays private.
func intentFailure(call tool.Call, msg string, cause error) tool.Return {
	ret := tool.ErrorReturn(call, &tool.Error{Kind: tool.ErrorKindExecution, Message: msg})
	if cause != nil {
		ret.PrivateMetadata = withEntry(ret.PrivateMetadata, tool.MetaIntentsError, cause.Error())
	}
	return ret
}

func withEntry(md map[string]any, k string, v any) map[string]any {
	out := make(map[string]any, len(md)+1)
	maps.Copy(out, md)
	out[k] = v
	return out
}

// projectIntents is ret as hosts and the model see it once its intents
// were drained: the outcomes under tool.MetaIntents, their addenda after
// what the model reads, and, when a command refused an intent, the
// command's failure instead of the optimistic output. Only this view
// changes; the journal keeps the committed return as it was. drainErr,
// if set, is why draining stopped before the end (a redrive resumes it).
func projectIntents(ret tool.Return, outs []intent.Outcome, drainErr error) tool.Return {
	recorded := make([]json.RawMessage, 0, len(outs))
	lines := make([]string, 0, len(outs))
	var failed *intent.Refused
	for _, o := range outs {
		if b, err := json.Marshal(o); err == nil {
			recorded = append(recorded, b)
		}
		lines = append(lines, o.ModelAddendum())
		if r, ok := o.(intent.Refused); ok && r.Refusal.Code == intent.RefusalCommandFailed && failed == nil {
			failed = &r
		}
	}
	if len(outs) == 0 && drainErr == nil {
		return ret // a batch call: its children carry their outcomes
	}
	md := withEntry(ret.Metadata, tool.MetaIntents, recorded)
	if drainErr != nil {
		md[tool.MetaIntentsError] = drainErr.Error()
		lines = append(lines, "[tool intents not all realised yet: "+drainErr.Error()+"]")
	}
	ret.Metadata = md
	if failed != nil {
		ret.IsError = true
		ret.Content = "[Tool execution failed]\n" + failed.Refusal.CommandCode + ": " + failed.Refusal.Message
		ret.Parts, ret.StructuredContent = nil, nil
	}
	if len(lines) == 0 {
		return ret
	}
	addenda := strings.Join(lines, "\n")
	switch c := ret.Content; {
	case len(ret.Parts) > 0:
		ret.Parts = append(append([]tool.Part(nil), ret.Parts...), tool.TextPart(addenda))
	case c == nil:
		ret.Content = addenda
	default:
		s, ok := c.(string)
		if !ok {
			b, err := json.Marshal(c)
			if err != nil {
				b = []byte(fmt.Sprint(c))
			}
			s = string(b)
		}
		ret.Content = s + "\n" + addenda
	}
	return ret
}

// drainChildren realises the intents of a finished batch's children in
// call order, then intent index, each under its own call id, and gives
// each child the projected return. A child committed by an earlier run
// of the batch (redriven after a crash) gets its recorded return back.
func (x callIntents) drainChildren(ctx context.Context, tc *tool.Context, children []batch.Child) error {
	for i := range children {
		ch := &children[i]
		if !ch.Dispatched {
			continue
		}
		ic := intentCall(tc, ch.Call.ID)
		if ic.Session == "" || ic.CallID == "" {
			continue
		}
		in, err := declared(ch.Return)
		if err != nil {
			ch.Return = intentFailure(ch.Call, "the call's declared intents cannot be read, so they were not realised", err)
			continue
		}
		if !in.Empty() {
			ch.Return = x.commit(ctx, ch.Call, ic, ch.Return, in)
			continue
		}
		o, ok, err := x.r.Final(ctx, ic)
		if err != nil {
			return fmt.Errorf("agent: batch child %s: read the intent journal: %w", ch.Call.ID, err)
		}
		if ok {
			ch.Return = x.realise(ctx, ch.Call, ic, o)
		}
	}
	return nil
}
