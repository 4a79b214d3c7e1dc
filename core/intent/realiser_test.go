package intent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/starweaver-go/starweaver/core/intent"
)

const session = "session-1"

var call = intent.Call{Session: session, Scope: intent.TurnScope("turn-1"), CallID: "call-1"}

// crash stands in for the process dying at a pause point: the pause
// panics, and the test recovers it.
type crash struct{ at intent.PausePoint }

func crashAt(at intent.PausePoint) intent.PauseFunc {
	return func(_ context.Context, p intent.PausePoint) {
		if p == at {
			panic(crash{p})
		}
	}
}

func runUntilCrash(t *testing.T, f func()) {
	t.Helper()
	defer func() {
		if _, ok := recover().(crash); !ok {
			t.Fatal("the run did not reach its crash point")
		}
	}()
	f()
}

// counting counts the commands that reach the runtime per replay key.
type counting struct {
	intent.Commands
	calls map[string]int
}

func (c *counting) count(k string) { c.calls[k]++ }
func (c *counting) StartProcess(ctx context.Context, k string, in *intent.StartProcess) (json.RawMessage, error) {
	c.count(k)
	return c.Commands.StartProcess(ctx, k, in)
}
func (c *counting) SignalProcess(ctx context.Context, k string, in *intent.SignalProcess) (json.RawMessage, error) {
	c.count(k)
	return c.Commands.SignalProcess(ctx, k, in)
}
func (c *counting) CancelProcess(ctx context.Context, k, p, r string) (json.RawMessage, error) {
	c.count(k)
	return c.Commands.CancelProcess(ctx, k, p, r)
}
func (c *counting) EmitProcessEvent(ctx context.Context, k string, in *intent.EmitProcessEvent) (json.RawMessage, error) {
	c.count(k)
	return c.Commands.EmitProcessEvent(ctx, k, in)
}
func (c *counting) EmitTrigger(ctx context.Context, k string, r intent.TriggerRequest) (json.RawMessage, error) {
	c.count(k)
	return c.Commands.EmitTrigger(ctx, k, r)
}

func newRealiser(j intent.Journal) (*intent.Realiser, *counting) {
	c := &counting{Commands: intent.NewLocal(j), calls: map[string]int{}}
	return &intent.Realiser{Journal: j, Commands: c}, c
}

// startThenSignal is a batch whose signal targets the process its start
// creates: the first intent's replay key is the process id.
func startThenSignal(t *testing.T) (intent.Done, string) {
	t.Helper()
	id, err := intent.DeriveIdentity(session, call.Scope.ID, call.CallID, 0)
	if err != nil {
		t.Fatal(err)
	}
	return intent.Done{Result: json.RawMessage(`{"started":true}`), Intents: intent.V1(
		&intent.StartProcess{SessionID: session, Request: intent.ProcessStartRequest{ID: "replaced", Originator: "report", Input: json.RawMessage(`{"report":42}`)}},
		&intent.SignalProcess{SessionID: session, ProcessID: id.ReplayKey, SignalName: "go", Payload: json.RawMessage(`{"fast":true}`)},
		&intent.EmitProcessEvent{SessionID: session, ProcessID: id.ReplayKey, EventType: "progress"},
		&intent.EmitTrigger{SessionID: session, Request: intent.TriggerRequest{SessionID: session, Trigger: "report_started", IdempotencyKey: "report-42"}},
	)}, id.ReplayKey
}

func encode(t *testing.T, os []intent.Outcome) string {
	t.Helper()
	var b strings.Builder
	for _, o := range os {
		raw, err := json.Marshal(o)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(raw)
		b.WriteByte('\n')
	}
	return b.String()
}

func wantOnce(t *testing.T, c *counting, n int) {
	t.Helper()
	if len(c.calls) != n {
		t.Fatalf("%d replay keys reached the runtime, want %d: %v", len(c.calls), n, c.calls)
	}
}

func TestRealiseDrainsInSourceOrderUnderReplayKeys(t *testing.T) {
	ctx := context.Background()
	j := intent.NewMemoryJournal()
	r, c := newRealiser(j)
	done, pid := startThenSignal(t)
	rep, err := r.Realise(ctx, call, done)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Replayed || len(rep.Intents) != 4 {
		t.Fatalf("report %+v", rep)
	}
	for i, o := range rep.Intents {
		ex, ok := o.(intent.Executed)
		if !ok || ex.Identity.IntentIndex != uint32(i) {
			t.Fatalf("intent %d: %s", i, o.ModelAddendum())
		}
	}
	start := rep.Intents[0].(intent.Executed)
	if start.ParentEnd == nil || start.ParentEnd.ProcessID != pid || start.ParentEnd.Policy != intent.ParentEndCancel {
		t.Fatalf("start: %+v", start)
	}
	if !strings.Contains(string(start.Result), `"process_id":"`+pid+`"`) {
		t.Fatalf("the process id is not the replay key: %s", start.Result)
	}
	if got := string(rep.Intents[1].(intent.Executed).Result); got != `{"process_id":"`+pid+`","sequence":1,"signal_name":"go","payload":{"fast":true}}` {
		t.Fatalf("signal result %s", got)
	}
	st, err := intent.NewLocal(j).Process(ctx, pid)
	if err != nil || len(st.Entries) != 3 || st.Status != intent.ProcessRunning {
		t.Fatalf("process %+v, %v", st, err)
	}
	wantOnce(t, c, 4)
	// Realising again replays every outcome, byte for byte, and runs
	// nothing.
	again, err := r.Realise(ctx, call, intent.Done{Result: json.RawMessage(`"other"`)})
	if err != nil || !again.Replayed || encode(t, again.Intents) != encode(t, rep.Intents) || string(again.Outcome.(intent.Done).Result) != `{"started":true}` {
		t.Fatalf("replay %+v, %v", again, err)
	}
	for k, n := range c.calls {
		if n != 1 {
			t.Fatalf("%s ran %d times", k, n)
		}
	}
}

// Each crash point, then a redrive by a fresh Realiser: every intent is
// realised exactly once and the outcomes are those of an uninterrupted
// run, byte for byte.
func TestCrashAtEachPausePointRedrivesToExactlyOnce(t *testing.T) {
	ctx := context.Background()
	done, _ := startThenSignal(t)
	clean, _ := newRealiser(intent.NewMemoryJournal())
	want, err := clean.Realise(ctx, call, done)
	if err != nil {
		t.Fatal(err)
	}
	points := []intent.PausePoint{intent.AfterToolAttemptCommit()}
	for i := range 4 {
		points = append(points, intent.BeforeProcessCommand(i), intent.AfterProcessCommandCommit(i))
	}
	for _, p := range points {
		t.Run(p.String(), func(t *testing.T) {
			j := intent.NewMemoryJournal()
			r, c := newRealiser(j)
			r.Pause = crashAt(p)
			runUntilCrash(t, func() { _, _ = r.Realise(ctx, call, done) })
			// The redrive knows only the call: the committed attempt is read back.
			r2 := &intent.Realiser{Journal: j, Commands: c}
			got, err := r2.Run(ctx, call, intent.RetryPolicy{}, func(context.Context, int) intent.AttemptOutcome {
				t.Fatal("the committed attempt ran again")
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if encode(t, got.Intents) != encode(t, want.Intents) {
				t.Fatalf("redrive:\n%s\nwant\n%s", encode(t, got.Intents), encode(t, want.Intents))
			}
			wantOnce(t, c, 4)
			pid := got.Intents[0].(intent.Executed).ParentEnd.ProcessID
			st, _ := intent.NewLocal(j).Process(ctx, pid)
			trig, _ := intent.NewLocal(j).Triggers(ctx, session)
			if len(st.Entries) != 3 || len(trig) != 1 {
				t.Fatalf("process has %d entries, %d triggers", len(st.Entries), len(trig))
			}
		})
	}
}

func TestJournalFirstRedriveIgnoresLiveTerminalMutation(t *testing.T) {
	ctx := context.Background()
	j := intent.NewMemoryJournal()
	done, pid := startThenSignal(t)
	clean, _ := newRealiser(intent.NewMemoryJournal())
	want, _ := clean.Realise(ctx, call, done)

	// Crash after the signal's command committed, before its outcome was
	// recorded; then the process ends while the worker is down.
	r, _ := newRealiser(j)
	r.Pause = crashAt(intent.AfterProcessCommandCommit(1))
	runUntilCrash(t, func() { _, _ = r.Realise(ctx, call, done) })
	if _, err := intent.NewLocal(j).Complete(ctx, pid, json.RawMessage(`"finished"`)); err != nil {
		t.Fatal(err)
	}
	r2, _ := newRealiser(j)
	got, err := r2.Realise(ctx, call, done)
	if err != nil {
		t.Fatal(err)
	}
	// The signal replays its committed outcome; the event, which had not
	// run, is refused by the now terminal process: decided once, now.
	if encode(t, got.Intents[:2]) != encode(t, want.Intents[:2]) {
		t.Fatalf("the committed prefix changed:\n%s", encode(t, got.Intents[:2]))
	}
	if got.Intents[2].ModelAddendum() != "[tool intent emit_process_event #2 refused: command_failed]" {
		t.Fatalf("event: %s", got.Intents[2].ModelAddendum())
	}
	// From now on every redrive is byte-stable, whatever changes live.
	r3, _ := newRealiser(j)
	again, _ := r3.Realise(ctx, call, done)
	if encode(t, again.Intents) != encode(t, got.Intents) {
		t.Fatal("a later redrive differs")
	}
}

func TestRetryDrainsOnlyTheFinalAttemptsIntents(t *testing.T) {
	ctx := context.Background()
	j := intent.NewMemoryJournal()
	r, c := newRealiser(j)
	var attempts atomic.Int32
	policy := intent.RetryPolicy{MaxAttempts: 3, Retry: func(d intent.Done) bool { return string(d.Result) == `"flaky"` }}
	rep, err := r.Run(ctx, call, policy, func(_ context.Context, n int) intent.AttemptOutcome {
		attempts.Add(1)
		res := `"flaky"`
		if n == 2 {
			res = `"ok"`
		}
		return intent.Done{Result: json.RawMessage(res), Intents: intent.V1(&intent.EmitTrigger{SessionID: session, Request: intent.TriggerRequest{SessionID: session, Trigger: "t", IdempotencyKey: fmt.Sprint("attempt-", n)}})}
	})
	if err != nil || rep.Attempt != 2 || attempts.Load() != 2 || len(rep.Intents) != 1 {
		t.Fatalf("report %+v, %v (%d attempts)", rep, err, attempts.Load())
	}
	trig, _ := intent.NewLocal(j).Triggers(ctx, session)
	if len(trig) != 1 || trig[0].Request.IdempotencyKey != "attempt-2" {
		t.Fatalf("triggers %+v", trig)
	}
	wantOnce(t, c, 1)
}

func TestCancellationBeforeResultCommitExecutesNoIntents(t *testing.T) {
	j := intent.NewMemoryJournal()
	r, c := newRealiser(j)
	ctx, cancel := context.WithCancel(context.Background())
	done, _ := startThenSignal(t)
	_, err := r.Run(ctx, call, intent.RetryPolicy{}, func(context.Context, int) intent.AttemptOutcome {
		cancel()
		return done
	})
	if err == nil {
		t.Fatal("a cancelled call committed")
	}
	wantOnce(t, c, 0)
	if _, err := j.Get(context.Background(), "attempt/session-1/turn/turn-1/call-1/final"); err == nil {
		t.Fatal("the attempt was committed")
	}
}

func TestCancellationAfterResultCommitDrainsAllIntentsUnconditionally(t *testing.T) {
	j := intent.NewMemoryJournal()
	r, c := newRealiser(j)
	ctx, cancel := context.WithCancel(context.Background())
	r.Pause = func(_ context.Context, p intent.PausePoint) {
		if p == intent.AfterToolAttemptCommit() {
			cancel()
		}
	}
	done, _ := startThenSignal(t)
	rep, err := r.Realise(ctx, call, done)
	if err != nil || len(rep.Intents) != 4 {
		t.Fatalf("%+v, %v", rep, err)
	}
	wantOnce(t, c, 4)
}

func TestOverBudgetIntentBatchRefusesEveryIntentAndExecutesZeroCommands(t *testing.T) {
	r, c := newRealiser(intent.NewMemoryJournal())
	var ins []intent.Intent
	for range intent.MaxPerKind + 1 {
		ins = append(ins, &intent.StartProcess{SessionID: session})
	}
	rep, err := r.Realise(context.Background(), call, intent.Done{Result: json.RawMessage(`1`), Intents: intent.V1(ins...)})
	if err != nil || len(rep.Intents) != len(ins) {
		t.Fatal(err)
	}
	for _, o := range rep.Intents {
		if !strings.HasSuffix(o.ModelAddendum(), "refused: per_kind_budget_exceeded]") {
			t.Fatal(o.ModelAddendum())
		}
	}
	wantOnce(t, c, 0)
}

func TestPendingAttemptRealisesNothing(t *testing.T) {
	r, c := newRealiser(intent.NewMemoryJournal())
	rep, err := r.Realise(context.Background(), call, intent.Pending{Completion: intent.Completion{OnCancel: intent.CancelCancelExternalWork}})
	if err != nil || rep.Intents != nil {
		t.Fatal(rep, err)
	}
	if _, ok := rep.Outcome.(intent.Pending); !ok {
		t.Fatalf("%#v", rep.Outcome)
	}
	wantOnce(t, c, 0)
}

func TestCommandRefusalIsARecordedOutcome(t *testing.T) {
	r, _ := newRealiser(intent.NewMemoryJournal())
	rep, err := r.Realise(context.Background(), call, intent.Done{Result: json.RawMessage(`1`), Intents: intent.V1(
		&intent.SignalProcess{SessionID: session, ProcessID: "nobody", SignalName: "x"})})
	if err != nil {
		t.Fatal(err)
	}
	ref := rep.Intents[0].(intent.Refused)
	if ref.Refusal.Code != intent.RefusalCommandFailed || ref.Refusal.CommandCode != intent.CodeProcessNotVisible || ref.Identity == nil {
		t.Fatalf("%+v", ref)
	}
}

func TestParentEndPoliciesAreLiteralAndRedriveStable(t *testing.T) {
	ctx := context.Background()
	j := intent.NewMemoryJournal()
	r, c := newRealiser(j)
	rep, err := r.Realise(ctx, call, intent.Done{Result: json.RawMessage(`1`), Intents: intent.V1(
		&intent.StartProcess{SessionID: session, OnParentEnd: intent.ParentEndAbandon},
		&intent.StartProcess{SessionID: session},
		&intent.StartProcess{SessionID: session},
	)})
	if err != nil {
		t.Fatal(err)
	}
	// The third process ends by itself before the turn does.
	third := rep.Intents[2].(intent.Executed).ParentEnd.ProcessID
	if _, err := intent.NewLocal(j).Complete(ctx, third, nil); err != nil {
		t.Fatal(err)
	}
	settled, err := r.SettleParentEnd(ctx, session, call.Scope)
	if err != nil || len(settled) != 3 {
		t.Fatalf("%+v, %v", settled, err)
	}
	if settled[0].Result != intent.ParentEndAbandoned || settled[1].Result != intent.ParentEndCancelled || settled[2].Result != intent.ParentEndRefused || settled[2].Code != intent.CodeProcessAlreadyTerminal {
		t.Fatalf("settled %+v", settled)
	}
	st, _ := intent.NewLocal(j).Process(ctx, settled[0].ProcessID)
	if st.Status != intent.ProcessRunning {
		t.Fatal("an abandoned process was touched")
	}
	st, _ = intent.NewLocal(j).Process(ctx, settled[1].ProcessID)
	if st.Status != intent.ProcessCancelled {
		t.Fatal("a cancel-on-parent-end process runs on")
	}
	first, _ := json.Marshal(settled)
	again, err := r.SettleParentEnd(ctx, session, call.Scope)
	second, _ := json.Marshal(again)
	if err != nil || string(first) != string(second) {
		t.Fatalf("redrive:\n%s\n%s", first, second)
	}
	if c.calls[settled[1].Identity.ReplayKey+":parent-end"] != 1 {
		t.Fatalf("cancellations %v", c.calls)
	}
}

func TestFinalReportsTheCommittedAttempt(t *testing.T) {
	ctx := context.Background()
	r := &intent.Realiser{Journal: intent.NewMemoryJournal()}
	call := intent.Call{Session: "s", Scope: intent.TurnScope("t"), CallID: "c"}
	if _, ok, err := r.Final(ctx, call); ok || err != nil {
		t.Fatalf("Final before a commit: ok %v, err %v", ok, err)
	}
	d := intent.Done{Result: json.RawMessage(`{"a":1}`), Intents: intent.V1(&intent.CancelProcess{SessionID: "s", ProcessID: "p"})}
	if _, err := r.Realise(ctx, call, d); err != nil {
		t.Fatal(err)
	}
	o, ok, err := r.Final(ctx, call)
	if err != nil || !ok {
		t.Fatalf("Final after a commit: ok %v, err %v", ok, err)
	}
	got := o.(intent.Done)
	if string(got.Result) != `{"a":1}` || len(got.Intents.Intents) != 1 {
		t.Fatalf("Final = %+v", got)
	}
}
