package artifact_test

import (
	"testing"
	"time"

	"github.com/starweaver-go/starweaver/core/artifact"
)

func TestConfigDefaults(t *testing.T) {
	c := artifact.Config{}.Normalised()
	if c.MaxBytes != 16<<20 || c.Now == nil {
		t.Fatalf("defaults = %+v", c)
	}
	at := time.UnixMilli(42)
	c = artifact.Config{MaxBytes: 7, Now: func() time.Time { return at }}.Normalised()
	if c.MaxBytes != 7 || c.NowUnixMS() != 42 {
		t.Fatalf("configured = %d, %d", c.MaxBytes, c.NowUnixMS())
	}
}

func TestConfigPanicsOnNegativeMaxBytes(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("a negative MaxBytes did not panic")
		}
	}()
	artifact.NewMemoryStore(artifact.Config{MaxBytes: -1})
}
