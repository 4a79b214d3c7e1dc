package main

/*
#include <stdlib.h>
*/
import "C"

import (
	"context"
	"encoding/json"
	"fmt"
	"unsafe"

	"github.com/starweaver-go/starweaver/core/agent"
	"github.com/starweaver-go/starweaver/core/version"
)

// This file holds only the //export wrappers: decode, call, encode. Every
// wrapper recovers panics into an error return.
//
// The Go exports are named swgo_*; the sw_* functions of starweaver.h are
// C functions in forkguard.c that check for a forked child before
// entering Go (entering Go there is what hangs) and then call these.

func goBytes(p *C.char, n C.longlong) []byte {
	if p == nil || n <= 0 {
		return nil
	}
	return C.GoBytes(unsafe.Pointer(p), C.int(n))
}

func setOut(out **C.char, outLen *C.longlong, b []byte) {
	if out == nil {
		return
	}
	*out = (*C.char)(C.CBytes(b))
	if outLen != nil {
		*outLen = C.longlong(len(b))
	}
}

func setErr(errOut **C.char, err error) C.int {
	if errOut != nil {
		*errOut = C.CString(string(errorJSON(err)))
	}
	return -1
}

// guard converts a panic into an error return.
func guard(rc *C.int, errOut **C.char) {
	if p := recover(); p != nil {
		*rc = setErr(errOut, &abiError{Type: "internal", Message: fmt.Sprintf("panic: %v", p)})
	}
}

func nilArg(name string) error {
	return &abiError{Type: "invalid_argument", Message: name + " must not be NULL"}
}

// produce looks up handle h as a T and hands the bytes fn makes to the
// caller through out/outLen: the shape of every export that reads state.
func produce[T any](h C.longlong, out **C.char, outLen *C.longlong, errOut **C.char, fn func(T) ([]byte, error)) C.int {
	v, err := lookup[T](int64(h))
	if err != nil {
		return setErr(errOut, err)
	}
	b, err := fn(v)
	if err != nil {
		return setErr(errOut, err)
	}
	setOut(out, outLen, b)
	return 0
}

//export swgo_version
func swgo_version(out **C.char, outLen *C.longlong) (rc C.int) {
	defer guard(&rc, nil)
	b, _ := json.Marshal(version.String())
	setOut(out, outLen, b)
	return 0
}

// create decodes a JSON spec into S, builds an object from it and hands
// its handle to the caller: the shape of the exports that build objects.
func create[S any, T any](spec *C.char, specLen C.longlong, out *C.longlong, errOut **C.char, build func(S) (T, error)) (T, C.int) {
	var zero T
	if out == nil {
		return zero, setErr(errOut, nilArg("out"))
	}
	var s S
	if err := decodeStrict(goBytes(spec, specLen), &s); err != nil {
		return zero, setErr(errOut, err)
	}
	v, err := build(s)
	if err != nil {
		return zero, setErr(errOut, err)
	}
	*out = C.longlong(handles.add(v))
	return v, 0
}

//export swgo_error_kinds
func swgo_error_kinds(out **C.char, outLen *C.longlong) (rc C.int) {
	defer guard(&rc, nil)
	setOut(out, outLen, errorKindsJSON())
	return 0
}

//export swgo_model_new
func swgo_model_new(spec *C.char, specLen C.longlong, out *C.longlong, errOut **C.char) (rc C.int) {
	defer guard(&rc, errOut)
	m, rc := create(spec, specLen, out, errOut, buildModel)
	if rc != 0 {
		return rc
	}
	if hm, ok := m.m.(*hostModel); ok {
		hm.handle = int64(*out) // the host names its model by this handle
	}
	return 0
}

//export swgo_model_captured
func swgo_model_captured(h C.longlong, out **C.char, outLen *C.longlong, errOut **C.char) (rc C.int) {
	defer guard(&rc, errOut)
	return produce(h, out, outLen, errOut, capturedJSON)
}

//export swgo_model_messages
func swgo_model_messages(h C.longlong, req *C.char, reqLen C.longlong, out **C.char, outLen *C.longlong, errOut **C.char) (rc C.int) {
	defer guard(&rc, errOut)
	body := goBytes(req, reqLen)
	return produce(h, out, outLen, errOut, func(m *modelHandle) ([]byte, error) { return modelMessagesJSON(m, body) })
}

//export swgo_agent_new
func swgo_agent_new(spec *C.char, specLen C.longlong, out *C.longlong, errOut **C.char) (rc C.int) {
	defer guard(&rc, errOut)
	_, rc = create(spec, specLen, out, errOut, buildAgent)
	return rc
}

//export swgo_artifact_store_new
func swgo_artifact_store_new(spec *C.char, specLen C.longlong, out *C.longlong, errOut **C.char) (rc C.int) {
	defer guard(&rc, errOut)
	_, rc = create(spec, specLen, out, errOut, buildArtifactStore)
	return rc
}

//export swgo_artifact_put
func swgo_artifact_put(h C.longlong, spec *C.char, specLen C.longlong, data *C.char, dataLen C.longlong, out **C.char, outLen *C.longlong, errOut **C.char) (rc C.int) {
	defer guard(&rc, errOut)
	var ps artifactPutSpec
	if err := decodeStrict(goBytes(spec, specLen), &ps); err != nil {
		return setErr(errOut, err)
	}
	payload := goBytes(data, dataLen)
	return produce(h, out, outLen, errOut, func(s *artifactStore) ([]byte, error) {
		return s.put(context.Background(), ps, payload)
	})
}

//export swgo_artifact_get
func swgo_artifact_get(h C.longlong, spec *C.char, specLen C.longlong, out **C.char, outLen *C.longlong, errOut **C.char) (rc C.int) {
	defer guard(&rc, errOut)
	var gs artifactGetSpec
	if err := decodeStrict(goBytes(spec, specLen), &gs); err != nil {
		return setErr(errOut, err)
	}
	return produce(h, out, outLen, errOut, func(s *artifactStore) ([]byte, error) {
		return s.get(context.Background(), gs)
	})
}

//export swgo_artifact_list
func swgo_artifact_list(h C.longlong, spec *C.char, specLen C.longlong, out **C.char, outLen *C.longlong, errOut **C.char) (rc C.int) {
	defer guard(&rc, errOut)
	var ls artifactListSpec
	if err := decodeStrict(goBytes(spec, specLen), &ls); err != nil {
		return setErr(errOut, err)
	}
	return produce(h, out, outLen, errOut, func(s *artifactStore) ([]byte, error) {
		return s.list(context.Background(), ls)
	})
}

//export swgo_artifact_delete
func swgo_artifact_delete(h C.longlong, spec *C.char, specLen C.longlong, out **C.char, outLen *C.longlong, errOut **C.char) (rc C.int) {
	defer guard(&rc, errOut)
	var ds artifactDeleteSpec
	if err := decodeStrict(goBytes(spec, specLen), &ds); err != nil {
		return setErr(errOut, err)
	}
	return produce(h, out, outLen, errOut, func(s *artifactStore) ([]byte, error) {
		return s.delete(context.Background(), ds)
	})
}

//export swgo_artifact_purge_expired
func swgo_artifact_purge_expired(h C.longlong, spec *C.char, specLen C.longlong, out **C.char, outLen *C.longlong, errOut **C.char) (rc C.int) {
	defer guard(&rc, errOut)
	var ps artifactPurgeSpec
	if err := decodeStrict(goBytes(spec, specLen), &ps); err != nil {
		return setErr(errOut, err)
	}
	return produce(h, out, outLen, errOut, func(s *artifactStore) ([]byte, error) {
		return s.purgeExpired(context.Background(), ps)
	})
}

//export swgo_session_new
func swgo_session_new(h C.longlong, out *C.longlong, errOut **C.char) (rc C.int) {
	defer guard(&rc, errOut)
	if out == nil {
		return setErr(errOut, nilArg("out"))
	}
	a, err := lookup[*agent.Agent](int64(h))
	if err != nil {
		return setErr(errOut, err)
	}
	*out = C.longlong(handles.add(a.NewSession()))
	return 0
}

//export swgo_session_messages
func swgo_session_messages(h C.longlong, out **C.char, outLen *C.longlong, errOut **C.char) (rc C.int) {
	defer guard(&rc, errOut)
	return produce(h, out, outLen, errOut, func(s *agent.Session) ([]byte, error) { return json.Marshal(s.Messages()) })
}

//export swgo_session_info
func swgo_session_info(h C.longlong, out **C.char, outLen *C.longlong, errOut **C.char) (rc C.int) {
	defer guard(&rc, errOut)
	return produce(h, out, outLen, errOut, func(s *agent.Session) ([]byte, error) { return json.Marshal(infoOf(s)) })
}

//export swgo_session_context
func swgo_session_context(h C.longlong, req *C.char, reqLen C.longlong, out **C.char, outLen *C.longlong, errOut **C.char) (rc C.int) {
	defer guard(&rc, errOut)
	body := goBytes(req, reqLen)
	return produce(h, out, outLen, errOut, func(s *agent.Session) ([]byte, error) { return sessionContext(s, body) })
}

//export swgo_catalog_host
func swgo_catalog_host(h C.longlong, req *C.char, reqLen C.longlong, out **C.char, outLen *C.longlong, errOut **C.char) (rc C.int) {
	defer guard(&rc, errOut)
	if h == 0 {
		b, err := catalogHostCall(nil, goBytes(req, reqLen))
		if err != nil {
			return setErr(errOut, err)
		}
		setOut(out, outLen, b)
		return 0
	}
	return produce(h, out, outLen, errOut, func(s *agent.Session) ([]byte, error) { return catalogHostCall(s, goBytes(req, reqLen)) })
}

// jsonCall hands the bytes fn makes of the request to the caller: the
// shape of the exports that take a JSON request and no handle.
func jsonCall(req *C.char, reqLen C.longlong, out **C.char, outLen *C.longlong, errOut **C.char, fn func([]byte) ([]byte, error)) C.int {
	if out == nil {
		return setErr(errOut, nilArg("out"))
	}
	b, err := fn(goBytes(req, reqLen))
	if err != nil {
		return setErr(errOut, err)
	}
	setOut(out, outLen, b)
	return 0
}

//export swgo_skills_scan
func swgo_skills_scan(req *C.char, reqLen C.longlong, out **C.char, outLen *C.longlong, errOut **C.char) (rc C.int) {
	defer guard(&rc, errOut)
	return jsonCall(req, reqLen, out, outLen, errOut, skillsScan)
}

//export swgo_skills_activate
func swgo_skills_activate(req *C.char, reqLen C.longlong, out **C.char, outLen *C.longlong, errOut **C.char) (rc C.int) {
	defer guard(&rc, errOut)
	return jsonCall(req, reqLen, out, outLen, errOut, skillsActivate)
}

//export swgo_session_set_environment
func swgo_session_set_environment(h C.longlong, spec *C.char, specLen C.longlong, errOut **C.char) (rc C.int) {
	defer guard(&rc, errOut)
	s, err := lookup[*agent.Session](int64(h))
	if err != nil {
		return setErr(errOut, err)
	}
	p, err := decodeEnvironment(goBytes(spec, specLen))
	if err != nil {
		return setErr(errOut, err)
	}
	s.SetEnvironment(p)
	keepShells(s, environmentShell(p))
	return 0
}

//export swgo_session_export
func swgo_session_export(h C.longlong, out **C.char, outLen *C.longlong, errOut **C.char) (rc C.int) {
	defer guard(&rc, errOut)
	return produce(h, out, outLen, errOut, (*agent.Session).ExportState)
}

//export swgo_session_restore
func swgo_session_restore(h C.longlong, state *C.char, stateLen C.longlong, opts *C.char, optsLen C.longlong, out *C.longlong, errOut **C.char) (rc C.int) {
	defer guard(&rc, errOut)
	if out == nil {
		return setErr(errOut, nilArg("out"))
	}
	a, err := lookup[*agent.Agent](int64(h))
	if err != nil {
		return setErr(errOut, err)
	}
	ro, err := decodeRestoreOptions(goBytes(opts, optsLen))
	if err != nil {
		return setErr(errOut, err)
	}
	s, err := a.SessionFromState(goBytes(state, stateLen), ro...)
	if err != nil {
		return setErr(errOut, err)
	}
	*out = C.longlong(handles.add(s))
	return 0
}

//export swgo_session_from_messages
func swgo_session_from_messages(h C.longlong, msgs *C.char, msgsLen C.longlong, out *C.longlong, errOut **C.char) (rc C.int) {
	defer guard(&rc, errOut)
	if out == nil {
		return setErr(errOut, nilArg("out"))
	}
	a, err := lookup[*agent.Agent](int64(h))
	if err != nil {
		return setErr(errOut, err)
	}
	history, err := agent.DecodeMessages(goBytes(msgs, msgsLen))
	if err != nil {
		return setErr(errOut, err)
	}
	s, err := a.SessionFromMessages(history)
	if err != nil {
		return setErr(errOut, err)
	}
	*out = C.longlong(handles.add(s))
	return 0
}

//export swgo_store_open
func swgo_store_open(spec *C.char, specLen C.longlong, out *C.longlong, errOut **C.char) (rc C.int) {
	defer guard(&rc, errOut)
	_, rc = create(spec, specLen, out, errOut, openStore)
	return rc
}

//export swgo_agent_open_session
func swgo_agent_open_session(h C.longlong, id *C.char, idLen C.longlong, opts *C.char, optsLen C.longlong, out *C.longlong, errOut **C.char) (rc C.int) {
	defer guard(&rc, errOut)
	if out == nil {
		return setErr(errOut, nilArg("out"))
	}
	if id == nil {
		return setErr(errOut, nilArg("id"))
	}
	a, err := lookup[*agent.Agent](int64(h))
	if err != nil {
		return setErr(errOut, err)
	}
	s, err := openSessionByID(a, string(goBytes(id, idLen)), goBytes(opts, optsLen))
	if err != nil {
		return setErr(errOut, err)
	}
	*out = C.longlong(handles.add(s))
	return 0
}

//export swgo_session_claimed_resume
func swgo_session_claimed_resume(h C.longlong, out **C.char, outLen *C.longlong, errOut **C.char) (rc C.int) {
	defer guard(&rc, errOut)
	return produce(h, out, outLen, errOut, claimedResumeJSON)
}

//export swgo_session_abandon_resume
func swgo_session_abandon_resume(h C.longlong, errOut **C.char) (rc C.int) {
	defer guard(&rc, errOut)
	s, err := lookup[*agent.Session](int64(h))
	if err != nil {
		return setErr(errOut, err)
	}
	if err := abandonResume(s); err != nil {
		return setErr(errOut, err)
	}
	return 0
}

//export swgo_session_abandon_in_flight
func swgo_session_abandon_in_flight(h C.longlong, errOut **C.char) (rc C.int) {
	defer guard(&rc, errOut)
	s, err := lookup[*agent.Session](int64(h))
	if err != nil {
		return setErr(errOut, err)
	}
	if err := abandonInFlight(s); err != nil {
		return setErr(errOut, err)
	}
	return 0
}

//export swgo_run_start
func swgo_run_start(h C.longlong, req *C.char, reqLen C.longlong, runOut *C.longlong, fdOut *C.int, fdIn *C.int, errOut **C.char) (rc C.int) {
	defer guard(&rc, errOut)
	if runOut == nil || fdOut == nil || fdIn == nil {
		return setErr(errOut, nilArg("run and fds"))
	}
	s, err := lookup[*agent.Session](int64(h))
	if err != nil {
		return setErr(errOut, err)
	}
	var spec runSpec
	if err := decodeStrict(goBytes(req, reqLen), &spec); err != nil {
		return setErr(errOut, err)
	}
	handle, run, err := startRun(s, spec)
	if err != nil {
		return setErr(errOut, err)
	}
	*runOut, *fdOut, *fdIn = C.longlong(handle), C.int(run.rfd), C.int(run.wfdIn)
	return 0
}

//export swgo_run_complete
func swgo_run_complete(h C.longlong, token C.longlong, data *C.char, dataLen C.longlong, errOut **C.char) (rc C.int) {
	defer guard(&rc, errOut)
	r, err := lookup[*hostRun](int64(h))
	if err != nil {
		return setErr(errOut, err)
	}
	if !r.complete(int64(token), goBytes(data, dataLen)) {
		return 1
	}
	return 0
}

//export swgo_run_cancel
func swgo_run_cancel(h C.longlong, errOut **C.char) (rc C.int) {
	defer guard(&rc, errOut)
	r, err := lookup[*hostRun](int64(h))
	if err != nil {
		return setErr(errOut, err)
	}
	r.cancel()
	return 0
}

//export swgo_run_steer
func swgo_run_steer(h C.longlong, text *C.char, textLen C.longlong, errOut **C.char) (rc C.int) {
	defer guard(&rc, errOut)
	if text == nil {
		return setErr(errOut, nilArg("text"))
	}
	r, err := lookup[*hostRun](int64(h))
	if err != nil {
		return setErr(errOut, err)
	}
	if r.steering == nil || !r.steering.Steer(string(goBytes(text, textLen))) {
		return 1
	}
	return 0
}

//export swgo_run_interrupt
func swgo_run_interrupt(h C.longlong, reason *C.char, reasonLen C.longlong, errOut **C.char) (rc C.int) {
	defer guard(&rc, errOut)
	r, err := lookup[*hostRun](int64(h))
	if err != nil {
		return setErr(errOut, err)
	}
	r.fail(agent.Interrupt(string(goBytes(reason, reasonLen))))
	return 0
}

//export swgo_release
func swgo_release(h C.longlong, errOut **C.char) (rc C.int) {
	defer guard(&rc, errOut)
	v, ok := handles.remove(int64(h))
	if !ok {
		return setErr(errOut, &abiError{Type: "bad_handle", Message: fmt.Sprintf("unknown handle %d", int64(h))})
	}
	if r, ok := v.(*hostRun); ok {
		r.close()
	}
	if st, ok := v.(*storeHandle); ok {
		st.release()
	}
	releaseShell(v)
	return 0
}

//export swgo_handle_count
func swgo_handle_count() C.longlong {
	return C.longlong(handles.count())
}

//export swgo_shutdown
func swgo_shutdown() (rc C.int) {
	defer guard(&rc, nil)
	shutdown()
	return 0
}
