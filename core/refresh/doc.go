// Package refresh provides a deterministic schedule for refreshing what a
// host reads from an inventory it owns: the tools of a catalogue, the
// skills of a skill directory. A [Binding] records the inventory versions
// a host observes (from a file watcher, a remote index it polls) and says
// when a refresh is due, by interval or once a change has settled for a
// debounce period.
//
// A Binding is a value with no clock: every decision is a function of the
// binding and the time the caller gives, so hosts keep it where they like
// (in a session's state, in memory) and tests need no clock. It is shared
// by the tool-search catalogues ([catalog.RefreshBinding]) and skill
// registries ([skills.ReloadBinding]).
//
// [catalog.RefreshBinding]: https://pkg.go.dev/github.com/starweaver-go/starweaver/core/catalog#RefreshBinding
// [skills.ReloadBinding]: https://pkg.go.dev/github.com/starweaver-go/starweaver/core/skills#ReloadBinding
package refresh
