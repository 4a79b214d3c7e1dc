package env_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/starweaver-go/starweaver/core/env"
)

// escapeFixture is a root and, beside it, an outside directory holding a
// secret; the root holds a file symlink and a directory symlink to it.
type escapeFixture struct {
	root, outside string
	p             *env.Local
}

const secret = "SECRET-OUTSIDE"

func newEscapeFixture(t *testing.T) escapeFixture {
	t.Helper()
	base := t.TempDir()
	root, outside := filepath.Join(base, "root"), filepath.Join(base, "outside")
	for _, d := range []string{root, outside, filepath.Join(root, "sub")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.WriteFile(filepath.Join(outside, "secret.txt"), []byte(secret), 0o644))
	must(os.WriteFile(filepath.Join(root, "a.txt"), []byte("inside"), 0o644))
	must(os.WriteFile(filepath.Join(root, "sub", "x.txt"), []byte("x"), 0o644))
	must(os.Symlink(filepath.Join(outside, "secret.txt"), filepath.Join(root, "abs-file")))
	must(os.Symlink("../outside/secret.txt", filepath.Join(root, "rel-file")))
	must(os.Symlink(outside, filepath.Join(root, "abs-dir")))
	must(os.Symlink("../outside", filepath.Join(root, "rel-dir")))
	must(os.Symlink("a.txt", filepath.Join(root, "in-file")))
	must(os.Symlink("sub", filepath.Join(root, "in-dir")))
	p, err := env.NewLocal(root, env.LocalOptions{})
	must(err)
	t.Cleanup(func() { _ = p.Close() })
	return escapeFixture{root: root, outside: outside, p: p}
}

// untouched fails if the outside directory changed.
func (f escapeFixture) untouched(t *testing.T) {
	t.Helper()
	des, err := os.ReadDir(f.outside)
	if err != nil || len(des) != 1 || des[0].Name() != "secret.txt" {
		t.Fatalf("the outside directory changed: %v, %v", des, err)
	}
	if b, _ := os.ReadFile(filepath.Join(f.outside, "secret.txt")); string(b) != secret {
		t.Fatalf("the outside secret changed: %q", b)
	}
}

// denied fails unless err is an *env.Error denying access or refusing the
// request, naming path and never the host's directories.
func (f escapeFixture) denied(t *testing.T, what string, err error, path string) {
	t.Helper()
	var e *env.Error
	if !errors.As(err, &e) || !(errors.Is(err, env.ErrAccessDenied) || errors.Is(err, env.ErrInvalidRequest)) {
		t.Fatalf("%s: got %v; want access denied or an invalid request", what, err)
	}
	if e.Path != path {
		t.Fatalf("%s: the error names %q; want %q", what, e.Path, path)
	}
	if strings.Contains(err.Error(), f.outside) || strings.Contains(err.Error(), f.root) {
		t.Fatalf("%s: the error shows a host path: %v", what, err)
	}
}

func TestLocalRefusesSymlinkEscapes(t *testing.T) {
	ctx := context.Background()
	f := newEscapeFixture(t)
	p := f.p
	for _, link := range []string{"abs-file", "rel-file", "abs-dir/secret.txt", "rel-dir/secret.txt"} {
		b, err := p.ReadFile(ctx, link, 0, -1)
		f.denied(t, "read "+link, err, link)
		if strings.Contains(string(b), secret) {
			t.Fatalf("read %s returned the secret", link)
		}
		_, err = p.Stat(ctx, link)
		f.denied(t, "stat "+link, err, link)
		f.denied(t, "write "+link, p.WriteFile(ctx, link, []byte("pwned"), env.WriteOptions{}), link)
		f.denied(t, "append "+link, p.WriteFile(ctx, link, []byte("pwned"), env.WriteOptions{Append: true}), link)
		f.denied(t, "copy from "+link, p.Copy(ctx, link, "stolen.txt", false), link)
		f.denied(t, "copy onto "+link, p.Copy(ctx, "a.txt", link, true), link)
		f.denied(t, "move onto "+link, p.Rename(ctx, "a.txt", link, true), link)
	}
	for _, dir := range []string{"abs-dir", "rel-dir"} {
		_, err := p.ReadDir(ctx, dir)
		f.denied(t, "list "+dir, err, dir)
		f.denied(t, "walk "+dir, p.Walk(ctx, dir, func(env.FileInfo) error { return nil }), dir)
		f.denied(t, "create in "+dir, p.WriteFile(ctx, dir+"/new.txt", []byte("x"), env.WriteOptions{Parents: true}), dir+"/new.txt")
		f.denied(t, "mkdir in "+dir, p.Mkdir(ctx, dir+"/new", true), dir+"/new")
		f.denied(t, "delete in "+dir, p.Remove(ctx, dir+"/secret.txt", false), dir+"/secret.txt")
		f.denied(t, "move out of "+dir, p.Rename(ctx, dir+"/secret.txt", "stolen.txt", false), dir+"/secret.txt")
		f.denied(t, "copy a tree "+dir, p.Copy(ctx, dir, "stolen", false), dir)
	}
	// Removing a link removes the link, not its target.
	if err := p.Remove(ctx, "abs-file", false); err != nil {
		t.Fatal(err)
	}
	if err := p.Remove(ctx, "rel-dir", true); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(filepath.Join(f.root, "rel-dir")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the link was not removed: %v", err)
	}
	f.untouched(t)
}

func TestLocalSymlinksInside(t *testing.T) {
	ctx := context.Background()
	f := newEscapeFixture(t)
	p := f.p
	if b, err := p.ReadFile(ctx, "in-file", 0, -1); err != nil || string(b) != "inside" {
		t.Fatalf("read through a link inside: %q, %v", b, err)
	}
	if b, err := p.ReadFile(ctx, "in-dir/x.txt", 0, -1); err != nil || string(b) != "x" {
		t.Fatalf("read through a directory link inside: %q, %v", b, err)
	}
	if fi, err := p.Stat(ctx, "in-dir"); err != nil || !fi.IsDir || !fi.Symlink {
		t.Fatalf("stat a directory link: %+v, %v", fi, err)
	}
	// Writes never go through a link, even one pointing inside.
	f.denied(t, "write a file link", p.WriteFile(ctx, "in-file", []byte("x"), env.WriteOptions{}), "in-file")
	f.denied(t, "write through a dir link", p.WriteFile(ctx, "in-dir/y.txt", []byte("y"), env.WriteOptions{}), "in-dir/y.txt")
	f.denied(t, "mkdir through a dir link", p.Mkdir(ctx, "in-dir/new", false), "in-dir/new")
	if b, _ := os.ReadFile(filepath.Join(f.root, "a.txt")); string(b) != "inside" {
		t.Fatalf("a write went through a link: %q", b)
	}
	// Walk reports links and never enters a directory link.
	var seen []env.FileInfo
	if err := p.Walk(ctx, ".", func(fi env.FileInfo) error { seen = append(seen, fi); return nil }); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, fi := range seen {
		names = append(names, fi.Path)
		if strings.HasPrefix(fi.Path, "in-dir/") || strings.HasPrefix(fi.Path, "abs-dir/") || strings.HasPrefix(fi.Path, "rel-dir/") {
			t.Fatalf("walk entered a directory link: %s", fi.Path)
		}
		if strings.Contains(fi.Path, "-") && !fi.Symlink {
			t.Fatalf("walk did not report %s as a link", fi.Path)
		}
		if fi.Path == "in-dir" && !fi.IsDir {
			t.Fatalf("a directory link inside is reported as a directory: %+v", fi)
		}
	}
	want := []string{"a.txt", "abs-dir", "abs-file", "in-dir", "in-file", "rel-dir", "rel-file", "sub", "sub/x.txt"}
	if !slices.Equal(names, want) {
		t.Fatalf("walk: %v; want %v", names, want)
	}
	f.untouched(t)
}

// TestLocalSymlinkSwapRace swaps a path between a directory inside the
// root and a link to the outside while reads and writes go through it: a
// check-then-use provider would leak or write outside in some
// interleaving; os.Root resolves every component at use.
func TestLocalSymlinkSwapRace(t *testing.T) {
	ctx := context.Background()
	f := newEscapeFixture(t)
	p := f.p
	sw := filepath.Join(f.root, "sw")
	var stop atomic.Bool
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; !stop.Load(); i++ {
			_ = os.RemoveAll(sw)
			if i%2 == 0 {
				if os.Mkdir(sw, 0o755) == nil {
					_ = os.WriteFile(filepath.Join(sw, "secret.txt"), []byte("decoy"), 0o644)
				}
			} else {
				_ = os.Symlink(f.outside, sw)
			}
		}
	}()
	const rounds = 2000
	var reads, writes int
	for i := range rounds {
		if b, err := p.ReadFile(ctx, "sw/secret.txt", 0, -1); err == nil {
			reads++
			if string(b) != "decoy" && string(b) != "" {
				stop.Store(true)
				wg.Wait()
				t.Fatalf("read %q through a swapped link (round %d)", b, i)
			}
		}
		if p.WriteFile(ctx, "sw/secret.txt", []byte("pwned"), env.WriteOptions{}) == nil {
			writes++
		}
		_ = p.WriteFile(ctx, "sw/new.txt", []byte("pwned"), env.WriteOptions{Append: true})
		_ = p.Mkdir(ctx, "sw/newdir", false)
		_ = p.Copy(ctx, "a.txt", "sw/copied.txt", true)
		_ = p.Remove(ctx, "sw/secret.txt", false)
	}
	stop.Store(true)
	wg.Wait()
	t.Logf("%d reads and %d writes succeeded inside the root", reads, writes)
	f.untouched(t)
}

func TestLocalReadOnlyScratchStaysOutOfTheRoot(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	p, err := env.NewLocal(dir, env.LocalOptions{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	path, err := p.WriteScratch(ctx, "big.json", []byte("{}"))
	if err != nil {
		t.Fatal(err)
	}
	if b, err := p.ReadFile(ctx, path, 0, -1); err != nil || string(b) != "{}" {
		t.Fatalf("read the scratch file back: %q, %v", b, err)
	}
	if des, _ := os.ReadDir(dir); len(des) != 0 {
		t.Fatalf("a read-only root was written: %v", des)
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}

	w, err := env.NewLocal(dir, env.LocalOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if _, err := w.WriteScratch(ctx, "big.json", []byte("{}")); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, ".starweaver", "scratch", "big.json")); err != nil {
		t.Fatalf("a writable provider keeps scratch under its root: %v", err)
	}
}

func TestNewLocalRefusesABadRoot(t *testing.T) {
	file := filepath.Join(t.TempDir(), "f")
	_ = os.WriteFile(file, nil, 0o644)
	for _, root := range []string{"", filepath.Join(t.TempDir(), "missing"), file} {
		if _, err := env.NewLocal(root, env.LocalOptions{}); err == nil {
			t.Errorf("NewLocal(%q) succeeded", root)
		}
	}
}
