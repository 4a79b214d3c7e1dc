package agent

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// UnmarshalJSON decodes a decision as hosts send it. "approved" is
// required: a decision that leaves it out is ambiguous, and is refused
// with an error wrapping [ErrInvalidDecision] rather than read as a denial. Unknown
// fields are refused too, so a misspelt option is not silently dropped.
func (d *ApprovalDecision) UnmarshalJSON(data []byte) error {
	type plain ApprovalDecision
	var v struct {
		plain
		Approved *bool `json:"approved"`
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&v); err != nil {
		return fmt.Errorf("%w: %w", ErrInvalidDecision, err)
	}
	if v.Approved == nil {
		return fmt.Errorf("%w: approval decision %q needs an explicit approved: bool", ErrInvalidDecision, v.ID)
	}
	*d = ApprovalDecision(v.plain)
	d.Approved = *v.Approved
	return nil
}
