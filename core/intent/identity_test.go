package intent_test

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/starweaver-go/starweaver/core/intent"
)

// The replay key's byte layout has a literal oracle: Lash's golden vector.
func TestIdentityHasALiteralStableOracle(t *testing.T) {
	id, err := intent.DeriveIdentity("session-fig1292", "turn-7", "call-3", 2)
	if err != nil {
		t.Fatal(err)
	}
	const want = "tool-intent:v1:sha256:8cd893b79abe66a4a894753ab43053964c7bc4253a841916235b90aeedf50719"
	if id.ReplayKey != want {
		t.Fatalf("replay key = %s\nwant         %s", id.ReplayKey, want)
	}
	if id.SessionID != "session-fig1292" || id.ExecutionScopeID != "turn-7" || id.ToolCallID != "call-3" || id.IntentIndex != 2 {
		t.Fatalf("identity %+v", id)
	}
}

func TestIdentityIsDistinctAcrossTurnAndProcessScopes(t *testing.T) {
	turn, _ := intent.DeriveIdentity("s", intent.TurnScope("turn-7").ID, "call-3", 0)
	pid, _ := intent.DeriveIdentity("s", "turn-7", "call-1", 0) // a process started in that turn
	proc, _ := intent.DeriveIdentity("s", intent.ProcessScope(pid.ReplayKey).ID, "call-3", 0)
	if turn.ReplayKey == proc.ReplayKey {
		t.Fatal("a turn scope and a process scope gave one replay key")
	}
	// Every field takes part, and lengths keep fields from running together.
	seen := map[string]bool{}
	for _, in := range [][4]any{
		{"s", "turn-7", "call-3", 0}, {"s", "turn-7", "call-3", 1}, {"s", "turn-7", "call-4", 0},
		{"s", "turn-8", "call-3", 0}, {"t", "turn-7", "call-3", 0}, {"st", "urn-7", "call-3", 0}, {"s", "turn-7c", "all-3", 0},
	} {
		id, err := intent.DeriveIdentity(in[0].(string), in[1].(string), in[2].(string), in[3].(int))
		if err != nil || seen[id.ReplayKey] {
			t.Fatalf("%v: %v, or a repeated key", in, err)
		}
		seen[id.ReplayKey] = true
	}
}

func TestIdentityErrors(t *testing.T) {
	if _, err := intent.DeriveIdentity("s", "turn-7", "", 0); !errors.Is(err, intent.ErrMissingToolCallID) {
		t.Fatalf("no call id: %v", err)
	}
	for _, i := range []int{-1, math.MaxUint32 + 1} {
		if _, err := intent.DeriveIdentity("s", "turn-7", "c", i); !errors.Is(err, intent.ErrIntentIndexOverflow) {
			t.Fatalf("index %d: %v", i, err)
		}
	}
	if id, err := intent.DeriveIdentity("s", "turn-7", "c", math.MaxUint32); err != nil || id.IntentIndex != math.MaxUint32 {
		t.Fatalf("the largest index: %+v, %v", id, err)
	}
}

func TestDeriveCompletionKey(t *testing.T) {
	a, err := intent.DeriveCompletionKey("s", "turn-1", "call-1")
	if err != nil || !strings.HasPrefix(a, intent.CompletionKeyPrefix) || len(a) != len(intent.CompletionKeyPrefix)+64 {
		t.Fatalf("key %q %v", a, err)
	}
	again, _ := intent.DeriveCompletionKey("s", "turn-1", "call-1")
	other, _ := intent.DeriveCompletionKey("s", "turn-1", "call-2")
	id, _ := intent.DeriveIdentity("s", "turn-1", "call-1", 0)
	if a != again || a == other || strings.TrimPrefix(a, intent.CompletionKeyPrefix) == strings.TrimPrefix(id.ReplayKey, intent.ReplayKeyPrefix) {
		t.Fatalf("keys %q %q %q %q", a, again, other, id.ReplayKey)
	}
	if _, err := intent.DeriveCompletionKey("s", "turn-1", ""); !errors.Is(err, intent.ErrMissingToolCallID) {
		t.Fatalf("err %v", err)
	}
}
