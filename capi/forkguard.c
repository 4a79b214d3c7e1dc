// forkguard.c: the sw_* functions of starweaver.h. Each checks that the
// process is not a child forked after the library was loaded, then calls
// its Go export (swgo_*, exports.go).
//
// Why in C: fork() copies only the calling thread, so in a child the Go
// runtime's threads (scheduler, GC, the thread holding a runtime lock at
// the time of the fork) are gone, and entering any Go export can block
// forever. Go code cannot guard against this, since running it is what
// hangs; a C check before the call can. The check is one load of a flag
// that a pthread_atfork child handler sets, so the hot paths pay nothing
// measurable.
//
// In a child, releasing a handle and shutting down are silent no-ops (the
// objects belong to the parent; a child that merely garbage-collects its
// copies must exit cleanly), sw_free works (it is plain free), and every
// other function fails with the "forked" error without touching Go.

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "starweaver.h"
#include "_cgo_export.h"

static volatile int sw_forked;

static void sw_mark_forked(void) { sw_forked = 1; }

__attribute__((constructor)) static void sw_forkguard_init(void) {
	pthread_atfork(NULL, NULL, sw_mark_forked);
}

static const char sw_forked_error[] =
	"{\"type\":\"forked\",\"message\":\"starweaver was loaded before this process was forked; "
	"the Go runtime does not survive fork(), so no library function may be called in the child. "
	"Start workers with the 'spawn' or 'forkserver' method, or load the library after forking.\"}";

static int sw_refuse(char **err) {
	if (err != NULL) {
		*err = strdup(sw_forked_error);
	}
	return -1;
}

void sw_free(void *p) {
	free(p);
}

int sw_version(char **out, long long *out_len) {
	if (sw_forked) return -1;
	return swgo_version(out, out_len);
}

int sw_error_kinds(char **out, long long *out_len) {
	if (sw_forked) return -1;
	return swgo_error_kinds(out, out_len);
}

int sw_model_new(const char *spec, long long spec_len, sw_handle *out, char **err) {
	if (sw_forked) return sw_refuse(err);
	return swgo_model_new((char *)spec, spec_len, out, err);
}

int sw_model_captured(sw_handle model, char **out, long long *out_len, char **err) {
	if (sw_forked) return sw_refuse(err);
	return swgo_model_captured(model, out, out_len, err);
}

int sw_model_messages(sw_handle model, const char *req, long long req_len, char **out, long long *out_len, char **err) {
	if (sw_forked) return sw_refuse(err);
	return swgo_model_messages(model, (char *)req, req_len, out, out_len, err);
}

int sw_agent_new(const char *spec, long long spec_len, sw_handle *out, char **err) {
	if (sw_forked) return sw_refuse(err);
	return swgo_agent_new((char *)spec, spec_len, out, err);
}

int sw_artifact_store_new(const char *spec, long long spec_len, sw_handle *out, char **err) {
	if (sw_forked) return sw_refuse(err);
	return swgo_artifact_store_new((char *)spec, spec_len, out, err);
}

int sw_artifact_put(sw_handle store, const char *spec, long long spec_len, const char *data, long long data_len,
		char **out, long long *out_len, char **err) {
	if (sw_forked) return sw_refuse(err);
	return swgo_artifact_put(store, (char *)spec, spec_len, (char *)data, data_len, out, out_len, err);
}

int sw_artifact_get(sw_handle store, const char *spec, long long spec_len, char **out, long long *out_len, char **err) {
	if (sw_forked) return sw_refuse(err);
	return swgo_artifact_get(store, (char *)spec, spec_len, out, out_len, err);
}

int sw_artifact_list(sw_handle store, const char *spec, long long spec_len, char **out, long long *out_len, char **err) {
	if (sw_forked) return sw_refuse(err);
	return swgo_artifact_list(store, (char *)spec, spec_len, out, out_len, err);
}

int sw_artifact_delete(sw_handle store, const char *spec, long long spec_len, char **out, long long *out_len, char **err) {
	if (sw_forked) return sw_refuse(err);
	return swgo_artifact_delete(store, (char *)spec, spec_len, out, out_len, err);
}

int sw_artifact_purge_expired(sw_handle store, const char *spec, long long spec_len, char **out, long long *out_len,
		char **err) {
	if (sw_forked) return sw_refuse(err);
	return swgo_artifact_purge_expired(store, (char *)spec, spec_len, out, out_len, err);
}

int sw_session_new(sw_handle agent, sw_handle *out, char **err) {
	if (sw_forked) return sw_refuse(err);
	return swgo_session_new(agent, out, err);
}

int sw_session_messages(sw_handle session, char **out, long long *out_len, char **err) {
	if (sw_forked) return sw_refuse(err);
	return swgo_session_messages(session, out, out_len, err);
}

int sw_session_info(sw_handle session, char **out, long long *out_len, char **err) {
	if (sw_forked) return sw_refuse(err);
	return swgo_session_info(session, out, out_len, err);
}

int sw_session_context(sw_handle session, const char *req, long long req_len, char **out, long long *out_len, char **err) {
	if (sw_forked) return sw_refuse(err);
	return swgo_session_context(session, (char *)req, req_len, out, out_len, err);
}

int sw_session_set_environment(sw_handle session, const char *spec, long long spec_len, char **err) {
	if (sw_forked) return sw_refuse(err);
	return swgo_session_set_environment(session, (char *)spec, spec_len, err);
}

int sw_catalog_host(sw_handle session, const char *req, long long req_len, char **out, long long *out_len, char **err) {
	if (sw_forked) return sw_refuse(err);
	return swgo_catalog_host(session, (char *)req, req_len, out, out_len, err);
}

int sw_skills_scan(const char *req, long long req_len, char **out, long long *out_len, char **err) {
	if (sw_forked) return sw_refuse(err);
	return swgo_skills_scan((char *)req, req_len, out, out_len, err);
}

int sw_skills_activate(const char *req, long long req_len, char **out, long long *out_len, char **err) {
	if (sw_forked) return sw_refuse(err);
	return swgo_skills_activate((char *)req, req_len, out, out_len, err);
}

int sw_session_export(sw_handle session, char **out, long long *out_len, char **err) {
	if (sw_forked) return sw_refuse(err);
	return swgo_session_export(session, out, out_len, err);
}

int sw_session_restore(sw_handle agent, const char *state, long long state_len, const char *opts,
		long long opts_len, sw_handle *out, char **err) {
	if (sw_forked) return sw_refuse(err);
	return swgo_session_restore(agent, (char *)state, state_len, (char *)opts, opts_len, out, err);
}

int sw_session_from_messages(sw_handle agent, const char *msgs, long long msgs_len, sw_handle *out, char **err) {
	if (sw_forked) return sw_refuse(err);
	return swgo_session_from_messages(agent, (char *)msgs, msgs_len, out, err);
}

int sw_store_open(const char *spec, long long spec_len, sw_handle *out, char **err) {
	if (sw_forked) return sw_refuse(err);
	return swgo_store_open((char *)spec, spec_len, out, err);
}

int sw_agent_open_session(sw_handle agent, const char *id, long long id_len, const char *opts,
		long long opts_len, sw_handle *out, char **err) {
	if (sw_forked) return sw_refuse(err);
	return swgo_agent_open_session(agent, (char *)id, id_len, (char *)opts, opts_len, out, err);
}

int sw_session_claimed_resume(sw_handle session, char **out, long long *out_len, char **err) {
	if (sw_forked) return sw_refuse(err);
	return swgo_session_claimed_resume(session, out, out_len, err);
}

int sw_session_abandon_resume(sw_handle session, char **err) {
	if (sw_forked) return sw_refuse(err);
	return swgo_session_abandon_resume(session, err);
}

int sw_session_abandon_in_flight(sw_handle session, char **err) {
	if (sw_forked) return sw_refuse(err);
	return swgo_session_abandon_in_flight(session, err);
}

int sw_run_start(sw_handle session, const char *req, long long req_len, sw_handle *run, int *fd_out,
		int *fd_in, char **err) {
	if (sw_forked) return sw_refuse(err);
	return swgo_run_start(session, (char *)req, req_len, run, fd_out, fd_in, err);
}

int sw_run_complete(sw_handle run, long long token, const char *outcome, long long outcome_len, char **err) {
	if (sw_forked) return sw_refuse(err);
	return swgo_run_complete(run, token, (char *)outcome, outcome_len, err);
}

int sw_run_cancel(sw_handle run, char **err) {
	if (sw_forked) return sw_refuse(err);
	return swgo_run_cancel(run, err);
}

int sw_run_steer(sw_handle run, const char *text, long long text_len, char **err) {
	if (sw_forked) return sw_refuse(err);
	return swgo_run_steer(run, (char *)text, text_len, err);
}

int sw_run_interrupt(sw_handle run, const char *reason, long long reason_len, char **err) {
	if (sw_forked) return sw_refuse(err);
	return swgo_run_interrupt(run, (char *)reason, reason_len, err);
}

int sw_tool_intent_key(const char *req, long long req_len, char **out, long long *out_len, char **err) {
	if (sw_forked) return sw_refuse(err);
	return swgo_tool_intent_key((char *)req, req_len, out, out_len, err);
}

int sw_tool_intents_submit(sw_handle agent, const char *req, long long req_len, char **out, long long *out_len, char **err) {
	if (sw_forked) return sw_refuse(err);
	return swgo_tool_intents_submit(agent, (char *)req, req_len, out, out_len, err);
}

int sw_tool_intents_settle_parent_end(sw_handle agent, const char *req, long long req_len, char **out, long long *out_len, char **err) {
	if (sw_forked) return sw_refuse(err);
	return swgo_tool_intents_settle_parent_end(agent, (char *)req, req_len, out, out_len, err);
}

int sw_release(sw_handle h, char **err) {
	if (sw_forked) return 0;
	return swgo_release(h, err);
}

long long sw_handle_count(void) {
	if (sw_forked) return -1;
	return swgo_handle_count();
}

int sw_shutdown(void) {
	if (sw_forked) return 0;
	return swgo_shutdown();
}
