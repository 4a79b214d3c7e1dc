package filesystem_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/starweaver-go/starweaver/core/bundles/filesystem"
	"github.com/starweaver-go/starweaver/core/env"
)

// openDir is the local provider users get, read-only, over dir: the
// benchmarks measure what a model's grep and glob cost on a real disk.
func openDir(t testing.TB, dir string) *env.Local {
	t.Helper()
	p, err := env.NewLocal(dir, env.LocalOptions{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Close() })
	return p
}

func benchTree(t testing.TB) (dir string, files int) {
	t.Helper()
	dir, files = os.Getenv("STARWEAVER_BENCH_TREE"), 50_000
	if dir == "" {
		dir, files = t.TempDir(), 2_000
	}
	done := filepath.Join(dir, ".generated")
	if _, err := os.Stat(done); err == nil {
		return dir, files
	}
	if err := generateTree(dir, files); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(done, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, files
}

// generateTree writes n source-like files (about 1.5 KiB each) in
// directories of 50, with a .gitignore'd build directory, a hidden
// directory and some binary files; one file in 500 holds "needleLookup".
func generateTree(dir string, n int) error {
	words := strings.Fields("alpha beta gamma delta value result context error return func package import request " +
		"handler server client buffer reader writer config option index count total")
	ignore := "build/\n*.tmp\n"
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, ".gitignore"), []byte(ignore), 0o644); err != nil {
		return err
	}
	for i := range n {
		sub := fmt.Sprintf("mod%02d/pkg%02d", i/1000, i/50%20)
		switch {
		case i%97 == 0:
			sub = "build/" + sub
		case i%89 == 0:
			sub = ".cache/" + sub
		}
		var b strings.Builder
		fmt.Fprintf(&b, "package pkg%d\n\nimport \"fmt\"\n\n", i%20)
		for l := 0; b.Len() < 1500; l++ {
			w := words[(i*7+l*13)%len(words)]
			if l%9 == 0 {
				fmt.Fprintf(&b, "func %s%dHandler(ctx Context, v int) error {\n", strings.ToUpper(w[:1])+w[1:], l)
				continue
			}
			fmt.Fprintf(&b, "\t%s := %s(%d) // %s %s\n", w, words[(l*5+i)%len(words)], l*i%1000, w, words[(i+l)%len(words)])
		}
		if i%500 == 0 {
			b.WriteString("\tneedleLookup(ctx)\n")
		}
		name := fmt.Sprintf("f%05d.go", i)
		data := []byte(b.String())
		if i%250 == 1 {
			name = fmt.Sprintf("f%05d.bin", i)
			data[100] = 0
		}
		p := filepath.Join(dir, sub, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

var sinkMatches int

func benchSearch(b *testing.B, pattern string) {
	dir, _ := benchTree(b)
	p := openDir(b, dir)
	o := filesystem.GrepOptions{Root: ".", ContextLines: 2}
	b.ResetTimer()
	for b.Loop() {
		ms, _, err := filesystem.Search(context.Background(), p, pattern, o)
		if err != nil {
			b.Fatal(err)
		}
		sinkMatches = len(ms)
	}
}

// BenchmarkGrepLiteral and BenchmarkGrepRegexp search the whole
// generated tree without limits ($STARWEAVER_BENCH_TREE for the 50 000
// files of docs/performance.md, else 2 000 files in a temporary directory).
func BenchmarkGrepLiteral(b *testing.B) { benchSearch(b, "needleLookup") }
func BenchmarkGrepRegexp(b *testing.B)  { benchSearch(b, `func [A-Z]\w+7Handler\(`) }

// TestGrepVersusRipgrep times grep's search and ripgrep over the same tree
// in one run and prints the ratios. It runs only with STARWEAVER_BENCH_RG=1
// (bench/fs_vs_rg.sh sets it) and fails when rg is missing.
func TestGrepVersusRipgrep(t *testing.T) {
	if os.Getenv("STARWEAVER_BENCH_RG") == "" {
		t.Skip("set STARWEAVER_BENCH_RG=1 (bench/fs_vs_rg.sh) to compare with ripgrep")
	}
	rg, err := exec.LookPath("rg")
	if err != nil {
		t.Fatal("rg not found: install Debian's ripgrep")
	}
	dir, n := benchTree(t)
	p := openDir(t, dir)
	median := func(f func()) time.Duration {
		var ds []time.Duration
		f() // warm the page cache
		for range 7 {
			start := time.Now()
			f()
			ds = append(ds, time.Since(start))
		}
		slices.Sort(ds)
		return ds[len(ds)/2]
	}
	t.Logf("tree: %s (%d files)", dir, n)
	for _, pattern := range []string{"needleLookup", `func [A-Z]\w+7Handler\(`} {
		var ours, theirs int
		o := filesystem.GrepOptions{Root: ".", ContextLines: 2}
		dOurs := median(func() {
			ms, _, err := filesystem.Search(context.Background(), p, pattern, o)
			if err != nil {
				t.Fatal(err)
			}
			ours = len(ms)
		})
		dRg := median(func() {
			cmd := exec.Command(rg, "--no-require-git", "-n", "--no-heading", "-C2", "-e", pattern, ".")
			cmd.Dir = dir
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("rg: %v", err)
			}
			theirs = 0
			for _, l := range strings.Split(string(out), "\n") {
				// "path:line:text" marks a match, "path-line-text" context.
				if i := strings.IndexByte(l, ':'); i > 0 {
					if j := strings.IndexByte(l[i+1:], ':'); j > 0 && !strings.ContainsAny(l[i+1:i+1+j], "-") {
						theirs++
					}
				}
			}
		})
		t.Logf("grep %-28q ours %8.1f ms (%d matches)  rg %8.1f ms (%d matches)  ratio %.2fx",
			pattern, ms(dOurs), ours, ms(dRg), theirs, float64(dOurs)/float64(dRg))
		fmt.Printf("RATIO grep %q %.2f\n", pattern, float64(dOurs)/float64(dRg))
		if ours != theirs {
			t.Errorf("%q: %d matches, rg found %d", pattern, ours, theirs)
		}
	}
	// glob versus rg --files with a glob.
	var ours, theirs int
	dOurs := median(func() {
		n := 0
		err := globCount(p, "**/*.go", &n)
		if err != nil {
			t.Fatal(err)
		}
		ours = n
	})
	dRg := median(func() {
		cmd := exec.Command(rg, "--no-require-git", "--files", "-g", "*.go", ".")
		cmd.Dir = dir
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("rg: %v", err)
		}
		theirs = strings.Count(string(out), "\n")
	})
	t.Logf("glob %-28q ours %8.1f ms (%d files)    rg %8.1f ms (%d files)    ratio %.2fx",
		"**/*.go", ms(dOurs), ours, ms(dRg), theirs, float64(dOurs)/float64(dRg))
	fmt.Printf("RATIO glob %q %.2f\n", "**/*.go", float64(dOurs)/float64(dRg))
	if ours != theirs {
		t.Errorf("glob: %d files, rg found %d", ours, theirs)
	}
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// globCount runs glob's search without a result limit and counts its
// matches.
func globCount(p env.Provider, pattern string, n *int) error {
	found, _, err := filesystem.GlobFiles(context.Background(), p, ".", pattern, filesystem.GlobOptions{})
	*n = len(found)
	return err
}
