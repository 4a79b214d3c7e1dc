package artifact_test

import (
	"errors"
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

func TestConfigValidate(t *testing.T) {
	for _, n := range []int64{0, 1, 16 << 20} {
		if err := (artifact.Config{MaxBytes: n}).Validate(); err != nil {
			t.Errorf("MaxBytes %d: %v", n, err)
		}
	}
	err := artifact.Config{MaxBytes: -3}.Validate()
	if err == nil || err.Error() != "artifact store max_bytes must be positive, got -3" || !errors.Is(err, artifact.ErrInvalidConfig) {
		t.Fatalf("MaxBytes -3: %v", err)
	}
	if k := artifact.KindOf(err); k != "" {
		t.Fatalf("a configuration error has the artifact kind %q", k)
	}
}
