package main

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/starweaver-go/starweaver/capi/capitest"
	"github.com/starweaver-go/starweaver/capi/internal/bridge"
	"github.com/starweaver-go/starweaver/core/version"
)

// These tests call the C functions of starweaver.h as a C host would
// (through capitest, since a _test.go file cannot import "C"): NULL
// pointers and bad handles come back as -1 with an error object, never a
// crash, and no test leaves a handle behind.

// noLeaks fails t when the test ends with more or fewer live handles than
// it started with.
func noLeaks(t *testing.T) {
	t.Helper()
	before := capitest.HandleCount()
	t.Cleanup(func() {
		if after := capitest.HandleCount(); after != before {
			t.Errorf("live handles: %d before the test, %d after", before, after)
		}
	})
}

// wantError checks a failed call: rc -1 and an error object of type slug
// whose message contains msg.
func wantError(t *testing.T, s capitest.Status, slug, msg string) {
	t.Helper()
	if s.RC != -1 {
		t.Fatalf("rc = %d, want -1 (status %+v)", s.RC, s)
	}
	var e struct{ Type, Message string }
	if err := json.Unmarshal([]byte(s.Err), &e); err != nil {
		t.Fatalf("error object %q: %v", s.Err, err)
	}
	if e.Type != slug || !strings.Contains(e.Message, msg) {
		t.Fatalf("error = %s, want type %q with %q", s.Err, slug, msg)
	}
	if !slices.Contains(bridge.ErrorTypes(), e.Type) {
		t.Fatalf("error type %q is not in abiErrorTypes", e.Type)
	}
}

var (
	testModelSpec = []byte(`{"kind":"test","responses":[]}`)
	none          = capitest.Opts{}
	nullOut       = capitest.Opts{NullOut: true}
	nullErr       = capitest.Opts{NullErr: true}
)

// newModel creates a test model released when the test ends.
func newModel(t *testing.T) int64 {
	t.Helper()
	s := capitest.ModelNew(testModelSpec, none)
	if s.RC != 0 || s.Handle == 0 {
		t.Fatalf("sw_model_new: %+v", s)
	}
	t.Cleanup(func() { capitest.Release(s.Handle, none) })
	return s.Handle
}

func TestABINullPointers(t *testing.T) {
	noLeaks(t)
	wantError(t, capitest.ModelNew(testModelSpec, nullOut), "invalid_argument", "out must not be NULL")
	wantError(t, capitest.AgentNew([]byte(`{}`), nullOut), "invalid_argument", "out must not be NULL")
	wantError(t, capitest.SessionNew(1, nullOut), "invalid_argument", "out must not be NULL")
	// A NULL spec is an empty spec: refused as a spec, not a crash.
	if s := capitest.ModelNew(nil, none); s.RC != -1 || s.Err == "" {
		t.Fatalf("sw_model_new(NULL) = %+v", s)
	}
	// NULL err: the failure is still reported by the return code.
	if s := capitest.ModelNew(testModelSpec, capitest.Opts{NullOut: true, NullErr: true}); s.RC != -1 || s.Err != "" {
		t.Fatalf("sw_model_new with NULL out and err = %+v", s)
	}
	// Readers accept a NULL out (nothing is written) and the library
	// ignores sw_free(NULL).
	m := newModel(t)
	if s := capitest.ModelCaptured(m, nullOut); s.RC != 0 || s.Out != "" {
		t.Fatalf("sw_model_captured with NULL out = %+v", s)
	}
	if s := capitest.ErrorKinds(nullOut); s.RC != 0 {
		t.Fatalf("sw_error_kinds with NULL out = %+v", s)
	}
	wantError(t, capitest.RunSteer(1, nil, none), "invalid_argument", "text must not be NULL")
	capitest.FreeNull()
}

func TestABIBadHandles(t *testing.T) {
	noLeaks(t)
	const unknown = 1 << 60
	for _, h := range []int64{0, -1, unknown} {
		wantError(t, capitest.SessionNew(h, none), "bad_handle", "unknown handle")
		wantError(t, capitest.SessionMessages(h, none), "bad_handle", "unknown handle")
		wantError(t, capitest.ModelCaptured(h, none), "bad_handle", "unknown handle")
		wantError(t, capitest.RunStart(h, []byte(`{"prompt":"x"}`), none), "bad_handle", "unknown handle")
		wantError(t, capitest.RunComplete(h, 1, []byte(`{"ok":true}`), none), "bad_handle", "unknown handle")
		wantError(t, capitest.RunCancel(h, none), "bad_handle", "unknown handle")
		wantError(t, capitest.RunSteer(h, []byte("x"), none), "bad_handle", "unknown handle")
		wantError(t, capitest.RunInterrupt(h, []byte("x"), none), "bad_handle", "unknown handle")
		wantError(t, capitest.Release(h, none), "bad_handle", "unknown handle")
		// Without an err pointer the status alone says it failed.
		if s := capitest.RunCancel(h, nullErr); s.RC != -1 || s.Err != "" {
			t.Fatalf("sw_run_cancel(%d) with NULL err = %+v", h, s)
		}
	}
	// A handle of the wrong kind is a bad handle too, and stays valid.
	m := newModel(t)
	wantError(t, capitest.SessionNew(m, none), "bad_handle", "not a")
	wantError(t, capitest.SessionMessages(m, none), "bad_handle", "not a")
	wantError(t, capitest.RunCancel(m, none), "bad_handle", "not a")
	wantError(t, capitest.RunSteer(m, []byte("x"), none), "bad_handle", "not a")
	wantError(t, capitest.RunInterrupt(m, nil, none), "bad_handle", "not a")
	if s := capitest.ModelCaptured(m, none); s.RC != 0 || s.Out != "[]" {
		t.Fatalf("sw_model_captured after misuse = %+v", s)
	}
	// A released handle is unknown from then on.
	s := capitest.ModelNew(testModelSpec, none)
	if capitest.Release(s.Handle, none).RC != 0 {
		t.Fatal("release failed")
	}
	wantError(t, capitest.Release(s.Handle, none), "bad_handle", "unknown handle")
	wantError(t, capitest.ModelCaptured(s.Handle, none), "bad_handle", "unknown handle")
}

func TestABIErrorKinds(t *testing.T) {
	s := capitest.ErrorKinds(none)
	if s.RC != 0 {
		t.Fatalf("sw_error_kinds = %+v", s)
	}
	if string(bridge.ErrorKindsJSON()) != s.Out {
		t.Fatalf("sw_error_kinds wrote %s, want %s", s.Out, bridge.ErrorKindsJSON())
	}
	if v := capitest.Version(); v.RC != 0 || v.Out != `"`+version.String()+`"` {
		t.Fatalf("sw_version = %+v", v)
	}
}

// The calls package bridge's tests make with NULL pointers, through the C
// functions: creators refuse a NULL out, readers write nothing to it, and
// a NULL err leaves the return code to tell a failure.
func TestABINullsOfEveryKindOfCall(t *testing.T) {
	noLeaks(t)
	wantError(t, capitest.ArtifactStoreNew([]byte(`{"kind":"memory"}`), nullOut), "invalid_argument", "out must not be NULL")
	wantError(t, capitest.StoreOpen([]byte(`{"kind":"sqlite","path":":memory:"}`), nullOut), "invalid_argument", "out must not be NULL")
	wantError(t, capitest.AgentOpenSession(0, []byte("conv_x"), nil, nullOut), "invalid_argument", "out must not be NULL")
	wantError(t, capitest.AgentOpenSession(0, nil, nil, none), "invalid_argument", "id must not be NULL")
	skills := []byte(`{"environment":{"kind":"virtual"},"scopes":[]}`)
	wantError(t, capitest.SkillsScan(skills, nullOut), "invalid_argument", "out must not be NULL")
	if s := capitest.SkillsScan(skills, nullErr); s.RC != 0 || s.Out != `{"packages":[]}` {
		t.Fatalf("sw_skills_scan with NULL err = %+v", s)
	}
	st := capitest.ArtifactStoreNew([]byte(`{"kind":"memory"}`), none)
	if st.RC != 0 {
		t.Fatalf("sw_artifact_store_new: %+v", st)
	}
	defer capitest.Release(st.Handle, none)
	if s := capitest.ArtifactList(st.Handle, []byte(`{"scope":"t","limit":1}`), nullOut); s.RC != 0 || s.Out != "" {
		t.Fatalf("sw_artifact_list with NULL out = %+v", s)
	}
	for name, s := range map[string]capitest.Status{
		"sw_artifact_get":              capitest.ArtifactGet(st.Handle, nil, nullErr),
		"sw_artifact_list":             capitest.ArtifactList(0, []byte(`{"scope":"t","limit":1}`), nullErr),
		"sw_artifact_delete":           capitest.ArtifactDelete(0, nil, nullErr),
		"sw_artifact_purge_expired":    capitest.ArtifactPurgeExpired(0, nil, nullErr),
		"sw_session_claimed_resume":    capitest.SessionClaimedResume(0, nullErr),
		"sw_session_abandon_resume":    capitest.SessionAbandonResume(0, nullErr),
		"sw_session_abandon_in_flight": capitest.SessionAbandonInFlight(0, nullErr),
		"sw_session_set_environment":   capitest.SessionSetEnvironment(0, []byte(`{"kind":"virtual"}`), nullErr),
	} {
		if s.RC != -1 || s.Err != "" {
			t.Errorf("%s with NULL err = %+v", name, s)
		}
	}
}
