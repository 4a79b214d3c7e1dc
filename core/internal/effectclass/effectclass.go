// Package effectclass holds the effect classes of tools and the rules
// that follow from them, below both the tools that declare them
// (core/tool) and the journal that records their effects (core/effect),
// which name them tool.EffectClass and effect.Class. It also holds the
// idempotency key of a call and effect.ErrInvalid, which ErrUnknownClass
// matches.
package effectclass

import (
	"errors"
	"fmt"
	"net/url"
	"strconv"
)

// ErrInvalid is effect.ErrInvalid: a malformed request or record.
var ErrInvalid = errors.New("effect: invalid")

// specialized is an error that matches a more general one (as
// store.Specialize builds, which this package cannot import).
type specialized struct {
	msg     string
	general error
}

func (e *specialized) Error() string { return e.msg }
func (e *specialized) Unwrap() error { return e.general }

// Class says what running a tool does to the world, and therefore whether
// the runtime may run it again after a failure whose outcome is unknown,
// or beside another call of the same tool.
//
// The zero value, ClassUndeclared, is a tool that declared nothing. It
// keeps the behaviour tools had before classes existed: an unexpected
// failure is re-run up to the tool's retry budget, and the scheduler treats
// repeated names conservatively.
type Class string

// The effect classes. Their string forms are stable: they cross the C ABI
// and are stored in journals.
const (
	// ClassUndeclared: the tool declared no class (see Class).
	ClassUndeclared Class = ""
	// ClassPure computes from its input only and touches nothing.
	ClassPure Class = "pure"
	// ClassReadOnly reads outside state but never changes it.
	ClassReadOnly Class = "read_only"
	// ClassIdempotentWrite changes state so that repeating the same call
	// with the same idempotency key has no further effect.
	ClassIdempotentWrite Class = "idempotent_write"
	// ClassNonIdempotentWrite changes state, and repeating it repeats the
	// change (sending a message, charging a card).
	ClassNonIdempotentWrite Class = "non_idempotent_write"
	// ClassDestructive changes state irreversibly (deleting data).
	ClassDestructive Class = "destructive"
	// ClassUnknown declares explicitly that the effect is not known; it is
	// treated as the most dangerous class.
	ClassUnknown Class = "unknown"
)

// classes is the one list of declared classes; Classes and ParseClass
// read it.
var classes = [...]Class{ClassPure, ClassReadOnly, ClassIdempotentWrite, ClassNonIdempotentWrite, ClassDestructive, ClassUnknown}

// Classes lists every declared class (ClassUndeclared excluded), for parity
// checks with other languages. The caller owns the returned slice.
func Classes() []Class { return append([]Class(nil), classes[:]...) }

// ErrUnknownClass is returned by ParseClass (and by JSON decoding) for a
// string that is not a class. It matches ErrInvalid too.
var ErrUnknownClass error = &specialized{"effect: unknown effect class", ErrInvalid}

// ParseClass returns the class whose string form is s; "" is
// ClassUndeclared.
func ParseClass(s string) (Class, error) {
	c := Class(s)
	if !c.Valid() {
		return "", fmt.Errorf("%w %q", ErrUnknownClass, s)
	}
	return c, nil
}

// Valid reports whether c is ClassUndeclared or one of Classes.
func (c Class) Valid() bool {
	if c == ClassUndeclared {
		return true
	}
	for _, k := range classes {
		if k == c {
			return true
		}
	}
	return false
}

// MarshalText writes the string form, refusing a class that is not valid
// so that a typo never reaches a journal.
func (c Class) MarshalText() ([]byte, error) {
	if !c.Valid() {
		return nil, fmt.Errorf("%w %q", ErrUnknownClass, string(c))
	}
	return []byte(c), nil
}

// UnmarshalText parses the string form (see ParseClass).
func (c *Class) UnmarshalText(b []byte) error {
	v, err := ParseClass(string(b))
	if err != nil {
		return err
	}
	*c = v
	return nil
}

// RetrySafe reports whether an effect of class c may run again when an
// earlier run's outcome is unknown: pure and read-only effects always,
// idempotent writes only with an idempotency key (without one the target
// cannot recognise the repeat). Undeclared tools keep their retry budget,
// so they count as retry-safe; every other class fails closed.
func RetrySafe(c Class, hasKey bool) bool {
	switch c {
	case ClassUndeclared, ClassPure, ClassReadOnly:
		return true
	case ClassIdempotentWrite:
		return hasKey
	default:
		return false
	}
}

// ParallelSafe reports whether calls of class c may run in parallel even
// when the same tool appears several times in one batch: only pure and
// read-only effects, whose order cannot matter.
func ParallelSafe(c Class) bool {
	return c == ClassPure || c == ClassReadOnly
}

// FailsClosed reports whether an effect of class c must never run again
// after a failure whose outcome is unknown, whatever the recovery policy:
// non-idempotent writes, destructive effects and unknown ones. Only a
// reconciler's proof that the effect did not happen lets it run again.
//
// An idempotent write without a key is not retry-safe either (see
// RetrySafe) but does not fail closed by class: a key makes it safe.
func FailsClosed(c Class) bool {
	switch c {
	case ClassNonIdempotentWrite, ClassDestructive, ClassUnknown:
		return true
	default:
		return false
	}
}

// Key returns the idempotency key of the callIndex-th tool call (counting
// from 0 in the model's order) of turn turn of run runID in session
// sessionID:
//
//	session/<sessionID>/run/<runID>/turn/<turn>/call/<callIndex>
//
// with sessionID and runID path-escaped (url.PathEscape, so "/" and "%"
// inside them are escaped and two different inputs never give one key),
// and turn and callIndex in decimal.
//
// The key names the call by its position, not by the provider's call id:
// a turn that is re-driven after a crash asks the model again and gets new
// call ids, but the call at the same position is the same effect, and its
// journal record must be found again. The format is stable; journals
// written by one version are read by the next.
//
// Key panics if turn or callIndex is negative (a caller bug).
func Key(sessionID, runID string, turn, callIndex int) string {
	if turn < 0 || callIndex < 0 {
		panic("effect: Key: negative turn or call index")
	}
	b := make([]byte, 0, 32+len(sessionID)+len(runID))
	b = append(b, "session/"...)
	b = append(b, url.PathEscape(sessionID)...)
	b = append(b, "/run/"...)
	b = append(b, url.PathEscape(runID)...)
	b = append(b, "/turn/"...)
	b = strconv.AppendInt(b, int64(turn), 10)
	b = append(b, "/call/"...)
	b = strconv.AppendInt(b, int64(callIndex), 10)
	return string(b)
}
