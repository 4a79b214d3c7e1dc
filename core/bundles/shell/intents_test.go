//go:build unix

package shell_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/starweaver-go/starweaver/core/bundles/shell"
	"github.com/starweaver-go/starweaver/core/env"
	"github.com/starweaver-go/starweaver/core/intent"
)

const session = "session-1"

var call = intent.Call{Session: session, Scope: intent.TurnScope("turn-1"), CallID: "call-1"}

func newShellRuntime(t *testing.T, policy env.ShellPolicy) (*shell.IntentProcesses, *env.LocalShell, intent.Journal) {
	t.Helper()
	sh, err := env.NewLocalShell(t.TempDir(), policy, env.LocalShellOptions{TermGrace: 200 * time.Millisecond})
	if errors.Is(err, env.ErrNoSandbox) && os.Getenv("STARWEAVER_REQUIRE_SANDBOX") == "" {
		t.Skipf("no sandbox here (set STARWEAVER_REQUIRE_SANDBOX=1 to fail instead): %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	j := intent.NewMemoryJournal()
	rt := shell.NewIntentProcesses(j, sh)
	t.Cleanup(func() {
		sh.Close()
		rt.Close()
	})
	return rt, sh, j
}

func startInput(t *testing.T, v any) *intent.StartProcess {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return &intent.StartProcess{SessionID: session, Request: intent.ProcessStartRequest{Input: b}}
}

// running counts the shell's running processes.
func running(t *testing.T, sh *env.LocalShell) int {
	t.Helper()
	ps, err := sh.List(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, p := range ps {
		if p.Status == env.ProcessRunning {
			n++
		}
	}
	return n
}

// waitStatus waits (bounded) for the recorded status of a process.
func waitStatus(t *testing.T, l *intent.Local, id string, want intent.ProcessStatus) intent.ProcessState {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second) // a bound on a hang, not a measurement
	for {
		st, err := l.Process(context.Background(), id)
		if err == nil && st.Status == want {
			return st
		}
		if time.Now().After(deadline) {
			t.Fatalf("process %s: status %v (%v), want %s", id, st.Status, err, want)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// A started process is a real one of the shell, started once whatever the
// redrives; its end is recorded with its exit code.
func TestShellProcessesStartOnceAndRecordTheEnd(t *testing.T) {
	ctx := context.Background()
	rt, sh, _ := newShellRuntime(t, env.ShellPolicy{AllowExecute: true})
	in := startInput(t, shell.ProcessCommand{Command: "read line; exit 3"})
	first, err := rt.StartProcess(ctx, "key-1", in)
	if err != nil {
		t.Fatal(err)
	}
	again, err := rt.StartProcess(ctx, "key-1", in)
	if err != nil || string(again) != string(first) {
		t.Fatalf("a redriven start: %s, %v; want %s", again, err, first)
	}
	if n := running(t, sh); n != 1 {
		t.Fatalf("%d processes running, want 1", n)
	}
	if _, err := rt.EmitProcessEvent(ctx, "key-2", &intent.EmitProcessEvent{SessionID: session, ProcessID: "key-1", EventType: "stdin", Payload: json.RawMessage(`{"text":"go\n"}`)}); err != nil {
		t.Fatal(err)
	}
	st := waitStatus(t, rt.Local(), "key-1", intent.ProcessCompleted)
	last := st.Entries[len(st.Entries)-1]
	if last.Command != "complete" || !strings.Contains(string(last.Result), `"exit_code":3`) {
		t.Fatalf("the end recorded: %+v (%s)", last, last.Result)
	}
}

// A signal reaches the process group, a cancellation kills it, and a
// command on an ended process is a recorded refusal that touches nothing.
func TestShellProcessesSignalAndCancel(t *testing.T) {
	ctx := context.Background()
	rt, sh, _ := newShellRuntime(t, env.ShellPolicy{AllowExecute: true})
	if _, err := rt.StartProcess(ctx, "p1", startInput(t, shell.ProcessCommand{Command: "sleep", Arguments: []string{"300"}})); err != nil {
		t.Fatal(err)
	}
	if _, err := rt.SignalProcess(ctx, "s1", &intent.SignalProcess{SessionID: session, ProcessID: "p1", SignalName: "TERM"}); err != nil {
		t.Fatal(err)
	}
	waitStatus(t, rt.Local(), "p1", intent.ProcessCompleted)
	if n := running(t, sh); n != 0 {
		t.Fatalf("%d processes still run after TERM", n)
	}
	if _, err := rt.StartProcess(ctx, "p2", startInput(t, shell.ProcessCommand{Command: "trap '' TERM; sleep 300"})); err != nil {
		t.Fatal(err)
	}
	if _, err := rt.CancelProcess(ctx, "c2", "p2", "no longer needed"); err != nil {
		t.Fatal(err)
	}
	waitStatus(t, rt.Local(), "p2", intent.ProcessCancelled)
	deadline := time.Now().Add(30 * time.Second) // a bound on a hang, not a measurement
	for running(t, sh) != 0 {
		if time.Now().After(deadline) {
			t.Fatal("a cancelled process that ignores TERM runs on")
		}
		time.Sleep(10 * time.Millisecond)
	}
	_, err := rt.SignalProcess(ctx, "s3", &intent.SignalProcess{SessionID: session, ProcessID: "p2", SignalName: "TERM"})
	var ce *intent.CommandError
	if !errors.As(err, &ce) || ce.Code != intent.CodeProcessAlreadyTerminal {
		t.Fatalf("a signal to a cancelled process: %v", err)
	}
}

// The shell's policy decides what may start; a refusal and a malformed
// input are command errors, and nothing runs.
func TestShellProcessesRefusals(t *testing.T) {
	ctx := context.Background()
	rt, sh, _ := newShellRuntime(t, env.ShellPolicy{AllowExecute: true, AllowedPrograms: []string{"true"}})
	var ce *intent.CommandError
	if _, err := rt.StartProcess(ctx, "a", startInput(t, shell.ProcessCommand{Command: "rm -rf /"})); !errors.As(err, &ce) || ce.Code != shell.CodeProcessStartRefused {
		t.Fatalf("a script under an allowlist: %v", err)
	}
	for _, bad := range []any{map[string]any{"cmd": "true"}, map[string]any{}, "true"} {
		if _, err := rt.StartProcess(ctx, "b", startInput(t, bad)); !errors.As(err, &ce) || ce.Code != shell.CodeProcessInputInvalid {
			t.Fatalf("input %v: %v", bad, err)
		}
	}
	if n := running(t, sh); n != 0 {
		t.Fatalf("%d processes run", n)
	}
}

// Through a Realiser: a tool's StartProcess (Cancel on parent end) runs a
// real process, and settling the turn's parent end kills it; a redrive of
// the settlement touches nothing.
func TestShellProcessesParentEndKillsTheProcess(t *testing.T) {
	ctx := context.Background()
	rt, sh, j := newShellRuntime(t, env.ShellPolicy{AllowExecute: true})
	r := &intent.Realiser{Journal: j, Commands: rt}
	rep, err := r.Realise(ctx, call, intent.Done{Result: json.RawMessage(`"started"`), Intents: intent.V1(
		startInput(t, shell.ProcessCommand{Command: "sleep", Arguments: []string{"300"}}),
	)})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := rep.Intents[0].(intent.Executed); !ok || running(t, sh) != 1 {
		t.Fatalf("the start: %+v, %d running", rep.Intents, running(t, sh))
	}
	settled, err := r.SettleParentEnd(ctx, session, call.Scope)
	if err != nil || len(settled) != 1 || settled[0].Result != intent.ParentEndCancelled {
		t.Fatalf("settled %+v, %v", settled, err)
	}
	deadline := time.Now().Add(30 * time.Second) // a bound on a hang, not a measurement
	for running(t, sh) != 0 {
		if time.Now().After(deadline) {
			t.Fatal("the process outlived its parent's end")
		}
		time.Sleep(10 * time.Millisecond)
	}
	again, err := r.SettleParentEnd(ctx, session, call.Scope)
	if err != nil || len(again) != 1 || again[0].Result != intent.ParentEndCancelled {
		t.Fatalf("redriven settlement %+v, %v", again, err)
	}
}
