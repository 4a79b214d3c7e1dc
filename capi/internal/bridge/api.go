// Package bridge is the runtime behind the C ABI of libstarweaver: the
// handle table, the JSON error objects and their slugs, decoding the JSON
// specs a host sends into core/ constructors, the host adapters (tools,
// models, hooks, instructions) and the pipe transport of a run.
//
// Package capi (package main) calls the functions of this file, one per
// function of starweaver.h, and only converts C arguments and results.
// Nothing here imports "C", so the package builds and tests without cgo.
package bridge

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/starweaver-go/starweaver/core/agent"
)

// ErrorJSON is the JSON error object of err given to the host.
func ErrorJSON(err error) []byte { return errorJSON(err) }

// ErrorKindsJSON is what sw_error_kinds reports.
func ErrorKindsJSON() []byte { return errorKindsJSON() }

// ErrorTypes is the list of the slugs an error object's type may hold.
func ErrorTypes() []string { return abiErrorTypes }

// NullArgument is the error of a C call given NULL for its argument name.
func NullArgument(name string) error {
	return &abiError{Type: "invalid_argument", Message: name + " must not be NULL"}
}

// Panic is the error of a C call that panicked with p.
func Panic(p any) error {
	return &abiError{Type: "internal", Message: fmt.Sprintf("panic: %v", p)}
}

// HandleCount is the number of live handles.
func HandleCount() int { return handles.count() }

// produce looks up handle h as a T and returns the bytes fn makes of it:
// the shape of every call that reads state.
func produce[T any](h int64, fn func(T) ([]byte, error)) ([]byte, error) {
	v, err := lookup[T](h)
	if err != nil {
		return nil, err
	}
	return fn(v)
}

// create decodes a JSON spec into S, builds an object from it and returns
// the object and its new handle: the shape of the calls that build objects.
func create[S any, T any](spec []byte, build func(S) (T, error)) (T, int64, error) {
	var zero T
	var s S
	if err := decodeStrict(spec, &s); err != nil {
		return zero, 0, err
	}
	v, err := build(s)
	if err != nil {
		return zero, 0, err
	}
	return v, handles.add(v), nil
}

// decodeThen decodes spec into S and then reads handle h as a T.
func decodeThen[S any, T any](h int64, spec []byte, fn func(T, S) ([]byte, error)) ([]byte, error) {
	var s S
	if err := decodeStrict(spec, &s); err != nil {
		return nil, err
	}
	return produce(h, func(v T) ([]byte, error) { return fn(v, s) })
}

// NewModel builds a model from its spec (sw_model_new).
func NewModel(spec []byte) (int64, error) {
	m, h, err := create(spec, buildModel)
	if err != nil {
		return 0, err
	}
	if hm, ok := m.m.(*hostModel); ok {
		hm.handle = h // the host names its model by this handle
	}
	return h, nil
}

// ModelCaptured reports the requests a test model captured (sw_model_captured).
func ModelCaptured(h int64) ([]byte, error) { return produce(h, capturedJSON) }

// ModelMessages answers a host model's messages request (sw_model_messages).
func ModelMessages(h int64, req []byte) ([]byte, error) {
	return produce(h, func(m *modelHandle) ([]byte, error) { return modelMessagesJSON(m, req) })
}

// NewAgent builds an agent from its spec (sw_agent_new).
func NewAgent(spec []byte) (int64, error) {
	_, h, err := create(spec, buildAgent)
	return h, err
}

// NewArtifactStore builds an artifact store from its spec (sw_artifact_store_new).
func NewArtifactStore(spec []byte) (int64, error) {
	_, h, err := create(spec, buildArtifactStore)
	return h, err
}

// ArtifactPut stores data (sw_artifact_put).
func ArtifactPut(h int64, spec, data []byte) ([]byte, error) {
	return decodeThen(h, spec, func(s *artifactStore, ps artifactPutSpec) ([]byte, error) {
		return s.put(context.Background(), ps, data)
	})
}

// ArtifactGet reads an artifact (sw_artifact_get).
func ArtifactGet(h int64, spec []byte) ([]byte, error) {
	return decodeThen(h, spec, func(s *artifactStore, gs artifactGetSpec) ([]byte, error) {
		return s.get(context.Background(), gs)
	})
}

// ArtifactList lists a page of artifacts (sw_artifact_list).
func ArtifactList(h int64, spec []byte) ([]byte, error) {
	return decodeThen(h, spec, func(s *artifactStore, ls artifactListSpec) ([]byte, error) {
		return s.list(context.Background(), ls)
	})
}

// ArtifactDelete deletes an artifact (sw_artifact_delete).
func ArtifactDelete(h int64, spec []byte) ([]byte, error) {
	return decodeThen(h, spec, func(s *artifactStore, ds artifactDeleteSpec) ([]byte, error) {
		return s.delete(context.Background(), ds)
	})
}

// ArtifactPurgeExpired deletes expired artifacts (sw_artifact_purge_expired).
func ArtifactPurgeExpired(h int64, spec []byte) ([]byte, error) {
	return decodeThen(h, spec, func(s *artifactStore, ps artifactPurgeSpec) ([]byte, error) {
		return s.purgeExpired(context.Background(), ps)
	})
}

// NewSession starts a session of agent h (sw_session_new).
func NewSession(h int64) (int64, error) {
	a, err := lookup[*agent.Agent](h)
	if err != nil {
		return 0, err
	}
	return handles.add(a.NewSession()), nil
}

// SessionMessages reports a session's history (sw_session_messages).
func SessionMessages(h int64) ([]byte, error) {
	return produce(h, func(s *agent.Session) ([]byte, error) { return json.Marshal(s.Messages()) })
}

// SessionInfo reports a session's state (sw_session_info).
func SessionInfo(h int64) ([]byte, error) {
	return produce(h, func(s *agent.Session) ([]byte, error) { return json.Marshal(infoOf(s)) })
}

// SessionContext answers a session context request (sw_session_context).
func SessionContext(h int64, req []byte) ([]byte, error) {
	return produce(h, func(s *agent.Session) ([]byte, error) { return sessionContext(s, req) })
}

// CatalogHost answers a catalog request, of session h or of none when h
// is 0 (sw_catalog_host).
func CatalogHost(h int64, req []byte) ([]byte, error) {
	if h == 0 {
		return catalogHostCall(nil, req)
	}
	return produce(h, func(s *agent.Session) ([]byte, error) { return catalogHostCall(s, req) })
}

// SkillsScan scans skill sources (sw_skills_scan).
func SkillsScan(req []byte) ([]byte, error) { return skillsScan(req) }

// SkillsActivate reads a skill (sw_skills_activate).
func SkillsActivate(req []byte) ([]byte, error) { return skillsActivate(req) }

// SessionSetEnvironment gives session h an environment (sw_session_set_environment).
func SessionSetEnvironment(h int64, spec []byte) error {
	s, err := lookup[*agent.Session](h)
	if err != nil {
		return err
	}
	p, err := decodeEnvironment(spec)
	if err != nil {
		return err
	}
	s.SetEnvironment(p)
	keepShells(s, environmentShell(p))
	return nil
}

// SessionExport exports a session's state (sw_session_export).
func SessionExport(h int64) ([]byte, error) { return produce(h, (*agent.Session).ExportState) }

// SessionRestore restores a session of agent h from exported state (sw_session_restore).
func SessionRestore(h int64, state, opts []byte) (int64, error) {
	a, err := lookup[*agent.Agent](h)
	if err != nil {
		return 0, err
	}
	ro, err := decodeRestoreOptions(opts)
	if err != nil {
		return 0, err
	}
	s, err := a.SessionFromState(state, ro...)
	if err != nil {
		return 0, err
	}
	return handles.add(s), nil
}

// SessionFromMessages starts a session of agent h with a history, or with
// an id and a history (sw_session_from_messages).
func SessionFromMessages(h int64, msgs []byte) (int64, error) {
	a, err := lookup[*agent.Agent](h)
	if err != nil {
		return 0, err
	}
	s, err := sessionFromMessages(a, msgs)
	if err != nil {
		return 0, err
	}
	return handles.add(s), nil
}

// OpenStore opens a store from its spec (sw_store_open).
func OpenStore(spec []byte) (int64, error) {
	_, h, err := create(spec, openStore)
	return h, err
}

// AgentOpenSession opens agent h's durable session id (sw_agent_open_session).
func AgentOpenSession(h int64, id string, opts []byte) (int64, error) {
	a, err := lookup[*agent.Agent](h)
	if err != nil {
		return 0, err
	}
	s, err := openSessionByID(a, id, opts)
	if err != nil {
		return 0, err
	}
	return handles.add(s), nil
}

// SessionClaimedResume reports the resume a session claimed (sw_session_claimed_resume).
func SessionClaimedResume(h int64) ([]byte, error) { return produce(h, claimedResumeJSON) }

// SessionAbandonResume abandons a session's claimed resume (sw_session_abandon_resume).
func SessionAbandonResume(h int64) error {
	s, err := lookup[*agent.Session](h)
	if err != nil {
		return err
	}
	return abandonResume(s)
}

// SessionAbandonInFlight abandons a session's run in flight (sw_session_abandon_in_flight).
func SessionAbandonInFlight(h int64) error {
	s, err := lookup[*agent.Session](h)
	if err != nil {
		return err
	}
	return abandonInFlight(s)
}

// RunStart starts a run of session h and returns its handle and the
// host's ends of its pipes: the items to read and the completions to
// write (sw_run_start).
func RunStart(h int64, req []byte) (run int64, readFD, writeFD int, err error) {
	s, err := lookup[*agent.Session](h)
	if err != nil {
		return 0, 0, 0, err
	}
	var spec runSpec
	if err := decodeStrict(req, &spec); err != nil {
		return 0, 0, 0, err
	}
	handle, r, err := startRun(s, spec)
	if err != nil {
		return 0, 0, 0, err
	}
	return handle, r.rfd, r.wfdIn, nil
}

// RunComplete completes a run's call token; false when nothing waits for
// it any more (sw_run_complete).
func RunComplete(h, token int64, data []byte) (bool, error) {
	r, err := lookup[*hostRun](h)
	if err != nil {
		return false, err
	}
	return r.complete(token, data), nil
}

// RunCancel cancels a run (sw_run_cancel).
func RunCancel(h int64) error {
	r, err := lookup[*hostRun](h)
	if err != nil {
		return err
	}
	r.cancel()
	return nil
}

// RunSteer gives a run a text for its next model request; false when the
// run takes none (sw_run_steer).
func RunSteer(h int64, text string) (bool, error) {
	r, err := lookup[*hostRun](h)
	if err != nil {
		return false, err
	}
	return r.steering != nil && r.steering.Steer(text), nil
}

// RunInterrupt stops a run with reason (sw_run_interrupt).
func RunInterrupt(h int64, reason string) error {
	r, err := lookup[*hostRun](h)
	if err != nil {
		return err
	}
	r.fail(agent.Interrupt(reason))
	return nil
}

// Release releases handle h and what it alone holds (sw_release).
func Release(h int64) error {
	v, ok := handles.remove(h)
	if !ok {
		return &abiError{Type: "bad_handle", Message: fmt.Sprintf("unknown handle %d", h)}
	}
	if r, ok := v.(*hostRun); ok {
		r.close()
	}
	if st, ok := v.(*storeHandle); ok {
		st.release()
	}
	releaseShell(v)
	return nil
}

// Shutdown cancels every run and refuses further ones (sw_shutdown).
func Shutdown() { shutdown() }

// ToolIntentKey derives the identity of an intent key (sw_tool_intent_key).
func ToolIntentKey(req []byte) ([]byte, error) { return toolIntentKey(req) }

// ToolIntentsSubmit submits one intent through agent h's ingress (sw_tool_intents_submit).
func ToolIntentsSubmit(h int64, req []byte) ([]byte, error) {
	return produce(h, func(a *agent.Agent) ([]byte, error) {
		return toolIntentsSubmit(context.Background(), a, req)
	})
}

// ToolIntentsSettleParentEnd settles the parent-end actions of agent h's
// ingress's scope (sw_tool_intents_settle_parent_end).
func ToolIntentsSettleParentEnd(h int64, req []byte) ([]byte, error) {
	return produce(h, func(a *agent.Agent) ([]byte, error) {
		return toolIntentsSettle(context.Background(), a, req)
	})
}
