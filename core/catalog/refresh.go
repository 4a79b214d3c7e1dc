package catalog

import "github.com/starweaver-go/starweaver/core/refresh"

// RefreshBinding decides when a host's catalogue is due for a refresh,
// for hosts that own inventory versions (a file watcher, a remote
// catalogue they poll): an inventory change is due once it has been
// pending for DebounceMS (reason inventory_changed), otherwise a refresh
// is due every IntervalMS (reason interval_elapsed). It is a value and
// every decision is a function of it and the time given, so hosts store
// it where they like and tests need no clock. It is [refresh.Binding],
// shared with the skill registries' reloads.
//
// The zero value never refreshes.
type RefreshBinding = refresh.Binding
