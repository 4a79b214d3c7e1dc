package effect

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
