package effect_test

import (
	"errors"
	"testing"

	"github.com/starweaver-go/starweaver/core/effect"
)

func TestCheckRecoveryPolicy(t *testing.T) {
	for _, p := range []effect.RecoveryPolicy{"", effect.RecoveryRejectAmbiguous, effect.RecoveryRetrySafe} {
		if !p.Known() || effect.CheckRecoveryPolicy(p) != nil {
			t.Errorf("%q is refused", p)
		}
	}
	p := effect.RecoveryPolicy("sometimes")
	err := effect.CheckRecoveryPolicy(p)
	if p.Known() || err == nil || !errors.Is(err, effect.ErrUnknownRecovery) ||
		err.Error() != `unknown "effect_recovery" "sometimes" (want "reject_ambiguous" or "retry_safe")` {
		t.Fatalf("sometimes: %v", err)
	}
}
