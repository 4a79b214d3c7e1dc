package bridge

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// abi makes the calls of starweaver.h through this package's functions
// (api.go) as capi's exports do, with the C-side conversions left out:
// what a call wrote to *out and *err, and its return code. The calls with
// NULL pointers are capi's tests (capi/abi_test.go, through capitest).
var abi abiCalls

type abiCalls struct{}

// abiStatus is what one call reported: its return code, the error object
// (empty when none), the bytes written to *out and the handle written to
// *out for the calls that create one.
type abiStatus struct {
	RC     int
	Err    string
	Out    string
	Handle int64
}

// abiOpts chooses which pointer arguments a call gets as NULL; the calls
// treat a NULL as capi's exports do (capi/abi_test.go checks those
// through the C functions).
type abiOpts struct {
	NullOut bool // the out pointer (handle or buffer)
	NullErr bool // the err pointer
}

var (
	none    = abiOpts{}
	nullOut = abiOpts{NullOut: true}
	nullErr = abiOpts{NullErr: true}
)

func (o abiOpts) fail(err error) abiStatus {
	s := abiStatus{RC: -1}
	if !o.NullErr {
		s.Err = string(ErrorJSON(err))
	}
	return s
}

// handle is a call that creates a handle: a NULL out is refused.
func (o abiOpts) handle(call func() (int64, error)) abiStatus {
	if o.NullOut {
		return o.fail(NullArgument("out"))
	}
	h, err := call()
	if err != nil {
		return o.fail(err)
	}
	return abiStatus{Handle: h}
}

// bytes is a call that writes bytes to out; with checkOut a NULL out is
// refused, otherwise nothing is written to it.
func (o abiOpts) bytes(checkOut bool, call func() ([]byte, error)) abiStatus {
	if checkOut && o.NullOut {
		return o.fail(NullArgument("out"))
	}
	b, err := call()
	if err != nil {
		return o.fail(err)
	}
	if o.NullOut {
		return abiStatus{}
	}
	return abiStatus{Out: string(b)}
}

func (o abiOpts) status(err error) abiStatus {
	if err != nil {
		return o.fail(err)
	}
	return abiStatus{}
}

func (abiCalls) ModelNew(spec []byte, o abiOpts) abiStatus {
	return o.handle(func() (int64, error) { return NewModel(spec) })
}

func (abiCalls) AgentNew(spec []byte, o abiOpts) abiStatus {
	return o.handle(func() (int64, error) { return NewAgent(spec) })
}

func (abiCalls) SessionNew(agent int64, o abiOpts) abiStatus {
	return o.handle(func() (int64, error) { return NewSession(agent) })
}

func (abiCalls) SessionMessages(session int64, o abiOpts) abiStatus {
	return o.bytes(false, func() ([]byte, error) { return SessionMessages(session) })
}

func (abiCalls) ModelCaptured(model int64, o abiOpts) abiStatus {
	return o.bytes(false, func() ([]byte, error) { return ModelCaptured(model) })
}

func (abiCalls) RunCancel(run int64, o abiOpts) abiStatus { return o.status(RunCancel(run)) }

func (abiCalls) RunSteer(run int64, text []byte, o abiOpts) abiStatus {
	if text == nil {
		return o.fail(NullArgument("text"))
	}
	ok, err := RunSteer(run, string(text))
	if s := o.status(err); err != nil || ok {
		return s
	}
	return abiStatus{RC: 1}
}

func (abiCalls) RunInterrupt(run int64, reason []byte, o abiOpts) abiStatus {
	return o.status(RunInterrupt(run, string(reason)))
}

func (abiCalls) Release(h int64, o abiOpts) abiStatus { return o.status(Release(h)) }

func (abiCalls) ErrorKinds(o abiOpts) abiStatus {
	return o.bytes(false, func() ([]byte, error) { return ErrorKindsJSON(), nil })
}

func (abiCalls) HandleCount() int64 { return int64(HandleCount()) }

func (abiCalls) StoreOpen(spec []byte, o abiOpts) abiStatus {
	return o.handle(func() (int64, error) { return OpenStore(spec) })
}

func (abiCalls) AgentOpenSession(agent int64, id, opts []byte, o abiOpts) abiStatus {
	if !o.NullOut && id == nil {
		return o.fail(NullArgument("id"))
	}
	return o.handle(func() (int64, error) { return AgentOpenSession(agent, string(id), opts) })
}

func (abiCalls) SessionClaimedResume(session int64, o abiOpts) abiStatus {
	return o.bytes(false, func() ([]byte, error) { return SessionClaimedResume(session) })
}

func (abiCalls) SessionAbandonResume(session int64, o abiOpts) abiStatus {
	return o.status(SessionAbandonResume(session))
}

func (abiCalls) SessionAbandonInFlight(session int64, o abiOpts) abiStatus {
	return o.status(SessionAbandonInFlight(session))
}

func (abiCalls) ArtifactStoreNew(spec []byte, o abiOpts) abiStatus {
	return o.handle(func() (int64, error) { return NewArtifactStore(spec) })
}

func (abiCalls) ArtifactPut(store int64, spec, data []byte, o abiOpts) abiStatus {
	return o.bytes(false, func() ([]byte, error) { return ArtifactPut(store, spec, data) })
}

func (abiCalls) ArtifactGet(store int64, spec []byte, o abiOpts) abiStatus {
	return o.bytes(false, func() ([]byte, error) { return ArtifactGet(store, spec) })
}

func (abiCalls) ArtifactList(store int64, spec []byte, o abiOpts) abiStatus {
	return o.bytes(false, func() ([]byte, error) { return ArtifactList(store, spec) })
}

func (abiCalls) ArtifactDelete(store int64, spec []byte, o abiOpts) abiStatus {
	return o.bytes(false, func() ([]byte, error) { return ArtifactDelete(store, spec) })
}

func (abiCalls) ArtifactPurgeExpired(store int64, spec []byte, o abiOpts) abiStatus {
	return o.bytes(false, func() ([]byte, error) { return ArtifactPurgeExpired(store, spec) })
}

func (abiCalls) CatalogHost(session int64, req []byte, o abiOpts) abiStatus {
	return o.bytes(false, func() ([]byte, error) { return CatalogHost(session, req) })
}

func (abiCalls) SkillsScan(req []byte, o abiOpts) abiStatus {
	return o.bytes(true, func() ([]byte, error) { return SkillsScan(req) })
}

func (abiCalls) SkillsActivate(req []byte, o abiOpts) abiStatus {
	return o.bytes(true, func() ([]byte, error) { return SkillsActivate(req) })
}

func (abiCalls) SessionSetEnvironment(session int64, spec []byte, o abiOpts) abiStatus {
	return o.status(SessionSetEnvironment(session, spec))
}

// noLeaks fails t when the test ends with more or fewer live handles than
// it started with.
func noLeaks(t *testing.T) {
	t.Helper()
	before := HandleCount()
	t.Cleanup(func() {
		if after := HandleCount(); after != before {
			t.Errorf("live handles: %d before the test, %d after", before, after)
		}
	})
}

// wantError checks a failed call: rc -1 and an error object of type slug
// whose message contains msg.
func wantError(t *testing.T, s abiStatus, slug, msg string) {
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
	if !slices.Contains(abiErrorTypes, e.Type) {
		t.Fatalf("error type %q is not in abiErrorTypes", e.Type)
	}
}

var testModelSpec = []byte(`{"kind":"test","responses":[]}`)

// newModel creates a test model released when the test ends.
func newModel(t *testing.T) int64 {
	t.Helper()
	s := abi.ModelNew(testModelSpec, none)
	if s.RC != 0 || s.Handle == 0 {
		t.Fatalf("sw_model_new: %+v", s)
	}
	t.Cleanup(func() { abi.Release(s.Handle, none) })
	return s.Handle
}
