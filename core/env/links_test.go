//go:build unix

package env_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/starweaver-go/starweaver/core/env"
)

// A hard link inside the root to a file outside it is neither read nor
// written (nor copied, nor batch-read) unless the provider allows hard
// links; the outside file stays as it was.
func TestLocalRefusesHardLinks(t *testing.T) {
	root, outside := t.TempDir(), t.TempDir()
	secret := filepath.Join(outside, "secret.txt")
	if err := os.WriteFile(secret, []byte("outside secret\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(secret, filepath.Join(root, "link.txt")); err != nil {
		t.Skipf("no hard links here: %v", err)
	}
	l, err := env.NewLocal(root, env.LocalOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	ctx := context.Background()
	denied := func(what string, err error) {
		t.Helper()
		if !errors.Is(err, env.ErrAccessDenied) || !strings.Contains(err.Error(), "hard link") {
			t.Fatalf("%s: %v", what, err)
		}
	}
	_, err = l.ReadFile(ctx, "link.txt", 0, -1)
	denied("read", err)
	denied("write", l.WriteFile(ctx, "link.txt", []byte("owned\n"), env.WriteOptions{}))
	denied("append", l.WriteFile(ctx, "link.txt", []byte("owned\n"), env.WriteOptions{Append: true}))
	denied("copy", l.Copy(ctx, "link.txt", "copy.txt", false))
	var batch error
	_ = l.ReadFiles(ctx, ".", []string{"link.txt"}, func(_ string, b []byte, err error) error {
		if err == nil {
			err = errors.New("read: " + string(b))
		}
		batch = err
		return nil
	})
	denied("batch read", batch)
	if b, _ := os.ReadFile(secret); string(b) != "outside secret\n" {
		t.Fatalf("the outside file changed: %q", b)
	}
	// A plain file (one link) is unaffected.
	if err := l.WriteFile(ctx, "plain.txt", []byte("x"), env.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	if b, err := l.ReadFile(ctx, "plain.txt", 0, -1); err != nil || string(b) != "x" {
		t.Fatalf("a plain file: %q %v", b, err)
	}

	allowing, err := env.NewLocal(root, env.LocalOptions{AllowHardLinks: true})
	if err != nil {
		t.Fatal(err)
	}
	defer allowing.Close()
	if b, err := allowing.ReadFile(ctx, "link.txt", 0, -1); err != nil || string(b) != "outside secret\n" {
		t.Fatalf("allowed read: %q %v", b, err)
	}
	if err := allowing.WriteFile(ctx, "link.txt", []byte("written\n"), env.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(secret); string(b) != "written\n" {
		t.Fatalf("allowed write: %q", b)
	}
}
