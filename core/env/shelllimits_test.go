package env_test

import (
	"errors"
	"testing"

	"github.com/starweaver-go/starweaver/core/env"
)

func TestShellLimitsApply(t *testing.T) {
	n := func(v int) *int { return &v }
	opts := env.LocalShellOptions{MaxProcesses: 3, Retention: 7}
	if err := (env.ShellLimits{}).Apply(&opts); err != nil || opts.MaxProcesses != 3 || opts.MaxCaptureBytes != 0 {
		t.Fatalf("unset limits: %v, %+v", err, opts)
	}
	if err := (env.ShellLimits{MaxProcesses: n(2), MaxCaptureBytes: n(100)}).Apply(&opts); err != nil ||
		opts.MaxProcesses != 2 || opts.MaxCaptureBytes != 100 || opts.Retention != 7 {
		t.Fatalf("given limits: %v, %+v", err, opts)
	}
	for _, c := range []struct {
		l    env.ShellLimits
		want string
	}{
		{env.ShellLimits{MaxProcesses: n(0)}, "shell: max_processes must be positive, got 0"},
		{env.ShellLimits{MaxCaptureBytes: n(-4)}, "shell: max_capture_bytes must be positive, got -4"},
		{env.ShellLimits{MaxProcesses: n(-1), MaxCaptureBytes: n(0)}, "shell: max_processes must be positive, got -1"},
		{env.ShellLimits{MaxProcesses: n(5), MaxCaptureBytes: n(0)}, "shell: max_capture_bytes must be positive, got 0"},
	} {
		before := opts
		err := c.l.Apply(&opts)
		if err == nil || err.Error() != c.want || !errors.Is(err, env.ErrInvalidOption) {
			t.Errorf("%+v: got %v, want %q matching ErrInvalidOption", c.l, err, c.want)
		}
		if opts.MaxProcesses != before.MaxProcesses || opts.MaxCaptureBytes != before.MaxCaptureBytes {
			t.Errorf("%+v: a refused Apply changed the options to %+v", c.l, opts)
		}
	}
}
