// Package filesystem provides the filesystem bundle: the "filesystem"
// toolset, whose tools (ls, glob, grep, view, write, edit, multi_edit,
// mkdir, move, copy, delete) let a model read and change the files of the
// active environment.
//
// The tools never reach the operating system themselves: every call works
// through the [env.Provider] the run provides as the named dependency
// "starweaver.environment" ([EnvironmentCapability]), so the same tools
// run over an in-memory [env.Virtual] in tests and over a local directory
// in production. Each tool declares that one capability under the filtered
// dependency profile; a run without it is a user_error (the application
// forgot to attach an environment), never something the model can fix.
//
// Safe by construction: every path argument is cleaned with [env.Clean]
// before the provider is touched, so an absolute path, a ".." segment or a
// line break comes back as feedback naming the path and nothing is read or
// written. The provider's expected failures (not found, access denied,
// invalid request, unsupported) become [tool.Feedback] with guidance that
// names the path; any other provider failure is an execution error the
// runtime may retry. Writers (write, edit, multi_edit, mkdir, move, copy,
// delete) are sequential.
//
// glob and grep follow ripgrep's conventions: a bare pattern such as
// "*.go" matches at any depth, "src/*.go" one level under src and
// "**/*.go" everywhere; hidden paths are skipped unless include_hidden,
// except the search root's direct ".agents" child, where skills live;
// .gitignore files (the root's, its ancestors' and every directory's on
// the way) are honoured unless include_ignored; directory symlinks are
// never followed. Every output is bounded: a result larger than
// [OutputLimit] bytes is written whole to the provider's scratch directory
// and the model reads a preview that says where the rest is.
//
// The tools are safe for concurrent use.
package filesystem
