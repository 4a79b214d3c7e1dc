package shell

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/starweaver-go/starweaver/core/env"
	"github.com/starweaver-go/starweaver/core/intent"
)

// IntentProcesses is a process runtime whose processes are operating-system
// processes of a shell (an env.Processes such as env.LocalShell, each
// process in its own process group), with an intent.Local keeping their
// durable history: it implements intent.Commands.
//
// An intent.StartProcess runs its input, a ProcessCommand, under the shell's
// policy; the process id is the intent's replay key. A signal is sent to
// the process group, a cancellation kills it (TERM, then KILL), an event
// of type "stdin" writes its payload's "text" to the process's standard
// input (closing it when "close" is true), and the end of the process is
// recorded (Local.Complete) with its status and exit code. Every command
// is journaled by the intent.Local first-write-wins under its replay key, and one
// already recorded is replayed without touching the shell: a redriven
// start never starts a second process. A signal, cancellation or event is
// recorded before it is delivered, so the process's history orders it
// before the end it may cause (and a crash in between delivers it at most
// once).
//
// The processes live with the shell: closing the shell (or Close) ends
// them, and a runtime over a new shell after a crash finds the old
// processes gone; commands on them are then only recorded. A crash
// between a process's start and its record re-runs the start on redrive (at least once, as for any side effect inside an
// attempt).
type IntentProcesses struct {
	local *intent.Local
	shell env.Processes

	ctx    context.Context
	cancel context.CancelFunc
	mu     sync.Mutex
	procs  map[string]string // replay key → the shell's process id
	wg     sync.WaitGroup
}

var _ intent.Commands = (*IntentProcesses)(nil)

// NewIntentProcesses returns the runtime over shell, its history kept in j.
func NewIntentProcesses(j intent.Journal, shell env.Processes) *IntentProcesses {
	ctx, cancel := context.WithCancel(context.Background())
	return &IntentProcesses{local: intent.NewLocal(j), shell: shell, ctx: ctx, cancel: cancel, procs: map[string]string{}}
}

// ProcessCommand is the input of an intent.StartProcess that IntentProcesses runs:
// a program with literal Arguments, or (without Arguments) a shell script.
type ProcessCommand struct {
	Command     string            `json:"command"`
	Arguments   []string          `json:"arguments,omitempty"`
	Cwd         string            `json:"cwd,omitempty"`
	Environment map[string]string `json:"environment,omitempty"`
}

// Command codes of IntentProcesses, beside Local's.
const (
	CodeProcessInputInvalid = "process_input_invalid"
	CodeProcessStartRefused = "process_start_refused"
)

// Close stops watching for the processes' ends; the shell's owner ends
// the processes themselves.
func (s *IntentProcesses) Close() {
	s.cancel()
	s.wg.Wait()
}

// Local returns the runtime's history (Process, Complete, Triggers).
func (s *IntentProcesses) Local() *intent.Local { return s.local }

// StartProcess implements intent.Commands.
func (s *IntentProcesses) StartProcess(ctx context.Context, replayKey string, in *intent.StartProcess) (json.RawMessage, error) {
	if res, ok, err := s.local.Recorded(ctx, replayKey); ok {
		return res, err
	}
	var pc ProcessCommand
	dec := json.NewDecoder(bytes.NewReader(in.Request.Input))
	dec.DisallowUnknownFields()
	if len(in.Request.Input) == 0 || dec.Decode(&pc) != nil || pc.Command == "" {
		return nil, &intent.CommandError{Code: CodeProcessInputInvalid, Message: `the process input must be {"command", "arguments"?, "cwd"?, "environment"?} with a command`}
	}
	cmd := env.Command{Dir: pc.Cwd, Env: pc.Environment}
	if pc.Arguments != nil {
		cmd.Program, cmd.Args = pc.Command, pc.Arguments
	} else {
		cmd.Script = pc.Command
	}
	p, err := s.shell.Start(ctx, cmd)
	if err != nil {
		return nil, &intent.CommandError{Code: CodeProcessStartRefused, Message: err.Error()}
	}
	res, err := s.local.StartProcess(ctx, replayKey, in)
	if err != nil {
		_, _ = s.shell.Kill(context.WithoutCancel(ctx), p.ID) // unrecorded: it must not run
		return nil, err
	}
	s.mu.Lock()
	s.procs[replayKey] = p.ID
	s.mu.Unlock()
	s.watch(replayKey, p.ID)
	return res, nil
}

// watch records the end of the process once the shell reports it.
func (s *IntentProcesses) watch(replayKey, id string) {
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		for s.ctx.Err() == nil {
			p, err := s.shell.Wait(s.ctx, id, time.Hour)
			if err != nil {
				return // closed, or the shell forgot it
			}
			if p.Status == env.ProcessRunning {
				continue
			}
			res, _ := json.Marshal(struct {
				Status   env.ProcessStatus `json:"status"`
				ExitCode *int              `json:"exit_code,omitempty"`
			}{p.Status, p.ExitCode})
			// A process already cancelled stays cancelled: Complete refuses.
			_, _ = s.local.Complete(s.ctx, replayKey, res)
			return
		}
	}()
}

// attached returns the shell's id of a process started here.
func (s *IntentProcesses) attached(processID string) (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	id, ok := s.procs[processID]
	return id, ok
}

// signals maps signal names to Unix signal numbers.
var signals = map[string]int{
	"HUP": 1, "SIGHUP": 1, "INT": 2, "SIGINT": 2, "QUIT": 3, "SIGQUIT": 3, "KILL": 9, "SIGKILL": 9,
	"USR1": 10, "SIGUSR1": 10, "USR2": 12, "SIGUSR2": 12, "TERM": 15, "SIGTERM": 15,
	"CONT": 18, "SIGCONT": 18, "STOP": 19, "SIGSTOP": 19,
}

// SignalProcess implements intent.Commands: a known signal name ("TERM",
// "SIGINT", ...) is delivered to the process group; any other name is
// recorded only.
func (s *IntentProcesses) SignalProcess(ctx context.Context, replayKey string, in *intent.SignalProcess) (json.RawMessage, error) {
	if res, ok, err := s.local.Recorded(ctx, replayKey); ok {
		return res, err
	}
	res, err := s.local.SignalProcess(ctx, replayKey, in)
	if n, known := signals[in.SignalName]; known && err == nil {
		if id, ok := s.attached(in.ProcessID); ok {
			_, _ = s.shell.Signal(ctx, id, n)
		}
	}
	return res, err
}

// CancelProcess implements intent.Commands: the process group is killed.
func (s *IntentProcesses) CancelProcess(ctx context.Context, replayKey, processID, reason string) (json.RawMessage, error) {
	if res, ok, err := s.local.Recorded(ctx, replayKey); ok {
		return res, err
	}
	res, err := s.local.CancelProcess(ctx, replayKey, processID, reason)
	if id, ok := s.attached(processID); ok && err == nil {
		_, _ = s.shell.Kill(ctx, id)
	}
	return res, err
}

// EmitProcessEvent implements intent.Commands: an event of type "stdin" with a
// payload {"text", "close"?} is written to the process's standard input.
func (s *IntentProcesses) EmitProcessEvent(ctx context.Context, replayKey string, in *intent.EmitProcessEvent) (json.RawMessage, error) {
	if res, ok, err := s.local.Recorded(ctx, replayKey); ok {
		return res, err
	}
	var stdin struct {
		Text  string `json:"text"`
		Close bool   `json:"close"`
	}
	if in.EventType == "stdin" {
		if err := json.Unmarshal(in.Payload, &stdin); err != nil {
			return nil, &intent.CommandError{Code: CodeProcessInputInvalid, Message: fmt.Sprintf(`a "stdin" event's payload is {"text", "close"?}: %v`, err)}
		}
	}
	res, err := s.local.EmitProcessEvent(ctx, replayKey, in)
	if id, ok := s.attached(in.ProcessID); ok && err == nil && in.EventType == "stdin" {
		_, _ = s.shell.Input(ctx, id, stdin.Text, stdin.Close)
	}
	return res, err
}

// EmitTrigger implements intent.Commands (the intent.Local's triggers).
func (s *IntentProcesses) EmitTrigger(ctx context.Context, replayKey string, req intent.TriggerRequest) (json.RawMessage, error) {
	return s.local.EmitTrigger(ctx, replayKey, req)
}
