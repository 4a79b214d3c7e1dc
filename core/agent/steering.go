package agent

import (
	"slices"
	"sync"

	"github.com/starweaver-go/starweaver/core/model"
)

// Steering carries prompts into a running run (see WithSteering). Steer
// may be called from any goroutine. Each text steered while the run runs
// is sent as a user prompt with the run's next model request, after the
// tool returns it carries; texts steered while a batch runs wait for the
// request that follows the batch. A plain-text run whose model answers
// while texts wait does not complete: it sends them in one more request.
//
// A Steering serves one run: the run closes it when it ends, whatever its
// status, and Steer then reports false. Texts accepted but never sent
// (the run failed, was cancelled, paused for people or accepted a
// structured output first) are kept by Undelivered, so none is lost.
// Texts steered before the run starts go with its first request.
type Steering struct {
	mu          sync.Mutex
	queue       []string
	closed      bool
	undelivered []string
}

// NewSteering returns an open Steering with nothing queued.
func NewSteering() *Steering { return &Steering{} }

// Steer queues text for the run's next model request. It reports false,
// and queues nothing, once the run has ended.
func (s *Steering) Steer(text string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false
	}
	s.queue = append(s.queue, text)
	return true
}

// Undelivered returns the texts Steer accepted that the run ended without
// sending, in the order they were steered.
func (s *Steering) Undelivered() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.undelivered)
}

// take removes the queued texts and returns them as user prompts.
func (s *Steering) take() []model.Part {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.prompts()
}

// takeOrClose is take, except that with nothing queued it closes s, in
// one step, so that no text steered in between is lost: a run about to
// complete calls it.
func (s *Steering) takeOrClose() []model.Part {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.queue) == 0 {
		s.closed = true
	}
	return s.prompts()
}

func (s *Steering) prompts() []model.Part {
	if len(s.queue) == 0 {
		return nil
	}
	parts := make([]model.Part, len(s.queue))
	for i, t := range s.queue {
		parts[i] = model.UserPrompt(t)
	}
	s.queue = nil
	return parts
}

// close ends s for its run; what is still queued becomes undelivered.
func (s *Steering) close() {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	s.undelivered = append(s.undelivered, s.queue...)
	s.queue = nil
}
