package artifactref

import (
	"encoding/json"
	"fmt"
)

// MaxScopeBytes is the longest scope, in bytes.
const MaxScopeBytes = 128

// Scope names the partition an artifact lives in (a tenant, a user, a
// session). Scopes are short ASCII names made only of letters, digits and
// ". _ - :", so a scope can never hold a path separator or a quote and is
// safe in keys, file names and log lines.
//
// The zero Scope is not a valid scope: stores reject it. Build scopes with
// [ParseScope]; a Scope decoded from JSON is checked the same way, so
// "../tenant" fails to decode.
type Scope struct {
	name string
}

// ParseScope returns the scope named s, or an error matching
// [ErrInvalidInput] unless s has 1 to [MaxScopeBytes] bytes of ASCII
// letters, digits, '.', '_', '-' or ':'.
func ParseScope(s string) (Scope, error) {
	if len(s) == 0 || len(s) > MaxScopeBytes {
		return Scope{}, fmt.Errorf("%w: a scope must have 1 to %d characters", ErrInvalidInput, MaxScopeBytes)
	}
	for i := 0; i < len(s); i++ {
		if !scopeByte(s[i]) {
			return Scope{}, fmt.Errorf("%w: a scope may only hold ASCII letters, digits, '.', '_', '-' and ':'", ErrInvalidInput)
		}
	}
	return Scope{name: s}, nil
}

func scopeByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
		c == '.' || c == '_' || c == '-' || c == ':'
}

// String returns the scope's name ("" for the zero Scope).
func (s Scope) String() string { return s.name }

// IsZero reports whether s is the zero Scope.
func (s Scope) IsZero() bool { return s.name == "" }

// Validate returns an error matching [ErrInvalidInput] for the zero Scope,
// the only invalid value a Scope can hold.
func (s Scope) Validate() error {
	if s.IsZero() {
		return fmt.Errorf("%w: the scope is missing", ErrInvalidInput)
	}
	return nil
}

// MarshalJSON encodes s as a JSON string.
func (s Scope) MarshalJSON() ([]byte, error) { return json.Marshal(s.name) }

// UnmarshalJSON decodes a JSON string and checks it with [ParseScope].
func (s *Scope) UnmarshalJSON(b []byte) error {
	var name string
	if err := json.Unmarshal(b, &name); err != nil {
		return fmt.Errorf("%w: a scope must be a JSON string", ErrInvalidInput)
	}
	p, err := ParseScope(name)
	if err != nil {
		return err
	}
	*s = p
	return nil
}
