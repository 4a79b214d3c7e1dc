package intent

import "context"

// Final returns call's committed final attempt, as the journal holds it,
// with ok false when none is committed yet. It writes nothing: a caller
// that runs a call's attempts itself (an agent, which must not run a
// committed call again after a crash) asks it first, and on ok hands the
// outcome to Realise, which replays the commit and drains, or redrives,
// its intents.
func (r *Realiser) Final(ctx context.Context, call Call) (o AttemptOutcome, ok bool, err error) {
	if err := call.validate(); err != nil {
		return nil, false, err
	}
	e, err := r.Journal.Get(ctx, call.attemptKey("final"))
	if isNotFound(err) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	o, _, err = decodeAttempt(e)
	if err != nil {
		return nil, false, err
	}
	return o, true, nil
}
