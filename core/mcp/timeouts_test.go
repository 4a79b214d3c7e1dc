package mcp_test

import (
	"errors"
	"testing"
	"time"

	"github.com/starweaver-go/starweaver/core/mcp"
)

func TestTimeoutsApply(t *testing.T) {
	d := func(v time.Duration) *time.Duration { return &v }
	o := mcp.Options{ToolPrefix: "p", InitTimeout: time.Minute}
	if err := (mcp.Timeouts{}).Apply("srv", &o); err != nil || o.InitTimeout != time.Minute || o.ReadTimeout != 0 {
		t.Fatalf("unset timeouts: %v, %+v", err, o)
	}
	if err := (mcp.Timeouts{Read: d(time.Second), Call: d(2 * time.Second)}).Apply("srv", &o); err != nil ||
		o.ReadTimeout != time.Second || o.InitTimeout != time.Minute || o.Defaults.Timeout != 2*time.Second || o.ToolPrefix != "p" {
		t.Fatalf("given timeouts: %v, %+v", err, o)
	}
	for _, c := range []struct {
		t    mcp.Timeouts
		want string
	}{
		{mcp.Timeouts{Read: d(0)}, `toolset "srv": read_timeout_ms must be positive`},
		{mcp.Timeouts{Init: d(-time.Millisecond)}, `toolset "srv": init_timeout_ms must be positive`},
		{mcp.Timeouts{Call: d(0)}, `toolset "srv": timeout_ms must be positive`},
		{mcp.Timeouts{Read: d(time.Second), Init: d(0), Call: d(0)}, `toolset "srv": init_timeout_ms must be positive`},
	} {
		before := o
		err := c.t.Apply("srv", &o)
		if err == nil || err.Error() != c.want || !errors.Is(err, mcp.ErrConfig) {
			t.Errorf("%+v: got %v, want %q matching ErrConfig", c.t, err, c.want)
		}
		if o.ReadTimeout != before.ReadTimeout || o.InitTimeout != before.InitTimeout || o.Defaults.Timeout != before.Defaults.Timeout {
			t.Errorf("%+v: a refused Apply changed the options to %+v", c.t, o)
		}
	}
}
