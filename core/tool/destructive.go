package tool

import (
	"context"
	"fmt"

	"github.com/starweaver-go/starweaver/core/internal/effectclass"
)

// DestructivePolicy says what a call of a destructive tool (effect class
// "destructive", declared by the tool or the registry's default) does
// before it runs. A registry's zero value is DestructiveAllow, since a
// bare registry is a mechanism; an agent's default is DestructiveApprove
// (core/agent's Options.DestructivePolicy).
type DestructivePolicy string

// Destructive policies.
const (
	// DestructiveApprove pauses the call for a person's approval (the
	// approval_required flow): it runs once approved, and a denial gives
	// the model an approval_denied return.
	DestructiveApprove DestructivePolicy = "approve"
	// DestructiveAllow runs the call as any other.
	DestructiveAllow DestructivePolicy = "allow"
	// DestructiveDeny never runs the call: the model reads an
	// approval_denied return saying the policy refused it.
	DestructiveDeny DestructivePolicy = "deny"
)

// Reasons recorded on the calls the destructive policy stops.
const (
	DestructiveApprovalReason = "the tool is destructive: it runs only once a person approves the call"
	DestructiveDeniedReason   = "the tool is destructive and the agent's policy refuses destructive calls"
)

// MetaDestructivePolicy is the request metadata key naming the policy
// that asked for an approval ("destructive_policy": "approve").
const MetaDestructivePolicy = "destructive_policy"

// CheckDestructivePolicy reports whether p is a policy ("" counts as
// unset).
func CheckDestructivePolicy(p DestructivePolicy) error {
	switch p {
	case "", DestructiveApprove, DestructiveAllow, DestructiveDeny:
		return nil
	}
	return fmt.Errorf("%w: unknown destructive policy %q (want approve, allow or deny)", ErrInvalidOption, string(p))
}

// DestructiveDecider decides the policy of one destructive call; it runs
// before the call's hooks, with the call's context (tc.Approval is set
// when a person approved it already). Returning "" applies the
// registry's policy. It must be safe for concurrent use.
type DestructiveDecider func(ctx context.Context, tc *Context, call Call) DestructivePolicy

// destructiveRule is a registry's destructive policy.
type destructiveRule struct {
	policy  DestructivePolicy
	decider DestructiveDecider
}

// SetDestructivePolicy sets what calls of destructive tools do (see
// DestructivePolicy); decider, when not nil, decides per call. Like every
// setting it must not change while calls run.
func (r *Registry) SetDestructivePolicy(p DestructivePolicy, decider DestructiveDecider) error {
	if err := CheckDestructivePolicy(p); err != nil {
		return err
	}
	if (p == "" || p == DestructiveAllow) && decider == nil {
		r.destructive = nil
		return nil
	}
	r.destructive = &destructiveRule{policy: p, decider: decider}
	return nil
}

// DestructivePolicyOf returns the registry's policy (DestructiveAllow
// when unset).
func (r *Registry) DestructivePolicyOf() DestructivePolicy {
	if r.destructive == nil || r.destructive.policy == "" {
		return DestructiveAllow
	}
	return r.destructive.policy
}

// checkDestructive applies the registry's destructive policy to the call
// c prepares: nil lets it go on. An approved call (tc.Approval approved)
// and a tool that manages its own approvals (MetaSelfManagedHITL) go on
// under "approve"; "deny" refuses even those, since no approval can
// lift a refusal by policy.
func (c *callRun) checkDestructive() error {
	rule := c.r.destructive
	if rule == nil || c.r.effectOf(c.e) != effectclass.ClassDestructive {
		return nil
	}
	p := rule.policy
	if rule.decider != nil {
		if d := rule.decider(c.ctx, &c.tc, c.call); d != "" {
			p = d
		}
	}
	switch p {
	case DestructiveDeny:
		return &Error{Kind: ErrorKindApprovalDenied, Message: DestructiveDeniedReason,
			Metadata: map[string]any{MetaDestructivePolicy: string(DestructiveDeny)}}
	case DestructiveApprove:
		if a := c.tc.Approval; a != nil && a.Status == "approved" {
			return nil
		}
		if b, _ := c.e.def.Metadata[MetaSelfManagedHITL].(bool); b {
			return nil
		}
		return ApprovalRequired(DestructiveApprovalReason, map[string]any{
			MetaDestructivePolicy: string(DestructiveApprove),
			"effect":              string(effectclass.ClassDestructive),
		})
	case "", DestructiveAllow:
		return nil
	}
	return UserError("the destructive policy decided %q, which is not approve, allow or deny", string(p))
}
