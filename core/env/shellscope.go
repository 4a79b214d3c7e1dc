package env

import (
	"context"
	"sync"
)

// ProcessScope groups the background processes started under a context
// (see [WithProcessScope]) so that the host of a run can end them
// together. A background process normally outlives the call that started
// it, so that a later run of the same session can wait for it or kill it;
// when the run that started it is cancelled instead, its host calls Kill
// and none of them is left.
//
// The scope is found through the context (context values survive the
// timeouts and cancellations tools add), which is why it is not tied to
// the context's own cancellation: a host cancels a run's context when it
// releases a run that completed, too, and that must not end the session's
// processes. The zero value is ready to use; a ProcessScope is safe for
// concurrent use.
type ProcessScope struct {
	mu     sync.Mutex
	killed bool
	procs  map[*localProc]*LocalShell
}

type scopeKey struct{}

// WithProcessScope returns a copy of ctx under which the background
// processes a [LocalShell] starts join s.
func WithProcessScope(ctx context.Context, s *ProcessScope) context.Context {
	return context.WithValue(ctx, scopeKey{}, s)
}

// scopeOf returns the process scope of ctx, or nil.
func scopeOf(ctx context.Context) *ProcessScope {
	s, _ := ctx.Value(scopeKey{}).(*ProcessScope)
	return s
}

// add makes p a member of s; it reports false when s was killed already
// (the caller then terminates p).
func (s *ProcessScope) add(sh *LocalShell, p *localProc) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.killed {
		return false
	}
	if s.procs == nil {
		s.procs = map[*localProc]*LocalShell{}
	}
	s.procs[p] = sh
	go func() {
		<-p.done
		s.mu.Lock()
		delete(s.procs, p)
		s.mu.Unlock()
	}()
	return true
}

// Kill terminates every process of s still running (TERM, then KILL to
// its group after the shell's grace period) and returns when they are
// gone; a process started under s later is terminated at once. Kill is
// safe to call more than once.
func (s *ProcessScope) Kill() {
	s.mu.Lock()
	s.killed = true
	procs := s.procs
	s.procs = nil
	s.mu.Unlock()
	var wg sync.WaitGroup
	for p, sh := range procs {
		wg.Go(func() { sh.terminate(p) })
	}
	wg.Wait()
}
