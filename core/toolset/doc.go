// Package toolset groups tools into named, reusable sets and provides the
// combinators that reshape them: prefixing, filtering, renaming, metadata,
// per-run preparation, unions, and the human-in-the-loop policies
// (approval-required and deferred).
//
// A [Toolset] is related to a [tool.Registry] the way a package is related
// to a program: it contributes tools, the shared instructions that explain
// them and the defaults (retry budget, timeout) they inherit. [Register]
// adds the tools of one or more toolsets to a registry for one run; every
// duplicate name is an error, never a silent replacement.
// [CollectInstructions] and [RenderInstructions] turn the toolsets'
// instructions into the prompt block the model sees.
//
// Combinators never change the tools they wrap. They return new toolsets
// whose tools are thin wrappers: a wrapper presents its own Definition, but
// forwards the inner tool's [tool.Config] (timeouts, retries, validators,
// availability, prepare, hooks), its construction error (Err) and, unless
// the combinator says otherwise (approval, deferral), its Call. Every
// wrapper also has an Unwrap() tool.Tool method returning the tool it wraps.
//
// A toolset backed by a resource implements [Lifecycle] (Enter, Exit) and
// may carry a [LifecyclePolicy] ([WithLifecycle]); one whose tools change
// from step to step implements [Dynamic]. The agent enters, reads and exits
// such toolsets itself (core/agent), finding them inside combinators with
// [Walk]: every combinator of this package exposes what it wraps.
//
// Toolsets are built first and then used: builder methods must not be
// called while Tools or Instructions run, and then every toolset in this
// package is safe for concurrent use.
package toolset
