package intent_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/starweaver-go/starweaver/core/intent"
	"github.com/starweaver-go/starweaver/core/store/postgres"
	"github.com/starweaver-go/starweaver/core/store/postgres/pgtest"
	"github.com/starweaver-go/starweaver/core/store/sqlite"
)

// Crash tests: a child process (this test binary, running
// TestIntentCrashWorker) realises a tool call's intents over a durable
// journal and stops at a pause point, where it is killed with SIGKILL;
// the test then redrives the call from the same database and checks that
// each intent was realised exactly once, with the outcomes of an
// uninterrupted run, byte for byte.

const (
	crashEnvPoint   = "STARWEAVER_INTENT_CRASH_POINT"   // a PausePoint's String()
	crashEnvJournal = "STARWEAVER_INTENT_CRASH_JOURNAL" // "sqlite:<path>" or "postgres:<dsn>"
)

// crashWait bounds every wait on a crash worker.
const crashWait = 60 * time.Second

// openJournal opens the journal spec names.
func openJournal(t testing.TB, spec string) intent.Journal {
	t.Helper()
	ctx := context.Background()
	backend, where, _ := strings.Cut(spec, ":")
	switch backend {
	case "sqlite":
		db, err := sqlite.Open(ctx, where)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		return sqlite.NewIntentJournal(db)
	case "postgres":
		db, err := postgres.Open(ctx, where)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(db.Close)
		return postgres.NewIntentJournal(db)
	}
	t.Fatalf("unknown journal %q", spec)
	return nil
}

func parsePoint(s string) (intent.PausePoint, bool) {
	if s == string(intent.PauseAfterToolAttemptCommit) {
		return intent.AfterToolAttemptCommit(), true
	}
	kind, rest, ok := strings.Cut(strings.TrimSuffix(s, ")"), "(")
	i, err := strconv.Atoi(rest)
	if !ok || err != nil {
		return intent.PausePoint{}, false
	}
	return intent.PausePoint{Kind: intent.PauseKind(kind), Index: i}, true
}

// crashAttempt is the worker's one attempt: a start, then a signal, an
// event and a trigger.
func crashAttempt(t *testing.T) intent.AttemptFunc {
	done, _ := startThenSignal(t)
	return func(context.Context, int) intent.AttemptOutcome { return done }
}

// TestIntentCrashWorker is the child process of the crash tests (skipped
// otherwise). It prints "ready" at its pause point and waits there to be
// killed.
func TestIntentCrashWorker(t *testing.T) {
	spec := os.Getenv(crashEnvJournal)
	if spec == "" {
		t.Skip("a child process of the crash tests")
	}
	at, ok := parsePoint(os.Getenv(crashEnvPoint))
	if !ok {
		t.Fatalf("bad pause point %q", os.Getenv(crashEnvPoint))
	}
	r := &intent.Realiser{Journal: openJournal(t, spec), Pause: func(_ context.Context, p intent.PausePoint) {
		if p == at {
			fmt.Println("ready")
			time.Sleep(crashWait) // wait to be killed; the bound only keeps an orphan from living on
		}
	}}
	_, err := r.Run(context.Background(), call, intent.RetryPolicy{}, crashAttempt(t))
	t.Fatalf("the worker was not killed (the run ended with %v)", err)
}

// crashChild runs a crash worker to point over the journal spec, and
// kills it with SIGKILL once it is there.
func crashChild(t *testing.T, spec string, point intent.PausePoint) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestIntentCrashWorker$", "-test.count=1")
	cmd.Env = append(os.Environ(), crashEnvJournal+"="+spec, crashEnvPoint+"="+point.String())
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	ready := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if sc.Text() == "ready" {
				close(ready)
				break
			}
		}
		_, _ = bufio.NewReader(out).WriteTo(&bytes.Buffer{}) // drain until the child is gone
		exited <- cmd.Wait()
	}()
	select {
	case <-ready:
	case err := <-exited:
		t.Fatalf("the worker exited before it was ready: %v\n%s", err, stderr.String())
	case <-time.After(crashWait):
		_ = cmd.Process.Kill()
		<-exited
		t.Fatalf("the worker was not ready within %v\n%s", crashWait, stderr.String())
	}
	if err := cmd.Process.Kill(); err != nil { // SIGKILL
		t.Fatal(err)
	}
	select {
	case <-exited:
	case <-time.After(crashWait):
		t.Fatal("the killed worker did not exit")
	}
}

func crashPoints() []intent.PausePoint {
	points := []intent.PausePoint{intent.AfterToolAttemptCommit()}
	for i := range 4 {
		points = append(points, intent.BeforeProcessCommand(i), intent.AfterProcessCommandCommit(i))
	}
	return points
}

// runCrashLaws kills a worker at each pause point and redrives, over the
// journal newSpec returns (a fresh database each time).
func runCrashLaws(t *testing.T, newSpec func(t *testing.T) string) {
	ctx := context.Background()
	clean, err := (&intent.Realiser{Journal: intent.NewMemoryJournal()}).Run(ctx, call, intent.RetryPolicy{}, crashAttempt(t))
	if err != nil {
		t.Fatal(err)
	}
	want := encode(t, clean.Intents)
	for _, p := range crashPoints() {
		t.Run(p.String(), func(t *testing.T) {
			spec := newSpec(t)
			crashChild(t, spec, p)
			j := openJournal(t, spec)
			r, c := newRealiser(j)
			got, err := r.Run(ctx, call, intent.RetryPolicy{}, func(context.Context, int) intent.AttemptOutcome {
				t.Fatal("the committed attempt ran again")
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if !got.Replayed || encode(t, got.Intents) != want {
				t.Fatalf("redrive (replayed %v):\n%s\nwant\n%s", got.Replayed, encode(t, got.Intents), want)
			}
			// Exactly once: the process has its start, one signal and one
			// event; one trigger occurrence; and only the commands the
			// worker had not committed reached the runtime here.
			pid := got.Intents[0].(intent.Executed).ParentEnd.ProcessID
			st, err := intent.NewLocal(j).Process(ctx, pid)
			if err != nil || len(st.Entries) != 3 {
				t.Fatalf("process %+v, %v", st, err)
			}
			trig, err := intent.NewLocal(j).Triggers(ctx, session)
			if err != nil || len(trig) != 1 {
				t.Fatalf("triggers %+v, %v", trig, err)
			}
			wantRedriven := 4
			switch p.Kind {
			case intent.PauseBeforeProcessCommand:
				wantRedriven = 4 - p.Index
			case intent.PauseAfterProcessCommandCommit:
				wantRedriven = 4 - p.Index // intent Index replays its committed command
			}
			wantOnce(t, c, wantRedriven)
			// A second redrive is byte-stable and reaches no runtime.
			r2, c2 := newRealiser(j)
			again, err := r2.Run(ctx, call, intent.RetryPolicy{}, nil)
			if err != nil || encode(t, again.Intents) != want {
				t.Fatalf("second redrive: %v", err)
			}
			wantOnce(t, c2, 0)
			// The turn ends: its process is cancelled once.
			settled, err := r.SettleParentEnd(ctx, session, call.Scope)
			if err != nil || len(settled) != 1 || settled[0].Result != intent.ParentEndCancelled {
				t.Fatalf("parent end %+v, %v", settled, err)
			}
		})
	}
}

func TestCrashLawsOnSQLite(t *testing.T) {
	runCrashLaws(t, func(t *testing.T) string { return "sqlite:" + filepath.Join(t.TempDir(), "sw.db") })
}

func TestCrashLawsOnPostgres(t *testing.T) {
	runCrashLaws(t, func(t *testing.T) string { return "postgres:" + pgtest.DSN(t) })
}

// A process ends while the worker is down, after the signal's command
// committed: the redrive replays the committed prefix byte for byte, and
// the intent that had not run is decided now, once.
func TestRedriveIsByteStableAfterLiveTerminalMutationOnSQLite(t *testing.T) {
	ctx := context.Background()
	spec := "sqlite:" + filepath.Join(t.TempDir(), "sw.db")
	clean, _ := (&intent.Realiser{Journal: intent.NewMemoryJournal()}).Run(ctx, call, intent.RetryPolicy{}, crashAttempt(t))
	crashChild(t, spec, intent.AfterProcessCommandCommit(1))
	j := openJournal(t, spec)
	_, pid := startThenSignal(t)
	if _, err := intent.NewLocal(j).Complete(ctx, pid, json.RawMessage(`"done"`)); err != nil {
		t.Fatal(err)
	}
	got, err := (&intent.Realiser{Journal: j}).Run(ctx, call, intent.RetryPolicy{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if encode(t, got.Intents[:2]) != encode(t, clean.Intents[:2]) {
		t.Fatalf("the committed prefix changed:\n%s", encode(t, got.Intents[:2]))
	}
	if got.Intents[2].ModelAddendum() != "[tool intent emit_process_event #2 refused: command_failed]" {
		t.Fatal(got.Intents[2].ModelAddendum())
	}
	settled, err := (&intent.Realiser{Journal: j}).SettleParentEnd(ctx, session, call.Scope)
	if err != nil || settled[0].Result != intent.ParentEndRefused || settled[0].Code != intent.CodeProcessAlreadyTerminal {
		t.Fatalf("%+v, %v", settled, err)
	}
}
