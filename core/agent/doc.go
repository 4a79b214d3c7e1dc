// Package agent provides the agent loop: an Agent pairs a model.Model with
// tools and toolsets, and a run alternates model requests and tool batches
// until the model answers with text or a call waits for a person or an
// external worker. New builds an agent from Options, which hold every
// setting (a Builder sets them one method at a time and calls New).
// Sessions keep history across runs; run options (RunOption) add tools,
// toolsets and instructions to one run without changing the agent.
//
// Every run is bounded: UsageLimits cap its model requests (50 unless set),
// tool calls and tokens, and calls of unknown tools spend the
// model-correction budget. Models receive the model-visible projection of
// the history (see model.Visible); results, events and exported state keep
// the host surfaces of tool returns.
//
// A failed call reaches the model as its error return, redacted (see
// tool.Redact), unless the tool error policy is FailFast: the run then
// fails with a ToolFailedError carrying the full error. A run's grants
// (WithGrants) narrow the tools it may call below those the agent
// registers: the others are never offered, and a call of one is refused
// before it has any effect.
//
// Tool outputs cross that boundary on the runtime's terms: a host-only
// output (tool.HostOnly) fails the run with a ToolOutputNotVisibleError;
// with an artifact store (Builder.Artifacts), artifact references are read
// into each request just before it is sent, while history keeps the
// references, and returns over the output budget are spilled to the store
// and paged through with the read_artifact tool.
//
// Durability: with a SessionStore (Builder.SessionStore) sessions outlive
// their process and are opened by id in any worker, and a run is saved in
// flight before each batch of calls, so a session whose worker stopped
// mid-turn reports the run (Session.InFlight) until it is settled; with an
// effect journal (Builder.EffectJournal) the calls of tools that may change
// the world are recorded before and after they run, so that a call met
// again replays its return and a call whose worker stopped while it ran is
// never repeated blindly. With both, Session.Recover continues a run whose
// worker stopped mid-turn; without a journal, Session.AbandonInFlight
// closes it.
package agent
