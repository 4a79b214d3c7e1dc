package agent

import (
	"github.com/starweaver-go/starweaver/core/batch"
	"github.com/starweaver-go/starweaver/core/toolset"
)

// BatchTool says whether the agent offers the native batch tool (off by
// default): one call, "batch", with which the model runs up to 25 calls of
// the run's other tools at once and reads their outcomes together (see
// package batch). Its children run as the agent runs a response's calls:
// in parallel where the batch rules allow, one at a time when the agent
// is Sequential, at most MaxConcurrency at once, each through hooks,
// validation, timeouts, approval and the effect journal.
//
// The tool is in its own toolset, named "batch": an approval selector
// naming it gates the batch call itself. A tool of the agent named
// "batch" makes Build fail as any duplicate name does.
func (b *Builder) BatchTool(on bool) *Builder { b.opts.BatchTool = on; return b }

// withBatchTool returns sets with the batch toolset appended when the
// agent offers it, built with the agent's scheduling policy.
func (a *Agent) withBatchTool(sets []toolset.Toolset) []toolset.Toolset {
	if !a.batchTool {
		return sets
	}
	opts := batch.Options{Sequential: a.sequential, MaxConcurrency: a.maxConcurrency}
	if a.intents != nil {
		opts.Drain = callIntents{a.intents}.drainChildren
	}
	return append(sets, batch.Tools(opts))
}
