package agent

import (
	"errors"
	"fmt"
)

// Errors of sessions kept in a SessionStore. Those of a session's state
// (conflicts, claimed resumes) are ErrState too, so that hosts handling
// ErrState refuse them without knowing about stores.
var (
	// ErrSessionNotFound: OpenSession was given an id the store does not
	// hold. The error wraps the store's, so it matches store.ErrNotFound
	// too.
	ErrSessionNotFound = errors.New("agent: session not found")
	// ErrSessionConflict: the session's record changed in the store since
	// this Session was loaded or last saved (another worker ran or resumed
	// it), so this Session's run or resume was refused, or its outcome was
	// not saved. Load the session again with OpenSession. It matches
	// ErrState, and wraps store.ErrConflict when a save lost.
	ErrSessionConflict = fmt.Errorf("%w: the session changed in the session store", ErrState)
	// ErrResumeClaimed: a resume of the session's waiting run was claimed
	// in the store and has not saved its outcome. Its worker is still
	// running it, or stopped before it finished; Session.ClaimedResume
	// describes the claim and Session.AbandonResume repairs the session
	// after a worker stopped. It matches ErrState.
	ErrResumeClaimed = fmt.Errorf("%w: a resume of the session's waiting run was claimed and has not finished", ErrState)
)
