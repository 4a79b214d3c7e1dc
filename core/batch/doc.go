// Package batch provides the native "batch" tool: one call with which a
// model runs up to 25 tool calls at once,
//
//	{"tool_calls": [{"tool": "read", "parameters": {"path": "a"}}, ...]}
//
// and reads every outcome in one result, sorted by index:
//
//	{"results": [{"index": 0, "tool": "read", "success": true, "duration_ms": 0, "result": ...}, ...]}
//
// It is related to [tool.Registry.ExecuteBatch], which runs one model
// response's calls: the batch tool hands its children to the same
// scheduler through [tool.Context.DispatchBatch], so they run in parallel
// unless the registry's rules say otherwise (a sequential tool, a repeated
// name that is not pure or read-only, mixed dependency profiles, a mutable
// context capability, an agent that runs every batch in order), and each
// goes through the whole call pipeline like a model's call: schema
// validation, hooks, validators, its timeout, internal retries, the effect
// journal, approval. The batch call's own timeout, if any, bounds them all.
//
// Child i of the call with id P has the id "P:0i" ([ChildID]) and the
// index i: tools read both from their [tool.Context], and its idempotency
// key is P's followed by "/child/i".
//
// What fails one child fails only its entry (success false, error set),
// and the batch call itself succeeds: a child's tool error (its message in
// "error", its error object in "result"), a nested batch ("Tool 'batch' is
// not allowed inside batch") and a tool the run does not offer ("Tool 'x'
// is unavailable in this session"). Only malformed arguments (no
// tool_calls, a call without a tool name) and more than 25 calls fail the
// call, as invalid_arguments for the model to correct: a batch of more
// than [MaxCalls] calls gets one refusal of bounded size ("Maximum of 25
// tool calls allowed in batch, got N: none of them ran; ...") and none of
// its calls runs. duration_ms is always 0, so
// a batch run again (replayed from the journal, recovered, approved)
// returns the same bytes.
//
// # Approval and deferral
//
// A child that asks for approval pauses the whole batch call through the
// agent's usual approval flow when that is safe: when running the batch
// again cannot repeat an effect, because every other child either did not
// run (its arguments were refused) or is repeat-safe ([tool.Context.RepeatSafe]:
// pure, read-only, or journaled so that a second run replays it). The
// pending approval is the batch call's; its request metadata lists the
// children waiting under [MetaApprovals]. Approved, the batch runs again:
// its children run as before (the journaled ones are replayed), and those
// that ask for approval again run once more with the batch's approval. A
// denial denies the batch call as a whole.
//
// When pausing is not safe (another child has already changed the world
// and would change it again), the children asking for approval are not
// run and fail with an error telling the model to call them on their own.
// A deferred child always fails the same way: the host's answer to a
// deferral becomes the return of the call that paused, which would replace
// the whole batch's result.
//
// # Ordering hook
//
// [Options.Drain], when set, receives every child of a finished batch in
// index order (their calls and Returns), before the batch returns: work
// that must follow the children in call order (such as realising what
// they declared) plugs in there.
package batch
