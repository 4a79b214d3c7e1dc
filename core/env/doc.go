// Package env provides environment providers: the file system and the
// programs an agent's filesystem and shell tools work on, behind one small
// interface so that the same tools run against an in-memory, deterministic
// environment (tests, replays, hosted sandboxes) or a local directory.
//
// A [Provider] reads and writes files by relative, slash-separated paths
// ([Clean] says which paths are valid); it never accepts an absolute path
// or one that climbs out with "..". A [Shell] runs commands to completion
// and a [Processes] provider keeps background processes; both obey a
// [ShellPolicy]. Expected failures wrap one of the sentinel errors
// ([ErrNotFound], [ErrAccessDenied], [ErrInvalidRequest], [ErrUnsupported])
// in an [*Error] naming the operation and the path, so tools turn them into
// feedback the model can act on; anything else is a provider failure.
//
// Providers are safe for concurrent use.
package env
