package bridge

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/starweaver-go/starweaver/core/agent"
	"github.com/starweaver-go/starweaver/core/bundles/userinput"
	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/store"
	"github.com/starweaver-go/starweaver/core/store/postgres/pgtest"
)

// storeKey is the state key of the agents that share a store in these tests.
const storeKey = "capi store key"

// openStoreHandle opens a store through the C ABI; the handle is released when
// the test ends.
func openStoreHandle(t *testing.T, spec string) int64 {
	t.Helper()
	s := abi.StoreOpen([]byte(spec), none)
	if s.RC != 0 || s.Handle == 0 {
		t.Fatalf("sw_store_open(%s): %+v", spec, s)
	}
	t.Cleanup(func() { abi.Release(s.Handle, none) })
	return s.Handle
}

func sqliteSpec(path string) string {
	b, _ := json.Marshal(storeSpec{Kind: "sqlite", Path: path})
	return string(b)
}

// askArgs are valid arguments of ask_user_question, whose first call
// always waits for approval.
func askArgs() map[string]any {
	opt := func(l string) map[string]any { return map[string]any{"label": l, "description": "choose " + l} }
	return map[string]any{"questions": []any{map[string]any{
		"question": "Which database?", "header": "Database", "multiSelect": false,
		"options": []any{opt("Postgres"), opt("SQLite")},
	}}}
}

var (
	// asking calls ask_user_question; done is a final answer.
	asking = model.CallsResponse(model.Call("call_ask", userinput.ToolName, askArgs()))
	done   = model.Response(model.TextPart("done"))
)

// storedAgentSpec is an agent with the user_input bundle over the store
// handle st, whose test model gives responses.
func storedAgentSpec(t *testing.T, st int64, responses ...model.Message) []byte {
	t.Helper()
	if responses == nil {
		responses = []model.Message{}
	}
	b, err := json.Marshal(responses)
	if err != nil {
		t.Fatal(err)
	}
	m := abi.ModelNew([]byte(`{"kind":"test","responses":`+string(b)+`}`), none)
	if m.RC != 0 {
		t.Fatalf("sw_model_new: %+v", m)
	}
	t.Cleanup(func() { abi.Release(m.Handle, none) })
	return fmt.Appendf(nil, `{"model":%d,"state_key":%q,"session_store":%d,"toolsets":[{"bundle":"user_input"}]}`, m.Handle, storeKey, st)
}

func newStoredAgent(t *testing.T, st int64, responses ...model.Message) int64 {
	t.Helper()
	a := abi.AgentNew(storedAgentSpec(t, st, responses...), none)
	if a.RC != 0 {
		t.Fatalf("sw_agent_new: %+v", a)
	}
	t.Cleanup(func() { abi.Release(a.Handle, none) })
	return a.Handle
}

// waitingSession runs a new session of the agent handle a to waiting and
// returns its id.
func waitingSession(t *testing.T, a int64) string {
	t.Helper()
	ag, err := lookup[*agent.Agent](a)
	if err != nil {
		t.Fatal(err)
	}
	s := ag.NewSession()
	res, err := s.Run(context.Background(), "set up")
	if err != nil || res.Status != agent.StatusWaiting {
		t.Fatalf("run: %+v %v", res, err)
	}
	return s.ID()
}

// session looks up the session behind handle h.
func session(t *testing.T, h int64) *agent.Session {
	t.Helper()
	s, err := lookup[*agent.Session](h)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func release(t *testing.T, h int64) {
	t.Helper()
	if s := abi.Release(h, none); s.RC != 0 {
		t.Fatalf("sw_release(%d): %+v", h, s)
	}
}

func deny(s *agent.Session) agent.Resolution {
	return agent.Resolution{Approvals: []agent.ApprovalDecision{{ID: s.Pending()[0].ID, Approved: false, Reason: "no"}}}
}

// wantABIError checks that err reaches the host as type slug with code.
func wantABIError(t *testing.T, err error, slug, code string) {
	t.Helper()
	if err == nil {
		t.Fatalf("err = nil, want %s/%s", slug, code)
	}
	e := toABIError(err)
	if e.Type != slug || e.Code != code {
		t.Fatalf("error %v reaches the host as %s/%q, want %s/%q", err, e.Type, e.Code, slug, code)
	}
}

func TestStoreOpenSpecs(t *testing.T) {
	noLeaks(t)
	before := openDatabases()
	for spec, msg := range map[string]string{
		`{"kind":"redis"}`:                       "unknown store kind",
		`{"kind":"sqlite"}`:                      `needs a "path"`,
		`{"kind":"postgres"}`:                    `needs a "dsn"`,
		`{"kind":"sqlite","path":"x","pth":"y"}`: "unknown field",
		`[`:                                      "",
	} {
		wantError(t, abi.StoreOpen([]byte(spec), none), "invalid_spec", msg)
	}
	wantError(t, abi.StoreOpen(nil, none), "invalid_spec", "")
	wantError(t, abi.StoreOpen([]byte(sqliteSpec(":memory:")), nullOut), "invalid_argument", "out must not be NULL")
	// A file that cannot be a database.
	dir := t.TempDir()
	wantError(t, abi.StoreOpen([]byte(sqliteSpec(dir)), none), "store_unavailable", "")
	// A server that does not answer; the error never repeats the DSN's
	// password.
	s := abi.StoreOpen([]byte(`{"kind":"postgres","dsn":"postgres://u:s3cret-pw@127.0.0.1:1/db?sslmode=disable&connect_timeout=5"}`), none)
	wantError(t, s, "store_unavailable", "")
	if strings.Contains(s.Err, "s3cret-pw") {
		t.Fatalf("the error repeats the password: %s", s.Err)
	}
	if n := openDatabases(); n != before {
		t.Fatalf("failed opens left %d databases open", n-before)
	}
}

// Stores of one file share one database, closed with its last handle.
func TestStoreSharesOneDatabasePerLocation(t *testing.T) {
	noLeaks(t)
	before := openDatabases()
	dir := t.TempDir()
	t.Chdir(dir)
	abs := abi.StoreOpen([]byte(sqliteSpec(filepath.Join(dir, "shared.db"))), none)
	rel := abi.StoreOpen([]byte(sqliteSpec("shared.db")), none)
	other := abi.StoreOpen([]byte(sqliteSpec("other.db")), none)
	for _, s := range []abiStatus{abs, rel, other} {
		if s.RC != 0 {
			t.Fatalf("sw_store_open: %+v", s)
		}
	}
	a, _ := lookup[*storeHandle](abs.Handle)
	r, _ := lookup[*storeHandle](rel.Handle)
	o, _ := lookup[*storeHandle](other.Handle)
	if a.db != r.db || a.db == o.db {
		t.Fatal("one file must be one database, two files two")
	}
	if got := openDatabases(); got != before+2 {
		t.Fatalf("open databases = %d, want %d", got, before+2)
	}
	release(t, abs.Handle)
	release(t, other.Handle)
	if got := openDatabases(); got != before+1 {
		t.Fatalf("after two releases: open databases = %d, want %d (the shared one stays)", got, before+1)
	}
	release(t, rel.Handle)
	if got := openDatabases(); got != before {
		t.Fatalf("after the last release: open databases = %d, want %d", got, before)
	}
	// Private in-memory databases are never shared.
	m1 := openStoreHandle(t, sqliteSpec(":memory:"))
	m2 := openStoreHandle(t, sqliteSpec(":memory:"))
	x, _ := lookup[*storeHandle](m1)
	y, _ := lookup[*storeHandle](m2)
	if x.db == y.db {
		t.Fatal("two :memory: stores share a database")
	}
}

// An agent keeps its store's database open after the store handle is
// released, until the agent is gone.
func TestAgentKeepsItsDatabaseOpen(t *testing.T) {
	noLeaks(t)
	before := openDatabases()
	path := filepath.Join(t.TempDir(), "s.db")
	st := abi.StoreOpen([]byte(sqliteSpec(path)), none)
	if st.RC != 0 {
		t.Fatalf("sw_store_open: %+v", st)
	}
	a := abi.AgentNew(storedAgentSpec(t, st.Handle, asking), none)
	if a.RC != 0 {
		t.Fatalf("sw_agent_new: %+v", a)
	}
	release(t, st.Handle)
	// The agent still saves its sessions.
	waitingSession(t, a.Handle)
	if got := openDatabases(); got != before+1 {
		t.Fatalf("open databases = %d, want %d while the agent lives", got, before+1)
	}
	release(t, a.Handle)
	deadline := time.Now().Add(10 * time.Second)
	for openDatabases() != before {
		if time.Now().After(deadline) {
			t.Fatalf("the database stayed open after its agent was released and collected")
		}
		runtime.GC()
		time.Sleep(10 * time.Millisecond) // the cleanups run on their own goroutine after a GC
	}
}

func TestABIStoreNullsAndBadHandles(t *testing.T) {
	noLeaks(t)
	st := openStoreHandle(t, sqliteSpec(":memory:"))
	a := newStoredAgent(t, st)
	wantError(t, abi.AgentOpenSession(a, []byte("conv_x"), nil, nullOut), "invalid_argument", "out must not be NULL")
	wantError(t, abi.AgentOpenSession(a, nil, nil, none), "invalid_argument", "id must not be NULL")
	const unknown = 1 << 60
	for _, h := range []int64{0, -1, unknown} {
		wantError(t, abi.AgentOpenSession(h, []byte("conv_x"), nil, none), "bad_handle", "unknown handle")
		wantError(t, abi.SessionClaimedResume(h, none), "bad_handle", "unknown handle")
		wantError(t, abi.SessionAbandonResume(h, none), "bad_handle", "unknown handle")
		if s := abi.SessionAbandonResume(h, nullErr); s.RC != -1 || s.Err != "" {
			t.Fatalf("sw_session_abandon_resume(%d) with NULL err = %+v", h, s)
		}
		wantError(t, abi.SessionAbandonInFlight(h, none), "bad_handle", "unknown handle")
		if s := abi.SessionAbandonInFlight(h, nullErr); s.RC != -1 || s.Err != "" {
			t.Fatalf("sw_session_abandon_in_flight(%d) with NULL err = %+v", h, s)
		}
	}
	// Handles of the wrong kind, both ways.
	wantError(t, abi.AgentOpenSession(st, []byte("conv_x"), nil, none), "bad_handle", "not a")
	wantError(t, abi.SessionClaimedResume(st, none), "bad_handle", "not a")
	wantError(t, abi.SessionAbandonResume(a, none), "bad_handle", "not a")
	wantError(t, abi.SessionAbandonInFlight(a, none), "bad_handle", "not a")
	wantError(t, abi.AgentNew(fmt.Appendf(nil, `{"model":%d,"session_store":%d}`, newModel(t), a), none), "bad_handle", "not a")
	wantError(t, abi.AgentNew(fmt.Appendf(nil, `{"model":%d,"session_store":%d}`, newModel(t), unknown), none), "bad_handle", "unknown handle")
	// Malformed open options.
	wantError(t, abi.AgentOpenSession(a, []byte("conv_x"), []byte(`{"allow":1}`), none), "invalid_spec", "unknown field")
	// A released store handle is unknown from then on.
	s := abi.StoreOpen([]byte(sqliteSpec(":memory:")), none)
	release(t, s.Handle)
	wantError(t, abi.Release(s.Handle, none), "bad_handle", "unknown handle")
}

func TestOpenSessionByID(t *testing.T) {
	noLeaks(t)
	st := openStoreHandle(t, sqliteSpec(filepath.Join(t.TempDir(), "s.db")))
	a := newStoredAgent(t, st, asking)
	id := waitingSession(t, a)

	wantError(t, abi.AgentOpenSession(a, []byte("conv_missing"), nil, none), "session_not_found", "conv_missing")
	plain := abi.AgentNew(fmt.Appendf(nil, `{"model":%d}`, newModel(t)), none)
	defer release(t, plain.Handle)
	wantError(t, abi.AgentOpenSession(plain.Handle, []byte(id), nil, none), "config", "no session store")

	// A second agent over the same store (another worker) opens it waiting.
	b := newStoredAgent(t, st, done)
	first := abi.AgentOpenSession(b, []byte(id), nil, none)
	second := abi.AgentOpenSession(b, []byte(id), []byte(`{}`), none)
	if first.RC != 0 || second.RC != 0 || first.Handle == second.Handle {
		t.Fatalf("sw_agent_open_session: %+v %+v", first, second)
	}
	defer release(t, first.Handle)
	defer release(t, second.Handle)
	s1, s2 := session(t, first.Handle), session(t, second.Handle)
	if s1.ID() != id || !s1.Waiting() {
		t.Fatalf("opened session %s waiting=%v, want %s waiting", s1.ID(), s1.Waiting(), id)
	}
	if c := abi.SessionClaimedResume(first.Handle, none); c.RC != 0 || c.Out != "null" {
		t.Fatalf("sw_session_claimed_resume of a waiting session = %+v", c)
	}
	// One resume runs; the other, from a handle loaded at the same time,
	// is refused before it runs anything.
	res, err := s1.Resume(context.Background(), deny(s1))
	if err != nil || res.Status != agent.StatusCompleted {
		t.Fatalf("resume: %+v %v", res, err)
	}
	_, err = s2.Resume(context.Background(), deny(s2))
	wantABIError(t, err, "state", "session_conflict")
	// Opened anew, it is the completed conversation.
	again := abi.AgentOpenSession(b, []byte(id), nil, none)
	if again.RC != 0 {
		t.Fatalf("sw_agent_open_session: %+v", again)
	}
	defer release(t, again.Handle)
	if s := session(t, again.Handle); s.Waiting() || len(s.Messages()) != len(res.Messages) {
		t.Fatalf("reopened: waiting=%v, %d messages, want %d", s.Waiting(), len(s.Messages()), len(res.Messages))
	}
}

// A resume whose worker stops after claiming the run is reported and can
// be abandoned; the worker, if it was in fact alive, then fails to save.
func TestClaimedResumeIsReportedAndAbandoned(t *testing.T) {
	noLeaks(t)
	st := openStoreHandle(t, sqliteSpec(filepath.Join(t.TempDir(), "s.db")))
	h, _ := lookup[*storeHandle](st)
	// The worker: a model that asks the question, then blocks until released.
	inModel, proceed := make(chan struct{}), make(chan struct{})
	calls := 0
	m := model.NewFunctionModel(func(ctx context.Context, _ []model.Message, _ model.Params) (model.Message, error) {
		calls++
		if calls == 1 {
			return model.CallsResponse(model.Call("call_ask", userinput.ToolName, askArgs())), nil
		}
		close(inModel)
		<-proceed
		return model.Response(model.TextPart("done")), nil
	})
	worker := agent.NewBuilder(m).Toolset(userinput.Tools()).StateKey([]byte(storeKey)).SessionStore(h.sessionStore()).MustBuild()
	ws := worker.NewSession()
	if res, err := ws.Run(context.Background(), "set up"); err != nil || res.Status != agent.StatusWaiting {
		t.Fatalf("run: %+v %v", res, err)
	}
	resumed := make(chan error, 1)
	go func() {
		_, err := ws.Resume(context.Background(), deny(ws))
		resumed <- err
	}()
	select {
	case <-inModel:
	case <-time.After(10 * time.Second):
		t.Fatal("the resume never reached the model")
	}
	defer func() {
		// Unblocks the worker if the test failed before it did.
		select {
		case <-proceed:
		default:
			close(proceed)
		}
	}()

	// Another worker sees the claim.
	a := newStoredAgent(t, st)
	o := abi.AgentOpenSession(a, []byte(ws.ID()), nil, none)
	if o.RC != 0 {
		t.Fatalf("sw_agent_open_session: %+v", o)
	}
	defer release(t, o.Handle)
	c := abi.SessionClaimedResume(o.Handle, none)
	var claim claimedResume
	if c.RC != 0 || json.Unmarshal([]byte(c.Out), &claim) != nil {
		t.Fatalf("sw_session_claimed_resume = %+v", c)
	}
	if claim.RunID == "" || len(claim.Pending) != 1 || claim.Pending[0].ToolName != userinput.ToolName ||
		len(claim.Resolution.Approvals) != 1 || claim.Resolution.Approvals[0].Approved ||
		time.Since(time.UnixMilli(claim.ClaimedAtMS)) > time.Minute {
		t.Fatalf("claim = %+v", claim)
	}
	if c := abi.SessionClaimedResume(o.Handle, nullOut); c.RC != 0 || c.Out != "" {
		t.Fatalf("sw_session_claimed_resume with NULL out = %+v", c)
	}
	_, err := session(t, o.Handle).Run(context.Background(), "more")
	wantABIError(t, err, "state", "resume_claimed")

	// Abandoning it settles the session: idle, the call closed.
	if s := abi.SessionAbandonResume(o.Handle, none); s.RC != 0 {
		t.Fatalf("sw_session_abandon_resume: %+v", s)
	}
	if c := abi.SessionClaimedResume(o.Handle, none); c.RC != 0 || c.Out != "null" {
		t.Fatalf("after abandoning: %+v", c)
	}
	wantError(t, abi.SessionAbandonResume(o.Handle, none), "state", "no claimed resume")
	wantError(t, abi.SessionAbandonInFlight(o.Handle, none), "state", "no run in flight")

	// The worker was alive after all: its outcome is refused.
	close(proceed)
	select {
	case err := <-resumed:
		wantABIError(t, err, "state", "session_conflict")
	case <-time.After(10 * time.Second):
		t.Fatal("the worker's resume never ended")
	}
}

// The same two workers over PostgreSQL (skipped without a server, see pgtest).
func TestOpenSessionByIDPostgres(t *testing.T) {
	noLeaks(t)
	dsn := pgtest.DSN(t)
	b, _ := json.Marshal(storeSpec{Kind: "postgres", DSN: dsn})
	st := openStoreHandle(t, string(b))
	a := newStoredAgent(t, st, asking)
	id := waitingSession(t, a)
	other := newStoredAgent(t, openStoreHandle(t, string(b)), done)
	x := abi.AgentOpenSession(other, []byte(id), nil, none)
	y := abi.AgentOpenSession(a, []byte(id), nil, none)
	if x.RC != 0 || y.RC != 0 {
		t.Fatalf("sw_agent_open_session: %+v %+v", x, y)
	}
	defer release(t, x.Handle)
	defer release(t, y.Handle)
	sx, sy := session(t, x.Handle), session(t, y.Handle)
	if res, err := sx.Resume(context.Background(), deny(sx)); err != nil || res.Status != agent.StatusCompleted {
		t.Fatalf("resume: %+v %v", res, err)
	}
	_, err := sy.Resume(context.Background(), deny(sy))
	wantABIError(t, err, "state", "session_conflict")
	wantError(t, abi.AgentOpenSession(a, []byte("conv_missing"), nil, none), "session_not_found", "")
}

func TestStoreErrorsReachTheHost(t *testing.T) {
	for err, want := range map[error]string{
		fmt.Errorf("agent: %w: %q", agent.ErrSessionNotFound, "conv_x"):           "session_not_found",
		fmt.Errorf("agent: loading session: %w", store.ErrUnavailable):            "store_unavailable",
		fmt.Errorf("sqlite: %w", store.ErrClosed):                                 "store_unavailable",
		fmt.Errorf("%w: run x", agent.ErrResumeClaimed):                           "state/resume_claimed",
		fmt.Errorf("%w: saving: %w", agent.ErrSessionConflict, store.ErrConflict): "state/session_conflict",
		fmt.Errorf("%w: not waiting", agent.ErrState):                             "state",
	} {
		e := toABIError(err)
		got := e.Type
		if e.Code != "" {
			got += "/" + e.Code
		}
		if got != want {
			t.Errorf("%v reaches the host as %s, want %s", err, got, want)
		}
	}
}
