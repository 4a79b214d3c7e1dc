package effect

import (
	"errors"

	"github.com/starweaver-go/starweaver/core/internal/optionerr"
)

// RecoveryPolicy decides what Execute does with a record found started
// that no Reconciler settled. Its string forms are stable.
type RecoveryPolicy string

const (
	// RecoveryRejectAmbiguous refuses every started record with an
	// *AmbiguousError. It is the default (also for the zero value and any
	// unknown policy): re-running needs explicit authority.
	RecoveryRejectAmbiguous RecoveryPolicy = "reject_ambiguous"
	// RecoveryRetrySafe re-runs the handler when the effect is retry-safe
	// (see RetrySafe); any other effect is refused as with
	// RecoveryRejectAmbiguous.
	RecoveryRetrySafe RecoveryPolicy = "retry_safe"
)

// rerun reports whether p lets a started, unreconciled effect run again.
func (p RecoveryPolicy) rerun(req Request) bool {
	return p == RecoveryRetrySafe && RetrySafe(req.Class, req.Key != "")
}

// ErrUnknownRecovery is matched by the error of [CheckRecoveryPolicy].
var ErrUnknownRecovery = errors.New("effect: unknown recovery policy")

// Known reports whether p is one of the policies, or the zero value (the
// default, RecoveryRejectAmbiguous).
func (p RecoveryPolicy) Known() bool {
	switch p {
	case "", RecoveryRejectAmbiguous, RecoveryRetrySafe:
		return true
	}
	return false
}

// CheckRecoveryPolicy reports a policy a host named that is not Known:
// the error matches [ErrUnknownRecovery] and reads, as hosts show it,
// `unknown "effect_recovery" "sometimes" (want "reject_ambiguous" or
// "retry_safe")`.
func CheckRecoveryPolicy(p RecoveryPolicy) error {
	if p.Known() {
		return nil
	}
	return optionerr.New(ErrUnknownRecovery, `unknown "effect_recovery" %q (want %q or %q)`, string(p), RecoveryRejectAmbiguous, RecoveryRetrySafe)
}
