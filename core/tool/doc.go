// Package tool provides the runtime's tools: definitions, typed and
// schema-given function tools, results and the returns the model sees, the
// error kinds, the per-call context, argument validation, execution hooks,
// the Registry that executes one call and the scheduling of a batch of calls.
//
// A Tool is anything with a Definition and a Call method; Function and Typed
// build the common ones. A Registry owns a set of tools and executes calls
// end to end: name lookup, JSON parsing, before-hooks, argument validators,
// JSON Schema validation, the attempt under timeout and cancellation,
// after-hooks and internal retries of unexpected failures. Every failure
// becomes a Return carrying a typed error object; nothing panics.
//
// A Result is plain content, or a rich output built by ModelVisible, Rich,
// ModelError or HostOnly: ordered content parts (text, image, audio,
// document, resource link) whose media come from a URL, inline bytes or an
// artifact store (Context.Artifacts). The registry refuses outputs larger
// than its limit or with malformed parts as invalid_output.
//
// A tool's effect class (Config.Effect, Function.WithEffect) decides which
// unexpected failures are re-run; with a CallJournal (Registry.SetJournal,
// implemented by core/effect's Journal) the calls of tools that may change
// the world are recorded in an effect journal, and replayed rather than
// repeated.
//
// A tool registered through Unlisted is executed like any other but never
// listed and never found by a model's call: only another tool of the run
// reaches it, with Context.Dispatch (a tool proxy's call_tool, say).
package tool
