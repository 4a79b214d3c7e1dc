package agent

import (
	"fmt"

	"github.com/starweaver-go/starweaver/core/effect"
)

// JournalOption configures an agent's effect journal (see
// Builder.EffectJournal).
type JournalOption func(*effect.Journal)

// JournalRecovery sets what a call does when the journal holds a record
// of it that started and never finished: effect.RecoveryRejectAmbiguous
// (the default) refuses it as ambiguous; effect.RecoveryRetrySafe runs
// it again when its class is safe to repeat (undeclared, or an idempotent
// write) and refuses the others. Any other policy makes Build report
// ErrConfig.
func JournalRecovery(p effect.RecoveryPolicy) JournalOption {
	return func(j *effect.Journal) { j.Recovery = p }
}

// JournalReconciler asks rec about the calls the journal found started
// before the recovery policy decides: its proof that a call did not happen
// lets it run, whatever its class; its answer that it completed is
// recorded and replayed as the call's return content.
func JournalReconciler(rec effect.Reconciler) JournalOption {
	return func(j *effect.Journal) { j.Reconciler = rec }
}

// EffectJournal runs the agent's tool calls that may change the world
// through an effect journal kept in store (see effect.Journal): every call
// of a tool that is not pure or read-only is recorded before it runs and
// when it ends, keyed by its session, run, step and position, so that a
// call met again replays its recorded return instead of running twice,
// and a call that started and never finished is reported ambiguous rather
// than repeated. store.sqlite and store.postgres keep journals durably
// (NewEffectStore), in the database of the session store if you like.
//
// With a SessionStore too, the checkpoint each run saves before it runs a
// batch of calls (see Builder.SessionStore) lets another worker continue a
// run whose process stopped mid-turn: see Session.Recover.
func (b *Builder) EffectJournal(store effect.Store, opts ...JournalOption) *Builder {
	if store == nil {
		b.fail(fmt.Errorf("%w: EffectJournal needs a store", ErrConfig))
		return b
	}
	j := &effect.Journal{Store: store}
	for _, o := range opts {
		if o != nil {
			o(j)
		}
	}
	if err := checkEffectJournal(j); err != nil {
		b.fail(err)
		return b
	}
	b.opts.EffectJournal = j
	return b
}
