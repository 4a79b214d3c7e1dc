// Package spawn starts child processes so that they die with the host
// process, however it ends (SIGKILL and os._exit included).
//
// On Linux a child gets Pdeathsig = SIGKILL (prctl PR_SET_PDEATHSIG). The
// kernel sends that signal when the *thread* that forked the child exits,
// not when the process does (golang/go#27505): a child started from a
// goroutine whose thread later ends (a cgo callback's C thread, a Python
// worker thread calling into the library, a goroutine that exits while
// locked to its thread) would be killed at a random later moment. So every
// start runs on one dedicated thread, locked by a goroutine that never
// returns: the thread lives exactly as long as the process.
//
// Pdeathsig reaches the started process only, never its own children
// (the setting is cleared across fork): a process tree dies with the host
// only when its root takes its tree with it, as a PID namespace's init
// does (see env's sandbox). On other systems Start is cmd.Start.
package spawn
