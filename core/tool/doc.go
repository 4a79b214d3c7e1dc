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
package tool
