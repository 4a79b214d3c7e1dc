// Package docs holds the documentation; its test runs the Go code in go.md.
package docs

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var fence = regexp.MustCompile("(?ms)^```(go|text)\n(.*?)^```\n")

// TestGoMarkdownProgramRuns puts the Go blocks of go.md together, in order,
// as one program, runs it inside this module and compares what it prints
// with the text block that ends the page.
func TestGoMarkdownProgramRuns(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a program")
	}
	doc, err := os.ReadFile("go.md")
	if err != nil {
		t.Fatal(err)
	}
	var program strings.Builder
	var want string
	blocks := 0
	for _, m := range fence.FindAllSubmatch(doc, -1) {
		switch string(m[1]) {
		case "go":
			blocks++
			program.Write(m[2])
			program.WriteString("\n")
		case "text":
			want = string(m[2])
		}
	}
	if blocks < 4 || want == "" {
		t.Fatalf("go.md: want the program's blocks and the text block of its output, found %d go blocks, output %q", blocks, want)
	}
	file := filepath.Join(t.TempDir(), "main.go")
	if err := os.WriteFile(file, []byte(program.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	// Run from the module root so the program's imports resolve to this module.
	cmd := exec.Command("go", "run", file)
	cmd.Dir = ".."
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	got, err := cmd.Output()
	if err != nil {
		t.Fatalf("go run of go.md's program failed: %v\n%s\nprogram:\n%s", err, stderr.String(), program.String())
	}
	if string(got) != want {
		t.Errorf("go.md's program printed:\n%s\nthe page says:\n%s", got, want)
	}
}
