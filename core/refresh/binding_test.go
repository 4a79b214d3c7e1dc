package refresh_test

import (
	"fmt"
	"testing"

	"github.com/starweaver-go/starweaver/core/refresh"
)

func TestBindingDecisions(t *testing.T) {
	var zero refresh.Binding
	if _, due := zero.Due(1 << 40); due {
		t.Fatal("the zero binding refreshed")
	}
	b := refresh.Binding{IntervalMS: 1000, DebounceMS: 100}
	if _, due := b.Due(999); due {
		t.Fatal("due before the interval")
	}
	if reason, due := b.Due(1000); !due || reason != refresh.ReasonIntervalElapsed {
		t.Fatalf("Due(1000) = %q, %v", reason, due)
	}
	b = b.Refreshed(1000).InventoryChanged(7, 1050).InventoryChanged(8, 1120)
	if b.PendingSinceMS != 1050 || b.Version() != 8 {
		t.Fatalf("a second change moved the pending time or lost the version: %+v", b)
	}
	if _, due := b.Due(1149); due {
		t.Fatal("due inside the debounce")
	}
	if reason, due := b.Due(1150); !due || reason != refresh.ReasonInventoryChanged {
		t.Fatalf("Due(1150) = %q, %v", reason, due)
	}
	b = b.Refreshed(1150)
	if b.InventoryVersion != 8 || b.PendingVersion != 0 || b.LastRefreshMS != 1150 {
		t.Fatalf("after refresh: %+v", b)
	}
	if b.InventoryChanged(8, 1200) != b {
		t.Fatal("an already refreshed version became pending")
	}
}

func ExampleBinding() {
	b := refresh.Binding{DebounceMS: 200}
	b = b.InventoryChanged(1, 1000) // a watcher saw a change at t=1000ms
	_, due := b.Due(1100)
	fmt.Println(due)
	reason, due := b.Due(1200)
	fmt.Println(reason, due)
	b = b.Refreshed(1200)
	fmt.Println(b.InventoryVersion)
	// Output:
	// false
	// inventory_changed true
	// 1
}
