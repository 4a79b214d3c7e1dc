// Package capitest calls the C functions of starweaver.h directly, as a C
// host would, for the tests of package main (capi).
//
// It exists because a _test.go file cannot import "C". The sw_* symbols
// it calls are defined by package main (forkguard.c); they resolve only
// when this package is linked into capi's test binary, so nothing but
// capi's tests may import it.
package capitest

/*
#include <stdlib.h>
#include "../starweaver.h"
*/
import "C"

import "unsafe"

// Status is what one C call reported: its return code, the error object
// written to *err (empty when none), the bytes written to *out and the
// handle written to *out for the functions that create one.
type Status struct {
	RC     int
	Err    string
	Out    string
	Handle int64
}

// Opts chooses which pointer arguments are passed as NULL.
type Opts struct {
	NullOut bool // the out pointer (handle or buffer)
	NullErr bool // the err pointer
}

func errPtr(o Opts, err **C.char) **C.char {
	if o.NullErr {
		return nil
	}
	return err
}

// finish frees what the library returned and fills in s.
func finish(s *Status, err *C.char, out *C.char, outLen C.longlong) {
	if err != nil {
		s.Err = C.GoString(err)
		C.sw_free(unsafe.Pointer(err))
	}
	if out != nil {
		s.Out = C.GoStringN(out, C.int(outLen))
		C.sw_free(unsafe.Pointer(out))
	}
}

// cbytes copies b into C memory; nil stays NULL. The caller frees it.
func cbytes(b []byte) (*C.char, C.longlong) {
	if b == nil {
		return nil, 0
	}
	return (*C.char)(C.CBytes(b)), C.longlong(len(b))
}

// ModelNew calls sw_model_new with spec (nil passes NULL).
func ModelNew(spec []byte, o Opts) Status {
	p, n := cbytes(spec)
	defer C.free(unsafe.Pointer(p))
	var h C.sw_handle
	var err *C.char
	hp := &h
	if o.NullOut {
		hp = nil
	}
	var s Status
	s.RC = int(C.sw_model_new(p, n, hp, errPtr(o, &err)))
	s.Handle = int64(h)
	finish(&s, err, nil, 0)
	return s
}

// AgentNew calls sw_agent_new with spec (nil passes NULL).
func AgentNew(spec []byte, o Opts) Status {
	p, n := cbytes(spec)
	defer C.free(unsafe.Pointer(p))
	var h C.sw_handle
	var err *C.char
	hp := &h
	if o.NullOut {
		hp = nil
	}
	var s Status
	s.RC = int(C.sw_agent_new(p, n, hp, errPtr(o, &err)))
	s.Handle = int64(h)
	finish(&s, err, nil, 0)
	return s
}

// SessionNew calls sw_session_new on agent.
func SessionNew(agent int64, o Opts) Status {
	var h C.sw_handle
	var err *C.char
	hp := &h
	if o.NullOut {
		hp = nil
	}
	var s Status
	s.RC = int(C.sw_session_new(C.sw_handle(agent), hp, errPtr(o, &err)))
	s.Handle = int64(h)
	finish(&s, err, nil, 0)
	return s
}

// SessionMessages calls sw_session_messages on session.
func SessionMessages(session int64, o Opts) Status {
	var out, err *C.char
	var outLen C.longlong
	op := &out
	if o.NullOut {
		op = nil
	}
	var s Status
	s.RC = int(C.sw_session_messages(C.sw_handle(session), op, &outLen, errPtr(o, &err)))
	finish(&s, err, out, outLen)
	return s
}

// ModelCaptured calls sw_model_captured on model.
func ModelCaptured(model int64, o Opts) Status {
	var out, err *C.char
	var outLen C.longlong
	op := &out
	if o.NullOut {
		op = nil
	}
	var s Status
	s.RC = int(C.sw_model_captured(C.sw_handle(model), op, &outLen, errPtr(o, &err)))
	finish(&s, err, out, outLen)
	return s
}

// RunStart calls sw_run_start on session with req (nil passes NULL); with
// NullOut the run handle pointer is NULL.
func RunStart(session int64, req []byte, o Opts) Status {
	p, n := cbytes(req)
	defer C.free(unsafe.Pointer(p))
	var h C.sw_handle
	var fdOut, fdIn C.int
	var err *C.char
	hp := &h
	if o.NullOut {
		hp = nil
	}
	var s Status
	s.RC = int(C.sw_run_start(C.sw_handle(session), p, n, hp, &fdOut, &fdIn, errPtr(o, &err)))
	s.Handle = int64(h)
	finish(&s, err, nil, 0)
	return s
}

// RunComplete calls sw_run_complete on run with outcome (nil passes NULL).
func RunComplete(run, token int64, outcome []byte, o Opts) Status {
	p, n := cbytes(outcome)
	defer C.free(unsafe.Pointer(p))
	var err *C.char
	var s Status
	s.RC = int(C.sw_run_complete(C.sw_handle(run), C.longlong(token), p, n, errPtr(o, &err)))
	finish(&s, err, nil, 0)
	return s
}

// RunCancel calls sw_run_cancel on run.
func RunCancel(run int64, o Opts) Status {
	var err *C.char
	var s Status
	s.RC = int(C.sw_run_cancel(C.sw_handle(run), errPtr(o, &err)))
	finish(&s, err, nil, 0)
	return s
}

// RunSteer calls sw_run_steer on run with text (nil passes NULL).
func RunSteer(run int64, text []byte, o Opts) Status {
	p, n := cbytes(text)
	defer C.free(unsafe.Pointer(p))
	var err *C.char
	var s Status
	s.RC = int(C.sw_run_steer(C.sw_handle(run), p, n, errPtr(o, &err)))
	finish(&s, err, nil, 0)
	return s
}

// RunInterrupt calls sw_run_interrupt on run with reason (nil passes NULL).
func RunInterrupt(run int64, reason []byte, o Opts) Status {
	p, n := cbytes(reason)
	defer C.free(unsafe.Pointer(p))
	var err *C.char
	var s Status
	s.RC = int(C.sw_run_interrupt(C.sw_handle(run), p, n, errPtr(o, &err)))
	finish(&s, err, nil, 0)
	return s
}

// Release calls sw_release on h.
func Release(h int64, o Opts) Status {
	var err *C.char
	var s Status
	s.RC = int(C.sw_release(C.sw_handle(h), errPtr(o, &err)))
	finish(&s, err, nil, 0)
	return s
}

// ErrorKinds calls sw_error_kinds.
func ErrorKinds(o Opts) Status {
	var out *C.char
	var outLen C.longlong
	op := &out
	if o.NullOut {
		op = nil
	}
	var s Status
	s.RC = int(C.sw_error_kinds(op, &outLen))
	finish(&s, nil, out, outLen)
	return s
}

// Version calls sw_version.
func Version() Status {
	var out *C.char
	var outLen C.longlong
	var s Status
	s.RC = int(C.sw_version(&out, &outLen))
	finish(&s, nil, out, outLen)
	return s
}

// HandleCount calls sw_handle_count.
func HandleCount() int64 { return int64(C.sw_handle_count()) }

// Free calls sw_free with NULL, which must be ignored.
func FreeNull() { C.sw_free(nil) }

// StoreOpen calls sw_store_open with spec (nil passes NULL).
func StoreOpen(spec []byte, o Opts) Status {
	p, n := cbytes(spec)
	defer C.free(unsafe.Pointer(p))
	var h C.sw_handle
	var err *C.char
	hp := &h
	if o.NullOut {
		hp = nil
	}
	var s Status
	s.RC = int(C.sw_store_open(p, n, hp, errPtr(o, &err)))
	s.Handle = int64(h)
	finish(&s, err, nil, 0)
	return s
}

// AgentOpenSession calls sw_agent_open_session on agent with id and opts
// (nil passes NULL).
func AgentOpenSession(agent int64, id, opts []byte, o Opts) Status {
	ip, in := cbytes(id)
	defer C.free(unsafe.Pointer(ip))
	op, on := cbytes(opts)
	defer C.free(unsafe.Pointer(op))
	var h C.sw_handle
	var err *C.char
	hp := &h
	if o.NullOut {
		hp = nil
	}
	var s Status
	s.RC = int(C.sw_agent_open_session(C.sw_handle(agent), ip, in, op, on, hp, errPtr(o, &err)))
	s.Handle = int64(h)
	finish(&s, err, nil, 0)
	return s
}

// SessionClaimedResume calls sw_session_claimed_resume on session.
func SessionClaimedResume(session int64, o Opts) Status {
	var out, err *C.char
	var outLen C.longlong
	op := &out
	if o.NullOut {
		op = nil
	}
	var s Status
	s.RC = int(C.sw_session_claimed_resume(C.sw_handle(session), op, &outLen, errPtr(o, &err)))
	finish(&s, err, out, outLen)
	return s
}

// SessionAbandonResume calls sw_session_abandon_resume on session.
func SessionAbandonResume(session int64, o Opts) Status {
	var err *C.char
	var s Status
	s.RC = int(C.sw_session_abandon_resume(C.sw_handle(session), errPtr(o, &err)))
	finish(&s, err, nil, 0)
	return s
}

// SessionAbandonInFlight calls sw_session_abandon_in_flight on session.
func SessionAbandonInFlight(session int64, o Opts) Status {
	var err *C.char
	var s Status
	s.RC = int(C.sw_session_abandon_in_flight(C.sw_handle(session), errPtr(o, &err)))
	finish(&s, err, nil, 0)
	return s
}

// ArtifactStoreNew calls sw_artifact_store_new with spec (nil passes NULL).
func ArtifactStoreNew(spec []byte, o Opts) Status {
	p, n := cbytes(spec)
	defer C.free(unsafe.Pointer(p))
	var h C.sw_handle
	var err *C.char
	hp := &h
	if o.NullOut {
		hp = nil
	}
	var s Status
	s.RC = int(C.sw_artifact_store_new(p, n, hp, errPtr(o, &err)))
	s.Handle = int64(h)
	finish(&s, err, nil, 0)
	return s
}

// ArtifactPut calls sw_artifact_put on store with spec and data (nil
// passes NULL); Out holds the reference's JSON.
func ArtifactPut(store int64, spec, data []byte, o Opts) Status {
	sp, sn := cbytes(spec)
	defer C.free(unsafe.Pointer(sp))
	dp, dn := cbytes(data)
	defer C.free(unsafe.Pointer(dp))
	var out, err *C.char
	var outLen C.longlong
	op := &out
	if o.NullOut {
		op = nil
	}
	var s Status
	s.RC = int(C.sw_artifact_put(C.sw_handle(store), sp, sn, dp, dn, op, &outLen, errPtr(o, &err)))
	finish(&s, err, out, outLen)
	return s
}

// ArtifactGet calls sw_artifact_get on store with spec (nil passes NULL);
// Out holds the bytes.
func ArtifactGet(store int64, spec []byte, o Opts) Status {
	p, n := cbytes(spec)
	defer C.free(unsafe.Pointer(p))
	var out, err *C.char
	var outLen C.longlong
	op := &out
	if o.NullOut {
		op = nil
	}
	var s Status
	s.RC = int(C.sw_artifact_get(C.sw_handle(store), p, n, op, &outLen, errPtr(o, &err)))
	finish(&s, err, out, outLen)
	return s
}

// artifactCall calls one of the sw_artifact_* functions that take a spec
// and write JSON (nil spec passes NULL).
func artifactCall(call func(C.sw_handle, *C.char, C.longlong, **C.char, *C.longlong, **C.char) C.int, store int64, spec []byte, o Opts) Status {
	p, n := cbytes(spec)
	defer C.free(unsafe.Pointer(p))
	var out, err *C.char
	var outLen C.longlong
	op := &out
	if o.NullOut {
		op = nil
	}
	var s Status
	s.RC = int(call(C.sw_handle(store), p, n, op, &outLen, errPtr(o, &err)))
	finish(&s, err, out, outLen)
	return s
}

// ArtifactList calls sw_artifact_list on store with spec (nil passes
// NULL); Out holds the page's JSON.
func ArtifactList(store int64, spec []byte, o Opts) Status {
	return artifactCall(func(h C.sw_handle, p *C.char, n C.longlong, out **C.char, outLen *C.longlong, err **C.char) C.int {
		return C.sw_artifact_list(h, p, n, out, outLen, err)
	}, store, spec, o)
}

// ArtifactDelete calls sw_artifact_delete on store with spec (nil passes
// NULL); Out holds {"deleted": bool}.
func ArtifactDelete(store int64, spec []byte, o Opts) Status {
	return artifactCall(func(h C.sw_handle, p *C.char, n C.longlong, out **C.char, outLen *C.longlong, err **C.char) C.int {
		return C.sw_artifact_delete(h, p, n, out, outLen, err)
	}, store, spec, o)
}

// ArtifactPurgeExpired calls sw_artifact_purge_expired on store with spec
// (nil passes NULL); Out holds {"purged": n}.
func ArtifactPurgeExpired(store int64, spec []byte, o Opts) Status {
	return artifactCall(func(h C.sw_handle, p *C.char, n C.longlong, out **C.char, outLen *C.longlong, err **C.char) C.int {
		return C.sw_artifact_purge_expired(h, p, n, out, outLen, err)
	}, store, spec, o)
}

// CatalogHost calls sw_catalog_host on session (0 for none) with req.
func CatalogHost(session int64, req []byte, o Opts) Status {
	p, n := cbytes(req)
	defer C.free(unsafe.Pointer(p))
	var out, err *C.char
	var outLen C.longlong
	op := &out
	if o.NullOut {
		op = nil
	}
	var s Status
	s.RC = int(C.sw_catalog_host(C.sw_handle(session), p, n, op, &outLen, errPtr(o, &err)))
	finish(&s, err, out, outLen)
	return s
}

// SkillsScan calls sw_skills_scan with req.
func SkillsScan(req []byte, o Opts) Status {
	return skillsCall(func(p *C.char, n C.longlong, out **C.char, outLen *C.longlong, err **C.char) C.int {
		return C.sw_skills_scan(p, n, out, outLen, err)
	}, req, o)
}

// SkillsActivate calls sw_skills_activate with req.
func SkillsActivate(req []byte, o Opts) Status {
	return skillsCall(func(p *C.char, n C.longlong, out **C.char, outLen *C.longlong, err **C.char) C.int {
		return C.sw_skills_activate(p, n, out, outLen, err)
	}, req, o)
}

func skillsCall(call func(*C.char, C.longlong, **C.char, *C.longlong, **C.char) C.int, req []byte, o Opts) Status {
	p, n := cbytes(req)
	defer C.free(unsafe.Pointer(p))
	var out, err *C.char
	var outLen C.longlong
	op := &out
	if o.NullOut {
		op = nil
	}
	var s Status
	s.RC = int(call(p, n, op, &outLen, errPtr(o, &err)))
	finish(&s, err, out, outLen)
	return s
}

// SessionSetEnvironment calls sw_session_set_environment on session with
// spec (nil passes NULL).
func SessionSetEnvironment(session int64, spec []byte, o Opts) Status {
	p, n := cbytes(spec)
	defer C.free(unsafe.Pointer(p))
	var err *C.char
	var s Status
	s.RC = int(C.sw_session_set_environment(C.sw_handle(session), p, n, errPtr(o, &err)))
	finish(&s, err, nil, 0)
	return s
}
