package artifact_test

import (
	"testing"
	"time"

	"github.com/starweaver-go/starweaver/core/artifact"
)

func TestNewConfigDefaults(t *testing.T) {
	c := artifact.NewConfig()
	if c.MaxBytes != 16<<20 || c.Now == nil {
		t.Fatalf("defaults = %+v", c)
	}
	at := time.UnixMilli(42)
	c = artifact.NewConfig(artifact.WithMaxBytes(7), artifact.WithClock(func() time.Time { return at }))
	if c.MaxBytes != 7 || c.NowUnixMS() != 42 {
		t.Fatalf("configured = %d, %d", c.MaxBytes, c.NowUnixMS())
	}
}

func TestOptionsPanicOnMisuse(t *testing.T) {
	for name, f := range map[string]func(){
		"WithMaxBytes(0)":  func() { artifact.WithMaxBytes(0) },
		"WithMaxBytes(-1)": func() { artifact.WithMaxBytes(-1) },
		"WithClock(nil)":   func() { artifact.WithClock(nil) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s did not panic", name)
				}
			}()
			f()
		}()
	}
}
