// Package envtest provides a conformance suite for [env.Provider]
// implementations: the same behaviour tests run against every provider
// (the virtual one, the local one, a host's), so they agree on paths,
// errors and results.
package envtest

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/starweaver-go/starweaver/core/env"
)

// Factory returns a fresh provider holding files (path → content), read
// only when readOnly is true. It may register cleanups on t.
type Factory func(t *testing.T, files map[string]string, readOnly bool) env.Provider

// Run runs the conformance suite against the providers newProvider makes.
func Run(t *testing.T, newProvider Factory) {
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { c.run(t, newProvider) })
	}
}

var cases = []struct {
	name string
	run  func(*testing.T, Factory)
}{
	{"ReadWrite", testReadWrite},
	{"StatAndReadDir", testStatAndReadDir},
	{"Walk", testWalk},
	{"MkdirRemove", testMkdirRemove},
	{"RenameCopy", testRenameCopy},
	{"Scratch", testScratch},
	{"PathsNeverLeaveTheRoot", testTraversal},
	{"ReadOnly", testReadOnly},
}

var ctx = context.Background()

// wantErr fails unless err wraps sentinel in an *env.Error naming path.
func wantErr(t *testing.T, what string, err, sentinel error, path string) {
	t.Helper()
	var e *env.Error
	if !errors.Is(err, sentinel) || !errors.As(err, &e) {
		t.Fatalf("%s: got %v; want an *env.Error wrapping %v", what, err, sentinel)
	}
	if path != "" && e.Path != path {
		t.Fatalf("%s: the error names %q; want %q", what, e.Path, path)
	}
}

func read(t *testing.T, p env.Provider, path string) string {
	t.Helper()
	b, err := p.ReadFile(ctx, path, 0, -1)
	if err != nil {
		t.Fatalf("read %q: %v", path, err)
	}
	return string(b)
}

func paths(infos []env.FileInfo) []string {
	out := make([]string, len(infos))
	for i, fi := range infos {
		out[i] = fi.Path
	}
	return out
}

func testReadWrite(t *testing.T, f Factory) {
	p := f(t, map[string]string{"a.txt": "hello world", "dir/b.txt": "b"}, false)
	if got := read(t, p, "a.txt"); got != "hello world" {
		t.Fatalf("read: %q", got)
	}
	if b, err := p.ReadFile(ctx, "./a.txt", 6, 3); err != nil || string(b) != "wor" {
		t.Fatalf("read from offset with a length: %q, %v", b, err)
	}
	if b, err := p.ReadFile(ctx, "a.txt", 100, -1); err != nil || len(b) != 0 {
		t.Fatalf("read past the end: %q, %v", b, err)
	}
	_, err := p.ReadFile(ctx, "missing.txt", 0, -1)
	wantErr(t, "read a missing file", err, env.ErrNotFound, "missing.txt")
	_, err = p.ReadFile(ctx, "dir", 0, -1)
	wantErr(t, "read a directory", err, env.ErrInvalidRequest, "dir")

	if err := p.WriteFile(ctx, "new/c.txt", []byte("c"), env.WriteOptions{}); !errors.Is(err, env.ErrNotFound) {
		t.Fatalf("write into a missing directory: %v", err)
	}
	if err := p.WriteFile(ctx, "new/deep/c.txt", []byte("c"), env.WriteOptions{Parents: true}); err != nil {
		t.Fatal(err)
	}
	if err := p.WriteFile(ctx, "new/deep/c.txt", []byte("++"), env.WriteOptions{Append: true}); err != nil {
		t.Fatal(err)
	}
	if err := p.WriteFile(ctx, "appended.txt", []byte("x"), env.WriteOptions{Append: true}); err != nil {
		t.Fatalf("append to a missing file creates it: %v", err)
	}
	if got := read(t, p, `new\deep\c.txt`); got != "c++" {
		t.Fatalf("append: %q", got)
	}
	if err := p.WriteFile(ctx, "a.txt", []byte("short"), env.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := read(t, p, "a.txt"); got != "short" {
		t.Fatalf("overwrite truncates: %q", got)
	}
	wantErr(t, "write a directory", p.WriteFile(ctx, "dir", nil, env.WriteOptions{}), env.ErrInvalidRequest, "dir")
	wantErr(t, "write the root", p.WriteFile(ctx, ".", nil, env.WriteOptions{}), env.ErrInvalidRequest, ".")
}

func testStatAndReadDir(t *testing.T, f Factory) {
	p := f(t, map[string]string{"b.txt": "bb", "a/x.txt": "x", "a/y/z.txt": "z"}, false)
	fi, err := p.Stat(ctx, "b.txt")
	if err != nil || fi.Path != "b.txt" || fi.Size != 2 || fi.IsDir {
		t.Fatalf("stat a file: %+v, %v", fi, err)
	}
	if fi, err := p.Stat(ctx, "a/"); err != nil || fi.Path != "a" || !fi.IsDir {
		t.Fatalf("stat a directory: %+v, %v", fi, err)
	}
	if fi, err := p.Stat(ctx, ""); err != nil || fi.Path != "." || !fi.IsDir {
		t.Fatalf("stat the root: %+v, %v", fi, err)
	}
	_, err = p.Stat(ctx, "nope")
	wantErr(t, "stat a missing path", err, env.ErrNotFound, "nope")

	es, err := p.ReadDir(ctx, ".")
	if err != nil || !slices.Equal(paths(es), []string{"a", "b.txt"}) || !es[0].IsDir || es[1].Size != 2 {
		t.Fatalf("list the root: %+v, %v", es, err)
	}
	if es, err := p.ReadDir(ctx, "a"); err != nil || !slices.Equal(paths(es), []string{"a/x.txt", "a/y"}) {
		t.Fatalf("list a directory: %+v, %v", es, err)
	}
	_, err = p.ReadDir(ctx, "b.txt")
	wantErr(t, "list a file", err, env.ErrInvalidRequest, "b.txt")
	_, err = p.ReadDir(ctx, "nope")
	wantErr(t, "list a missing directory", err, env.ErrNotFound, "nope")
}

func testWalk(t *testing.T, f Factory) {
	p := f(t, map[string]string{"a/x.txt": "x", "a/y/z.txt": "z", "b.txt": "b", "c/d.txt": "d"}, false)
	var got []string
	if err := p.Walk(ctx, ".", func(fi env.FileInfo) error { got = append(got, fi.Path); return nil }); err != nil {
		t.Fatal(err)
	}
	want := []string{"a", "a/x.txt", "a/y", "a/y/z.txt", "b.txt", "c", "c/d.txt"}
	if !slices.Equal(got, want) {
		t.Fatalf("walk: %v; want %v", got, want)
	}
	got = nil
	if err := p.Walk(ctx, ".", func(fi env.FileInfo) error {
		got = append(got, fi.Path)
		if fi.Path == "a" {
			return env.SkipDir
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, []string{"a", "b.txt", "c", "c/d.txt"}) {
		t.Fatalf("walk skipping a: %v", got)
	}
	got = nil
	if err := p.Walk(ctx, "a", func(fi env.FileInfo) error { got = append(got, fi.Path); return nil }); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, []string{"a/x.txt", "a/y", "a/y/z.txt"}) {
		t.Fatalf("walk under a: %v", got)
	}
	stop := errors.New("stop")
	if err := p.Walk(ctx, ".", func(env.FileInfo) error { return stop }); err != stop {
		t.Fatalf("a callback error stops the walk: %v", err)
	}
	wantErr(t, "walk a missing directory", p.Walk(ctx, "nope", func(env.FileInfo) error { return nil }), env.ErrNotFound, "nope")
}

func testMkdirRemove(t *testing.T, f Factory) {
	p := f(t, map[string]string{"full/f.txt": "f", "file.txt": "x"}, false)
	if err := p.Mkdir(ctx, "d", false); err != nil {
		t.Fatal(err)
	}
	if fi, err := p.Stat(ctx, "d"); err != nil || !fi.IsDir {
		t.Fatalf("mkdir: %+v, %v", fi, err)
	}
	wantErr(t, "mkdir an existing directory", p.Mkdir(ctx, "d", true), env.ErrInvalidRequest, "d")
	wantErr(t, "mkdir without parents", p.Mkdir(ctx, "x/y", false), env.ErrNotFound, "x/y")
	if err := p.Mkdir(ctx, "x/y", true); err != nil {
		t.Fatal(err)
	}
	if err := p.Remove(ctx, "file.txt", false); err != nil {
		t.Fatal(err)
	}
	_, err := p.Stat(ctx, "file.txt")
	wantErr(t, "stat a removed file", err, env.ErrNotFound, "file.txt")
	wantErr(t, "remove a non-empty directory", p.Remove(ctx, "full", false), env.ErrInvalidRequest, "full")
	if err := p.Remove(ctx, "full", true); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Stat(ctx, "full/f.txt"); !errors.Is(err, env.ErrNotFound) {
		t.Fatalf("a recursive remove: %v", err)
	}
	if err := p.Remove(ctx, "d", false); err != nil {
		t.Fatalf("remove an empty directory: %v", err)
	}
	wantErr(t, "remove a missing path", p.Remove(ctx, "nope", false), env.ErrNotFound, "nope")
	wantErr(t, "remove the root", p.Remove(ctx, ".", true), env.ErrInvalidRequest, ".")
}

func testRenameCopy(t *testing.T, f Factory) {
	p := f(t, map[string]string{"a.txt": "a", "b.txt": "b", "tree/x.txt": "x", "tree/sub/y.txt": "y"}, false)
	wantErr(t, "move onto an existing file", p.Rename(ctx, "a.txt", "b.txt", false), env.ErrInvalidRequest, "b.txt")
	if err := p.Rename(ctx, "a.txt", "b.txt", true); err != nil {
		t.Fatal(err)
	}
	if got := read(t, p, "b.txt"); got != "a" {
		t.Fatalf("move with overwrite: %q", got)
	}
	if _, err := p.Stat(ctx, "a.txt"); !errors.Is(err, env.ErrNotFound) {
		t.Fatalf("a moved file is gone: %v", err)
	}
	wantErr(t, "move a missing file", p.Rename(ctx, "a.txt", "c.txt", false), env.ErrNotFound, "a.txt")
	wantErr(t, "move into a missing directory", p.Rename(ctx, "b.txt", "no/c.txt", false), env.ErrNotFound, "no/c.txt")
	wantErr(t, "move a tree into itself", p.Rename(ctx, "tree", "tree/sub/t", false), env.ErrInvalidRequest, "tree/sub/t")

	if err := p.Copy(ctx, "tree", "copy", false); err != nil {
		t.Fatal(err)
	}
	if read(t, p, "copy/sub/y.txt") != "y" || read(t, p, "tree/sub/y.txt") != "y" {
		t.Fatal("copy a tree")
	}
	wantErr(t, "copy onto an existing tree", p.Copy(ctx, "tree", "copy", false), env.ErrInvalidRequest, "copy")
	if err := p.Copy(ctx, "b.txt", "copy", true); err != nil {
		t.Fatal(err)
	}
	if got := read(t, p, "copy"); got != "a" {
		t.Fatalf("copy a file over a tree: %q", got)
	}
	if err := p.Rename(ctx, "tree", "moved", false); err != nil {
		t.Fatal(err)
	}
	if read(t, p, "moved/sub/y.txt") != "y" {
		t.Fatal("move a tree")
	}
	if _, err := p.Stat(ctx, "tree"); !errors.Is(err, env.ErrNotFound) {
		t.Fatalf("a moved tree is gone: %v", err)
	}
}

func testScratch(t *testing.T, f Factory) {
	for _, ro := range []bool{false, true} {
		p := f(t, nil, ro)
		path, err := p.WriteScratch(ctx, "out.json", []byte("{}"))
		if err != nil || path != ".starweaver/scratch/out.json" {
			t.Fatalf("scratch (read-only %v): %q, %v", ro, path, err)
		}
		if got := read(t, p, path); got != "{}" {
			t.Fatalf("read scratch back (read-only %v): %q", ro, got)
		}
		for _, bad := range []string{"", "a/b", `a\b`, "..", "a\x00"} {
			_, err := p.WriteScratch(ctx, bad, nil)
			wantErr(t, "scratch name "+bad, err, env.ErrInvalidRequest, "")
		}
	}
}

// badPaths leave the root by name; every provider refuses them.
var badPaths = []string{"../outside.txt", "a/../../outside.txt", "/etc/passwd", `..\outside.txt`, `C:\x`, "a\x00b"}

func testTraversal(t *testing.T, f Factory) {
	p := f(t, map[string]string{"a/in.txt": "in"}, false)
	noop := func(env.FileInfo) error { return nil }
	for _, bad := range badPaths {
		calls := map[string]func() error{
			"ReadFile":  func() error { _, err := p.ReadFile(ctx, bad, 0, -1); return err },
			"WriteFile": func() error { return p.WriteFile(ctx, bad, []byte("x"), env.WriteOptions{Parents: true}) },
			"Append":    func() error { return p.WriteFile(ctx, bad, []byte("x"), env.WriteOptions{Append: true}) },
			"Stat":      func() error { _, err := p.Stat(ctx, bad); return err },
			"ReadDir":   func() error { _, err := p.ReadDir(ctx, bad); return err },
			"Walk":      func() error { return p.Walk(ctx, bad, noop) },
			"Mkdir":     func() error { return p.Mkdir(ctx, bad, true) },
			"Remove":    func() error { return p.Remove(ctx, bad, true) },
			"RenameSrc": func() error { return p.Rename(ctx, bad, "x", true) },
			"RenameDst": func() error { return p.Rename(ctx, "a/in.txt", bad, true) },
			"CopySrc":   func() error { return p.Copy(ctx, bad, "x", true) },
			"CopyDst":   func() error { return p.Copy(ctx, "a/in.txt", bad, true) },
		}
		for name, call := range calls {
			wantErr(t, name+"("+bad+")", call(), env.ErrInvalidRequest, bad)
		}
	}
	if got := read(t, p, "a/in.txt"); got != "in" {
		t.Fatalf("the source of refused moves is untouched: %q", got)
	}
}

func testReadOnly(t *testing.T, f Factory) {
	p := f(t, map[string]string{"a.txt": "a", "d/b.txt": "b"}, true)
	if got := read(t, p, "a.txt"); got != "a" {
		t.Fatalf("read-only reads: %q", got)
	}
	writes := map[string]func() error{
		"WriteFile": func() error { return p.WriteFile(ctx, "a.txt", []byte("x"), env.WriteOptions{}) },
		"Create":    func() error { return p.WriteFile(ctx, "new.txt", []byte("x"), env.WriteOptions{Parents: true}) },
		"Append":    func() error { return p.WriteFile(ctx, "a.txt", []byte("x"), env.WriteOptions{Append: true}) },
		"Mkdir":     func() error { return p.Mkdir(ctx, "e", true) },
		"Remove":    func() error { return p.Remove(ctx, "d", true) },
		"Rename":    func() error { return p.Rename(ctx, "a.txt", "c.txt", true) },
		"Copy":      func() error { return p.Copy(ctx, "d", "e", true) },
	}
	for name, w := range writes {
		err := w()
		if !errors.Is(err, env.ErrAccessDenied) || !strings.Contains(err.Error(), "read-only") {
			t.Fatalf("%s in read-only mode: %v", name, err)
		}
	}
	var got []string
	_ = p.Walk(ctx, ".", func(fi env.FileInfo) error { got = append(got, fi.Path); return nil })
	if !slices.Equal(got, []string{"a.txt", "d", "d/b.txt"}) {
		t.Fatalf("nothing changed in read-only mode: %v", got)
	}
	if read(t, p, "a.txt") != "a" {
		t.Fatal("a read-only file changed")
	}
}
