package bridge

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"

	"github.com/starweaver-go/starweaver/core/tool"
)

// hookSpec is a host execution hook in an agent or tool spec: the host's
// id for it and which phases it implements.
type hookSpec struct {
	ID     int64  `json:"id"`
	Name   string `json:"name"`
	Before bool   `json:"before"`
	After  bool   `json:"after"`
}

// The phases of a hook item.
const (
	phaseBefore   = "before"
	phaseAfter    = "after"
	phaseValidate = "validate"
)

// hookItem asks the host to run one hook phase (see starweaver.h).
type hookItem struct {
	Kind      string          `json:"kind"`
	Token     int64           `json:"token"`
	Hook      int64           `json:"hook"`
	Phase     string          `json:"phase"`
	Context   wireContext     `json:"context"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
	Outcome   json.RawMessage `json:"outcome,omitempty"`
}

// hookAnswer is the host's answer to a hook item.
type hookAnswer struct {
	OK        bool            `json:"ok"`
	Arguments json.RawMessage `json:"arguments"`
	Metadata  map[string]any  `json:"metadata"`
	Keep      bool            `json:"keep"`
	Outcome   json.RawMessage `json:"outcome"`
}

// build makes the core hook that runs the host's phases through the run.
// Its phases are the non-blocking forms (tool.Hook's StartBefore and
// StartAfter): a host call of a parallel batch holds no goroutine while
// the host runs its hooks, and a call on a goroutine of its own waits.
func (s hookSpec) build() (tool.Hook, error) {
	if s.ID == 0 || !(s.Before || s.After) {
		return tool.Hook{}, specError("hook %q needs an id and a before or after phase", s.Name)
	}
	h := tool.Hook{Name: s.Name}
	if s.Before {
		h.StartBefore = hostBefore(s.ID, phaseBefore)
	}
	if s.After {
		h.StartAfter = hostAfter(s.ID)
	}
	return h, nil
}

// validatorHook runs a host argument validator. It is a tool hook placed
// after the tool's own hooks, which is where core/tool runs validators:
// tool.ArgumentValidator has no context.Context, and the wait on the host
// must end with the call's context.
func validatorHook(id int64) tool.Hook {
	return tool.Hook{Name: "argument_validator", StartBefore: hostBefore(id, phaseValidate)}
}

// hostBefore sends a before (or validate) item; the host's answer may
// replace the arguments and the call's metadata.
func hostBefore(id int64, phase string) func(context.Context, *tool.Context, map[string]any, func(error)) {
	return func(ctx context.Context, tc *tool.Context, args map[string]any, done func(error)) {
		enc, err := json.Marshal(args)
		if err != nil {
			done(tool.UserError("hook arguments are not JSON: %v", err))
			return
		}
		startHook(ctx, hookItem{Hook: id, Phase: phase, Context: wireContextOf(tc), Arguments: enc}, func(a hookAnswer, err error) {
			if err == nil {
				err = applyBefore(phase, a, tc, args)
			}
			done(err)
		})
	}
}

// applyBefore applies the host's answer to a before item.
func applyBefore(phase string, a hookAnswer, tc *tool.Context, args map[string]any) error {
	if len(a.Arguments) > 0 && string(a.Arguments) != "null" {
		d := json.NewDecoder(bytes.NewReader(a.Arguments))
		d.UseNumber()
		var next map[string]any
		if err := d.Decode(&next); err != nil || next == nil {
			return tool.UserError("the host's %s hook returned arguments that are not an object", phase)
		}
		clear(args)
		maps.Copy(args, next)
	}
	if a.Metadata != nil {
		tc.Metadata = a.Metadata
	}
	return nil
}

// hostAfter sends an after item with the outcome; the host's answer keeps
// it or replaces it.
func hostAfter(id int64) func(context.Context, *tool.Context, *tool.Outcome, func(error)) {
	return func(ctx context.Context, tc *tool.Context, out *tool.Outcome, done func(error)) {
		item := hookItem{Hook: id, Phase: phaseAfter, Context: wireContextOf(tc), Outcome: encodeOutcome(*out)}
		startHook(ctx, item, func(a hookAnswer, err error) {
			if err == nil {
				err = applyAfter(a, out)
			}
			done(err)
		})
	}
}

// applyAfter applies the host's answer to an after item.
func applyAfter(a hookAnswer, out *tool.Outcome) error {
	if a.Keep {
		return nil
	}
	if len(a.Outcome) == 0 {
		return tool.UserError("the host's after hook answered neither keep nor an outcome")
	}
	res, err := decodeOutcome(a.Outcome)
	if err != nil {
		return err
	}
	out.Result, out.Err = res, nil
	return nil
}

// startHook sends one hook item and hands the host's decoded answer to
// cb, exactly once: on the goroutine that delivers completions, or on the
// one that saw ctx end (the host is then told to cancel). A failure the
// host reports comes back as its typed error. cb must not block.
func startHook(ctx context.Context, item hookItem, cb func(hookAnswer, error)) {
	run := runFrom(ctx)
	if run == nil {
		cb(hookAnswer{}, tool.UserError("a host hook ran outside a host run"))
		return
	}
	item.Kind = "hook"
	run.start(ctx, &hookStart{item: item, cb: cb})
}

// hookStart is a started hook item (a startedItem).
type hookStart struct {
	item hookItem
	cb   func(hookAnswer, error)
}

func (h *hookStart) appendItem(token int64) ([]byte, error) {
	h.item.Token = token
	return encodeItem(h.item)
}

func (h *hookStart) complete(data []byte, err error) {
	if err != nil {
		h.cb(hookAnswer{}, err)
		return
	}
	h.cb(decodeHookAnswer(data))
}

// decodeHookAnswer reads the host's answer to a hook item.
func decodeHookAnswer(data []byte) (hookAnswer, error) {
	var a hookAnswer
	if err := json.Unmarshal(data, &a); err != nil {
		return hookAnswer{}, tool.UserError("the host returned a malformed hook answer: %v", err)
	}
	if !a.OK {
		_, err := decodeOutcome(data)
		return hookAnswer{}, err
	}
	return a, nil
}

// encodeOutcome is the host outcome shape (as decodeOutcome reads it) of a
// call's result or error, for after hooks to observe.
func encodeOutcome(o tool.Outcome) json.RawMessage {
	var m map[string]any
	if o.Err != nil {
		te := tool.AsError(o.Err)
		m = map[string]any{"ok": false, "kind": string(te.Kind), "message": te.Message}
		if len(te.Metadata) > 0 {
			m["metadata"] = te.Metadata
		}
	} else {
		m = map[string]any{"ok": true, "content": o.Result.Content, "is_error": o.Result.IsError}
		if len(o.Result.Metadata) > 0 {
			m["metadata"] = o.Result.Metadata
		}
		if o.Result.Parts != nil {
			m["parts"] = o.Result.Parts
		}
		if o.Result.StructuredContent != nil {
			m["structured_content"] = o.Result.StructuredContent
		}
		if o.Result.HostOnly {
			m["host_only"] = true
		}
	}
	b, err := json.Marshal(m)
	if err != nil {
		b, _ = json.Marshal(map[string]any{"ok": false, "kind": "user_error", "message": fmt.Sprintf("the outcome is not JSON: %v", err)})
	}
	return b
}
