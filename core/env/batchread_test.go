//go:build unix

package env_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/starweaver-go/starweaver/core/env"
)

// ReadFiles reads what ReadFile reads, file by file: the same bytes, the
// same refusals (links out of the root, directories, FIFOs), and links
// inside the root resolved under it.
func TestLocalReadFilesMatchesReadFile(t *testing.T) {
	ctx := context.Background()
	f := newEscapeFixture(t)
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.WriteFile(filepath.Join(f.root, "sub", "y.txt"), []byte("why"), 0o644))
	must(os.Symlink("../a.txt", filepath.Join(f.root, "sub", "up-link")))
	must(os.Symlink("../../outside/secret.txt", filepath.Join(f.root, "sub", "out-link")))
	must(syscall.Mkfifo(filepath.Join(f.root, "sub", "pipe"), 0o644))
	must(os.Mkdir(filepath.Join(f.root, "sub", "d"), 0o755))
	for _, dir := range []string{".", "sub"} {
		names := []string{"a.txt", "abs-file", "rel-file", "in-file", "x.txt", "y.txt", "up-link", "out-link", "pipe", "d", "missing", "../a.txt", "x/y"}
		var got []string
		err := f.p.ReadFiles(ctx, dir, names, func(p string, data []byte, err error) error {
			want, wantErr := f.p.ReadFile(ctx, p, 0, -1)
			if (err == nil) != (wantErr == nil) || string(data) != string(want) {
				t.Errorf("%s: ReadFiles gave %q, %v; ReadFile %q, %v", p, data, err, want, wantErr)
			}
			if err != nil && !errors.Is(err, env.ErrNotFound) && !errors.Is(err, env.ErrAccessDenied) && !errors.Is(err, env.ErrInvalidRequest) {
				t.Errorf("%s: an error of no known kind: %v", p, err)
			}
			got = append(got, p)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(names) {
			t.Fatalf("%s: %d callbacks for %d names: %v", dir, len(got), len(names), got)
		}
	}
	f.untouched(t)
}

// A FIFO in the tree, or a directory swapped for one, ends every call at
// once: nothing opens it in a way that waits for a writer or a reader.
func TestLocalFIFOsNeverBlock(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir, "pipe"), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := env.NewLocal(dir, env.LocalOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	ops := map[string]func() error{
		"read":  func() error { _, err := p.ReadFile(ctx, "pipe", 0, -1); return err },
		"write": func() error { return p.WriteFile(ctx, "pipe", []byte("x"), env.WriteOptions{}) },
		"copy":  func() error { return p.Copy(ctx, "pipe", "copy", false) },
		"list":  func() error { _, err := p.ReadDir(ctx, "pipe"); return err },
		"batch": func() error {
			var got error
			err := p.ReadFiles(ctx, ".", []string{"pipe"}, func(_ string, _ []byte, err error) error { got = err; return nil })
			if err != nil {
				return err
			}
			return got
		},
	}
	for name, op := range ops {
		done := make(chan error, 1)
		go func() { done <- op() }()
		select {
		case err := <-done:
			if !errors.Is(err, env.ErrInvalidRequest) {
				t.Errorf("%s on a FIFO: %v, want an invalid request", name, err)
			}
		case <-time.After(30 * time.Second): // a bound on a hang, not a measurement
			t.Fatalf("%s on a FIFO blocked", name)
		}
	}
}
