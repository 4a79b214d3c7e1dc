package main

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
func (s hookSpec) build() (tool.Hook, error) {
	if s.ID == 0 || !(s.Before || s.After) {
		return tool.Hook{}, specError("hook %q needs an id and a before or after phase", s.Name)
	}
	h := tool.Hook{Name: s.Name}
	if s.Before {
		h.Before = hostBefore(s.ID, phaseBefore)
	}
	if s.After {
		h.After = hostAfter(s.ID)
	}
	return h, nil
}

// validatorHook runs a host argument validator. It is a tool hook placed
// after the tool's own hooks, which is where core/tool runs validators:
// tool.ArgumentValidator has no context.Context, and the wait on the host
// must end with the call's context.
func validatorHook(id int64) tool.Hook {
	return tool.Hook{Name: "argument_validator", Before: hostBefore(id, phaseValidate)}
}

func hostBefore(id int64, phase string) func(context.Context, *tool.Context, map[string]any) error {
	return func(ctx context.Context, tc *tool.Context, args map[string]any) error {
		enc, err := json.Marshal(args)
		if err != nil {
			return tool.UserError("hook arguments are not JSON: %v", err)
		}
		a, err := awaitHook(ctx, hookItem{Hook: id, Phase: phase, Context: wireContextOf(tc), Arguments: enc})
		if err != nil {
			return err
		}
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
}

func hostAfter(id int64) func(context.Context, *tool.Context, *tool.Outcome) error {
	return func(ctx context.Context, tc *tool.Context, out *tool.Outcome) error {
		a, err := awaitHook(ctx, hookItem{Hook: id, Phase: phaseAfter, Context: wireContextOf(tc), Outcome: encodeOutcome(*out)})
		if err != nil {
			return err
		}
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
}

// awaitHook sends one hook item and decodes the host's answer; a failure
// the host reports comes back as its typed error.
func awaitHook(ctx context.Context, item hookItem) (hookAnswer, error) {
	run := runFrom(ctx)
	if run == nil {
		return hookAnswer{}, tool.UserError("a host hook ran outside a host run")
	}
	item.Kind = "hook"
	data, err := run.await(ctx, func(token int64) ([]byte, error) {
		item.Token = token
		return encodeItem(item)
	})
	if err != nil {
		return hookAnswer{}, err
	}
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
