package effect

import "github.com/starweaver-go/starweaver/core/internal/effectclass"

// Class says what running a tool does to the world, and therefore whether
// the runtime may run it again after a failure whose outcome is unknown,
// or beside another call of the same tool. It is the class tools declare
// (tool.EffectClass names the same type).
//
// The zero value, ClassUndeclared, is a tool that declared nothing. It
// keeps the behaviour tools had before classes existed: an unexpected
// failure is re-run up to the tool's retry budget, and the scheduler treats
// repeated names conservatively.
//
// Its text form is the class's string; MarshalText refuses a class that is
// not valid (ErrUnknownClass), so that a typo never reaches a journal, and
// UnmarshalText parses as ParseClass does. Valid reports whether a class is
// ClassUndeclared or one of Classes.
type Class = effectclass.Class

// The effect classes. Their string forms are stable: they cross the C ABI
// and are stored in journals.
const (
	// ClassUndeclared: the tool declared no class (see Class).
	ClassUndeclared = effectclass.ClassUndeclared
	// ClassPure computes from its input only and touches nothing.
	ClassPure = effectclass.ClassPure
	// ClassReadOnly reads outside state but never changes it.
	ClassReadOnly = effectclass.ClassReadOnly
	// ClassIdempotentWrite changes state so that repeating the same call
	// with the same idempotency key has no further effect.
	ClassIdempotentWrite = effectclass.ClassIdempotentWrite
	// ClassNonIdempotentWrite changes state, and repeating it repeats the
	// change (sending a message, charging a card).
	ClassNonIdempotentWrite = effectclass.ClassNonIdempotentWrite
	// ClassDestructive changes state irreversibly (deleting data).
	ClassDestructive = effectclass.ClassDestructive
	// ClassUnknown declares explicitly that the effect is not known; it is
	// treated as the most dangerous class.
	ClassUnknown = effectclass.ClassUnknown
)

// Classes lists every declared class (ClassUndeclared excluded), for parity
// checks with other languages. The caller owns the returned slice.
func Classes() []Class { return effectclass.Classes() }

// ErrUnknownClass is returned by ParseClass (and by JSON decoding) for a
// string that is not a class. It matches ErrInvalid too.
var ErrUnknownClass = effectclass.ErrUnknownClass

// ParseClass returns the class whose string form is s; "" is
// ClassUndeclared.
func ParseClass(s string) (Class, error) { return effectclass.ParseClass(s) }

// RetrySafe reports whether an effect of class c may run again when an
// earlier run's outcome is unknown: pure and read-only effects always,
// idempotent writes only with an idempotency key (without one the target
// cannot recognise the repeat). Undeclared tools keep their retry budget,
// so they count as retry-safe; every other class fails closed.
func RetrySafe(c Class, hasKey bool) bool { return effectclass.RetrySafe(c, hasKey) }

// ParallelSafe reports whether calls of class c may run in parallel even
// when the same tool appears several times in one batch: only pure and
// read-only effects, whose order cannot matter.
func ParallelSafe(c Class) bool { return effectclass.ParallelSafe(c) }

// FailsClosed reports whether an effect of class c must never run again
// after a failure whose outcome is unknown, whatever the recovery policy:
// non-idempotent writes, destructive effects and unknown ones. Only a
// reconciler's proof that the effect did not happen lets it run again.
//
// An idempotent write without a key is not retry-safe either (see
// RetrySafe) but does not fail closed by class: a key makes it safe.
func FailsClosed(c Class) bool { return effectclass.FailsClosed(c) }
