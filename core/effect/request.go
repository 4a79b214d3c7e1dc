package effect

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Request describes one effect to run: which tool, with which input, of
// which class, under which idempotency key. A Request is immutable once
// its record exists: a later Execute with the same key (or id) must
// describe the same effect, or it fails with ErrIdempotencyConflict.
type Request struct {
	// ID names this effect's record. Execute fills in an empty ID with
	// NewID(). Ids are fresh per attempt to call; the Key is what finds an
	// earlier attempt's record again.
	ID string `json:"id"`
	// Key is the idempotency key (see Key), unique in a journal. Empty
	// means none: the effect can then only be found by its ID, and an
	// idempotent write without a key is not retry-safe.
	Key string `json:"key,omitempty"`
	// Tool is the tool's name.
	Tool string `json:"tool"`
	// Class is the tool's effect class.
	Class Class `json:"class,omitempty"`
	// Input is the call's arguments as JSON. Execute stores and compares
	// its canonical form (see Canonical).
	Input json.RawMessage `json:"input"`
}

// Validate reports (wrapping ErrInvalid) a request without an id or a tool
// name, with a NUL byte in its id, key or tool name (which some journals,
// PostgreSQL's among them, cannot store as text), with an unknown class,
// or whose input is not one JSON value.
func (r Request) Validate() error {
	if err := r.validateFields(); err != nil {
		return err
	}
	if !json.Valid(r.Input) {
		return fmt.Errorf("%w: request %q: input is not JSON", ErrInvalid, r.ID)
	}
	return nil
}

// validateFields is Validate without the input, which Execute checks
// while canonicalising it.
func (r Request) validateFields() error {
	switch {
	case r.ID == "":
		return fmt.Errorf("%w: request has no id", ErrInvalid)
	case r.Tool == "":
		return fmt.Errorf("%w: request %q has no tool name", ErrInvalid, r.ID)
	case strings.IndexByte(r.ID, 0) >= 0 || strings.IndexByte(r.Key, 0) >= 0 || strings.IndexByte(r.Tool, 0) >= 0:
		return fmt.Errorf("%w: request %q: a NUL byte in its id, key or tool name", ErrInvalid, r.ID)
	case !r.Class.Valid():
		return fmt.Errorf("%w: request %q: %w %q", ErrInvalid, r.ID, ErrUnknownClass, string(r.Class))
	}
	return nil
}

// sameEffect reports why stored and r are not the same effect ("" when
// they are). Ids may differ (each attempt gets a fresh one); the key,
// tool, class and canonical input may not. Inputs are not echoed: they
// may hold secrets.
func sameEffect(stored, r Request) string {
	switch {
	case stored.Key != r.Key:
		return "another idempotency key"
	case stored.Tool != r.Tool:
		return "another tool"
	case stored.Class != r.Class:
		return "another effect class"
	case string(stored.Input) != string(r.Input):
		// Stored inputs are canonical when Execute wrote them; canonicalise
		// again for records another writer stored.
		c, err := Canonical(stored.Input)
		if err != nil || string(c) != string(r.Input) {
			return "another input"
		}
	}
	return ""
}
