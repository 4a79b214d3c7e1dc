package env

import (
	"errors"
	"fmt"
)

// wrapf wraps a sentinel with a message: errors.Is still finds it.
func wrapf(sentinel error, format string, a ...any) error {
	return fmt.Errorf("%w: %s", sentinel, fmt.Sprintf(format, a...))
}

// asError is errors.As for *Error.
func asError(err error, target **Error) bool { return errors.As(err, target) }
