package env

import "errors"

// ErrNoSandbox is wrapped by the error of a LocalShell that cannot put its
// commands in a sandbox (bubblewrap missing, or the kernel refusing the
// namespaces it needs). Install bubblewrap, or opt out explicitly with
// LocalShellOptions.Unsandboxed (unsafe: see there).
var ErrNoSandbox = errors.New("env: no sandbox")

// noSandboxHelp ends every ErrNoSandbox message.
const noSandboxHelp = "install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap), " +
	"or opt out explicitly with LocalShellOptions.Unsandboxed (Python: sandbox=False), " +
	"which is unsafe: commands then see this process, its environment (API keys) included, through /proc"
