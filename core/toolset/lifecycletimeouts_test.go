package toolset_test

import (
	"errors"
	"testing"
	"time"

	"github.com/starweaver-go/starweaver/core/tool"
	"github.com/starweaver-go/starweaver/core/toolset"
)

func TestLifecycleTimeoutsApply(t *testing.T) {
	d := func(v time.Duration) *time.Duration { return &v }
	p := toolset.LifecyclePolicy{ReadTimeout: time.Second, KeepOpen: true}
	if err := (toolset.LifecycleTimeouts{}).Apply("ts", &p); err != nil || p.ReadTimeout != time.Second || p.InitializationTimeout != 0 {
		t.Fatalf("unset timeouts: %v, %+v", err, p)
	}
	if err := (toolset.LifecycleTimeouts{Initialization: d(2 * time.Second), Exit: d(3 * time.Millisecond)}).Apply("ts", &p); err != nil ||
		p.InitializationTimeout != 2*time.Second || p.ReadTimeout != time.Second || p.ExitTimeout != 3*time.Millisecond || !p.KeepOpen {
		t.Fatalf("given timeouts: %v, %+v", err, p)
	}
	for _, c := range []struct {
		t    toolset.LifecycleTimeouts
		want string
	}{
		{toolset.LifecycleTimeouts{Initialization: d(0)}, `toolset "ts": initialization_timeout_ms must be positive, got 0`},
		{toolset.LifecycleTimeouts{Read: d(-2 * time.Millisecond)}, `toolset "ts": read_timeout_ms must be positive, got -2`},
		{toolset.LifecycleTimeouts{Exit: d(0)}, `toolset "ts": exit_timeout_ms must be positive, got 0`},
		{toolset.LifecycleTimeouts{Initialization: d(time.Second), Read: d(0), Exit: d(-time.Second)}, `toolset "ts": read_timeout_ms must be positive, got 0`},
	} {
		before := p
		err := c.t.Apply("ts", &p)
		if err == nil || err.Error() != c.want || !errors.Is(err, tool.ErrInvalidOption) {
			t.Errorf("%+v: got %v, want %q matching tool.ErrInvalidOption", c.t, err, c.want)
		}
		if p != before {
			t.Errorf("%+v: a refused Apply changed the policy to %+v", c.t, p)
		}
	}
}
