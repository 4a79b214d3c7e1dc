package bridge

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/starweaver-go/starweaver/core/tool"
	"github.com/starweaver-go/starweaver/core/toolset"
)

// Host dynamic toolsets: a toolset whose inventory, and whose lifecycle,
// a host callback decides per run (a Python AbstractToolset or
// ToolsetFactory). Core decides when each phase runs (toolset.Lifecycle,
// toolset.Refresher, toolset.Dynamic); each phase asks the host through the
// run's pipe, as host preparations do (hostprepare.go), and each wait ends
// with the bound core gives it (the lifecycle policy's timeouts) or with
// the run. Outside a run (an agent being built or restored) the toolset
// has no tools and nothing is asked.

// Item kinds of the host dynamic toolsets.
const (
	itemToolsetEnter   = "toolset_enter"
	itemToolsetExit    = "toolset_exit"
	itemToolsetPrepare = "toolset_prepare"
)

// dynamicSpec makes a toolset spec a host dynamic toolset: callback is the
// host's id for it; per_step re-reads it before every model request.
type dynamicSpec struct {
	Callback int64 `json:"callback"`
	PerStep  bool  `json:"per_step"`
}

// lifecycleSpec is a toolset spec's lifecycle policy, with the host's
// names; keys left out keep core's defaults (toolset.LifecyclePolicy).
type lifecycleSpec struct {
	InitializationTimeoutMS *int64 `json:"initialization_timeout_ms"`
	ReadTimeoutMS           *int64 `json:"read_timeout_ms"`
	ExitTimeoutMS           *int64 `json:"exit_timeout_ms"`
	EnterBeforePrepare      *bool  `json:"enter_before_prepare"`
	ExitAfterRun            *bool  `json:"exit_after_run"`
	FailOnUnavailable       bool   `json:"fail_on_unavailable"`
}

func (s *lifecycleSpec) policy(name string) (toolset.LifecyclePolicy, error) {
	var p toolset.LifecyclePolicy
	t := toolset.LifecycleTimeouts{
		Initialization: optionalMillis(s.InitializationTimeoutMS),
		Read:           optionalMillis(s.ReadTimeoutMS),
		Exit:           optionalMillis(s.ExitTimeoutMS),
	}
	if err := t.Apply(name, &p); err != nil {
		return p, optionError(err)
	}
	p.SkipEnter = s.EnterBeforePrepare != nil && !*s.EnterBeforePrepare
	p.KeepOpen = s.ExitAfterRun != nil && !*s.ExitAfterRun
	p.FailOnUnavailable = s.FailOnUnavailable
	return p, nil
}

// toolsetItem asks the host to run one phase of a dynamic toolset. A
// toolset_prepare item has "refresh": true when it replaces the first
// read of a resumed run.
type toolsetItem struct {
	Kind     string         `json:"kind"`
	Token    int64          `json:"token"`
	Callback int64          `json:"callback"`
	Toolset  string         `json:"toolset"`
	Refresh  bool           `json:"refresh,omitempty"`
	Context  prepareContext `json:"context"`
}

// preparation is the host's answer to a toolset_prepare item.
type preparation struct {
	OK           bool          `json:"ok"`
	Message      string        `json:"message"`
	Tools        []toolSpec    `json:"tools"`
	Instructions []string      `json:"instructions"`
	Toolsets     []toolsetSpec `json:"toolsets"`
}

// hostDynamic is a toolset the host prepares per run (or per step).
type hostDynamic struct {
	name, id string
	callback int64
	perStep  bool
	defaults toolset.Defaults

	mu sync.Mutex
	// last is the latest inventory read per run id, so that Instructions
	// answers from the read Tools made; an entry leaves with the run's
	// Exit (and the map is reset when it grows past maxRuns, for runs
	// that keep their toolsets open).
	last map[string]*inventory
}

// maxRuns bounds hostDynamic.last.
const maxRuns = 256

// inventory is one read of a dynamic toolset, for a run step.
type inventory struct {
	step  int
	fresh bool // refreshed, not yet used by Tools
	tools []tool.Tool
	ins   []toolset.Instruction
}

func newHostDynamic(s toolsetSpec) (*hostDynamic, error) {
	if s.Name == "" {
		return nil, specError("dynamic toolset without a name")
	}
	if s.Dynamic.Callback == 0 {
		return nil, specError("dynamic toolset %q needs a host callback", s.Name)
	}
	h := &hostDynamic{name: s.Name, id: s.ID, callback: s.Dynamic.Callback, perStep: s.Dynamic.PerStep, last: map[string]*inventory{}}
	// The defaults are checked as a static toolset's are.
	st := toolset.New(s.Name)
	if s.MaxRetries != nil {
		st = st.WithMaxRetries(*s.MaxRetries)
	}
	if s.TimeoutMS != nil {
		st = st.WithTimeout(millis(*s.TimeoutMS))
	}
	if err := st.Err(); err != nil {
		return nil, optionError(err)
	}
	h.defaults = st.Defaults()
	return h, nil
}

func (h *hostDynamic) Name() string               { return h.name }
func (h *hostDynamic) ID() string                 { return h.id }
func (h *hostDynamic) Defaults() toolset.Defaults { return h.defaults }
func (h *hostDynamic) PerStep() bool              { return h.perStep }

func (h *hostDynamic) Enter(ctx context.Context, rc *tool.RunContext) error {
	_, err := h.ask(ctx, rc, itemToolsetEnter, false)
	return err
}

func (h *hostDynamic) Exit(ctx context.Context, rc *tool.RunContext) error {
	_, err := h.ask(ctx, rc, itemToolsetExit, false)
	if rc != nil {
		h.mu.Lock()
		delete(h.last, rc.RunID)
		h.mu.Unlock()
	}
	return err
}

// Refresh asks the host to re-prepare the toolset for a resumed run; the
// next Tools of the same step answers with it.
func (h *hostDynamic) Refresh(ctx context.Context, rc *tool.RunContext) error {
	inv, err := h.read(ctx, rc, true)
	if err != nil || inv == nil {
		return err
	}
	inv.fresh = true
	h.keep(rc.RunID, inv)
	return nil
}

func (h *hostDynamic) Tools(rc *tool.RunContext) ([]tool.Tool, error) {
	if rc == nil || rc.Ctx == nil {
		return nil, nil
	}
	h.mu.Lock()
	inv := h.last[rc.RunID]
	if inv != nil && inv.fresh && inv.step == rc.RunStep {
		inv.fresh = false
		h.mu.Unlock()
		return inv.tools, nil
	}
	h.mu.Unlock()
	inv, err := h.read(rc.Ctx, rc, false)
	if err != nil || inv == nil {
		return nil, err
	}
	h.keep(rc.RunID, inv)
	return inv.tools, nil
}

func (h *hostDynamic) Instructions(rc *tool.RunContext) []toolset.Instruction {
	if rc == nil || rc.Ctx == nil {
		return nil
	}
	h.mu.Lock()
	inv := h.last[rc.RunID]
	h.mu.Unlock()
	if inv != nil && inv.step == rc.RunStep {
		return inv.ins
	}
	// Not read for this step (a caller asking for instructions only).
	inv, err := h.read(rc.Ctx, rc, false)
	if err != nil || inv == nil {
		return nil
	}
	return inv.ins
}

func (h *hostDynamic) keep(runID string, inv *inventory) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.last) >= maxRuns {
		clear(h.last)
	}
	h.last[runID] = inv
}

// read asks the host for the inventory of rc's step and builds it; nil
// outside a run.
func (h *hostDynamic) read(ctx context.Context, rc *tool.RunContext, refresh bool) (*inventory, error) {
	data, err := h.ask(ctx, rc, itemToolsetPrepare, refresh)
	if err != nil || data == nil {
		return nil, err
	}
	var p preparation
	if err := json.Unmarshal(data, &p); err != nil {
		return nil, fmt.Errorf("the host returned a malformed preparation: %v", err)
	}
	tools, err := buildTools(p.Tools)
	if err != nil {
		return nil, err
	}
	inv := &inventory{step: rc.RunStep, tools: tools}
	if text := strings.TrimSpace(strings.Join(p.Instructions, "\n\n")); text != "" {
		inv.ins = []toolset.Instruction{{Group: h.name, Content: text}}
	}
	if len(p.Toolsets) > 0 {
		members, err := buildToolsets(p.Toolsets)
		if err != nil {
			return nil, err
		}
		nested := toolset.Combined(h.name, members...)
		more, err := nested.Tools(rc)
		if err != nil {
			return nil, err
		}
		inv.tools = append(inv.tools, more...)
		inv.ins = append(inv.ins, nested.Instructions(rc)...)
	}
	return inv, nil
}

// ask posts one phase item and waits for its outcome, until ctx ends. It
// returns nil data outside a run, and an error for a failure the host
// reported.
func (h *hostDynamic) ask(ctx context.Context, rc *tool.RunContext, kind string, refresh bool) ([]byte, error) {
	switch kind {
	case itemToolsetEnter, itemToolsetExit, itemToolsetPrepare:
	default:
		return nil, fmt.Errorf("unknown toolset item kind %q", kind)
	}
	if rc == nil || ctx == nil {
		return nil, nil
	}
	run := runFrom(ctx)
	if run == nil {
		return nil, nil
	}
	data, err := run.await(ctx, func(token int64) ([]byte, error) {
		return encodeItem(toolsetItem{Kind: kind, Token: token, Callback: h.callback, Toolset: h.name, Refresh: refresh,
			Context: prepareContext{RunID: rc.RunID, ConversationID: rc.ConversationID, RunStep: rc.RunStep,
				Metadata: rc.Metadata, ActiveTags: rc.ActiveTags}})
	})
	if err != nil {
		return nil, err
	}
	var o struct {
		OK      *bool  `json:"ok"`
		Message string `json:"message"`
	}
	if err := json.Unmarshal(data, &o); err != nil || o.OK == nil {
		return nil, fmt.Errorf("the host returned a malformed %s outcome: %s", kind, data)
	}
	if !*o.OK {
		return nil, &hostPhaseError{msg: o.Message}
	}
	return data, nil
}

// hostPhaseError is a failure the host reported for a phase of its
// toolset; core names the toolset and the phase around it.
type hostPhaseError struct{ msg string }

func (e *hostPhaseError) Error() string { return e.msg }
