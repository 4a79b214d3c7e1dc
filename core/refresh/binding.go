package refresh

// The reasons a Binding gives for a due refresh.
const (
	// ReasonInventoryChanged: an observed inventory change has been
	// pending for the debounce period.
	ReasonInventoryChanged = "inventory_changed"
	// ReasonIntervalElapsed: the interval since the last refresh elapsed.
	ReasonIntervalElapsed = "interval_elapsed"
)

// Binding decides when a host's inventory is due for a refresh: an
// inventory change is due once it has been pending for DebounceMS (reason
// inventory_changed), otherwise a refresh is due every IntervalMS (reason
// interval_elapsed). Times are milliseconds on any clock the host keeps
// consistent.
//
// The zero value never refreshes.
type Binding struct {
	// IntervalMS is the period of refreshes; 0 means none by interval.
	IntervalMS int64 `json:"interval_ms"`
	// DebounceMS is how long an inventory change waits, so that a burst
	// of changes makes one refresh.
	DebounceMS int64 `json:"debounce_ms"`
	// LastRefreshMS is when the last refresh ran.
	LastRefreshMS int64 `json:"last_refresh_ms"`
	// InventoryVersion is the version the last refresh saw.
	InventoryVersion int64 `json:"inventory_version"`
	// PendingVersion is a changed version not refreshed yet (0: none),
	// pending since PendingSinceMS.
	PendingVersion int64 `json:"pending_inventory_version"`
	PendingSinceMS int64 `json:"pending_since_ms"`
}

// InventoryChanged records that the host's inventory is now at version
// (at nowMS). A version already refreshed changes nothing; a newer one
// while one is pending keeps the first one's time, so a steady stream of
// changes cannot postpone the refresh forever.
func (b Binding) InventoryChanged(version, nowMS int64) Binding {
	if version == b.InventoryVersion && b.PendingVersion == 0 {
		return b
	}
	if b.PendingVersion == 0 {
		b.PendingSinceMS = nowMS
	}
	b.PendingVersion = version
	return b
}

// Due reports whether a refresh is due at nowMS, and why.
func (b Binding) Due(nowMS int64) (reason string, due bool) {
	if b.PendingVersion != 0 && nowMS-b.PendingSinceMS >= b.DebounceMS {
		return ReasonInventoryChanged, true
	}
	if b.IntervalMS > 0 && nowMS-b.LastRefreshMS >= b.IntervalMS {
		return ReasonIntervalElapsed, true
	}
	return "", false
}

// Version is the inventory version a refresh now would see: the pending
// one, else the one last refreshed.
func (b Binding) Version() int64 {
	if b.PendingVersion != 0 {
		return b.PendingVersion
	}
	return b.InventoryVersion
}

// Refreshed returns the binding after a refresh at nowMS.
func (b Binding) Refreshed(nowMS int64) Binding {
	b.LastRefreshMS = nowMS
	if b.PendingVersion != 0 {
		b.InventoryVersion = b.PendingVersion
	}
	b.PendingVersion, b.PendingSinceMS = 0, 0
	return b
}
