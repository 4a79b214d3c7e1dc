package agent

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
//
// BatchTool(true) is the shorthand of the standard setup for installing
// StandardBatchPlugin (see Builder.Plugin); with that plugin installed
// already it adds nothing.
func (b *Builder) BatchTool(on bool) *Builder { b.opts.BatchTool = on; return b }
