// Package agent provides the agent loop: an Agent pairs a model.Model with
// tools and toolsets, and a run alternates model requests and tool batches
// until the model answers with text or a call waits for a person or an
// external worker. Sessions keep history across runs; run options add
// tools, toolsets and instructions to one run without changing the agent.
package agent
