package tool

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/starweaver-go/starweaver/core/effect"
)

// Journal runs the calls of tools that may change the world through an
// effect journal (package effect): each call is recorded started before
// its first attempt and completed, with its Return, after its last, so
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
// (Context.IdempotencyKey: session, run, step and position), with the
// suffix "/approved" for the execution of an approved call, so that the
// paused first call (whose approval_required return is recorded too) and
// the approved execution are two effects. A call whose context names no
// conversation and no run (Execute with a nil base, outside an agent) has
// no key: it is recorded, but never found again. Its input is the call's
// arguments as the model sent them (or as an approval overrode them),
// before hooks and validators: the record names what was asked, which a
// hook that adds a value of its own would otherwise change.
//
// What a call's Return says about the journal:
//   - a replayed Return carries MetaReplayed in its metadata;
//   - a call whose record was found started (its first run stopped before
//     recording an outcome) returns an execution error marked
//     MetaAmbiguous, unless Recovery or the Reconciler let it run again;
//   - a call whose own run ends ambiguously (a fail-closed tool failed
//     unexpectedly or timed out, or the run was cancelled while it ran)
//     leaves its record started and returns what the attempts returned;
//   - a call the journal could not record does not run, and returns an
//     execution error saying so (the store's error is in its private
//     metadata); a call that ran but whose completion could not be
//     recorded returns what it returned, with MetaJournalError.
//
// A Journal must not change once a registry uses it.
type Journal struct {
	// Store keeps the records. It is required. The stores of
	// store/sqlite and store/postgres group-commit the writes of
	// concurrent calls; wrap another BatchStore in an effect.Batcher to
	// get the same.
	Store effect.Store
	// Reconciler, if set, is asked about records found started.
	Reconciler effect.Reconciler
	// Recovery decides about started records the Reconciler did not
	// settle (the zero value refuses them: effect.RecoveryRejectAmbiguous).
	Recovery effect.RecoveryPolicy
}

// Reserved keys of return metadata written by a journaled call.
const (
	// MetaReplayed marks a Return replayed from the effect journal: the
	// tool did not run.
	MetaReplayed = "starweaver_replayed"
	// MetaJournalError holds why the effect journal could not record the
	// completion of a call that ran (its record stays started).
	MetaJournalError = "starweaver_journal_error"
)

// ApprovedKeySuffix ends the idempotency key of an approved call's
// execution (see Journal).
const ApprovedKeySuffix = "/approved"

// recordedReturn is the output a journaled call records: its Return under
// one key, which tells it apart from the output of a Reconciler (any other
// JSON value, which becomes a successful return's content).
type recordedReturn struct {
	Return *Return `json:"starweaver_return"`
	// Intents are the call's declared intents (Runtime.Intents), which the
	// Return's JSON never carries: a replay hands them on to be realised.
	Intents Intents `json:"starweaver_intents,omitempty"`
}

// SetJournal makes the registry run the calls of tools that may change
// the world through j (see Journal); nil turns journaling off. Like every
// setting it must not change while calls run.
func (r *Registry) SetJournal(j *Journal) {
	if j != nil && j.Store == nil {
		panic("tool: SetJournal with a Journal without a Store")
	}
	r.journal = j
}

// Journaled reports whether calls of the named tool go through the
// registry's journal.
func (r *Registry) Journaled(name string) bool {
	e, ok := r.entries[name]
	return ok && r.journals(e)
}

// journals reports whether calls to e go through the journal: a journal
// is set and the tool's class may change the world.
func (r *Registry) journals(e *entry) bool {
	if r.journal == nil {
		return false
	}
	cls := r.effectOf(e)
	return cls != effect.ClassPure && cls != effect.ClassReadOnly
}

// errUnsettled is a journaled call's handler failing because its own run
// ended without a known outcome: the record stays started.
var errUnsettled = errors.New("tool: the call's outcome is unknown")

// journaled runs the prepared call c through the journal, storing its
// Return in c.dst and calling c.wg.Done once. asked holds the call's
// arguments as the model sent them. It blocks until the call ends.
func (c *callRun) journaled(asked json.RawMessage) {
	dst, wg := c.dst, c.wg
	j := c.r.journal
	cls := c.r.effectOf(c.e)
	// A call outside any run (no conversation or run in its context) has
	// no identity to be found again by: it is recorded under its fresh id
	// alone, and never replayed.
	key := ""
	if c.tc.ConversationID != "" || c.tc.RunID != "" {
		key = c.tc.IdempotencyKey()
		if c.tc.Approval != nil {
			key += ApprovedKeySuffix
		}
	}
	req := effect.Request{ID: effect.NewID(), Key: key, Tool: c.call.Name, Class: cls, Input: journalInput(asked)}
	ex := effect.Executor{Store: j.Store, Reconciler: j.Reconciler, Recovery: j.Recovery}

	var ret Return
	ran := false
	// The attempts end the call only once its journal record settles.
	batch := c.batch
	c.batch = nil
	res, err := ex.Execute(c.ctx, req, func(ctx context.Context) (effect.Outcome, error) {
		ran = true
		var done sync.WaitGroup
		done.Add(1)
		c.dst, c.wg = &ret, &done
		c.run()
		done.Wait()
		if b, _ := ret.Metadata[MetaAmbiguous].(bool); b || ret.ErrorKind() == ErrorKindCancelled {
			// The attempts ended without knowing whether the call took
			// effect (a fail-closed tool failed unexpectedly or timed out,
			// or the run was cancelled while it ran).
			return effect.Outcome{}, errUnsettled
		}
		rec := recordedReturn{Return: &ret}
		if ret.Runtime != nil && Declares(ret.Runtime.Intents) {
			rec.Intents = ret.Runtime.Intents
		}
		b, err := json.Marshal(rec)
		if err != nil {
			return effect.Outcome{}, fmt.Errorf("%w: its return cannot be recorded: %w", errUnsettled, err)
		}
		return effect.Outcome{Output: b}, nil
	})
	c.dst, c.wg, c.batch = dst, wg, batch
	c.finish(c.settleJournaled(ret, ran, res, err, cls))
}

// settleJournaled is the Return of a journaled call once Execute ended:
// ret is what the attempts returned when the handler ran.
func (c *callRun) settleJournaled(ret Return, ran bool, res effect.Result, err error, cls effect.Class) Return {
	call := c.call
	switch {
	case ran && err == nil:
		return ret
	case ran:
		if !errors.Is(err, errUnsettled) {
			// It ran, but its completion is not recorded: the record stays
			// started, and a later replay would find it ambiguous.
			ret.Metadata = withMetadata(ret.Metadata, MetaJournalError, "the effect journal could not record this call's completion: "+err.Error())
		}
		return ret
	case err == nil:
		return replayedReturn(call, res.Output)
	case errors.Is(err, effect.ErrAmbiguous):
		return ambiguousReturn(call, cls, "a journal record shows this call started before and never finished "+
			"(the process running it may have stopped), so it may already have taken effect; it was not run again")
	case errors.Is(err, effect.ErrReconciliation):
		ret := ambiguousReturn(call, cls, "this call started before and never finished, and asking its target what became of it failed; "+
			"it may already have taken effect, so it was not run again")
		ret.PrivateMetadata = withMetadata(ret.PrivateMetadata, MetaJournalError, err.Error())
		return ret
	case errors.Is(err, effect.ErrFailed):
		var fe *effect.FailedError
		msg := "the effect journal records that this call failed without taking effect"
		if errors.As(err, &fe) {
			msg += ": " + fe.Failure.Message
		}
		return ErrorReturn(call, &Error{Kind: ErrorKindExecution, Message: msg})
	case errors.Is(err, effect.ErrIdempotencyConflict):
		ret := ErrorReturn(call, &Error{Kind: ErrorKindExecution, Message: "the effect journal holds another call " +
			"(another tool or other arguments) at this call's position in the run, so this call did not run"})
		ret.PrivateMetadata = withMetadata(ret.PrivateMetadata, MetaJournalError, err.Error())
		return ret
	case c.ctx.Err() != nil:
		return ErrorReturn(call, Cancelled(cancelledMessage))
	}
	ret = ErrorReturn(call, &Error{Kind: ErrorKindExecution, Message: "the effect journal could not record this call, so it did not run"})
	ret.PrivateMetadata = withMetadata(ret.PrivateMetadata, MetaJournalError, err.Error())
	return ret
}

// replayedReturn is the Return of a call whose effect completed earlier:
// the recorded Return, or the content a Reconciler reported, under the
// current call's id.
func replayedReturn(call Call, output json.RawMessage) Return {
	var ret Return
	var rec struct {
		Return  json.RawMessage `json:"starweaver_return"`
		Intents json.RawMessage `json:"starweaver_intents"`
	}
	if json.Unmarshal(output, &rec) != nil || len(rec.Return) == 0 || json.Unmarshal(rec.Return, &ret) != nil {
		// A Reconciler's answer: what the call would have returned.
		ret = Return{Content: output}
	} else if len(rec.Intents) > 0 && string(rec.Intents) != "null" {
		rt := Runtime{}
		if ret.Runtime != nil {
			rt = *ret.Runtime
		}
		rt.Intents = RawIntents(rec.Intents)
		ret.Runtime = &rt
	}
	ret.ToolCallID, ret.Name = call.ID, call.Name
	ret.Metadata = withMetadata(ret.Metadata, MetaReplayed, true)
	return ret
}

// ambiguousReturn is the execution error of a call that may already have
// taken effect and was not run (again), marked as markAmbiguous marks a
// failed one.
func ambiguousReturn(call Call, cls effect.Class, msg string) Return {
	const fix = "Check whether the action happened before calling the tool again."
	if cls != effect.ClassUndeclared {
		msg += " (effect " + string(cls) + ")"
	}
	ret := ErrorReturn(call, &Error{Kind: ErrorKindExecution, Message: msg})
	ret.Metadata[MetaAmbiguous] = true
	ret.Metadata[MetaHowToFix] = fix
	content := ret.Content.(map[string]any)
	content[MetaAmbiguous] = true
	content[MetaHowToFix] = fix
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

// journalInput is a call's arguments as a journal records them: absent or
// null arguments are the empty object, as the tool receives them.
func journalInput(args json.RawMessage) json.RawMessage {
	if t := bytes.TrimSpace(args); len(t) == 0 || string(t) == "null" {
		return emptyObject
	}
	return args
}
