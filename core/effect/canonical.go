package effect

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// Canonical returns the canonical form of the JSON value in b: object keys
// sorted, no insignificant whitespace, numbers exactly as written (never
// through float64), no HTML escaping. Two inputs that differ only in key
// order or spacing have the same canonical form, so a replayed call whose
// arguments were re-encoded on the way still matches its record.
func Canonical(b []byte) (json.RawMessage, error) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, fmt.Errorf("%w: input is not JSON: %w", ErrInvalid, err)
	}
	if _, err := d.Token(); !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%w: input has data after its JSON value", ErrInvalid)
	}
	var out bytes.Buffer
	e := json.NewEncoder(&out)
	e.SetEscapeHTML(false)
	if err := e.Encode(v); err != nil {
		return nil, fmt.Errorf("%w: input: %w", ErrInvalid, err)
	}
	return bytes.TrimSuffix(out.Bytes(), []byte{'\n'}), nil
}
