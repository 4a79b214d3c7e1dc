package env

import (
	"errors"

	"github.com/starweaver-go/starweaver/core/internal/optionerr"
)

// ErrInvalidOption is matched by the error of a shell option given out of
// its range (see [ShellLimits.Apply]). The error's message is the rule
// whole ("shell: max_processes must be positive, got 0").
var ErrInvalidOption = errors.New("env: invalid option")

// ShellLimits are the limits of a local shell as a host states them: a
// nil limit keeps its default, a given one must be positive. They exist
// because [LocalShellOptions] cannot tell an explicit 0 from an unset
// field (both mean the default there), while a host that states a limit
// of 0 has made a mistake that must be reported.
type ShellLimits struct {
	// MaxProcesses sets LocalShellOptions.MaxProcesses.
	MaxProcesses *int
	// MaxCaptureBytes sets LocalShellOptions.MaxCaptureBytes.
	MaxCaptureBytes *int
}

// Apply checks l and sets its given limits on o. A limit that is not
// positive fails with an error matching [ErrInvalidOption] (MaxProcesses
// checked first) and leaves o unchanged.
func (l ShellLimits) Apply(o *LocalShellOptions) error {
	return optionerr.SetPositive([]optionerr.Positive[int]{
		{Name: "max_processes", Value: l.MaxProcesses, Into: &o.MaxProcesses},
		{Name: "max_capture_bytes", Value: l.MaxCaptureBytes, Into: &o.MaxCaptureBytes},
	}, func(name string, v int) error {
		return optionerr.New(ErrInvalidOption, "shell: %s must be positive, got %d", name, v)
	})
}
