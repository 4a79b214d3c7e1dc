package main

/*
#include <stdlib.h>
*/
import "C"

import (
	"encoding/json"
	"unsafe"

	"github.com/starweaver-go/starweaver/capi/internal/bridge"
	"github.com/starweaver-go/starweaver/core/version"
)

// This file holds only the //export wrappers: convert the C arguments,
// call package bridge, convert the results. Every wrapper recovers panics
// into an error return.
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
		*errOut = C.CString(string(bridge.ErrorJSON(err)))
	}
	return -1
}

// guard converts a panic into an error return.
func guard(rc *C.int, errOut **C.char) {
	if p := recover(); p != nil {
		*rc = setErr(errOut, bridge.Panic(p))
	}
}

// bytesOut hands the bytes of a call to the caller through out/outLen.
func bytesOut(b []byte, err error, out **C.char, outLen *C.longlong, errOut **C.char) C.int {
	if err != nil {
		return setErr(errOut, err)
	}
	setOut(out, outLen, b)
	return 0
}

// handleOut hands the handle of a new object to the caller through out.
func handleOut(h int64, err error, out *C.longlong, errOut **C.char) C.int {
	if err != nil {
		return setErr(errOut, err)
	}
	*out = C.longlong(h)
	return 0
}

// status is the return of a call that only succeeds or fails.
func status(err error, errOut **C.char) C.int {
	if err != nil {
		return setErr(errOut, err)
	}
	return 0
}

// more is the return of a call that may find nothing to do: 1 then.
func more(ok bool, err error, errOut **C.char) C.int {
	if err != nil {
		return setErr(errOut, err)
	}
	if !ok {
		return 1
	}
	return 0
}

//export swgo_version
func swgo_version(out **C.char, outLen *C.longlong) (rc C.int) {
	defer guard(&rc, nil)
	b, _ := json.Marshal(version.String())
	setOut(out, outLen, b)
	return 0
}

//export swgo_error_kinds
func swgo_error_kinds(out **C.char, outLen *C.longlong) (rc C.int) {
	defer guard(&rc, nil)
	setOut(out, outLen, bridge.ErrorKindsJSON())
	return 0
}

//export swgo_model_new
func swgo_model_new(spec *C.char, specLen C.longlong, out *C.longlong, errOut **C.char) (rc C.int) {
	defer guard(&rc, errOut)
	if out == nil {
		return setErr(errOut, bridge.NullArgument("out"))
	}
	h, err := bridge.NewModel(goBytes(spec, specLen))
	return handleOut(h, err, out, errOut)
}

//export swgo_model_captured
func swgo_model_captured(h C.longlong, out **C.char, outLen *C.longlong, errOut **C.char) (rc C.int) {
	defer guard(&rc, errOut)
	b, err := bridge.ModelCaptured(int64(h))
	return bytesOut(b, err, out, outLen, errOut)
}

//export swgo_model_messages
func swgo_model_messages(h C.longlong, req *C.char, reqLen C.longlong, out **C.char, outLen *C.longlong, errOut **C.char) (rc C.int) {
	defer guard(&rc, errOut)
	b, err := bridge.ModelMessages(int64(h), goBytes(req, reqLen))
	return bytesOut(b, err, out, outLen, errOut)
}

//export swgo_agent_new
func swgo_agent_new(spec *C.char, specLen C.longlong, out *C.longlong, errOut **C.char) (rc C.int) {
	defer guard(&rc, errOut)
	if out == nil {
		return setErr(errOut, bridge.NullArgument("out"))
	}
	h, err := bridge.NewAgent(goBytes(spec, specLen))
	return handleOut(h, err, out, errOut)
}

//export swgo_artifact_store_new
func swgo_artifact_store_new(spec *C.char, specLen C.longlong, out *C.longlong, errOut **C.char) (rc C.int) {
	defer guard(&rc, errOut)
	if out == nil {
		return setErr(errOut, bridge.NullArgument("out"))
	}
	h, err := bridge.NewArtifactStore(goBytes(spec, specLen))
	return handleOut(h, err, out, errOut)
}

//export swgo_artifact_put
func swgo_artifact_put(h C.longlong, spec *C.char, specLen C.longlong, data *C.char, dataLen C.longlong, out **C.char, outLen *C.longlong, errOut **C.char) (rc C.int) {
	defer guard(&rc, errOut)
	b, err := bridge.ArtifactPut(int64(h), goBytes(spec, specLen), goBytes(data, dataLen))
	return bytesOut(b, err, out, outLen, errOut)
}

//export swgo_artifact_get
func swgo_artifact_get(h C.longlong, req *C.char, reqLen C.longlong, out **C.char, outLen *C.longlong, errOut **C.char) (rc C.int) {
	defer guard(&rc, errOut)
	b, err := bridge.ArtifactGet(int64(h), goBytes(req, reqLen))
	return bytesOut(b, err, out, outLen, errOut)
}

//export swgo_artifact_list
func swgo_artifact_list(h C.longlong, req *C.char, reqLen C.longlong, out **C.char, outLen *C.longlong, errOut **C.char) (rc C.int) {
	defer guard(&rc, errOut)
	b, err := bridge.ArtifactList(int64(h), goBytes(req, reqLen))
	return bytesOut(b, err, out, outLen, errOut)
}

//export swgo_artifact_delete
func swgo_artifact_delete(h C.longlong, req *C.char, reqLen C.longlong, out **C.char, outLen *C.longlong, errOut **C.char) (rc C.int) {
	defer guard(&rc, errOut)
	b, err := bridge.ArtifactDelete(int64(h), goBytes(req, reqLen))
	return bytesOut(b, err, out, outLen, errOut)
}

//export swgo_artifact_purge_expired
func swgo_artifact_purge_expired(h C.longlong, req *C.char, reqLen C.longlong, out **C.char, outLen *C.longlong, errOut **C.char) (rc C.int) {
	defer guard(&rc, errOut)
	b, err := bridge.ArtifactPurgeExpired(int64(h), goBytes(req, reqLen))
	return bytesOut(b, err, out, outLen, errOut)
}

//export swgo_session_new
func swgo_session_new(h C.longlong, out *C.longlong, errOut **C.char) (rc C.int) {
	defer guard(&rc, errOut)
	if out == nil {
		return setErr(errOut, bridge.NullArgument("out"))
	}
	s, err := bridge.NewSession(int64(h))
	return handleOut(s, err, out, errOut)
}

//export swgo_session_messages
func swgo_session_messages(h C.longlong, out **C.char, outLen *C.longlong, errOut **C.char) (rc C.int) {
	defer guard(&rc, errOut)
	b, err := bridge.SessionMessages(int64(h))
	return bytesOut(b, err, out, outLen, errOut)
}

//export swgo_session_info
func swgo_session_info(h C.longlong, out **C.char, outLen *C.longlong, errOut **C.char) (rc C.int) {
	defer guard(&rc, errOut)
	b, err := bridge.SessionInfo(int64(h))
	return bytesOut(b, err, out, outLen, errOut)
}

//export swgo_session_context
func swgo_session_context(h C.longlong, req *C.char, reqLen C.longlong, out **C.char, outLen *C.longlong, errOut **C.char) (rc C.int) {
	defer guard(&rc, errOut)
	b, err := bridge.SessionContext(int64(h), goBytes(req, reqLen))
	return bytesOut(b, err, out, outLen, errOut)
}

//export swgo_catalog_host
func swgo_catalog_host(h C.longlong, req *C.char, reqLen C.longlong, out **C.char, outLen *C.longlong, errOut **C.char) (rc C.int) {
	defer guard(&rc, errOut)
	b, err := bridge.CatalogHost(int64(h), goBytes(req, reqLen))
	return bytesOut(b, err, out, outLen, errOut)
}

//export swgo_skills_scan
func swgo_skills_scan(req *C.char, reqLen C.longlong, out **C.char, outLen *C.longlong, errOut **C.char) (rc C.int) {
	defer guard(&rc, errOut)
	if out == nil {
		return setErr(errOut, bridge.NullArgument("out"))
	}
	b, err := bridge.SkillsScan(goBytes(req, reqLen))
	return bytesOut(b, err, out, outLen, errOut)
}

//export swgo_skills_activate
func swgo_skills_activate(req *C.char, reqLen C.longlong, out **C.char, outLen *C.longlong, errOut **C.char) (rc C.int) {
	defer guard(&rc, errOut)
	if out == nil {
		return setErr(errOut, bridge.NullArgument("out"))
	}
	b, err := bridge.SkillsActivate(goBytes(req, reqLen))
	return bytesOut(b, err, out, outLen, errOut)
}

//export swgo_session_set_environment
func swgo_session_set_environment(h C.longlong, spec *C.char, specLen C.longlong, errOut **C.char) (rc C.int) {
	defer guard(&rc, errOut)
	return status(bridge.SessionSetEnvironment(int64(h), goBytes(spec, specLen)), errOut)
}

//export swgo_session_export
func swgo_session_export(h C.longlong, out **C.char, outLen *C.longlong, errOut **C.char) (rc C.int) {
	defer guard(&rc, errOut)
	b, err := bridge.SessionExport(int64(h))
	return bytesOut(b, err, out, outLen, errOut)
}

//export swgo_session_restore
func swgo_session_restore(h C.longlong, state *C.char, stateLen C.longlong, opts *C.char, optsLen C.longlong, out *C.longlong, errOut **C.char) (rc C.int) {
	defer guard(&rc, errOut)
	if out == nil {
		return setErr(errOut, bridge.NullArgument("out"))
	}
	s, err := bridge.SessionRestore(int64(h), goBytes(state, stateLen), goBytes(opts, optsLen))
	return handleOut(s, err, out, errOut)
}

//export swgo_session_from_messages
func swgo_session_from_messages(h C.longlong, msgs *C.char, msgsLen C.longlong, out *C.longlong, errOut **C.char) (rc C.int) {
	defer guard(&rc, errOut)
	if out == nil {
		return setErr(errOut, bridge.NullArgument("out"))
	}
	s, err := bridge.SessionFromMessages(int64(h), goBytes(msgs, msgsLen))
	return handleOut(s, err, out, errOut)
}

//export swgo_store_open
func swgo_store_open(spec *C.char, specLen C.longlong, out *C.longlong, errOut **C.char) (rc C.int) {
	defer guard(&rc, errOut)
	if out == nil {
		return setErr(errOut, bridge.NullArgument("out"))
	}
	h, err := bridge.OpenStore(goBytes(spec, specLen))
	return handleOut(h, err, out, errOut)
}

//export swgo_agent_open_session
func swgo_agent_open_session(h C.longlong, id *C.char, idLen C.longlong, opts *C.char, optsLen C.longlong, out *C.longlong, errOut **C.char) (rc C.int) {
	defer guard(&rc, errOut)
	if out == nil {
		return setErr(errOut, bridge.NullArgument("out"))
	}
	if id == nil {
		return setErr(errOut, bridge.NullArgument("id"))
	}
	s, err := bridge.AgentOpenSession(int64(h), string(goBytes(id, idLen)), goBytes(opts, optsLen))
	return handleOut(s, err, out, errOut)
}

//export swgo_session_claimed_resume
func swgo_session_claimed_resume(h C.longlong, out **C.char, outLen *C.longlong, errOut **C.char) (rc C.int) {
	defer guard(&rc, errOut)
	b, err := bridge.SessionClaimedResume(int64(h))
	return bytesOut(b, err, out, outLen, errOut)
}

//export swgo_session_abandon_resume
func swgo_session_abandon_resume(h C.longlong, errOut **C.char) (rc C.int) {
	defer guard(&rc, errOut)
	return status(bridge.SessionAbandonResume(int64(h)), errOut)
}

//export swgo_session_abandon_in_flight
func swgo_session_abandon_in_flight(h C.longlong, errOut **C.char) (rc C.int) {
	defer guard(&rc, errOut)
	return status(bridge.SessionAbandonInFlight(int64(h)), errOut)
}

//export swgo_run_start
func swgo_run_start(h C.longlong, req *C.char, reqLen C.longlong, runOut *C.longlong, fdOut *C.int, fdIn *C.int, errOut **C.char) (rc C.int) {
	defer guard(&rc, errOut)
	if runOut == nil || fdOut == nil || fdIn == nil {
		return setErr(errOut, bridge.NullArgument("run and fds"))
	}
	run, rfd, wfd, err := bridge.RunStart(int64(h), goBytes(req, reqLen))
	if err != nil {
		return setErr(errOut, err)
	}
	*runOut, *fdOut, *fdIn = C.longlong(run), C.int(rfd), C.int(wfd)
	return 0
}

//export swgo_run_complete
func swgo_run_complete(h C.longlong, token C.longlong, data *C.char, dataLen C.longlong, errOut **C.char) (rc C.int) {
	defer guard(&rc, errOut)
	ok, err := bridge.RunComplete(int64(h), int64(token), goBytes(data, dataLen))
	return more(ok, err, errOut)
}

//export swgo_run_cancel
func swgo_run_cancel(h C.longlong, errOut **C.char) (rc C.int) {
	defer guard(&rc, errOut)
	return status(bridge.RunCancel(int64(h)), errOut)
}

//export swgo_run_steer
func swgo_run_steer(h C.longlong, text *C.char, textLen C.longlong, errOut **C.char) (rc C.int) {
	defer guard(&rc, errOut)
	if text == nil {
		return setErr(errOut, bridge.NullArgument("text"))
	}
	ok, err := bridge.RunSteer(int64(h), string(goBytes(text, textLen)))
	return more(ok, err, errOut)
}

//export swgo_run_interrupt
func swgo_run_interrupt(h C.longlong, reason *C.char, reasonLen C.longlong, errOut **C.char) (rc C.int) {
	defer guard(&rc, errOut)
	return status(bridge.RunInterrupt(int64(h), string(goBytes(reason, reasonLen))), errOut)
}

//export swgo_release
func swgo_release(h C.longlong, errOut **C.char) (rc C.int) {
	defer guard(&rc, errOut)
	return status(bridge.Release(int64(h)), errOut)
}

//export swgo_handle_count
func swgo_handle_count() C.longlong {
	return C.longlong(bridge.HandleCount())
}

//export swgo_shutdown
func swgo_shutdown() (rc C.int) {
	defer guard(&rc, nil)
	bridge.Shutdown()
	return 0
}

//export swgo_tool_intent_key
func swgo_tool_intent_key(req *C.char, reqLen C.longlong, out **C.char, outLen *C.longlong, errOut **C.char) (rc C.int) {
	defer guard(&rc, errOut)
	if out == nil {
		return setErr(errOut, bridge.NullArgument("out"))
	}
	b, err := bridge.ToolIntentKey(goBytes(req, reqLen))
	return bytesOut(b, err, out, outLen, errOut)
}

//export swgo_tool_intents_submit
func swgo_tool_intents_submit(h C.longlong, req *C.char, reqLen C.longlong, out **C.char, outLen *C.longlong, errOut **C.char) (rc C.int) {
	defer guard(&rc, errOut)
	if out == nil {
		return setErr(errOut, bridge.NullArgument("out"))
	}
	b, err := bridge.ToolIntentsSubmit(int64(h), goBytes(req, reqLen))
	return bytesOut(b, err, out, outLen, errOut)
}

//export swgo_tool_intents_settle_parent_end
func swgo_tool_intents_settle_parent_end(h C.longlong, req *C.char, reqLen C.longlong, out **C.char, outLen *C.longlong, errOut **C.char) (rc C.int) {
	defer guard(&rc, errOut)
	if out == nil {
		return setErr(errOut, bridge.NullArgument("out"))
	}
	b, err := bridge.ToolIntentsSettleParentEnd(int64(h), goBytes(req, reqLen))
	return bytesOut(b, err, out, outLen, errOut)
}
