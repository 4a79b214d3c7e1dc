package tool

import (
	"context"
	"encoding/json"
	"sync"
)

// Intents is a batch of durable actions a call declares instead of doing
// (Result.Intents). core/intent's Intents (built with intent.V1) is the
// batch tools return; the registry only asks whether it declares anything
// and records it as JSON, and the agent's IntentRealiser decodes it with
// core/intent. A batch replayed from the effect journal is RawIntents.
type Intents interface {
	// Empty reports a batch that declares nothing.
	Empty() bool
	json.Marshaler
}

// Declares reports whether x declares any intent (a nil x declares none).
func Declares(x Intents) bool { return x != nil && !x.Empty() }

// RawIntents is a batch of intents as JSON, as the effect journal recorded
// it: a replayed call hands it on to be realised. Decode it with
// core/intent's Intents.
type RawIntents json.RawMessage

// Empty reports an absent batch.
func (r RawIntents) Empty() bool { return len(r) == 0 }

// MarshalJSON returns the batch's JSON.
func (r RawIntents) MarshalJSON() ([]byte, error) {
	if len(r) == 0 {
		return []byte("null"), nil
	}
	return r, nil
}

// IntentRealiser realises the intents calls declare (Result.Intents): it
// wraps the whole of each call a registry runs, after its arguments were
// prepared. run runs the call's attempts (internal retries, the effect
// journal) and returns its final Return, whose Runtime.Intents are the
// final attempt's intents; a non-final attempt's intents are never seen.
// RealiseCall returns the call's Return: a realiser that finds the call
// committed already (a redriven run) returns the recorded one without
// calling run.
//
// The children of an orchestrating call (Context.DispatchBatch) do not go
// through it: their parent drains them, in call order (core/batch's
// Options.Drain). The agent's intent journal (core/agent's
// Builder.Intents) is the implementation.
type IntentRealiser interface {
	RealiseCall(ctx context.Context, tc *Context, call Call, run func(context.Context) Return) Return
}

// IntentRealiserFunc is an adapter to allow the use of ordinary functions
// as IntentRealisers.
type IntentRealiserFunc func(ctx context.Context, tc *Context, call Call, run func(context.Context) Return) Return

// RealiseCall calls f.
func (f IntentRealiserFunc) RealiseCall(ctx context.Context, tc *Context, call Call, run func(context.Context) Return) Return {
	return f(ctx, tc, call, run)
}

// SetIntents makes the registry run its calls through x (see
// IntentRealiser); nil turns it off, and a call that then declares
// intents fails with a user_error (nothing could realise them). Like
// every setting it must not change while calls run.
func (r *Registry) SetIntents(x IntentRealiser) { r.intents = x }

// Child reports whether the call is a child of an orchestrating call
// (Context.DispatchBatch).
func (c *Context) Child() bool { return c.keyPrefix != "" }

// Texts of the user errors of calls whose intents cannot stand.
const (
	pausedIntentsText = "the tool declared intents and then paused (%s): a call that pauses cannot declare intents, " +
		"because intents are realised only with a committed result; return them with the final result"
	unrealisedIntentsText = "the tool declared intents, but this agent has no intent journal to realise them " +
		"(configure one: agent.Builder.Intents, or intent_journal= in Python)"
)

// checkIntents is the rule on an attempt's declared intents, applied
// once the after-hooks ran: they travel only with a successful result,
// and only where something realises them.
func (c *callRun) checkIntents(res Result, err error) (Result, error) {
	if !Declares(res.Intents) {
		return res, err
	}
	switch {
	case isControlFlow(err):
		return Result{}, UserError(pausedIntentsText, KindOf(err))
	case err == nil && c.r.intents == nil:
		return Result{}, UserError(unrealisedIntentsText)
	}
	return res, err
}

// realised runs the prepared call c through the registry's
// IntentRealiser, storing its Return in dst and then calling wg.Done; the
// realiser's run launches the call's attempts as startRun would have.
//
// A call the realiser answers without running (a replay), or whose
// realiser panics before running it, still releases its place in the
// batch's resource-key order, which a run releases when it finishes:
// otherwise the calls ordered after it would wait forever.
func (c *callRun) realised(dst *Return, wg *sync.WaitGroup) {
	tc := c.tc
	launched := false
	defer wg.Done()
	defer func() {
		if !launched && c.batch != nil {
			c.batch.finished(c.index)
		}
	}()
	defer func() {
		if p := recover(); p != nil {
			*dst = ErrorReturn(c.call, panicError("the intent realiser", p))
		}
	}()
	*dst = c.r.intents.RealiseCall(c.ctx, &tc, c.call, func(ctx context.Context) Return {
		var ret Return
		var done sync.WaitGroup
		done.Add(1)
		c.ctx = ctx
		launched = true
		c.launch(&ret, &done)
		done.Wait()
		return ret
	})
}
