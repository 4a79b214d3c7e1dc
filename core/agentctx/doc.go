// Package agentctx provides the mutable, per-session agent context: what a
// conversation knows beyond its messages and what its tools may change.
//
// A [Context] holds free-form metadata, notes, named dependencies, the
// per-tool capability grants a host installs ([Context.GrantToolCapabilities]),
// the tool-search loaded state (which hidden tools a search made visible),
// a task list, a handoff message, the configured shell environment and
// counters of usage. It also publishes context events ([Event]), which a
// running agent delivers to its host as custom events; events published
// outside a run wait until the next run starts or the host takes them
// ([Context.TakeEvents]).
//
// Tools reach the context through least-authority views: a Legacy tool
// gets the whole Context, a Filtered or Strict tool only the handles of the
// context capabilities it declares (and, for Strict, was granted):
// [ToolSearchHandle], [TasksHandle], [UsageHandle] and [HandoffHandle].
//
// The serialisable part of a Context ([State]) is part of a session's
// exported state; named dependencies and the shell environment are host
// configuration and are never exported.
//
// A Context is safe for concurrent use; every method locks it briefly and
// none calls back into user code while holding the lock.
package agentctx
