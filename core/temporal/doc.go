// Package temporal runs agent runs durably on Temporal (go.temporal.io/sdk):
// a run outlives the worker that started it and its model requests and
// tool calls spread over many workers.
//
// # One loop, made replay-safe
//
// Temporal replays workflow code from its recorded history, so what runs
// inside a workflow must make the same decisions from the same recorded
// answers. The agent's loop already does when it is given an
// [agent.Executor]: it starts no goroutine and reads no clock, and with a
// fixed run id (agent.WithRunID) and session id (Agent.SessionWithID) it
// makes the same requests in the same order. So the loop is not written a
// second time for Temporal: [Agent.Run] runs the agent's own
// Session.Run synchronously in the workflow coroutine, with an executor
// that turns each model request into an activity and each tool call into
// an activity of its own. Every rule of a run (output validation, usage
// limits, correction budgets, approvals and deferred calls, the order of
// returns) stays in the loop and means what it means in a local run.
//
// A run's id is the workflow's id plus a suffix recorded once in the
// history (a side effect), so it is the same when the workflow replays on
// another worker. A counter kept in process memory would not be: a worker
// that evicts a workflow from its cache replays it from the start in the
// same process.
//
// # Activities
//
// The worker side (see [Agent.Register]) registers two activities named
// after Options.Name: "<name>.model" makes one model request
// (Agent.RequestModel) and "<name>.tool" runs one call (Agent.RunBatch
// with a batch of that call). Each scheduled activity carries a summary
// naming the model request's step or the tool and its call id, so a
// reader of the history can tell which activity is which. Requests,
// batches and returns travel as JSON (the SDK's default converter).
//
// The calls of a batch are scheduled first, in model order, then awaited
// in that order; a Sequential batch runs one call after another; with a
// MaxConcurrency at most that many are in flight. Per call:
//
//   - StartToCloseTimeout is the call's bound (agent.Call.AttemptBound:
//     its timeout per attempt, tool > toolset > registry, times its
//     attempts) plus Options.TimeoutGrace, so the tool's own timeout, and
//     its return saying so, comes first; a call without a timeout gets
//     Options.StartToCloseTimeout.
//   - HeartbeatTimeout is Options.HeartbeatTimeout: the activity
//     heartbeats while the call runs, so a killed worker is noticed in
//     that time rather than at the end of the call's timeout.
//   - A retry-safe call (pure, read-only, undeclared, or an idempotent
//     write with its idempotency key; agent.Call.RetrySafe) retries with
//     Options.RetryPolicy; every other call gets exactly one attempt.
//
// A call whose activity fails (its worker was lost, it timed out, its
// attempts ran out) gets agent.LostReturn, the return a local recovery
// gives, and the run goes on: the model reads that the call may have run
// or not. A failing tool is not an activity failure: its error return is
// the activity's result, as it would be the call's return locally.
// Model requests retry with Options.RetryPolicy when their worker is
// lost; a model error (the provider's own retries are spent) does not
// retry and fails the run as it would locally.
//
// # People in the loop
//
// A run that needs an approval or a deferred result returns status
// waiting, with its pending items and its session state in the [Result];
// the workflow waits (for a signal or an update, for days if need be, at
// no cost) and [Agent.Resume] continues the run with the answers. The
// ready-made workflow [Agent.Workflow] does this with its updates
// "approve", "deny" and "complete" and its query "pending".
//
// # Agents calling agents
//
// A call of an agent tool (agent.AsTool) or of spawn_agent runs the child
// agent as a child workflow ([Agent.ChildWorkflow], "<label>.child"),
// made of the child's own activities; its result is the call's return and
// its usage the parent's, as locally ([agent.ChildReturn]). A child that
// waits for people waits in its workflow, and the parent's ready-made
// workflow lists its items and relays the answers to it. [Agent.Register]
// registers every child agent reachable from the agent. Runs that called
// agent tools before this behaviour (in the tool activity) replay only
// with the code that recorded them.
//
// # What must hold for replay
//
// Calls and model requests run on the workers, but the loop itself runs
// in the workflow: it builds the tool definitions the model is offered
// (preparing the agent's toolsets at every step), answers calls of
// unknown or refused tools, and validates output there. So these must not
// do I/O or read clocks (a toolset that lists an MCP server's tools at
// each step is not replay-safe; give the agent static tools, or toolsets
// whose preparation depends only on the run), and the agent must not
// change under a workflow in flight: keep the old agent for old runs,
// picked with workflow.GetVersion, as for any change of workflow code.
// Run options (message history, metadata, usage limits) must be the same
// when the workflow replays: take them from the workflow's input.
//
// Every model request carries the model-visible history, and a waiting
// run's Result carries its session state: long conversations make large
// payloads (Temporal warns at 512 KiB and refuses 2 MiB by default).
package temporal
