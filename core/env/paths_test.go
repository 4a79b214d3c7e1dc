package env_test

import (
	"errors"
	"testing"

	"github.com/starweaver-go/starweaver/core/env"
)

func TestClean(t *testing.T) {
	for in, want := range map[string]string{"": ".", ".": ".", "a/b": "a/b", "./a//b/": "a/b", `a\b`: "a/b", "a/./b": "a/b"} {
		if got, err := env.Clean(in); err != nil || got != want {
			t.Errorf("Clean(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"/etc/passwd", "../x", "a/../../x", "a/..", `C:\x`, "c:/x", "a\x00b", "a\nb", `..\x`} {
		_, err := env.Clean(in)
		var e *env.Error
		if !errors.Is(err, env.ErrInvalidRequest) || !errors.As(err, &e) || e.Path != in {
			t.Errorf("Clean(%q) = %v; want an invalid-request error naming the path", in, err)
		}
	}
}
