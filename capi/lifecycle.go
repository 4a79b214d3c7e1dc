package main

import (
	"context"
	"encoding/json"
	"errors"
	"sync"

	"github.com/starweaver-go/starweaver/core/agent"
	"github.com/starweaver-go/starweaver/core/model"
)

// Version is the library version reported by sw_version.
const Version = "0.1.0"

// lifecycle holds the root context every run derives from; sw_shutdown
// cancels it and refuses further runs.
var lifecycle = struct {
	once   sync.Once
	ctx    context.Context
	cancel context.CancelFunc
	mu     sync.Mutex
	down   bool
}{}

func rootContext() (context.Context, bool) {
	lifecycle.once.Do(func() {
		lifecycle.ctx, lifecycle.cancel = context.WithCancel(context.Background())
	})
	lifecycle.mu.Lock()
	defer lifecycle.mu.Unlock()
	return lifecycle.ctx, !lifecycle.down
}

func shutdown() {
	rootContext()
	lifecycle.mu.Lock()
	lifecycle.down = true
	lifecycle.mu.Unlock()
	lifecycle.cancel()
}

type doneItem struct {
	Kind   string      `json:"kind"`
	Result *wireResult `json:"result"`
	Error  *abiError   `json:"error"`
}

// wireResult sends a run result without repeating the new messages: they
// are the tail of Messages from NewMessagesStart, and large batches make
// the duplicate expensive to encode and decode.
//
// When the run completed or waits, its messages are the session's history
// (history only grows), so they are left out too: the host reads the first
// MessageCount messages of the session when it needs them.
type wireResult struct {
	*agent.RunResult
	Messages         []model.Message `json:"messages,omitempty"`
	NewMessages      []struct{}      `json:"new_messages,omitempty"`
	NewMessagesStart int             `json:"new_messages_start"`
	MessageCount     int             `json:"message_count"`
}

func toWire(res *agent.RunResult) *wireResult {
	if res == nil {
		return nil
	}
	w := &wireResult{RunResult: res, NewMessagesStart: len(res.Messages) - len(res.NewMessages), MessageCount: len(res.Messages)}
	if res.Status != agent.StatusCompleted && res.Status != agent.StatusWaiting {
		w.Messages = res.Messages // not in the session's history
	}
	return w
}

type eventItem struct {
	Kind  string      `json:"kind"`
	Event agent.Event `json:"event"`
}

// startRun starts a run of session in the background.
func startRun(sess *agent.Session, spec runSpec) (int64, *hostRun, error) {
	root, ok := rootContext()
	if !ok {
		return 0, nil, &abiError{Type: "state", Message: "the runtime is shut down"}
	}
	opts, err := spec.options()
	if err != nil {
		return 0, nil, err
	}
	run, err := newHostRun()
	if err != nil {
		return 0, nil, err
	}
	ctx, cancel := context.WithCancelCause(root)
	run.cancel = func() { cancel(nil) }
	run.fail = cancel
	if spec.Events {
		opts = append(opts, agent.WithEvents(func(ev agent.Event) {
			if b, err := json.Marshal(eventItem{Kind: "event", Event: ev}); err == nil {
				run.post(b)
			}
		}))
	}
	h := handles.add(run)
	run.finished = make(chan struct{})
	go func() {
		defer close(run.finished)
		defer func() {
			if p := recover(); p != nil {
				run.post(mustDone(doneItem{Kind: "done", Error: &abiError{Type: "internal", Message: "run panicked"}}))
			}
		}()
		var res *agent.RunResult
		var err error
		if spec.Resume != nil {
			res, err = sess.Resume(withRun(ctx, run), *spec.Resume, opts...)
		} else {
			res, err = sess.Run(withRun(ctx, run), spec.Prompt, opts...)
		}
		item := doneItem{Kind: "done", Result: toWire(res)}
		if err != nil {
			item.Error = toABIError(err)
		}
		var be *bridgeError
		if errors.As(context.Cause(ctx), &be) {
			item.Error = &abiError{Type: "bridge", Message: be.msg}
		}
		var ce *callbackError
		if errors.As(context.Cause(ctx), &ce) {
			item.Error = &abiError{Type: "config", Message: ce.msg}
		}
		run.post(mustDone(item))
	}()
	return h, run, nil
}

func mustDone(item doneItem) []byte {
	b, err := json.Marshal(item)
	if err != nil {
		b, _ = json.Marshal(doneItem{Kind: "done", Error: &abiError{Type: "internal", Message: "encoding the run result: " + err.Error()}})
	}
	return b
}

func capturedJSON(m *modelHandle) ([]byte, error) {
	tm, ok := m.m.(*model.TestModel)
	if !ok {
		return nil, &abiError{Type: "unsupported", Message: "only test models capture requests"}
	}
	reqs := tm.Requests()
	if len(reqs) == 0 {
		return []byte("[]"), nil // a model never asked: an empty list, not null
	}
	return json.Marshal(reqs)
}

// sessionInfo is what sw_session_info reports.
type sessionInfo struct {
	ID      string          `json:"id"`
	Waiting bool            `json:"waiting"`
	Pending []agent.Pending `json:"pending"`
	// Usage sums what the session's runs consumed.
	Usage model.Usage `json:"usage"`
}

func infoOf(s *agent.Session) sessionInfo {
	p := s.Pending()
	if p == nil {
		p = []agent.Pending{}
	}
	return sessionInfo{ID: s.ID(), Waiting: s.Waiting(), Pending: p, Usage: s.Usage()}
}
