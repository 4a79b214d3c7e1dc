//go:build unix

package filesystem_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/starweaver-go/starweaver/core/env"
)

// The tools over a local provider: what the provider refuses (links out of
// the root, writes in read-only mode) reaches the model as feedback naming
// the path, and nothing outside the root is read or changed.

// The tools search for "TOPSECRET"; "zebra-quokka" shows only if the
// outside file was read.
const outsideSecret = "TOPSECRET zebra-quokka"

type localFixture struct {
	root, outside string
	p             *env.Local
}

func newLocalFixture(t *testing.T, opts env.LocalOptions) localFixture {
	t.Helper()
	base := t.TempDir()
	root, outside := filepath.Join(base, "root"), filepath.Join(base, "outside")
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, d := range []string{filepath.Join(root, "sub"), outside} {
		must(os.MkdirAll(d, 0o755))
	}
	must(os.WriteFile(filepath.Join(outside, "secret.txt"), []byte(outsideSecret), 0o644))
	must(os.WriteFile(filepath.Join(root, "a.txt"), []byte("inside\n"), 0o644))
	must(os.WriteFile(filepath.Join(root, "sub", "x.txt"), []byte("x\n"), 0o644))
	must(os.Symlink(filepath.Join(outside, "secret.txt"), filepath.Join(root, "abs-file")))
	must(os.Symlink("../outside/secret.txt", filepath.Join(root, "rel-file")))
	must(os.Symlink(outside, filepath.Join(root, "abs-dir")))
	must(os.Symlink("../outside", filepath.Join(root, "rel-dir")))
	p, err := env.NewLocal(root, opts)
	must(err)
	t.Cleanup(func() { _ = p.Close() })
	return localFixture{root: root, outside: outside, p: p}
}

// untouched fails if anything outside the root changed.
func (f localFixture) untouched(t *testing.T) {
	t.Helper()
	des, err := os.ReadDir(f.outside)
	if err != nil || len(des) != 1 || des[0].Name() != "secret.txt" {
		t.Fatalf("the outside directory changed: %v, %v", des, err)
	}
	if b, _ := os.ReadFile(filepath.Join(f.outside, "secret.txt")); string(b) != outsideSecret {
		t.Fatalf("the outside secret changed: %q", b)
	}
}

// noSecret fails if a tool's content shows the outside file.
func noSecret(t *testing.T, what string, v any) {
	t.Helper()
	if strings.Contains(fmt.Sprint(v), "zebra-quokka") {
		t.Fatalf("%s read outside the root: %v", what, v)
	}
}

func TestLocalSymlinkEscapesAreFeedback(t *testing.T) {
	f := newLocalFixture(t, env.LocalOptions{})
	h := newHarness(t, f.p)
	for _, link := range []string{"abs-file", "rel-file", "abs-dir/secret.txt", "rel-dir/secret.txt"} {
		q := fmt.Sprintf("%q", link)
		for name, args := range map[string]string{
			"view":       `{"file_path":` + q + `}`,
			"write":      `{"file_path":` + q + `,"content":"pwned"}`,
			"edit":       `{"file_path":` + q + `,"old_string":"TOPSECRET","new_string":"pwned"}`,
			"multi_edit": `{"file_path":` + q + `,"edits":[{"old_string":"TOPSECRET","new_string":"pwned"}]}`,
			"copy":       `{"pairs":[{"src":` + q + `,"dst":"stolen.txt"}]}`,
		} {
			msg := h.feedback(name, args, link)
			noSecret(t, name+" "+link, msg)
		}
	}
	for _, dir := range []string{"abs-dir", "rel-dir"} {
		q := fmt.Sprintf("%q", dir)
		for name, args := range map[string]string{
			"ls":     `{"path":` + q + `}`,
			"glob":   `{"pattern":"*","root":` + q + `}`,
			"grep":   `{"pattern":"TOPSECRET","root":` + q + `}`,
			"mkdir":  `{"paths":[` + fmt.Sprintf("%q", dir+"/new") + `]}`,
			"copy":   `{"pairs":[{"src":"a.txt","dst":` + fmt.Sprintf("%q", dir+"/a.txt") + `}]}`,
			"move":   `{"pairs":[{"src":"a.txt","dst":` + fmt.Sprintf("%q", dir+"/a.txt") + `}]}`,
			"delete": `{"paths":[` + fmt.Sprintf("%q", dir+"/secret.txt") + `]}`,
			"write":  `{"file_path":` + fmt.Sprintf("%q", dir+"/new.txt") + `,"content":"x"}`,
		} {
			h.feedback(name, args, dir)
		}
	}
	// A search of the whole root never follows a link out of it.
	noSecret(t, "grep", h.ok("grep", `{"pattern":"TOPSECRET"}`))
	noSecret(t, "grep hidden+ignored", h.ok("grep", `{"pattern":"TOPSECRET","include_hidden":true,"include_ignored":true}`))
	for _, m := range paths(t, h.obj("glob", `{"pattern":"**/*"}`)) {
		if strings.HasPrefix(m, "abs-dir/") || strings.HasPrefix(m, "rel-dir/") {
			t.Fatalf("glob went through a directory link: %s", m)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(f.root, "a.txt")); string(b) != "inside\n" {
		t.Fatalf("a.txt changed: %q", b)
	}
	f.untouched(t)
}

// A directory swapped for a link out of the root between the tools' checks
// and their use: the provider resolves every path under its root handle, so
// no read shows the outside file and no write lands outside.
func TestLocalSymlinkSwappedDuringToolCalls(t *testing.T) {
	f := newLocalFixture(t, env.LocalOptions{})
	h := newHarness(t, f.p)
	sw := filepath.Join(f.root, "sw")
	var stop atomic.Bool
	var wg sync.WaitGroup
	wg.Go(func() {
		for i := 0; !stop.Load(); i++ {
			_ = os.RemoveAll(sw)
			if i%2 == 0 {
				if os.Mkdir(sw, 0o755) == nil {
					_ = os.WriteFile(filepath.Join(sw, "secret.txt"), []byte("decoy TOPSECRE\n"), 0o644)
				}
			} else {
				_ = os.Symlink(f.outside, sw)
			}
		}
	})
	defer func() {
		stop.Store(true)
		wg.Wait()
		f.untouched(t)
	}()
	for range 300 {
		for name, args := range map[string]string{
			"view":   `{"file_path":"sw/secret.txt"}`,
			"grep":   `{"pattern":"TOPSECRET","root":"sw"}`,
			"glob":   `{"pattern":"*","root":"sw"}`,
			"ls":     `{"path":"sw"}`,
			"write":  `{"file_path":"sw/secret.txt","content":"pwned"}`,
			"edit":   `{"file_path":"sw/secret.txt","old_string":"TOPSECRET","new_string":"pwned"}`,
			"copy":   `{"pairs":[{"src":"sw/secret.txt","dst":"stolen.txt"}],"overwrite":true}`,
			"move":   `{"pairs":[{"src":"a.txt","dst":"sw/a.txt"}]}`,
			"mkdir":  `{"paths":["sw/made"]}`,
			"delete": `{"paths":["sw/secret.txt"]}`,
		} {
			noSecret(t, name, h.run(name, args).Content)
		}
		if b, err := os.ReadFile(filepath.Join(f.root, "stolen.txt")); err == nil && strings.Contains(string(b), "zebra-quokka") {
			t.Fatalf("copy read through a swapped link: %q", b)
		}
		if _, err := os.Stat(filepath.Join(f.root, "a.txt")); err != nil {
			// a.txt moved into the real sw directory: put it back.
			_ = os.WriteFile(filepath.Join(f.root, "a.txt"), []byte("inside\n"), 0o644)
		}
	}
}

func TestLocalReadOnlyRefusesEveryWrite(t *testing.T) {
	f := newLocalFixture(t, env.LocalOptions{ReadOnly: true})
	h := newHarness(t, f.p)
	for name, args := range map[string]string{
		"write":      `{"file_path":"new.txt","content":"x"}`,
		"edit":       `{"file_path":"a.txt","old_string":"inside","new_string":"out"}`,
		"multi_edit": `{"file_path":"a.txt","edits":[{"old_string":"inside","new_string":"out"}]}`,
		"mkdir":      `{"paths":["made"]}`,
		"move":       `{"pairs":[{"src":"a.txt","dst":"b.txt"}]}`,
		"copy":       `{"pairs":[{"src":"a.txt","dst":"b.txt"}]}`,
		"delete":     `{"paths":["a.txt"]}`,
	} {
		h.feedback(name, args, "read-only")
	}
	if got := h.ok("view", `{"file_path":"a.txt"}`); got != "     1\tinside\n" {
		t.Fatalf("view in read-only mode = %q", got)
	}
	des, err := os.ReadDir(f.root)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, de := range des {
		names = append(names, de.Name())
	}
	if strings.Join(names, ",") != "a.txt,abs-dir,abs-file,rel-dir,rel-file,sub" {
		t.Fatalf("the read-only root changed: %v", names)
	}
	if b, _ := os.ReadFile(filepath.Join(f.root, "a.txt")); string(b) != "inside\n" {
		t.Fatalf("a.txt changed: %q", b)
	}
}

// A FIFO in the tree is skipped by grep and refused by view, at once:
// neither waits for a writer.
func TestLocalFIFOIsNeverOpenedBlocking(t *testing.T) {
	f := newLocalFixture(t, env.LocalOptions{})
	if err := syscall.Mkfifo(filepath.Join(f.root, "sub", "pipe"), 0o644); err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, f.p)
	done := make(chan struct{})
	go func() {
		defer close(done)
		if got := paths(t, h.obj("grep", `{"pattern":"x"}`)); strings.Join(got, ",") != "sub/x.txt" {
			t.Errorf("grep matches %v", got)
		}
		h.feedback("view", `{"file_path":"sub/pipe"}`, "not a regular file")
	}()
	select {
	case <-done:
	case <-time.After(30 * time.Second): // a bound on a hang, not a measurement
		t.Fatal("a FIFO blocked grep or view")
	}
}
