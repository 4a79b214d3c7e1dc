package env

// ShellCapability is the name of the named dependency (tool.Deps.SetNamed)
// under which a host provides a [Shell] (optionally also [Processes]) to
// the shell tools.
const ShellCapability = "starweaver.shell"
