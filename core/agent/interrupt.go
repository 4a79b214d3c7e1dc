package agent

import (
	"context"
	"errors"
)

// InterruptError is the cause of a run interrupted on purpose: cancel the
// run's context with it (context.WithCancelCause) and the run ends
// cancelled, its messages kept, running tools cancelled, and its
// run_cancelled event reports Reason.
type InterruptError struct {
	Reason string
}

func (e *InterruptError) Error() string {
	if e.Reason == "" {
		return "interrupted"
	}
	return "interrupted: " + e.Reason
}

// Interrupt returns the cause that interrupts a run for reason:
//
//	ctx, cancel := context.WithCancelCause(ctx)
//	go sess.Run(ctx, prompt)
//	cancel(agent.Interrupt("the user pressed stop"))
func Interrupt(reason string) error { return &InterruptError{Reason: reason} }

// interruptOf returns the InterruptError ctx was cancelled with, or nil.
func interruptOf(ctx context.Context) *InterruptError {
	if ctx == nil {
		return nil
	}
	var ie *InterruptError
	if errors.As(context.Cause(ctx), &ie) {
		return ie
	}
	return nil
}
