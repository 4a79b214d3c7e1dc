package bridge

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/starweaver-go/starweaver/core/agent"
	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/tool"
)

// doneItem is the last item of a run's pipe: its result or its error.
type doneItem struct {
	Kind   string      `json:"kind"`
	Result *wireResult `json:"result"`
	Error  *abiError   `json:"error"`
	// Response and Returns are the outcome of a model_request or run_batch
	// run (see runSpec).
	Response *model.Message `json:"response,omitempty"`
	Returns  []tool.Return  `json:"returns,omitempty"`
	// Availability is the outcome of an availability run.
	Availability *agent.AvailabilityReport `json:"availability,omitempty"`
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

// warningItem carries a run's warning (agent.Warning) to the host, which
// logs it; warnings are sent whether or not the host asked for events.
type warningItem struct {
	Kind    string        `json:"kind"`
	Warning agent.Warning `json:"warning"`
}

// startRun starts a run of session in the background.
func startRun(sess *agent.Session, spec runSpec) (int64, *hostRun, error) {
	root, ok := rootContext()
	if !ok {
		return 0, nil, &abiError{Type: "state", Message: "the runtime is shut down"}
	}
	if spec.Recover && (spec.Resume != nil || spec.Prompt != "") {
		return 0, nil, specError(`"recover" continues a run: it takes no "prompt" or "resume"`)
	}
	if step := spec.ModelRequest != nil || spec.RunBatch != nil; step &&
		(spec.Recover || spec.Resume != nil || spec.Prompt != "" || spec.Executor || spec.ModelRequest != nil && spec.RunBatch != nil) {
		return 0, nil, specError(`"model_request" and "run_batch" run one step of another run: each alone, without "prompt", "resume", "recover" or "executor"`)
	}
	if spec.Availability && (spec.Recover || spec.Resume != nil || spec.Prompt != "" || spec.Executor || spec.ModelRequest != nil || spec.RunBatch != nil) {
		return 0, nil, specError(`"availability" previews a run: it takes no "prompt", "resume", "recover", "executor", "model_request" or "run_batch"`)
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
	run.traced = spec.Trace
	run.steering = agent.NewSteering()
	opts = append(opts, agent.WithSteering(run.steering))
	opts = append(opts, agent.WithWarnings(func(w agent.Warning) {
		if b, err := json.Marshal(warningItem{Kind: "warning", Warning: w}); err == nil {
			run.post(b)
		}
	}))
	if spec.Events {
		opts = append(opts, agent.WithEvents(func(ev agent.Event) {
			if b, err := json.Marshal(eventItem{Kind: "event", Event: ev}); err == nil {
				run.post(b)
			}
		}))
	}
	h := handles.add(run)
	run.finished = make(chan struct{})
	runCtx, endScope := withRunScope(withRun(ctx, run))
	go func() {
		defer close(run.finished)
		defer func() {
			if p := recover(); p != nil {
				run.post(doneJSON(doneItem{Kind: "done", Error: &abiError{Type: "internal", Message: "run panicked"}}))
			}
		}()
		var res *agent.RunResult
		var err error
		var step doneItem
		switch {
		case spec.ModelRequest != nil:
			var resp model.Message
			if resp, err = sess.Agent().RequestModel(runCtx, *spec.ModelRequest); err == nil {
				step.Response = &resp
			}
		case spec.RunBatch != nil:
			step.Returns, err = sess.Agent().RunBatch(runCtx, *spec.RunBatch, nil)
		case spec.Availability:
			step.Availability, err = sess.AvailabilityReport(runCtx, opts...)
		case spec.Recover:
			res, err = sess.Recover(runCtx, opts...)
		case spec.Resume != nil:
			res, err = sess.Resume(runCtx, *spec.Resume, opts...)
		default:
			res, err = sess.Run(runCtx, spec.Prompt, opts...)
		}
		endScope()
		item := doneItem{Kind: "done", Result: toWire(res), Response: step.Response, Returns: step.Returns, Availability: step.Availability}
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
		run.post(doneJSON(item))
	}()
	return h, run, nil
}

// doneJSON encodes a run's last item; a result that cannot be encoded
// becomes an internal error, so the host always learns the run ended.
func doneJSON(item doneItem) []byte {
	b, err := json.Marshal(item)
	if err != nil {
		b, _ = json.Marshal(doneItem{Kind: "done", Error: &abiError{Type: "internal", Message: "encoding the run result: " + err.Error()}})
	}
	return b
}
