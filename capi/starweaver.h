/* starweaver.h: the C ABI of the starweaver runtime (libstarweaver).
 *
 * Conventions:
 *   - Objects cross as opaque integer handles (sw_handle); 0 is never valid.
 *   - Data crosses as JSON bytes with an explicit length. Input buffers are
 *     copied before the call returns; the caller keeps ownership.
 *   - Every buffer the library returns through a char** is owned by the
 *     caller and must be released with sw_free.
 *   - Functions return 0 on success and -1 on failure; on failure *err (when
 *     err is not NULL) receives a JSON object {"type": slug, "message": text}
 *     to be freed with sw_free. No Go panic crosses this boundary. An error
 *     of type "state" may carry a "code" telling durable sessions' refusals
 *     apart: "session_conflict" (the session changed in its session store
 *     since this session handle loaded or saved it: another worker ran or
 *     resumed it; open it again with sw_agent_open_session) and
 *     "resume_claimed" (a resume of its waiting run was claimed and has not
 *     finished; see sw_session_claimed_resume) and "run_in_flight" (a worker
 *     stopped while the session's run ran its tool calls; continue it with
 *     a run spec {"recover": true}, see sw_run_start, or close it with
 *     sw_session_abandon_in_flight).
 *   - Fork: the Go runtime does not survive fork(). In a child forked
 *     after the library was loaded no function enters Go: sw_release and
 *     sw_shutdown do nothing and return 0 (so a child may drop inherited
 *     objects), sw_free works, sw_version, sw_error_kinds and
 *     sw_handle_count return -1, and every other function returns -1 with
 *     *err of type "forked".
 *     Load the library after forking, or start workers with spawn.
 *   - The library never calls back into the host. A run writes the work
 *     for its host to a pipe (fd from sw_run_start), one JSON item per
 *     line; the host reads it without calling into the library. Items:
 *       [token, tool, arguments]   (a call of a tool that reads no context)
 *       [token, tool, run_id, conversation_id, tool_call_id, tool_name,
 *        run_step, retry, max_retries, idempotency_key, runtime, arguments]
 *                                  (a plain call otherwise; the key is the
 *                                  call's, stable across re-runs and crashes;
 *                                  runtime is the call's read-only snapshot
 *                                  {"limits": {"request_limit", ...},
 *                                  "max_retries", "timeout_ms"?,
 *                                  "shell_environment"?}, the shell values
 *                                  for Legacy calls only; the object form's
 *                                  context has it as "runtime")
 *       {"kind": "call", "token": n, "tool": id, "context": {...}, "arguments": {...}}
 *         (the context has "authority": {"profile", "host_capabilities",
 *         "context_capabilities", "shell_environment": {...} | null} when
 *         the call's dependency profile narrowed it: the host gives the
 *         call only the named dependencies listed; a Legacy call with no
 *         context capabilities and no shell environment has none)
 *       {"kind": "preprocess", "token": n, "tool": id, "context": {...}, "input": json}
 *       {"kind": "resource_keys", "token": n, "tool": id, "arguments": [{...}, ...]}
 *         asks a tool spec with "resource": {"host": true} for the resource
 *         keys of its calls in one batch, in order (one item per tool per
 *         batch, sent only when two or more of the batch's calls have
 *         keys): the outcome is {"ok": true, "keys": ["key" | null, ...]}
 *         (null: that call's key could not be computed). A null key, or a
 *         failed or malformed answer, orders the call as a write on every
 *         key.
 *       {"kind": "hook", "token": n, "hook": id, "phase": "before" | "validate",
 *        "context": {...}, "arguments": {...}}
 *       {"kind": "hook", "token": n, "hook": id, "phase": "after",
 *        "context": {...}, "outcome": outcome}
 *       {"kind": "prepare", "token": n, "callback": id, "context": {"run_id",
 *        "conversation_id", "run_step", "metadata", "active_tags"},
 *        "definitions": [...]}
 *         asks a host callback (a tool spec's "prepare" or "available", a
 *         toolset layer {"kind": "prepared", "callback": id}) to prepare
 *         definitions: the outcome is {"ok": true, "definitions": [...] |
 *         null} (null keeps them; fewer hides tools; a tool's prepare answers
 *         one or none; its "available" check is sent no definitions and
 *         answers null when the tool is available, [] when not) or
 *         {"ok": false, "message": "..."}, which ends the run with an error
 *         of type "config" carrying the message.
 *       {"kind": "instructions", "token": n, "callback": id, "context": {...}}
 *         asks a toolset spec's "instructions_callback" for per-context
 *         instructions (context as for "prepare"): the outcome is
 *         {"ok": true, "instructions": "text"} (blank for none), joined to
 *         the toolset's own, or {"ok": false, "message": "..."} as above.
 *       {"kind": "toolset_enter" | "toolset_exit" | "toolset_prepare",
 *        "token": n, "callback": id, "toolset": name, "refresh"?: true,
 *        "context": {...}}
 *         runs one phase of a host dynamic toolset (a toolset spec with
 *         "dynamic": {"callback": id, "per_step"?: bool} and optionally
 *         "lifecycle": {"initialization_timeout_ms"?, "read_timeout_ms"?,
 *         "exit_timeout_ms"?, "enter_before_prepare"?, "exit_after_run"?,
 *         "fail_on_unavailable"?}; context as for "prepare"). The runtime
 *         decides when: enter before the toolset's first read in a run,
 *         prepare at the first step (every step with "per_step"; with
 *         "refresh": true instead of the first read of a resumed run), exit
 *         on every end of the run; each wait is bounded by the policy's
 *         timeouts and the run, and a "cancel" item follows a wait that
 *         ended. Enter and exit are answered {"ok": true}; prepare is
 *         answered {"ok": true, "tools": [tool specs], "instructions":
 *         ["text"], "toolsets": [toolset specs]} (tool specs and toolset
 *         specs as in sw_agent_new; the host tools must be known to the
 *         host by their ids). Any phase may answer {"ok": false, "message":
 *         "..."}: a failed enter leaves the toolset out of the run (reported
 *         as a "toolset_unavailable" custom event and a "warning" item) or, with
 *         "fail_on_unavailable", ends the run with an error of type
 *         "config" naming the toolset; a failed or timed-out prepare ends
 *         the run that way; a failed exit is reported ("toolset_failed").
 *         Lifecycle reports reach the run as custom events
 *         "toolset_initialized", "toolset_unavailable", "toolset_failed" and
 *         "toolset_closed" with {"toolset", "id", "status", "tool_count",
 *         "instruction_count", "error"?, "phase"?}.
 *       {"kind": "cancel", "token": n}
 *       {"kind": "model", "token": n, "model": handle, "transcript": id,
 *        "length": n, "params": {...}} (the request's messages are the first
 *        "length" messages of the transcript: see sw_model_messages)
 *       {"kind": "event", "event": {...}}
 *       {"kind": "warning", "warning": {"kind", "toolset"?, "id"?, "message"}}
 *         something the run went on despite (kind "toolset_unavailable": a
 *         toolset that could not be entered was left out of the run); sent
 *         whether or not the run asked for events, for the host to log.
 *       {"kind": "done", "result": {...}, "error": {...} | null}
 *     Call arguments stay within the runtime's limits (at most 128 levels of
 *     nesting, number literals of at most 4000 characters, valid UTF-8, at
 *     most 16 MiB); the runtime refuses others as invalid_arguments.
 *     Completions go back one per line as [token, outcome], strict JSON (no
 *     NaN). A line that cannot be read is never dropped: when it starts with
 *     "[token," that call fails with a user_error naming the reason, else
 *     the run ends with an error of type "bridge".
 *     Hooks are the host's execution hooks (spec "hooks": [{"id", "name",
 *     "before", "after"}] on the agent and on a tool; a tool's
 *     "validators": [id] are its argument validators, run after its hooks).
 *     A "before" or "validate" item is answered {"ok": true} (arguments
 *     unchanged), {"ok": true, "arguments": {...}, "metadata"?: {...}} (the
 *     new arguments, validated against the schema afterwards, and the
 *     call's new metadata), or a failure outcome, which ends the call with
 *     it. An "after" item carries the call's outcome in the shape the host
 *     itself writes; it is answered {"ok": true, "keep": true}, {"ok": true,
 *     "outcome": outcome} (replacing it) or a failure outcome (replacing
 *     it); approval_required and call_deferred outcomes are only observed.
 *     A host meeting an unknown item kind or hook phase fails that item.
 *   - A call's outcome is {"ok": true, "content": v, "metadata"?, "app_value"?,
 *     "model_content"?, "user_content"?, "private_metadata"?, "is_error"?}
 *     or {"ok": false, "kind": slug, "message", ...}. {"ok": false, "kind":
 *     "call_deferred", "message", "pending": {"deadline_ms"?, "on_timeout"?:
 *     "error_as_result" | "fail_turn", "on_cancel"?: "ignore" |
 *     "cancel_external_work"}} is a pending attempt: allowed only from a
 *     tool spec with "attempt_may_defer": true (else the call fails with
 *     "user_error"), whose calls' context has "completion_key" (the key
 *     the run's deferred item names as "completion_key" and a resume may
 *     answer it by). A rich output (a
 *     ToolOutput) adds "parts": [part, ...] (what the model reads, in
 *     order), "structured_content": v and "host_only": true (never shown
 *     to a model: the run fails with "tool_output_not_visible"). A part is
 *       {"kind": "text", "text": s}
 *       {"kind": "image" | "audio", "source": source}
 *       {"kind": "document", "source": source, "name"?: s}
 *       {"kind": "resource_link", "uri", "name", "title"?, "description"?,
 *        "media_type"?, "size"?}
 *     and a source {"kind": "url", "url": http(s), "media_type"?},
 *     {"kind": "base64", "media_type", "data": standard base64} or
 *     {"kind": "artifact", "reference": artifact reference (see
 *     sw_artifact_put)}. An unknown kind, a field of another kind or a
 *     malformed value, and an output of more than the agent's
 *     "max_tool_output_bytes" (8 MiB by default), end the call with the
 *     error kind "invalid_output". The same parts appear in the tool
 *     returns of messages ("parts", "structured_content").
 *
 * This file is also fed to cffi's cdef: keep it free of preprocessor lines
 * other than the include guard.
 */
#ifndef STARWEAVER_H
#define STARWEAVER_H

typedef long long sw_handle;

/* sw_free releases a buffer returned by the library. NULL is ignored. */
void sw_free(void *p);

/* sw_version writes the library version as a JSON string.
 * Returns: 0 (-1 in a forked child). */
int sw_version(char **out, long long *out_len);

/* sw_error_kinds writes the library's error vocabulary as JSON:
 * {"error_kinds": [...], "error_types": [...], "effect_classes": [...],
 * "tool_kinds": [...], "core_bundles": [...]}.
 * error_kinds are the "kind" slugs of failed tool returns (and of host tool
 * outcomes); error_types are the "type" slugs of the error objects written
 * to *err; effect_classes are the effect classes a tool may declare (its
 * "effect"; anything else fails sw_agent_new). Hosts check their exception
 * maps against the first two and may refuse an unknown effect class where
 * the tool is declared, checking their list against the third.
 * tool_kinds are the values of the "starweaver_tool_kind" definition
 * metadata; core_bundles the toolset bundles (a toolset spec's "bundle")
 * of the standard first-party toolsets, in order ("user_input" is opt-in,
 * never among them).
 * Returns: 0 (-1 in a forked child). */
int sw_error_kinds(char **out, long long *out_len);

/* sw_model_new builds a model from a JSON spec:
 *   {"kind": "test", "responses": [...]}, {"kind": "test", "auto": true}
 *   (no script: calls each offered tool once, then sums up),
 *   {"kind": "function"}, or a
 *   provider model {"kind": "openai" | "openai-responses" | "anthropic" |
 *   "google" | "google-vertex",
 *   "provider": {"model": name, "base_url", "api_key", "headers": {...},
 *   "max_retries", "timeout_ms", "connect_timeout_ms",
 *   "first_byte_timeout_ms", "idle_timeout_ms", "max_retry_after_ms",
 *   "stream", "provider_name", "max_tokens", "thinking_budget",
 *   "include_thoughts", "project", "location"}} (all but model optional;
 *   an absent or 0 bound keeps its default; project and location are
 *   google-vertex's). A provider's
 *   failures are "model" errors carrying "provider", "status_code" and
 *   "code" (a timeout: "connect_timeout", "first_byte_timeout",
 *   "idle_timeout"), their text redacted of credentials.
 * Returns: 0, or -1 with *err (type "invalid_spec"). */
int sw_model_new(const char *spec, long long spec_len, sw_handle *out, char **err);

/* sw_model_captured writes the requests a test model received:
 *   [{"messages": [...], "params": {...}}, ...].
 * Returns: 0, or -1 with *err (type "bad_handle", "unsupported"). */
int sw_model_captured(sw_handle model, char **out, long long *out_len, char **err);

/* sw_model_messages writes messages of a host model's transcript:
 *   req {"transcript": id, "from": a, "to": b} -> [message, ...] (from a
 *   to b, excluded). A "model" item names the messages of its request by
 *   "transcript" and "length" instead of carrying them: the messages are
 *   the first "length" of that transcript. A transcript only grows (the
 *   messages of one id at one position never change), so a host keeps what
 *   it fetched per transcript and fetches only the messages past those;
 *   the transcript of a request stays available at least until the request
 *   is answered (a bounded number is kept after that).
 * Returns: 0, or -1 with *err (type "bad_handle", "unsupported" for a
 * model that is not a host model, "invalid_spec", "invalid_argument" for
 * an unknown transcript or a range outside it). Safe from any thread. */
int sw_model_messages(sw_handle model, const char *req, long long req_len, char **out, long long *out_len, char **err);

/* sw_agent_new builds an agent from a JSON spec naming a model handle,
 * host tools (definitions plus host ids), instructions and policies.
 * Model settings and structured output:
 *   "settings": {"temperature", "top_p", "max_tokens", "stop": [...],
 *                "seed", "parallel_tool_calls", "tool_choice",
 *                "timeout_ms", "extra_headers": {...}, "extra_body": {...}}
 *       sent with every request (a run's "settings" are merged over them);
 *       values out of range are refused as "invalid_spec", in one message.
 *   "output": {"name", "description", "schema", "mode": "tool"|"native",
 *              "strict", "validator": host id}
 *       the run ends with a structured answer, "output_value" in the result.
 *       With a validator id, each answer that matches the schema is sent
 *       to the host as a "call" item of that id (the context form; the
 *       arguments are the answer). Its outcome {"ok": true, "content": v}
 *       makes v the answer; a "model_retry" or "invalid_arguments" failure
 *       is sent back to the model as a retry prompt; any other failure fails
 *       the run with an error of type "output".
 *   "output_retries": n   the budget of output corrections (default
 *       max_retries, else 3); once spent the run fails with "retry_limit"
 *       and "output": true.
 * Effects:
 *   a tool spec's "effect": "pure" | "read_only" | "idempotent_write" |
 *       "non_idempotent_write" | "destructive" | "unknown" (absent:
 *       undeclared) says what its calls do. Only pure, read-only and
 *       idempotent-write calls are re-run after an unexpected failure;
 *       the others run once, and such a failure (or a timeout) gives a
 *       return whose metadata has "starweaver_ambiguous": true. Calls of
 *       one pure or read-only tool run in parallel in a batch.
 *   "default_effect": class   the class of tools that declare none.
 *   An unknown class is "invalid_spec".
 *   "destructive_policy": "approve" | "allow" | "deny"   what a call of a
 *       destructive tool does before it runs: "approve" (the default)
 *       waits for an approval (metadata "destructive_policy": "approve"),
 *       "allow" runs it, "deny" gives the model an approval_denied return.
 *       Another value is "invalid_spec".
 * Projected arguments:
 *   "projection_resolver": id   a host function called like a host tool
 *       that reads its context, with the arguments {"ref": reference}, for
 *       every {"__projection_ref__": reference} object in a call's
 *       arguments, before its hooks and schema check: its value replaces
 *       the object, a failure makes the call "invalid_arguments". A tool
 *       spec's "preserve_projected_refs_in_field": name keeps the objects
 *       of that one argument.
 * Scheduling:
 *   a tool spec's "max_concurrency": n (n >= 1) caps how many of its calls
 *       run at once, across batches and the concurrent runs of the agent,
 *       without holding back other tools; a toolset spec's
 *       "max_concurrency": n caps each of its tools on its own (a tool's
 *       own value wins). Below 1 is "invalid_spec".
 *   a tool spec's "resource": {"key": "path" | "/json/pointer" |
 *       "host": true, "access"?: "read" | "write"} orders the tool's calls
 *       in a batch by resource key instead of by name: calls on different
 *       keys run in parallel (a repeated name no longer makes the batch
 *       sequential), reads of one key run together, and a write waits for
 *       the earlier calls on its key and the later ones wait for it, in
 *       model order. "key" names an argument (a JSON Pointer when it starts
 *       with "/"), read by the runtime with no round trip: a string is the
 *       key, another value its compact JSON, a missing one "". "host": true
 *       asks the host (a "resource_keys" item). Access defaults to "write";
 *       an unknown access, or both or neither of key and host, is
 *       "invalid_spec".
 * Instructions: a toolset spec's "instructions": [text, ...] are one
 *   instruction of the toolset's group (its name), "instruction_groups":
 *   [{"group", "content"}, ...] instructions of their own groups (a blank
 *   group is the toolset's name), added after them. Across a run's
 *   toolsets one instruction per group is kept, the first, and they are
 *   rendered ordered by group.
 * Tool catalogues (a toolset spec whose "catalog" is set; its "combined"
 * toolset specs are the members, with their ids as namespaces):
 *   "catalog": {"kind": "tool_search", "max_results"?: n}
 *       the model first sees only tool_search{query}; every member tool is
 *       registered but listed only once a search loaded it (its name or
 *       its namespace is in the session's tool-search loaded state, which
 *       sw_session_export keeps).
 *   "catalog": {"kind": "tool_proxy", "max_results"?: n, "prefix"?: p,
 *               "namespace_descriptions"?: {id: text}}
 *       the model sees search_tools{query} and call_tool{name, arguments}
 *       ({p}_search_tool and {p}_call_tool with a prefix); member tools are
 *       never listed and a direct call of one is not_found; call_tool runs
 *       them through the registry (validation, hooks, timeouts, approval).
 *   max_results defaults to 5. An unknown kind, a negative max_results, a
 *   prefix that is not a name (an ASCII letter, then letters, digits and
 *   underscores, once spaces and outer underscores are trimmed) or a
 *   tool_search with a prefix or namespace_descriptions is "invalid_spec".
 *   The catalogues publish custom events tool_search_initialized,
 *   tool_search_loaded, tool_search_no_match, tool_search_failed (and,
 *   through sw_catalog_host, tool_search_refreshed and
 *   tool_search_invalidated).
 * MCP toolsets:
 *   a toolset spec {"name", "id"?, "kind": "mcp", "mcp": {...},
 *       "max_retries"?, "timeout_ms"?, "layers"?, ...} takes its tools from
 *       a Model Context Protocol server; "mcp" is {"transport": transport,
 *       "tool_prefix"?, "cache_tools"?: bool, "read_timeout_ms"?,
 *       "init_timeout_ms"?, "include_instructions"?: bool, "optional"?: bool},
 *       a transport
 *       {"kind": "stdio", "command", "args"?: [...], "env"?: {...}, "cwd"?}
 *       (a child process speaking MCP on stdin/stdout) or {"kind":
 *       "streamable_http", "url", "headers"?: {...}}. The tools are named
 *       "{tool_prefix}_{name}" (the server's name without a prefix); their
 *       definitions carry the server's schema and description and the
 *       metadata "mcp_server_id" (the id, else the name), "mcp_transport",
 *       "mcp_tool_name" and "mcp_task" (false). The server is started (or
 *       connected to) when the toolset's tools are first read and stopped
 *       when the run that read them ends; one that does not start or answer
 *       within init_timeout_ms (30 s by default) fails the run with an
 *       error of type "config" naming the toolset and its command or URL,
 *       never a hang; with "optional": true the run goes on without its
 *       tools instead, with a "toolset_unavailable" custom event and a
 *       "warning" item (below). Lists are cached unless "cache_tools" is
 *       false, and listed again on notifications/tools/list_changed;
 *       read_timeout_ms bounds each listing. Calls are validated against
 *       the server's schema, bounded by the tools' timeouts (a timeout or a
 *       cancelled run cancels the request on the server), and their MCP
 *       content becomes the return's content (all text) or "parts" (images,
 *       audio, embedded resources, resource links); "isError" gives a
 *       return with "is_error": true. An unknown "kind", transport kind or
 *       field is "invalid_spec".
 * Skills toolsets:
 *   a toolset spec {"name"?: "skills", "kind": "skills", "skills":
 *       {"packages": [package], "publish_scan"?: bool, "diagnostics"?:
 *       [diagnostic]}} is the toolset "skills" (id "skills") with no tools
 *       and one instruction (group "skills"): the skill routing policy and
 *       one line "- {name}: {description} ({path})" per package, sorted, or
 *       "No fileops-loaded skills are currently available."; packages and
 *       diagnostics are as sw_skills_scan writes them. With "publish_scan"
 *       each run publishes the custom event skills_scanned
 *       {"package_count", "packages": [{"name", "description", "path",
 *       "activated"}], "diagnostics"} when it starts (diagnostics need
 *       publish_scan). A package without a name, description or path, a
 *       name other than "skills", tools or instructions are "invalid_spec".
 * Durable sessions:
 *   "session_store": handle   a store (sw_store_open) that keeps the
 *       agent's sessions by id: every run's end saves the session with a
 *       compare-and-swap, and a resume first claims the waiting run in the
 *       store, so that of two resumes of one waiting run (in this process
 *       or another, or from an old exported copy) exactly one runs and the
 *       other fails with "state" (code "session_conflict" or
 *       "resume_claimed") before anything runs. A run whose end could not
 *       be saved reports it in its done item ("store_unavailable", or
 *       "state" with code "session_conflict"); the session handle then
 *       refuses runs until opened again. Give agents sharing a store the
 *       same "state_key". The agent keeps the store's database open while
 *       it or a session of it is alive, whether or not the store handle
 *       is released.
 *   "effect_journal": handle   a store (sw_store_open; the session store's
 *       own, or another) that journals the agent's tool calls that may
 *       change the world (every tool that is not "pure" or "read_only"):
 *       each call is recorded started before it runs and completed, with
 *       its return, after. A call met again (a recovered turn) replays the
 *       recorded return (its metadata has "starweaver_replayed": true) and
 *       is not run; a call whose record started and never finished returns
 *       an execution error with "starweaver_ambiguous": true and is not
 *       run; a call the journal cannot record does not run and returns an
 *       execution error (a call that ran but whose completion could not be
 *       recorded carries "starweaver_journal_error" in its metadata). With
 *       a "session_store" too, each run is saved before it runs a batch of
 *       calls, so another worker can recover it (sw_run_start's
 *       "recover"); such agents do not dispatch calls eagerly.
 *   "intent_journal": handle   a store (sw_store_open; the session store's
 *       own, or another) that keeps the intents tools declare (a host
 *       tool's outcome {"ok": true, ..., "intents": {"protocol_version": 1,
 *       "intents": [{"kind", "intent"}, ...]}}): once a call's final
 *       attempt ends, its return and intents are committed, then the
 *       intents are realised in order, each once, under a replay key of the
 *       session, the turn ("<run id>:<step>"), the call id and the index.
 *       The outcomes are in the return's metadata under
 *       "starweaver_intents" and their addenda follow what the model reads.
 *       A recovered run replays a committed call instead of running it.
 *       Without it, a tool that declares intents fails with "user_error";
 *       so does one that declares intents and pauses (approval, deferral).
 *       Hosts submit intents of their own with sw_tool_intents_submit.
*   "effect_recovery": "reject_ambiguous" | "retry_safe"   what a call
 *       does when its record started and never finished: refuse it as
 *       ambiguous (the default), or run it again when its class is safe to
 *       repeat (undeclared, or "idempotent_write"). Needs "effect_journal".
 * Rich outputs and artifacts:
 *   "artifacts": {"store": artifact store handle, "scope": "tenant.acme",
 *                 "resolve_limit": bytes}
 *       the agent's artifact store: artifact sources in tool returns are
 *       read from it just before each model request (history and exported
 *       state keep references), at most resolve_limit bytes each (16 MiB by
 *       default). A reference of another scope, or over the limit, fails
 *       the run with "artifact_invalid", other failures with the other
 *       artifact slugs.
 *   "max_tool_output_bytes": n   the largest output of one call (8 MiB).
 *   "output_budget": {"max_bytes", "head_bytes", "disabled"}
 *       with "artifacts", a tool return whose model-visible text is over
 *       max_bytes (32 KiB) is stored in the artifact store and replaced by
 *       its first head_bytes (4 KiB), its size and the artifact's id, and a
 *       "read_artifact" tool ({"ref", "offset", "limit"}) is added to read
 *       on; its metadata holds "starweaver_spilled": {"artifact": reference,
 *       "size_bytes", "head_bytes"}.
 * A run whose tool returned host-only output fails with an error of type
 * "tool_output_not_visible" carrying "tool" and "tool_call_id".
 * First-party bundles and the local shell:
 *   a toolset spec {"bundle": name} is a toolset implemented in the
 *       library: "user_input" (ask_user_question) or "shell" (shell_exec
 *       {command, arguments?, timeout_seconds=180, environment?, cwd?,
 *       background=false}, shell_wait {process_id, timeout_seconds=180},
 *       shell_status {}, shell_input {process_id, text, close_stdin},
 *       shell_signal {process_id, signal}, shell_kill {process_id}). The
 *       shell tools use the named dependency "starweaver.shell", else the
 *       environment provider "starweaver.environment" when it runs
 *       commands; without either a call fails with "user_error". Policy
 *       refusals, unknown processes and a blank command are "feedback".
 *       The shell bundle takes an optional "policy" {"allow_execute",
 *       "allowed_programs"} that narrows what its shell_exec runs: a
 *       command runs only when both it and the shell's own policy permit
 *       it. "filesystem" (ls, glob, grep, view, write, edit, multi_edit,
 *       mkdir, move, copy, delete) works on "starweaver.environment".
 *       An unknown bundle, or "policy" on another bundle, is "invalid_spec".
 *   "shell": {"root", "allow_execute": bool, "allowed_programs": [name, ...],
 *             "max_processes"?: n, "max_capture_bytes"?: n, "sandbox"?: bool,
 *             "sandbox_read_only"?: [absolute path]}
 *       gives the agent's runs a local shell as "starweaver.shell":
 *       commands start in root (an existing directory; cwd stays inside
 *       it), run only when allow_execute is true, and with
 *       allowed_programs only as those exact programs with literal
 *       arguments (shell scripts and environment overrides are refused).
 *       Scripts run with /bin/sh -c; every command leads its own process
 *       group, terminated (TERM, then KILL) on timeout, cancellation and
 *       kill, and killed whole once its leader exits. At most
 *       max_processes (8) run at once, foreground and background; more is
 *       refused, not queued. Each of stdout and stderr keeps at most
 *       max_capture_bytes (1 MiB); the metadata says <stream>_bytes,
 *       <stream>_captured_bytes and <stream>_truncated. Commands inherit
 *       only PATH, HOME, USER, LOGNAME, LANG, LC_ALL, LC_CTYPE, TZ, TMPDIR
 *       and TERM of the host's environment, plus the session's shell
 *       environment. Releasing the agent handle (or sw_shutdown) kills
 *       every process the shell still runs; sessions of a released agent
 *       can run no more commands. Commands run in a bubblewrap sandbox
 *       (own PID namespace and /proc, root read-write, the system's
 *       directories and "sandbox_read_only" read-only, nothing else of the
 *       host's files, a fresh /tmp) and die with the host process, even on
 *       SIGKILL;
 *       "sandbox": false runs them on the host (unsafe: they can read the
 *       host's /proc/<pid>/environ). A missing root, a root that is not a
 *       directory, a limit of 0 or less, an unknown key, or allow_execute
 *       without a sandbox (bwrap missing, the kernel refusing) and without
 *       "sandbox": false is "invalid_spec".
 * Least authority:
 *   "tool_capability_grants": {tool: {"host_capabilities": [name, ...],
 *       "context_capabilities": [name, ...], "shell_environment": bool}}
 *       the grants every session of the agent starts with (a session's
 *       own, see sw_session_context, replace them per tool). A Strict tool
 *       receives only what it declares intersected with its grant.
 * The native batch tool:
 *   "plugins": ["starweaver.batch", ...]   installs built-in plugins by
 *       id, in order; "starweaver.batch" installs the batch tool, of which
 *       "batch_tool": true is the shorthand. An unknown or repeated id
 *       fails sw_agent_new.
 *   "batch_tool": true   offers the tool "batch" (toolset "batch"; false
 *       or absent: not offered). Its arguments are {"tool_calls": [{"tool":
 *       name, "parameters"?: {...}}, ...]}; its content is {"results":
 *       [{"index", "tool", "success", "duration_ms": 0, "result"?,
 *       "error"?}]}, one entry per call in index order, and the batch call
 *       succeeds even when calls fail. Call i of the batch call P has the
 *       id "P:" and i in two digits ("P:03") and index i in its context, and goes through
 *       the registry like a model's call (validation, hooks, timeouts,
 *       approval, effect journal), in parallel where the batch rules
 *       allow. Failed entries: a nested batch ("Tool 'batch' is not
 *       allowed inside batch"), a tool the run does not offer ("Tool 'x'
 *       is unavailable in this session"), every call past the 25th
 *       ("Maximum of 25 tool calls allowed in batch"), a deferred call, a
 *       call needing approval when running the batch again could repeat
 *       another call's effect. Otherwise a call needing approval pauses
 *       the batch call itself: its pending approval's metadata lists the
 *       calls under "batch_approvals" ([{"index", "tool", "tool_call_id",
 *       "arguments", "reason", "metadata"}]), and the approved batch runs
 *       again, giving them the decision. Malformed arguments are
 *       "invalid_arguments" ("Missing required parameter: tool_calls",
 *       "Invalid tool_calls[i].tool: expected non-empty string"). The
 *       return's metadata "batch_calls" lists [{"index", "tool",
 *       "tool_call_id", "error_kind"?}].
 * Handoffs:
 *   "handoffs": [{"agent": agent handle, "tool_name"?, "description"?,
 *       "on_handoff"?: id, "input_filter"?: id}, ...]   agents the model
 *       may transfer the run to, through a tool taking no arguments
 *       ("transfer_to_" and the agent's name lowercased, characters
 *       outside [a-z0-9_-] as "_", unless "tool_name"); a name another
 *       tool uses is "config". The receiving agent continues the run (see
 *       agent.Handoff); the run's result carries "last_agent", the name of
 *       the agent that answered last. "on_handoff" and "input_filter" are
 *       host ids called as host tools that read their context ("call"
 *       items): "on_handoff" with {} (its failure fails the run with an
 *       error of type "handoff"), "input_filter" with {"messages":
 *       [message, ...]} (the conversation so far; its value is the list
 *       the receiving agent's model reads; a failure or a value that is
 *       not a list of messages fails the run with "handoff").
 * Environment:
 *   "environment": environment spec   every session's default environment
 *       provider, which first-party filesystem and shell tools reach as the
 *       host capability "starweaver.environment" (see
 *       sw_session_set_environment for the spec). A virtual environment is
 *       copied into each session and travels with its exported state.
 * Tool errors:
 *   "tool_error_policy": "return_to_model" | "fail_fast"
 *       what a failed call does (a run's "tool_error_policy" overrides
 *       it). "return_to_model" (the default): the model reads the call's
 *       error return and the run goes on. "fail_fast": a call that fails
 *       with execution, timeout, user_error, invalid_output or
 *       deferred_failed ends the run, once its batch ran, with an error of
 *       type "tool_failed" carrying "tool", "tool_call_id", "kind" and the
 *       full message; the batch's returns stay in the messages. Other
 *       kinds (corrections, feedback, paused calls, denials, cancellations)
 *       and successful returns with "is_error" are no failures.
 *   What an error return shows the model ("message", "error", "how_to_fix"
 *   of its content and metadata) is redacted: URL and DSN credentials,
 *   bearer tokens, API keys, secret-named values and stack traces (a
 *   Python traceback keeps its last line). When redaction changed the
 *   message, the full one is in the return's "private_metadata" under
 *   "starweaver_error_message". Hosts send the full text of a failure in
 *   its outcome's "message"; the library redacts it.
 * Returns: 0, or -1 with *err (type "invalid_spec", "bad_handle", "config"). */
int sw_agent_new(const char *spec, long long spec_len, sw_handle *out, char **err);

/* sw_store_open opens the database of the durable stores from a JSON spec:
 *   {"kind": "sqlite", "path": file}   an SQLite file, created if needed
 *                                      (the default for one process and
 *                                      for processes sharing a machine);
 *                                      ":memory:" is a private in-memory
 *                                      database
 *   {"kind": "postgres", "dsn": dsn}   a PostgreSQL database (a libpq URL
 *                                      or key=value string) shared by
 *                                      workers on several machines
 * and creates or migrates its tables. Stores of the same kind and location
 * (the same absolute path, the same DSN) share one database within the
 * process; it closes when its last store handle is released and no agent
 * uses it. Errors never repeat the DSN.
 * Returns: 0, or -1 with *err (type "invalid_spec" for a malformed spec or
 * an unknown kind, "store_unavailable" when the database cannot be opened
 * or migrated, "state" after sw_shutdown). */
int sw_store_open(const char *spec, long long spec_len, sw_handle *out, char **err);

/* sw_artifact_store_new creates an artifact store from a JSON spec:
 *   {"kind": "memory", "max_bytes": n}   in process memory
 *   {"kind": "sqlite", "store": handle, "max_bytes": n}
 *   {"kind": "postgres", "store": handle, "max_bytes": n}
 *       in the database of a store handle of that kind (sw_store_open):
 *       durable, shared with every process using the same file or server
 *       (and with the sessions kept there)
 * max_bytes is the largest artifact put accepts (16 MiB when absent);
 * artifacts already stored stay readable when it is lowered.
 * The handle goes into an agent spec's "artifacts" and to the
 * sw_artifact_* functions. The artifact store keeps its database open
 * while it is alive, whether or not the store handle is released; an
 * agent keeps the artifact store alive after its handle is released.
 * Returns: 0, or -1 with *err (type "invalid_spec" for a malformed spec,
 * an unknown kind, a missing "store", a "store" given to "memory" or a
 * store of another kind; "bad_handle" when "store" is not a live store
 * handle; "invalid_argument" for a NULL out). */
int sw_artifact_store_new(const char *spec, long long spec_len, sw_handle *out, char **err);

/* sw_artifact_put stores data (data_len bytes, any content) as described
 * by spec {"scope", "idempotency_key", "media_type", "name"?,
 * "expires_at_unix_ms"?} and writes the artifact's reference as JSON:
 *   {"scope", "artifact_id": "sha256:...", "media_type", "size_bytes",
 *    "sha256", "name"?, "created_at_unix_ms", "expires_at_unix_ms"?}.
 * Putting the same content again under the same key returns the stored
 * reference.
 * Returns: 0, or -1 with *err (type "invalid_spec" for a malformed spec,
 * "bad_handle", "artifact_invalid" for a rule of the write broken,
 * "artifact_conflict", "store_unavailable"). */
int sw_artifact_put(sw_handle store, const char *spec, long long spec_len, const char *data, long long data_len,
		char **out, long long *out_len, char **err);

/* sw_artifact_get writes the bytes (out_len of them, not JSON) of the
 * artifact spec names: {"reference": the JSON sw_artifact_put wrote,
 * "scope"?: s}. With a scope, a reference of another scope is refused, as
 * a tool's context refuses it.
 * Returns: 0, or -1 with *err (type "invalid_spec", "bad_handle",
 * "artifact_invalid" (a malformed reference, another scope),
 * "artifact_not_found", "artifact_integrity" when the reference differs
 * from the stored one or the bytes changed, "artifact_expired",
 * "store_unavailable"). */
int sw_artifact_get(sw_handle store, const char *spec, long long spec_len, char **out, long long *out_len, char **err);

/* sw_artifact_list writes one page of the references of a scope, in
 * artifact id order, as JSON {"items": [reference, ...], "next_cursor"?:
 * id}. spec is {"scope", "after"?: cursor, "limit": n}: "after" is the
 * "next_cursor" of the page before (absent or "" for the first page; the
 * cursor is exclusive), limit is 1 to 1000 and required. next_cursor is
 * absent on the last page. Expired artifacts are listed until purged.
 * Returns: 0, or -1 with *err (type "invalid_spec" for a malformed spec,
 * "bad_handle", "artifact_invalid" for a bad scope, cursor or limit,
 * "store_unavailable"). */
int sw_artifact_list(sw_handle store, const char *spec, long long spec_len, char **out, long long *out_len, char **err);

/* sw_artifact_delete removes an artifact of a scope, spec {"scope",
 * "artifact_id"}, with every idempotency key naming it (so the keys can be
 * used again), and writes {"deleted": true}, or {"deleted": false} when
 * the scope holds no such artifact (deleting twice is not an error).
 * Returns: 0, or -1 with *err (type "invalid_spec", "bad_handle",
 * "artifact_invalid" for a bad scope or id, "store_unavailable"). */
int sw_artifact_delete(sw_handle store, const char *spec, long long spec_len, char **out, long long *out_len, char **err);

/* sw_artifact_purge_expired deletes at most limit artifacts of a scope
 * whose expiry is at or before now, earliest expiry first, with their
 * idempotency keys, and writes {"purged": n}. spec is {"scope",
 * "now_unix_ms"?: ms (the current time when absent), "limit": n (1 to
 * 1000, required)}. Call it again while n equals limit to purge everything.
 * Returns: 0, or -1 with *err (type "invalid_spec", "bad_handle",
 * "artifact_invalid" for a bad scope, limit or a negative now,
 * "store_unavailable"). */
int sw_artifact_purge_expired(sw_handle store, const char *spec, long long spec_len, char **out, long long *out_len,
		char **err);

/* sw_session_new starts a conversation with an agent.
 * Returns: 0, or -1 with *err (type "bad_handle"). */
int sw_session_new(sw_handle agent, sw_handle *out, char **err);

/* sw_session_messages writes the session history as JSON.
 * Returns: 0, or -1 with *err. */
int sw_session_messages(sw_handle session, char **out, long long *out_len, char **err);

/* sw_session_info writes {"id", "waiting", "pending": [...], "usage": {...},
 * "in_flight": {...} or null} for a session; usage sums what its runs
 * consumed (requests, input_tokens, output_tokens, tool_calls,
 * cache_read_tokens, cache_write_tokens, reasoning_tokens); in_flight is
 * the run a stopped worker left running its tool calls, {"run_id", "step",
 * "calls": [{"id", "name"}], "recoveries"} (see sw_run_start's "recover"
 * and sw_session_abandon_in_flight).
 * Returns: 0, or -1 with *err (type "bad_handle"). */
int sw_session_info(sw_handle session, char **out, long long *out_len, char **err);

/* sw_session_context applies one operation to a session's agent context
 * (metadata, notes, per-tool capability grants, tool-search loaded state,
 * tasks, handoff message, shell environment, context events) and writes
 * the context after it:
 *   {"metadata", "notes", "tool_capability_grants": {tool: {"host_capabilities",
 *    "context_capabilities", "shell_environment"}}, "tool_search_loaded_tools",
 *    "tool_search_loaded_namespaces", "tasks": [{"id", "title", "status"}],
 *    "next_task", "handoff_message", "usage": {"requests", "input_tokens",
 *    "output_tokens"}, "events": [...] (take_events only), "added": ...}
 * (empty fields left out). req is a JSON object {"op": op, ...}:
 *   get                                     nothing changes
 *   set_metadata {"key", "value"}           a null value deletes the key
 *   set_note {"key", "text"}                an empty text deletes the note
 *   grant {"tool", "grant": {...}}          install the tool's grant
 *   revoke {"tool"}                         remove it
 *   record_tool_search_loaded {"tools", "namespaces"}
 *                                           "added": {"tools", "namespaces"}
 *   clear_tool_search_loaded
 *   set_shell_environment {"env": {name: value}}   (never exported)
 *   set_handoff_message {"text"}
 *   add_task {"text"}                       "added": the new task
 *   set_task_status {"id", "status"}
 *   publish {"kind", "payload"}             publish a context event: a custom
 *                                           event of the running run, else
 *                                           queued for the next one
 *   take_events                             "events": [{"kind", "payload"}]
 *                                           published while no run was
 *                                           attached; the queue empties
 * The exportable part is also in sw_session_export's state.
 * Returns: 0, or -1 with *err (type "invalid_spec" for an unknown op or a
 * malformed request, "invalid_argument" for an unknown task, "bad_handle"). */
int sw_session_context(sw_handle session, const char *req, long long req_len, char **out, long long *out_len, char **err);

/* sw_session_set_environment replaces a session's environment provider
 * (the agent's "environment" by default) from the next run on. spec is
 * JSON, one of:
 *   {"kind": "virtual", "id"?, "files"?: {path: text},
 *    "shell_outputs"?: {command: {"exit_code", "stdout", "stderr"}},
 *    "read_only"?}
 *       an in-memory environment (id "virtual" by default) with canned
 *       command outputs; its files are exported with the session's state
 *       (sw_session_export) and restored with it
 *   {"kind": "local", "root": directory, "id"?, "read_only"?,
 *    "shell"?: {"allow_execute", "allowed_programs": [program, ...]},
 *    "sandbox"?: bool, "sandbox_read_only"?: [path], "allow_hard_links"?: bool}
 *       a directory of the host (id "local" by default). Every path stays
 *       inside root: ".." and absolute paths are refused, and so are
 *       symbolic links resolving outside it; writes never go through a
 *       symbolic link; a regular file with more than one hard link (which
 *       may be a file outside root) is neither read nor written unless
 *       allow_hard_links is true. read_only refuses every write; scratch files
 *       (spilled tool outputs) then go to a private temporary directory,
 *       never into root. "shell" is the policy of the local shell; without
 *       one nothing runs. The shell's commands run sandboxed as an agent
 *       spec's "shell" does ("sandbox": false opts out, unsafe). A local
 *       environment is not exported.
 *   null
 *       no environment.
 * Returns: 0, or -1 with *err (type "invalid_spec" for a malformed spec,
 * an unknown kind, another kind's field, a path leaving the root or a root
 * that is not a directory; "bad_handle"). */
int sw_session_set_environment(sw_handle session, const char *spec, long long spec_len, char **err);

/* sw_catalog_host runs one host operation of a tool catalogue on a
 * session's agent context. req is JSON {"toolset": toolset spec with a
 * "catalog" (see sw_agent_new), "op": op, ...}; session may be 0 for the
 * reports. Ops and what they write:
 *   "initialization_report"  the report {"toolset_name", "search_tool_name",
 *       "total_tools", "total_namespaces", "loose_tools", "namespaces":
 *       [{"namespace", "status": "connected" | "empty" | "unavailable",
 *       "tools", "total_tools", "available_tools", "unavailable_tools"}],
 *       "available_tools", "unavailable_tools", "availability_checked",
 *       "max_results"}, availability unchecked.
 *   "refresh_report"         the same, availability checked.
 *   "publish_initialization_report", "publish_refresh_report"
 *                            the same reports, also published on the
 *       session as tool_search_initialized or tool_search_refreshed (the
 *       latter with the loaded state as retained, nothing removed).
 *   "preload_namespace"      {"loaded_tools", "loaded_namespaces"} after
 *       loading req's "namespace" and its tools (event tool_search_loaded).
 *   "refresh"                {"report", "removed_loaded_tools",
 *       "removed_loaded_namespaces", "retained_loaded_tools",
 *       "retained_loaded_namespaces"} after pruning loaded tools and
 *       namespaces the catalogue no longer has or that are unavailable
 *       (event tool_search_refreshed).
 *   "invalidate"             the same with "reason" (req's) and no report,
 *       after forgetting the catalogue's loaded state (event
 *       tool_search_invalidated).
 *   "refresh_if_due"         {"refreshed": bool, "result": as "refresh" or
 *       null, "binding": binding} for req's "binding" {"interval_ms",
 *       "debounce_ms", "last_refresh_ms", "inventory_version",
 *       "pending_inventory_version", "pending_since_ms"} at req's "now_ms":
 *       a pending version is due after debounce_ms (reason
 *       inventory_changed), otherwise a refresh after interval_ms (reason
 *       interval_elapsed); the event then carries refresh_scheduled,
 *       refresh_reason, refresh_ms and inventory_version. Keep the
 *       returned binding.
 *   "inventory_changed"      the binding after req's "binding" saw
 *       inventory "version" at "now_ms" (pending until its debounce).
 * Events published outside a run reach the session's next run.
 * Returns: 0, or -1 with *err (type "bad_handle", "invalid_spec" for a
 * malformed request or an unknown op, "invalid_argument" for an op that
 * needs a session or an unknown namespace). */
int sw_catalog_host(sw_handle session, const char *req, long long req_len, char **out, long long *out_len, char **err);

/* sw_skills_scan reads the skills of an environment: the SKILL.md of
 * every subdirectory of each directory of the request's scopes
 * ("{root}/{directory}/{skill}/SKILL.md"). req is JSON
 * {"environment": environment, "scopes": [{"root", "kind"?, "directories"?:
 * [...]}], "report"?: bool, "previous"?: [package]}; an environment is
 * {"kind": "virtual", "id"?, "files"?: {path: text}} (an in-memory
 * environment holding those files; "local" environments are not
 * available here yet: "unsupported"). A scope's kind is "built_in",
 * "user_shared", "user_tool", "workspace_shared", "workspace_tool" or
 * "custom" (the default); scopes are read in ascending precedence (in
 * that order) and then in request order, and a later skill replaces an
 * earlier one of the same name, as does a later directory of a scope.
 * Without "directories" a scope reads its kind's default: ["skills"] for
 * built_in, user_tool and workspace_tool, [".agents/skills"] for the
 * shared kinds, [".agents/skills", "skills"] for custom.
 * Writes {"packages": [package]} in name order, a package being {"name",
 * "description", "path", "metadata"?: {...}} (the frontmatter's other
 * keys; scanned packages have no "body"). A SKILL.md that cannot be read
 * or parsed fails a plain scan; with "report": true the scan goes on and
 * also writes "diagnostics": [{"kind": "duplicate_overridden" |
 * "invalid_skill" | "unreadable_skill", "source": scope kind, "name"?,
 * "path", "previous_path"?, "message"}]. With "previous" (packages of an
 * earlier scan) the scan is a reload: it reports as with "report" and
 * also writes "changes": [{"kind": "added" | "removed" | "modified",
 * "name", "previous_path"?, "path"?}] sorted by name, and "event": the
 * payload of a skills_reloaded event ({"package_count", "packages":
 * [{"name", "description", "path", "activated"}], "diagnostics",
 * "changes"}) for a host that publishes it on a session. A reload with
 * "binding" {"interval_ms", "debounce_ms", "last_refresh_ms",
 * "inventory_version", "pending_inventory_version", "pending_since_ms"}
 * (see sw_catalog_host's refresh_if_due; its "inventory_changed" op
 * records versions) and "now_ms" happens only when due, and writes
 * {"reloaded": bool, "binding": the binding to keep, "result": as above or
 * null}; the event then also has "reload_scheduled", "reload_reason",
 * "reload_ms" and "inventory_version".
 * Returns: 0, or -1 with *err (type "invalid_spec" for a malformed request,
 * an unknown scope kind or a scope path outside the environment;
 * "invalid_argument" for a skill file that a plain scan cannot read or
 * parse; "unsupported" for a local environment; "invalid_argument" for a
 * NULL out). */
int sw_skills_scan(const char *req, long long req_len, char **out, long long *out_len, char **err);

/* sw_skills_activate reads one skill with its body. req is JSON
 * {"environment": environment (see sw_skills_scan), "path": the SKILL.md's
 * path}; writes {"package": {"name", "description", "path", "body",
 * "metadata"?}, "event": the payload of a skill_activated event ({"name",
 * "description", "path", "body_bytes", "metadata"}: never the body)}.
 * Returns: 0, or -1 with *err (type "invalid_spec" for a malformed
 * request, "invalid_argument" for a path that is missing, outside the
 * environment or not a valid SKILL.md, or a NULL out). */
int sw_skills_activate(const char *req, long long req_len, char **out, long long *out_len, char **err);

/* sw_session_export writes the session's durable state (history and any
 * waiting run) as JSON {"version": 1, "state": {...}, "digest": d}. With
 * the agent's "state_key" the digest is "hmac-sha256:<hex>" (signed);
 * without one it is "sha256:<hex>" (unsigned: a checksum anyone who edits
 * the state can recompute). Every copy of a waiting state can be restored
 * and resumed, an old copy too.
 * Returns: 0, or -1 with *err (type "busy"). */
int sw_session_export(sw_handle session, char **out, long long *out_len, char **err);

/* sw_session_restore creates a session of an agent from exported state.
 * opts is a JSON object (NULL or empty for the defaults):
 *   {"allow_unsigned": bool}   accept unsigned ("sha256:") state; it is
 *                              refused by default, by agents with and
 *                              without a state key.
 * Signed state is verified with the agent's state key; an agent without a
 * key, or with another one, refuses it.
 * Returns: 0, or -1 with *err (type "state" for stale, tampered, unsigned
 * or foreign state; "invalid_spec" for malformed opts). */
int sw_session_restore(sw_handle agent, const char *state, long long state_len, const char *opts, long long opts_len, sw_handle *out, char **err);

/* sw_agent_open_session loads the session id (UTF-8, id_len bytes) from
 * the agent's session store as its last run left it. opts are those of
 * sw_session_restore ({"allow_unsigned": bool}; NULL or empty for the
 * defaults): stored state is verified like restored state, so agents
 * without a "state_key" need allow_unsigned. A session whose claimed
 * resume never finished (its worker stopped) opens, reports the claim
 * through sw_session_claimed_resume and refuses runs with "state" (code
 * "resume_claimed") until sw_session_abandon_resume. Each call returns a
 * new handle loaded anew, also for an id that another handle holds.
 * Returns: 0, or -1 with *err (type "session_not_found" for an id the
 * store does not hold; "config" for an agent without a session store;
 * "state" for state that fails verification or belongs to another id;
 * "store_unavailable"; "invalid_argument" for a NULL id or out;
 * "invalid_spec" for malformed opts; "bad_handle"). */
int sw_agent_open_session(sw_handle agent, const char *id, long long id_len, const char *opts, long long opts_len, sw_handle *out, char **err);

/* sw_session_claimed_resume writes the session's claimed resume that never
 * finished, as loaded by sw_agent_open_session:
 *   {"run_id", "claimed_at_ms", "pending": [...], "resolution":
 *    {"approvals": [...], "deferred_results": [...]}}
 * (what the run waited for, as in sw_session_info, and the answers the
 * resume was given), or null when there is none.
 * Returns: 0, or -1 with *err (type "bad_handle"). */
int sw_session_claimed_resume(sw_handle session, char **out, long long *out_len, char **err);

/* sw_session_abandon_resume repairs a session whose claimed resume will
 * never finish because its worker stopped: the paused batch is closed
 * (denied calls and supplied deferred results get their returns, approved
 * calls a cancelled return saying whether they ran is unknown), nothing
 * runs, and the session is saved idle, so the next run continues the
 * conversation. There is no way back to waiting: an approved call may have
 * run. Abandoning a resume whose worker is still running makes that
 * worker's final save fail ("state", code "session_conflict").
 * Returns: 0, or -1 with *err (type "state" when the session has no
 * claimed resume or changed in the store, "busy", "store_unavailable",
 * "bad_handle"). */
int sw_session_abandon_resume(sw_handle session, char **err);

/* sw_session_abandon_in_flight settles a run whose worker stopped while its
 * tool calls ran ("in_flight" of sw_session_info): each of the run's calls
 * gets a cancelled return saying that it may have run, nothing runs, and
 * the session is saved idle, so the next run continues the conversation.
 * Abandoning a run whose worker is still running makes that worker's next
 * save fail ("state", code "session_conflict").
 * Returns: 0, or -1 with *err (type "state" when the session has no run in
 * flight or changed in the store, "busy", "store_unavailable",
 * "bad_handle"). */
int sw_session_abandon_in_flight(sw_handle session, char **err);

/* sw_session_from_messages creates a session of an agent that continues a
 * conversation: msgs is a JSON list of messages in the form of
 * sw_session_messages (and of a run result's "messages"). Every message
 * must be a request or a response with parts of its kind, and each tool
 * call must be answered in the request that follows its response; nothing
 * in msgs is executed. The session gets a new id, unless msgs is an object
 * {"id": text, "messages": [...]}: then its id is id (a run driven again
 * through an executor, sw_run_start's "executor", must have the same ids).
 * Returns: 0, or -1 with *err (type "invalid_spec" for a malformed
 * history, naming the first offending message; "bad_handle"). */
int sw_session_from_messages(sw_handle agent, const char *msgs, long long msgs_len, sw_handle *out, char **err);

/* sw_run_start starts a run on a session with a JSON request
 * {"prompt": text, "tools": [...], "instructions": [...], "metadata": {...},
 * "usage_limits": {...}, "settings": {...}, "events": bool, "deltas": bool,
 * "trace": bool, "tool_error_policy": policy, "grants": [name, ...]},
 * or, to answer a waiting run, {"resume": {"approvals": [...],
 * "deferred_results": [...]}} instead of a prompt, or, to continue the run
 * a stopped worker left in flight (or the resume it claimed), {"recover":
 * true}: the session is claimed in its store with a compare-and-swap (a
 * worker that lost the race ends with "state", code "session_conflict"),
 * the interrupted calls run again through the agent's "effect_journal"
 * (completed ones replay, started ones are ambiguous) and the run goes
 * on; a session with nothing to recover ends with "state", an agent
 * without a journal with "config". The run proceeds in the
 * background. *fd_out receives the read end of a non-blocking pipe carrying
 * the run's items (see above); *fd_in the write end of a non-blocking pipe
 * taking completions as JSON lines [token, outcome] (the same outcomes as
 * sw_run_complete). Both stay valid until the run handle is released.
 * Returns: 0, or -1 with *err (type "bad_handle", "invalid_spec", "busy",
 * "state", "invalid_decision" or "invalid_result" for a malformed answer of
 * a waiting run, "config"). With a session store, a resume refused because
 * another resume claimed the run, and a save that fails, end the run with
 * the error in its done item (see sw_agent_new's "session_store").
 * "events" adds the run's events as items; "deltas" adds the live ones
 * (text_delta, tool_call_delta, usage, retry, suspended); "trace" sends
 * every call in a form with its context (so the host knows each call's
 * tool_call_id, to run it inside its trace span).
 * "tool_error_policy" overrides the agent's for this run (see
 * sw_agent_new). "grants": [name, ...] are the only tools the run may
 * call (absent or null: every tool it registers; "*" grants all; [] none;
 * the output tool and read_artifact need no grant): the others are not
 * offered to the model, and a call of one gets a user_error return "tool
 * X is not granted to this run" before anything of the tool runs (no item
 * reaches the host). A name the run does not register ends the run with
 * an error of type "config" before the model is asked. A resume's grants
 * apply to the approved calls it runs.
 * {"availability": true} with a run's options (tools, toolsets,
 * instructions, metadata, active_tags, grants) and no prompt previews the
 * run's first model request instead of running it: its toolsets are
 * prepared (host callbacks are asked through the pipe as in a run), no
 * model is asked and no tool runs, and the done item carries
 * "availability": {"definitions": [...], "available": [name, ...],
 * "unavailable": [name, ...], "reasons": {name: reason}, "instructions":
 * text}; a reason is "unavailable", "hidden_by_tags", "prepare_hidden",
 * "not_loaded" (tool search has not loaded it) or "not_granted". */
int sw_run_start(sw_handle session, const char *req, long long req_len, sw_handle *run, int *fd_out, int *fd_in, char **err);

/* sw_run_complete delivers the outcome of a call or model item.
 * Returns: 0 when delivered, 1 when the token is no longer awaited (a late
 * completion after a timeout or cancel; it is dropped), -1 with *err. */
int sw_run_complete(sw_handle run, long long token, const char *outcome, long long outcome_len, char **err);

/* sw_run_cancel asks a run to stop; running calls receive cancellation.
 * Returns: 0, or -1 with *err. */
int sw_run_cancel(sw_handle run, char **err);

/* sw_run_steer queues text (UTF-8, text_len bytes) as a user prompt for
 * the run's next model request (after the returns it carries). A text
 * steered while the model gives a plain-text final answer makes the run ask
 * once more rather than drop it.
 * Returns: 0 when queued, 1 when the run has ended (nothing is queued), -1
 * with *err (type "invalid_argument" for a NULL text, "bad_handle"). */
int sw_run_steer(sw_handle run, const char *text, long long text_len, char **err);

/* sw_run_interrupt stops a run on purpose: running calls receive
 * cancellation and the run ends "cancelled" with its messages kept. Its
 * run_cancelled event's "error" contains reason (UTF-8, reason_len bytes;
 * NULL means none) and its "custom" is {"kind":"interrupt","payload":
 * {"reason":...}}; the done item's error has type "cancelled".
 * Returns: 0, or -1 with *err (type "bad_handle"). */
int sw_run_interrupt(sw_handle run, const char *reason, long long reason_len, char **err);

/* sw_tool_intent_key derives the identity of one intent of a host ingress
 * from req {"session_id", "scope": {"kind": "turn" | "process", "id"},
 * "call_id", "index"} and writes {"session_id", "execution_scope_id",
 * "tool_call_id", "intent_index", "replay_key"}; the replay key is
 * "tool-intent:v1:sha256:" and the hex SHA-256 of Lash's byte layout.
 * Returns: 0, or -1 with *err (type "invalid_argument" for a malformed
 * request or a NULL out, "intent_missing_tool_call_id" without a call id,
 * "intent_index_overflow" for an index outside 0..2^32-1). */
int sw_tool_intent_key(const char *req, long long req_len, char **out, long long *out_len, char **err);

/* sw_tool_intents_submit submits an intent through the host ingress of an
 * agent with an "intent_journal": req is {"session_id", "scope": {"kind":
 * "turn" | "process", "id"}, "call_id", "index", "intent": {"kind",
 * "intent"}}. The key (call id, index) is bound to the first intent
 * submitted under it; the intent is realised once, journal first, and
 * submitting it again returns the recorded outcome. It writes {"replayed",
 * "identity", "kind", "outcome" ({"status": "executed" | "refused", ...}),
 * "model_addendum"}.
 * Returns: 0, or -1 with *err (type "bad_handle"; "invalid_argument" for a
 * malformed request or a NULL out; "config" for an agent without an intent
 * journal; "intent_invalid" for a malformed intent or scope; a refusal:
 * "intent_malformed_key", "intent_session_mismatch" (the intent names
 * another session), "intent_identity_bound_to_different_intent",
 * "intent_duplicate_identity" (a tool call realised that identity),
 * "intent_recorded_outcome_outside_protocol", "intent_refused" (over
 * budget; "code" names the refusal, e.g. "canonical_byte_budget_exceeded");
 * "store_unavailable" when the journal fails). */
int sw_tool_intents_submit(sw_handle agent, const char *req, long long req_len, char **out, long long *out_len, char **err);

/* sw_tool_intents_settle_parent_end settles the parent-end actions of the
 * processes started in a scope (req {"session_id", "scope"}), by host
 * submissions or tool calls: "abandon" is a recorded no-op, "cancel" one
 * replay-keyed cancellation. Call it when the scope ends; it is safe to
 * call again, and after a crash. It writes [{"identity", "process_id",
 * "policy", "result": "abandoned" | "cancelled" | "refused", "receipt"?,
 * "code"?, "message"?}, ...] in start order.
 * Returns: 0, or -1 with *err (type "bad_handle"; "invalid_argument" for a
 * malformed request or a NULL out; "config" for an agent without an intent
 * journal; "intent_invalid" for a malformed scope; "store_unavailable"). */
int sw_tool_intents_settle_parent_end(sw_handle agent, const char *req, long long req_len, char **out, long long *out_len, char **err);

/* sw_release releases a handle of any kind (a run's pipes are closed, on
 * a thread of the runtime right after the call returns; a
 * store's database closes when nothing else uses it).
 * Returns: 0, or -1 with *err (type "bad_handle"); 0 in a forked child,
 * where it does nothing. */
int sw_release(sw_handle h, char **err);

/* sw_handle_count reports how many handles are live, for leak checks.
 * Returns: the count (-1 in a forked child). */
long long sw_handle_count(void);

/* sw_shutdown cancels every run and refuses new ones; used at exit.
 * Returns: 0 (it does nothing in a forked child). */
int sw_shutdown(void);

#endif
