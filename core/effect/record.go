package effect

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// Record is the journal entry of one effect: its request, its state, and
// a revision that every change increments (see Store).
type Record struct {
	// Revision is 0 when the record is created and grows by one with each
	// compare-and-swap.
	Revision uint64  `json:"revision"`
	Request  Request `json:"request"`
	Status   Status  `json:"status"`
}

// Validate reports (wrapping ErrInvalid) a record whose request or status
// is malformed.
func (r Record) Validate() error {
	if err := r.Request.Validate(); err != nil {
		return err
	}
	if err := r.Status.Validate(); err != nil {
		return fmt.Errorf("record %q: %w", r.Request.ID, err)
	}
	return nil
}

// Clone returns a deep copy of r, sharing no memory with it.
func (r Record) Clone() Record {
	r.Request.Input = slices.Clone(r.Request.Input)
	r.Status.Output = slices.Clone(r.Status.Output)
	if r.Status.Error != nil {
		f := *r.Status.Error
		r.Status.Error = &f
	}
	return r
}

// State is where an effect is in its life:
//
//	prepared → started → completed | failed
//
// Prepared records the intent before anything runs (the effect certainly
// has not happened). Started is written just before the handler runs: a
// record found started may or may not have executed, and is ambiguous
// until something settles it. Completed and failed are final.
type State string

// The states; their string forms are stored in journals.
const (
	StatePrepared  State = "prepared"
	StateStarted   State = "started"
	StateCompleted State = "completed"
	StateFailed    State = "failed"
)

// Status is a record's state with the data of the final states. As JSON
// it is an object tagged by "state":
//
//	{"state":"prepared"}  {"state":"started"}
//	{"state":"completed","output":<JSON>}
//	{"state":"failed","error":{"message":"..."}}
type Status struct {
	State State `json:"state"`
	// Output is the completed effect's result, replayed byte for byte.
	Output json.RawMessage `json:"output,omitempty"`
	// Error is the failed effect's failure.
	Error *Failure `json:"error,omitempty"`
}

// Failure is the stored failure of an effect that failed without
// executing.
type Failure struct {
	Message string `json:"message"`
}

// newFailure records err's message as text every journal can store: NUL
// bytes (which PostgreSQL text refuses) become U+FFFD, as JSON encoding
// already does for invalid UTF-8.
func newFailure(err error) Failure {
	return Failure{Message: strings.ReplaceAll(err.Error(), "\x00", "\uFFFD")}
}

// Validate reports (wrapping ErrInvalid) an unknown state, a completed
// status whose output is not JSON, a failed one without an error, or data
// on a state that carries none.
func (s Status) Validate() error {
	switch s.State {
	case StatePrepared, StateStarted:
		if s.Output != nil || s.Error != nil {
			return fmt.Errorf("%w: a %s status carries no output or error", ErrInvalid, s.State)
		}
	case StateCompleted:
		if !json.Valid(s.Output) || s.Error != nil {
			return fmt.Errorf("%w: a completed status needs a JSON output and no error", ErrInvalid)
		}
	case StateFailed:
		if s.Error == nil || s.Output != nil {
			return fmt.Errorf("%w: a failed status needs an error and no output", ErrInvalid)
		}
	default:
		return fmt.Errorf("%w: unknown state %q", ErrInvalid, string(s.State))
	}
	return nil
}

// UnmarshalJSON decodes and validates a status, so a malformed journal
// entry is refused when read rather than misread.
func (s *Status) UnmarshalJSON(b []byte) error {
	type plain Status
	var v plain
	if err := json.Unmarshal(b, &v); err != nil {
		return fmt.Errorf("%w: status: %w", ErrInvalid, err)
	}
	if err := Status(v).Validate(); err != nil {
		return err
	}
	*s = Status(v)
	return nil
}
