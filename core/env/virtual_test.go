package env_test

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"testing"

	"github.com/starweaver-go/starweaver/core/env"
)

func TestVirtualFilesDirectoriesAndState(t *testing.T) {
	ctx := context.Background()
	v := env.NewVirtual("docs").WithFile("README.md", "hello").WithFile("src/a.go", "package a").
		WithShellOutput("go test", env.Output{Stdout: "ok"})
	if err := v.WriteFile(ctx, "src/sub/b.go", []byte("x"), env.WriteOptions{}); !errors.Is(err, env.ErrNotFound) {
		t.Fatalf("a write into a missing directory: %v", err)
	}
	if err := v.WriteFile(ctx, "src/sub/b.go", []byte("package b"), env.WriteOptions{Parents: true}); err != nil {
		t.Fatal(err)
	}
	if err := v.WriteFile(ctx, "README.md", []byte(" world"), env.WriteOptions{Append: true}); err != nil {
		t.Fatal(err)
	}
	if b, _ := v.ReadFile(ctx, "README.md", 6, -1); string(b) != "world" {
		t.Fatalf("read from offset: %q", b)
	}
	entries, err := v.ReadDir(ctx, ".")
	if err != nil || len(entries) != 2 || entries[0].Path != "README.md" || !entries[1].IsDir {
		t.Fatalf("ReadDir(.) = %+v, %v", entries, err)
	}
	var walked []string
	if err := v.Walk(ctx, ".", func(fi env.FileInfo) error { walked = append(walked, fi.Path); return nil }); err != nil {
		t.Fatal(err)
	}
	if want := []string{"README.md", "src", "src/a.go", "src/sub", "src/sub/b.go"}; !reflect.DeepEqual(walked, want) {
		t.Fatalf("walk %v, want %v", walked, want)
	}
	if err := v.Rename(ctx, "src", "lib", false); err != nil {
		t.Fatal(err)
	}
	if _, err := v.Stat(ctx, "lib/sub/b.go"); err != nil {
		t.Fatal(err)
	}
	if _, err := v.ReadFile(ctx, "../etc/passwd", 0, -1); !errors.Is(err, env.ErrInvalidRequest) {
		t.Fatalf("a path outside the root: %v", err)
	}
	if out, err := v.Run(ctx, env.ShellCommand("go test")); err != nil || out.Stdout != "ok" {
		t.Fatalf("canned output: %+v %v", out, err)
	}
	if _, err := v.Run(ctx, env.ShellCommand("rm -rf /")); !errors.Is(err, env.ErrNotFound) {
		t.Fatalf("an uncanned command: %v", err)
	}

	st, err := v.ExportState()
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(st)
	var back env.State
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	r, err := env.NewVirtualFromState(back)
	if err != nil {
		t.Fatal(err)
	}
	again, _ := r.ExportState()
	if !reflect.DeepEqual(again, st) {
		t.Fatalf("restored state %+v\nwant %+v", again, st)
	}

	ro := env.NewVirtual("ro").WithFile("a", "b").ReadOnly()
	for name, err := range map[string]error{
		"write":  ro.WriteFile(ctx, "a", []byte("c"), env.WriteOptions{}),
		"mkdir":  ro.Mkdir(ctx, "d", false),
		"delete": ro.Remove(ctx, "a", false),
		"move":   ro.Rename(ctx, "a", "c", false),
	} {
		if !errors.Is(err, env.ErrAccessDenied) {
			t.Errorf("read-only %s: %v", name, err)
		}
	}
}

func TestVirtualDefaultID(t *testing.T) {
	if id := env.NewVirtual("").ID(); id != "virtual" || env.DefaultVirtualID != "virtual" {
		t.Fatalf("NewVirtual(\"\") is named %q", id)
	}
	if id := env.NewVirtual("fixture").ID(); id != "fixture" {
		t.Fatalf("NewVirtual(\"fixture\") is named %q", id)
	}
	// A restored state keeps its id as exported.
	v, err := env.NewVirtualFromState(env.State{Kind: "virtual"})
	if err != nil || v.ID() != "" {
		t.Fatalf("restored: %v %q", err, v.ID())
	}
}
