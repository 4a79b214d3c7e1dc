package effect

import (
	"encoding/json"
	"errors"
	"fmt"
)

// envelope is a record as stores keep it in their record_json column: the
// record without its input and output, which they store verbatim beside
// it (re-encoding would change their bytes, and a replay must not).
type envelope struct {
	ID    string   `json:"id"`
	Key   string   `json:"key,omitempty"`
	Tool  string   `json:"tool"`
	Class Class    `json:"class,omitempty"`
	State State    `json:"state"`
	Error *Failure `json:"error,omitempty"`
}

// EncodeEnvelope returns rec's record_json: everything but its input and
// output. Stores of this module keep records this way.
func EncodeEnvelope(rec Record) ([]byte, error) {
	q := rec.Request
	b, err := json.Marshal(envelope{ID: q.ID, Key: q.Key, Tool: q.Tool, Class: q.Class, State: rec.Status.State, Error: rec.Status.Error})
	if err != nil {
		return nil, errors.Join(ErrInvalid, err)
	}
	return b, nil
}

// DecodeStored rebuilds a record from its stored columns: the revision,
// the record_json EncodeEnvelope wrote, and the verbatim input and output
// (nil unless completed). A record that does not decode or validate is
// ErrInvalid.
func DecodeStored(revision uint64, env, input, output []byte) (Record, error) {
	var e envelope
	if err := json.Unmarshal(env, &e); err != nil {
		return Record{}, fmt.Errorf("the stored record is malformed: %w", errors.Join(ErrInvalid, err))
	}
	rec := Record{
		Revision: revision,
		Request:  Request{ID: e.ID, Key: e.Key, Tool: e.Tool, Class: e.Class, Input: input},
		Status:   Status{State: e.State, Output: output, Error: e.Error},
	}
	if err := rec.Validate(); err != nil {
		return Record{}, fmt.Errorf("the stored record is malformed: %w", err)
	}
	return rec, nil
}
