package agent_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/starweaver-go/starweaver/core/agent"
	"github.com/starweaver-go/starweaver/core/effect"
	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/store/sqlite"
	"github.com/starweaver-go/starweaver/core/tool"
)

// Crash tests: a child process (this test binary, running
// TestCrashWorker) runs an agent whose non-idempotent tool appends a line
// to a file, over an SQLite session store and effect journal; it is killed
// with SIGKILL at a chosen point, and the test recovers the session from
// the same database file.

// crashEnv names the environment of a crash worker.
const (
	crashEnvMode    = "STARWEAVER_CRASH_WORKER"  // "after_tool" or "in_tool"
	crashEnvDB      = "STARWEAVER_CRASH_DB"      // the SQLite file
	crashEnvEffects = "STARWEAVER_CRASH_EFFECTS" // the file send appends to
)

// crashWait bounds every wait on a crash worker.
const crashWait = 60 * time.Second

// crashSend is the worker's non-idempotent tool: it appends "sent to X" to
// path, then calls after (which may block).
func crashSend(path string, runs *atomic.Int32, after func(tc *tool.Context)) *tool.Function {
	return tool.New("send", "Send a message", map[string]any{
		"type": "object", "properties": map[string]any{"to": map[string]any{"type": "string"}},
	}, func(_ context.Context, tc *tool.Context, args json.RawMessage) (tool.Result, error) {
		runs.Add(1)
		var a struct{ To string }
		if err := json.Unmarshal(args, &a); err != nil {
			return tool.Result{}, err
		}
		f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
		if err != nil {
			return tool.Result{}, err
		}
		_, werr := fmt.Fprintf(f, "sent to %s\n", a.To)
		if err := f.Close(); werr != nil || err != nil {
			return tool.Result{}, fmt.Errorf("appending: %v %v", werr, err)
		}
		if after != nil {
			after(tc)
		}
		return tool.JSON(map[string]any{"sent": true}), nil
	}).WithEffect(effect.ClassNonIdempotentWrite)
}

// durableOn keeps b's sessions and effect journal in db, signed with
// storeKey.
func durableOn(b *agent.Builder, db *sqlite.DB, opts ...agent.JournalOption) *agent.Builder {
	return b.StateKey(storeKey).SessionStore(sqlite.NewSessionStore(db)).EffectJournal(sqlite.NewEffectStore(db), opts...)
}

// crashAgent is the agent of both sides, over the database file db.
func crashAgent(t testing.TB, db *sqlite.DB, m model.Model, send tool.Tool) *agent.Agent {
	t.Helper()
	a, err := durableOn(agent.NewBuilder(m).Tool(send), db).Build()
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// TestCrashWorker is the child process of the crash tests (skipped
// otherwise). It prints "ready <session id>" once it reached the point
// where it waits to be killed: in the model's second request, after send
// completed (after_tool), or inside send, after its line was written
// (in_tool).
func TestCrashWorker(t *testing.T) {
	w := startCrashWorker(t, "a child process of the crash tests")
	mode, ready := w.mode, w.ready
	var requests atomic.Int32
	m := model.NewFunctionModel(func(context.Context, []model.Message, model.Params) (model.Message, error) {
		if requests.Add(1) == 1 {
			return calls(model.Call("call_send", "send", map[string]string{"to": "ada"})), nil
		}
		if mode == "after_tool" {
			ready()
		}
		return model.Message{}, fmt.Errorf("the worker was not killed")
	})
	var runs atomic.Int32
	send := crashSend(os.Getenv(crashEnvEffects), &runs, func(*tool.Context) {
		if mode == "in_tool" {
			ready()
		}
	})
	s := crashAgent(t, w.db, m, send).NewSession()
	w.id = s.ID()
	_, err := s.Run(context.Background(), "greet ada")
	t.Fatalf("the worker was not killed (run ended with %v)", err)
}

// crashWorker is a crash worker process: its mode and database, from its
// environment, and the session id it reports when ready.
type crashWorker struct {
	mode string
	db   *sqlite.DB
	id   string
}

// startCrashWorker opens the worker's database, or skips the test (what
// names the tests it is a worker of) outside a worker process.
func startCrashWorker(t *testing.T, what string) *crashWorker {
	mode := os.Getenv(crashEnvMode)
	if mode == "" {
		t.Skip(what)
	}
	db, err := sqlite.Open(context.Background(), os.Getenv(crashEnvDB))
	if err != nil {
		t.Fatal(err)
	}
	return &crashWorker{mode: mode, db: db}
}

// ready says "ready <session id>" and waits to be killed; the bound only
// keeps an orphan from living on.
func (w *crashWorker) ready() {
	fmt.Printf("ready %s\n", w.id)
	time.Sleep(crashWait)
}

// crashChild starts the crash worker test worker in mode over dir's files
// and returns the session id it reports once ready, then kills it with
// SIGKILL.
func crashChild(t *testing.T, worker, mode, dbPath, effects string) string {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^"+worker+"$", "-test.count=1")
	cmd.Env = append(os.Environ(), crashEnvMode+"="+mode, crashEnvDB+"="+dbPath, crashEnvEffects+"="+effects)
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
	killed := false
	t.Cleanup(func() {
		if !killed {
			_ = cmd.Process.Kill()
			<-exited
		}
	})
	lines := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if id, ok := strings.CutPrefix(sc.Text(), "ready "); ok {
				lines <- id
				break
			}
		}
		_, _ = bufio.NewReader(out).WriteTo(&bytes.Buffer{}) // drain until the child is gone
		exited <- cmd.Wait()
	}()
	var id string
	select {
	case id = <-lines:
	case err := <-exited:
		killed = true
		t.Fatalf("the worker exited before it was ready: %v\n%s", err, stderr.String())
	case <-time.After(crashWait):
		t.Fatalf("the worker was not ready within %v\n%s", crashWait, stderr.String())
	}
	if err := cmd.Process.Kill(); err != nil { // SIGKILL
		t.Fatal(err)
	}
	killed = true
	select {
	case <-exited:
	case <-time.After(crashWait):
		t.Fatal("the killed worker did not exit")
	}
	return id
}

// effectLines reads the lines the send tool appended.
func effectLines(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
}

// recoverCrashed opens the session id from dbPath in this process and
// recovers it; it returns the result and how often send ran here.
func recoverCrashed(t *testing.T, dbPath, effects, id string) (*agent.RunResult, int32) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), crashWait)
	defer cancel()
	db, err := sqlite.Open(ctx, dbPath)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	var runs atomic.Int32
	a := crashAgent(t, db, model.NewTestModel(text("ada was greeted")), crashSend(effects, &runs, nil))
	s, err := a.OpenSession(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if f, ok := s.InFlight(); !ok || len(f.Calls) != 1 || f.Calls[0].ID != "call_send" {
		t.Fatalf("the killed worker left no run in flight: %+v %v", f, ok)
	}
	res, err := s.Recover(ctx)
	if err != nil || res.Status != agent.StatusCompleted || res.Output != "ada was greeted" {
		t.Fatalf("Recover: %+v %v", res, err)
	}
	return res, runs.Load()
}

// Killed after the tool ran and before the run ended: the effect happened
// exactly once, and the recovered run completes with the recorded return.
func TestCrashAfterToolRecovers(t *testing.T) {
	dir := t.TempDir()
	dbPath, effects := filepath.Join(dir, "sw.db"), filepath.Join(dir, "effects.txt")
	id := crashChild(t, "TestCrashWorker", "after_tool", dbPath, effects)
	if lines := effectLines(t, effects); len(lines) != 1 {
		t.Fatalf("before recovery: %q", lines)
	}
	res, runs := recoverCrashed(t, dbPath, effects, id)
	if lines := effectLines(t, effects); len(lines) != 1 || runs != 0 {
		t.Fatalf("after recovery the effect file holds %q (send ran %d times here)", lines, runs)
	}
	if ret := lastReturn(t, res.Messages, "call_send"); ret.IsError || ret.Metadata[tool.MetaReplayed] != true {
		t.Fatalf("the recovered call returned %+v", ret)
	}
}

// Killed inside the tool, after its effect: the call is reported
// ambiguous and not run again, and the run completes.
func TestCrashInToolIsAmbiguous(t *testing.T) {
	dir := t.TempDir()
	dbPath, effects := filepath.Join(dir, "sw.db"), filepath.Join(dir, "effects.txt")
	id := crashChild(t, "TestCrashWorker", "in_tool", dbPath, effects)
	res, runs := recoverCrashed(t, dbPath, effects, id)
	if lines := effectLines(t, effects); len(lines) != 1 || runs != 0 {
		t.Fatalf("after recovery the effect file holds %q (send ran %d times here)", lines, runs)
	}
	ret := lastReturn(t, res.Messages, "call_send")
	if !ret.IsError || ret.Metadata[tool.MetaAmbiguous] != true {
		t.Fatalf("the interrupted call returned %+v", ret)
	}
}
