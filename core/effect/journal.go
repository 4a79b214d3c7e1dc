package effect

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/starweaver-go/starweaver/core/tool"
)

// Journal runs the calls of tools that may change the world through the
// effect journal: each call is recorded started before its first attempt
// and completed, with its Return, after its last, so
// that the same call met again (a turn recovered after a crash) replays
// its recorded Return instead of running again, and a call whose record
// was started and never finished is not run blindly a second time.
//
// Calls of pure and read-only tools are not journaled: repeating them
// changes nothing. Every other call is, undeclared tools' included, once
// its arguments were prepared (unknown tools, invalid arguments and calls
// refused by a hook or validator never create a record).
//
// A call's effect is named by its idempotency key
// (tool.Context.IdempotencyKey: session, run, step and position), with the
// suffix "/approved" for the execution of an approved call, so that the
// paused first call (whose approval_required return is recorded too) and
// the approved execution are two effects. A call whose context names no
// conversation and no run (tool.Execute with a nil base, outside an agent) has
// no key: it is recorded, but never found again. Its input is the call's
// arguments as the model sent them (or as an approval overrode them),
// before hooks and validators: the record names what was asked, which a
// hook that adds a value of its own would otherwise change.
//
// What a call's Return says about the journal:
//   - a replayed Return carries tool.MetaReplayed in its metadata;
//   - a call whose record was found started (its first run stopped before
//     recording an outcome) returns an execution error marked
//     tool.MetaAmbiguous, unless Recovery or the Reconciler let it run again;
//   - a call whose own run ends ambiguously (a fail-closed tool failed
//     unexpectedly or timed out, or the run was cancelled while it ran)
//     leaves its record started and returns what the attempts returned;
//   - a call the journal could not record does not run, and returns an
//     execution error saying so (the store's error is in its private
//     metadata); a call that ran but whose completion could not be
//     recorded returns what it returned, with tool.MetaJournalError.
//
// A Journal must not change once a registry uses it.
//
// Give it to a registry with tool.Registry.SetJournal (the agent's
// Builder.EffectJournal does).
type Journal struct {
	// Store keeps the records. It is required. The stores of
	// store/sqlite and store/postgres group-commit the writes of
	// concurrent calls; wrap another BatchStore in a Batcher to get the
	// same.
	Store Store
	// Reconciler, if set, is asked about records found started.
	Reconciler Reconciler
	// Recovery decides about started records the Reconciler did not
	// settle (the zero value refuses them: RecoveryRejectAmbiguous).
	Recovery RecoveryPolicy
}

var _ tool.CallJournal = (*Journal)(nil)

// recordedReturn is the output a journaled call records: its Return under
// one key, which tells it apart from the output of a Reconciler (any other
// JSON value, which becomes a successful return's content).
type recordedReturn struct {
	Return *tool.Return `json:"starweaver_return"`
	// Intents are the call's declared intents (Runtime.Intents), which the
	// Return's JSON never carries: a replay hands them on to be realised.
	Intents tool.Intents `json:"starweaver_intents,omitempty"`
}

// errUnsettled is a journaled call's handler failing because its own run
// ended without a known outcome: the record stays started.
var errUnsettled = errors.New("tool: the call's outcome is unknown")

// RunCall implements tool.CallJournal: it runs c through the journal,
// calling run (the call's attempts) at most once, and returns the call's
// Return.
func (j *Journal) RunCall(ctx context.Context, c tool.JournalCall, run func() tool.Return) tool.Return {
	if j.Store == nil {
		panic("effect: a Journal without a Store")
	}
	req := Request{ID: NewID(), Key: c.Key, Tool: c.Call.Name, Class: c.Class, Input: c.Input}
	ex := Executor{Store: j.Store, Reconciler: j.Reconciler, Recovery: j.Recovery}

	var ret tool.Return
	ran := false
	res, err := ex.Execute(ctx, req, func(context.Context) (Outcome, error) {
		ran = true
		ret = run()
		if b, _ := ret.Metadata[tool.MetaAmbiguous].(bool); b || ret.ErrorKind() == tool.ErrorKindCancelled {
			// The attempts ended without knowing whether the call took
			// effect (a fail-closed tool failed unexpectedly or timed out,
			// or the run was cancelled while it ran).
			return Outcome{}, errUnsettled
		}
		rec := recordedReturn{Return: &ret}
		if ret.Runtime != nil && tool.Declares(ret.Runtime.Intents) {
			rec.Intents = ret.Runtime.Intents
		}
		b, err := json.Marshal(rec)
		if err != nil {
			return Outcome{}, fmt.Errorf("%w: its return cannot be recorded: %w", errUnsettled, err)
		}
		return Outcome{Output: b}, nil
	})
	return settleJournaled(ctx, c.Call, ret, ran, res, err, c.Class)
}

// settleJournaled is the Return of a journaled call once Execute ended:
// ret is what the attempts returned when the handler ran.
func settleJournaled(ctx context.Context, call tool.Call, ret tool.Return, ran bool, res Result, err error, cls Class) tool.Return {
	switch {
	case ran && err == nil:
		return ret
	case ran:
		if !errors.Is(err, errUnsettled) {
			// It ran, but its completion is not recorded: the record stays
			// started, and a later replay would find it ambiguous.
			ret.Metadata = withMetadata(ret.Metadata, tool.MetaJournalError, "the effect journal could not record this call's completion: "+err.Error())
		}
		return ret
	case err == nil:
		return replayedReturn(call, res.Output)
	case errors.Is(err, ErrAmbiguous):
		return ambiguousReturn(call, cls, "a journal record shows this call started before and never finished "+
			"(the process running it may have stopped), so it may already have taken effect; it was not run again")
	case errors.Is(err, ErrReconciliation):
		ret := ambiguousReturn(call, cls, "this call started before and never finished, and asking its target what became of it failed; "+
			"it may already have taken effect, so it was not run again")
		ret.PrivateMetadata = withMetadata(ret.PrivateMetadata, tool.MetaJournalError, err.Error())
		return ret
	case errors.Is(err, ErrFailed):
		var fe *FailedError
		msg := "the effect journal records that this call failed without taking effect"
		if errors.As(err, &fe) {
			msg += ": " + fe.Failure.Message
		}
		return tool.ErrorReturn(call, &tool.Error{Kind: tool.ErrorKindExecution, Message: msg})
	case errors.Is(err, ErrIdempotencyConflict):
		ret := tool.ErrorReturn(call, &tool.Error{Kind: tool.ErrorKindExecution, Message: "the effect journal holds another call " +
			"(another tool or other arguments) at this call's position in the run, so this call did not run"})
		ret.PrivateMetadata = withMetadata(ret.PrivateMetadata, tool.MetaJournalError, err.Error())
		return ret
	case ctx.Err() != nil:
		return tool.ErrorReturn(call, tool.Cancelled(cancelledMessage))
	}
	ret = tool.ErrorReturn(call, &tool.Error{Kind: tool.ErrorKindExecution, Message: "the effect journal could not record this call, so it did not run"})
	ret.PrivateMetadata = withMetadata(ret.PrivateMetadata, tool.MetaJournalError, err.Error())
	return ret
}

// replayedReturn is the Return of a call whose effect completed earlier:
// the recorded Return, or the content a Reconciler reported, under the
// current call's id.
func replayedReturn(call tool.Call, output json.RawMessage) tool.Return {
	var ret tool.Return
	var rec struct {
		Return  json.RawMessage `json:"starweaver_return"`
		Intents json.RawMessage `json:"starweaver_intents"`
	}
	if json.Unmarshal(output, &rec) != nil || len(rec.Return) == 0 || json.Unmarshal(rec.Return, &ret) != nil {
		// A Reconciler's answer: what the call would have returned.
		ret = tool.Return{Content: output}
	} else if len(rec.Intents) > 0 && string(rec.Intents) != "null" {
		rt := tool.Runtime{}
		if ret.Runtime != nil {
			rt = *ret.Runtime
		}
		rt.Intents = tool.RawIntents(rec.Intents)
		ret.Runtime = &rt
	}
	ret.ToolCallID, ret.Name = call.ID, call.Name
	ret.Metadata = withMetadata(ret.Metadata, tool.MetaReplayed, true)
	return ret
}

// ambiguousReturn is the execution error of a call that may already have
// taken effect and was not run (again), marked as markAmbiguous marks a
// failed one.
func ambiguousReturn(call tool.Call, cls Class, msg string) tool.Return {
	const fix = "Check whether the action happened before calling the tool again."
	if cls != ClassUndeclared {
		msg += " (effect " + string(cls) + ")"
	}
	ret := tool.ErrorReturn(call, &tool.Error{Kind: tool.ErrorKindExecution, Message: msg})
	ret.Metadata[tool.MetaAmbiguous] = true
	ret.Metadata[tool.MetaHowToFix] = fix
	content := ret.Content.(map[string]any)
	content[tool.MetaAmbiguous] = true
	content[tool.MetaHowToFix] = fix
	return ret
}

// withMetadata returns md with key set to v, copying md (which a tool may
// share) first.
func withMetadata(md map[string]any, key string, v any) map[string]any {
	out := make(map[string]any, len(md)+1)
	for k, x := range md {
		out[k] = x
	}
	out[key] = v
	return out
}

// cancelledMessage is the message of a call cancelled with its run (as
// core/tool words it).
const cancelledMessage = "agent run cancellation requested"
