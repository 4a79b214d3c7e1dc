package tool

import (
	"bytes"
	"context"
	"encoding/json"
	"sync"

	"github.com/starweaver-go/starweaver/core/internal/effectclass"
)

// CallJournal runs the calls of tools that may change the world through
// an effect journal, so that a call met again (a turn recovered after a
// crash) replays its recorded Return instead of running again.
// core/effect's Journal is the implementation (see it for the rules);
// Registry.SetJournal gives one to a registry.
type CallJournal interface {
	// RunCall runs c: run runs the call's attempts (at most once) and
	// returns what they returned; RunCall returns the call's Return,
	// which may be a replayed or refused one without running it.
	RunCall(ctx context.Context, c JournalCall, run func() Return) Return
}

// JournalCall is a call as a CallJournal records it.
type JournalCall struct {
	Call Call
	// Key is the call's idempotency key (Context.IdempotencyKey, with
	// ApprovedKeySuffix for an approved call's execution); "" for a call
	// outside any run, which is recorded but never found again.
	Key string
	// Class is the tool's effect class.
	Class EffectClass
	// Input is the call's arguments as the model sent them (or as an
	// approval overrode them), before hooks and validators; the empty
	// object when there were none.
	Input json.RawMessage
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

// SetJournal makes the registry run the calls of tools that may change
// the world through j (see CallJournal); nil turns journaling off. Like
// every setting it must not change while calls run.
func (r *Registry) SetJournal(j CallJournal) { r.journal = j }

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
	return cls != effectclass.ClassPure && cls != effectclass.ClassReadOnly
}

// journaled runs the prepared call c through the journal, storing its
// Return in c.dst and calling c.wg.Done once. asked holds the call's
// arguments as the model sent them. It blocks until the call ends.
func (c *callRun) journaled(asked json.RawMessage) {
	dst, wg := c.dst, c.wg
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
	jc := JournalCall{Call: c.call, Key: key, Class: c.r.effectOf(c.e), Input: journalInput(asked)}
	// The attempts end the call only once its journal record settles.
	batch := c.batch
	c.batch = nil
	ret := c.r.journal.RunCall(c.ctx, jc, func() Return {
		var ret Return
		var done sync.WaitGroup
		done.Add(1)
		c.dst, c.wg = &ret, &done
		c.run()
		done.Wait()
		return ret
	})
	c.dst, c.wg, c.batch = dst, wg, batch
	c.finish(ret)
}

// journalInput is a call's arguments as a journal records them: absent or
// null arguments are the empty object, as the tool receives them.
func journalInput(args json.RawMessage) json.RawMessage {
	if t := bytes.TrimSpace(args); len(t) == 0 || string(t) == "null" {
		return emptyObject
	}
	return args
}
