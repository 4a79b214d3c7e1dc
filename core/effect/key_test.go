package effect_test

import (
	"regexp"
	"testing"

	"github.com/starweaver-go/starweaver/core/effect"
)

func TestKeyFormatIsStable(t *testing.T) {
	// Journals outlive versions: these exact strings must not change.
	for _, tc := range []struct {
		session, run string
		turn, call   int
		want         string
	}{
		{"sess-1", "run-1", 0, 0, "session/sess-1/run/run-1/turn/0/call/0"},
		{"s", "r", 12, 3, "session/s/run/r/turn/12/call/3"},
		{"a/b", "c%d", 1, 2, "session/a%2Fb/run/c%25d/turn/1/call/2"},
		{"", "", 1, 1, "session//run//turn/1/call/1"},
	} {
		if got := effect.Key(tc.session, tc.run, tc.turn, tc.call); got != tc.want {
			t.Errorf("Key(%q, %q, %d, %d) = %q, want %q", tc.session, tc.run, tc.turn, tc.call, got, tc.want)
		}
	}
}

func TestKeysAreDistinct(t *testing.T) {
	// Inputs that a naive join would run together.
	parts := []string{"", "a", "b", "a/b", "a/run/b", "/", "%2F", "a%2Fb", "turn/1", "1"}
	seen := map[string][4]any{}
	for _, s := range parts {
		for _, r := range parts {
			for turn := range 3 {
				for call := range 3 {
					k := effect.Key(s, r, turn, call)
					in := [4]any{s, r, turn, call}
					if prev, ok := seen[k]; ok {
						t.Fatalf("%v and %v both give key %q", prev, in, k)
					}
					seen[k] = in
				}
			}
		}
	}
}

func TestKeyPanicsOnNegativePosition(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("no panic")
		}
	}()
	effect.Key("s", "r", 0, -1)
}

func TestNewID(t *testing.T) {
	v7 := regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
	seen := map[string]bool{}
	prev := ""
	for range 1000 {
		id := effect.NewID()
		if !v7.MatchString(id) || seen[id] {
			t.Fatalf("id %q is malformed or repeated", id)
		}
		// The millisecond prefix never goes backwards.
		if id[:13] < prev {
			t.Fatalf("id %q sorts before an earlier one (%q)", id, prev)
		}
		prev = id[:13]
		seen[id] = true
	}
}
