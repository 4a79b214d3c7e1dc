package env_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/starweaver-go/starweaver/core/env"
	"github.com/starweaver-go/starweaver/core/env/envtest"
)

func TestVirtualConformance(t *testing.T) {
	envtest.Run(t, func(t *testing.T, files map[string]string, readOnly bool) env.Provider {
		v := env.NewVirtual("virtual")
		for p, c := range files {
			v.WithFile(p, c)
		}
		if readOnly {
			v.ReadOnly()
		}
		return v
	})
}

func TestLocalConformance(t *testing.T) {
	envtest.Run(t, func(t *testing.T, files map[string]string, readOnly bool) env.Provider {
		return newLocal(t, files, readOnly)
	})
}

// newLocal returns a local provider over a fresh directory holding files.
func newLocal(t *testing.T, files map[string]string, readOnly bool) *env.Local {
	t.Helper()
	dir := t.TempDir()
	for p, c := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	l, err := env.NewLocal(dir, env.LocalOptions{ReadOnly: readOnly})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = l.Close() })
	return l
}
