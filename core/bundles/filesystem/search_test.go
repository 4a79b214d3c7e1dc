package filesystem_test

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/starweaver-go/starweaver/core/bundles/filesystem"
	"github.com/starweaver-go/starweaver/core/env"
)

func tree() *env.Virtual {
	return env.NewVirtual("t").
		WithFile("main.go", "package main\n").
		WithFile("README.md", "# readme\n").
		WithFile("src/a.go", "package src\n").
		WithFile("src/deep/b.go", "package deep\n").
		WithFile("src/deep/c.txt", "text\n").
		WithFile(".hidden.go", "package hidden\n").
		WithFile(".git/config.go", "x\n").
		WithFile("src/.cache/d.go", "package cache\n").
		WithFile(".agents/skills/demo/SKILL.md", "---\nname: demo\n---\n").
		WithFile("pkg/.agents/e.go", "package e\n")
}

func TestGlobRules(t *testing.T) {
	h := newHarness(t, tree())
	for _, tc := range []struct {
		args any
		want []string
	}{
		// A bare pattern matches at any depth.
		{`{"pattern":"*.go"}`, []string{"main.go", "src/a.go", "src/deep/b.go"}},
		// A pattern with a slash is relative to the root: one level.
		{`{"pattern":"src/*.go"}`, []string{"src/a.go"}},
		{`{"pattern":"./src/*.go"}`, []string{"src/a.go"}},
		// ** reaches every depth, the root level included.
		{`{"pattern":"**/*.go"}`, []string{"main.go", "src/a.go", "src/deep/b.go"}},
		{`{"pattern":"src/**"}`, []string{"src/a.go", "src/deep/b.go", "src/deep/c.txt"}},
		{`{"pattern":"*.{md,txt}"}`, []string{".agents/skills/demo/SKILL.md", "README.md", "src/deep/c.txt"}},
		// From another root, paths stay relative to the environment's root.
		{`{"pattern":"*.go","root":"src"}`, []string{"src/a.go", "src/deep/b.go"}},
		{`{"pattern":"deep/*","path":"src"}`, []string{"src/deep/b.go", "src/deep/c.txt"}},
		{`{"pattern":"nothing/*.go"}`, []string{}},
		// Hidden paths: only the search root's direct .agents child shows.
		{`{"pattern":"SKILL.md"}`, []string{".agents/skills/demo/SKILL.md"}},
		{`{"pattern":"*.go","root":"pkg"}`, []string{"pkg/.agents/e.go"}},
		{`{"pattern":"**/e.go"}`, []string{}},
		{`{"pattern":"*.go","root":"src"}`, []string{"src/a.go", "src/deep/b.go"}},
		{`{"pattern":"*.go","include_hidden":true}`, []string{".git/config.go", ".hidden.go", "main.go", "pkg/.agents/e.go",
			"src/.cache/d.go", "src/a.go", "src/deep/b.go"}},
		{`{"pattern":"**/*.go","max_results":2}`, []string{"main.go", "src/a.go"}},
	} {
		res := h.obj("glob", tc.args)
		if got := paths(t, res); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("glob %v = %v, want %v", tc.args, got, tc.want)
		}
	}
	res := h.obj("glob", `{"pattern":"*.md"}`)
	if res["system-reminder"] != filesystem.SkillReminder || res["root"] != "." || res["pattern"] != "*.md" {
		t.Fatalf("skill reminder missing: %v", res)
	}
	if res := h.obj("glob", `{"pattern":"*.go"}`); res["system-reminder"] != nil || res["truncated"] != nil {
		t.Fatalf("unexpected keys: %v", res)
	}
	if res := h.obj("glob", `{"pattern":"*.go","max_results":1}`); res["truncated"] != true || !strings.Contains(res["note"].(string), "max_results") {
		t.Fatalf("truncation: %v", res)
	}
	h.feedback("glob", `{"pattern":"*.go","max_results":-2}`, "max_results")
	h.feedback("glob", `{"pattern":"[a-"}`, "not a valid glob")
	h.feedback("glob", `{"pattern":""}`, "empty")
	h.feedback("glob", `{"pattern":"*","root":"missing"}`, "not found", `"missing"`)
}

func TestGitignore(t *testing.T) {
	v := env.NewVirtual("t").
		WithFile(".gitignore", "*.log\nbuild/\n!keep.log\n/top.txt\n").
		WithFile("a.log", "match\n").
		WithFile("keep.log", "match\n").
		WithFile("top.txt", "match\n").
		WithFile("sub/top.txt", "match\n").
		WithFile("build/out.go", "match\n").
		WithFile("sub/build/x.go", "match\n").
		WithFile("sub/.gitignore", "secret.*\n").
		WithFile("sub/secret.go", "match\n").
		WithFile("secret.go", "match\n").
		WithFile("sub/deeper/secret.txt", "match\n")
	h := newHarness(t, v)
	want := []string{"keep.log", "secret.go", "sub/top.txt"}
	if got := paths(t, h.obj("glob", `{"pattern":"*"}`)); !reflect.DeepEqual(got, want) {
		t.Fatalf("glob = %v, want %v", got, want)
	}
	if got := paths(t, h.obj("grep", `{"pattern":"match"}`)); !reflect.DeepEqual(got, want) {
		t.Fatalf("grep = %v, want %v", got, want)
	}
	// Ancestors' rules apply below another search root.
	if got := paths(t, h.obj("glob", `{"pattern":"*","root":"sub"}`)); !reflect.DeepEqual(got, []string{"sub/top.txt"}) {
		t.Fatalf("glob from sub = %v", got)
	}
	if got := paths(t, h.obj("glob", `{"pattern":"*","root":"build"}`)); len(got) != 0 {
		t.Fatalf("glob in an ignored root = %v", got)
	}
	all := paths(t, h.obj("glob", `{"pattern":"*","include_ignored":true}`))
	if len(all) != 9 { // every file but the hidden .gitignore files
		t.Fatalf("include_ignored = %v", all)
	}
}

func TestGrep(t *testing.T) {
	v := env.NewVirtual("t").
		WithFile("a.go", "package a\n\nfunc Alpha() {}\nfunc beta() {}\n// Alpha again\n").
		WithFile("b.txt", "one\ntwo Alpha\nthree\nfour\n").
		WithFile("bin.dat", "Alpha\x00binary").
		WithFile(".hidden/h.go", "Alpha\n").
		WithFile("skills/s/SKILL.md", "Alpha skill\n").
		WithFile("crlf.txt", "x\r\nAlpha\r\ny\r\n")
	h := newHarness(t, v)
	res := h.obj("grep", `{"pattern":"Alpha","include":"*.go"}`)
	ms := res["matches"].([]any)
	if len(ms) != 2 || res["root"] != "." || res["pattern"] != "Alpha" {
		t.Fatalf("grep = %v", res)
	}
	first := ms[0].(map[string]any)
	if !reflect.DeepEqual(first, map[string]any{"path": "a.go", "line_number": 3.0, "matching_line": "func Alpha() {}",
		"context": "package a\n\nfunc Alpha() {}\nfunc beta() {}\n// Alpha again", "context_start_line": 1.0}) {
		t.Fatalf("first match = %v", first)
	}
	if second := ms[1].(map[string]any); second["line_number"] != 5.0 || second["context"] != "func Alpha() {}\nfunc beta() {}\n// Alpha again" ||
		second["context_start_line"] != 3.0 {
		t.Fatalf("second match = %v", second)
	}
	// Regular expressions, ^ and $ at line boundaries, no context.
	res = h.obj("grep", `{"pattern":"^func [a-z]+\\(","context_lines":0}`)
	if ms := res["matches"].([]any); len(ms) != 1 || ms[0].(map[string]any)["matching_line"] != "func beta() {}" ||
		ms[0].(map[string]any)["context"] != "func beta() {}" {
		t.Fatalf("regexp grep = %v", res)
	}
	if got := paths(t, h.obj("grep", `{"pattern":"Alpha$"}`)); !reflect.DeepEqual(got, []string{"b.txt"}) {
		t.Fatalf("$ = %v", got) // CRLF lines keep their \r, so Alpha\r does not end in Alpha
	}
	// Binary and hidden files are skipped; SKILL.md adds the reminder.
	res = h.obj("grep", `{"pattern":"Alpha"}`)
	if got := paths(t, res); !reflect.DeepEqual(got, []string{"a.go", "a.go", "b.txt", "crlf.txt", "skills/s/SKILL.md"}) ||
		res["system-reminder"] != filesystem.SkillReminder {
		t.Fatalf("grep all = %v", res)
	}
	if got := h.obj("grep", `{"pattern":"Alpha","include":"crlf.txt","context_lines":0}`)["matches"].([]any); got[0].(map[string]any)["matching_line"] != "Alpha" {
		t.Fatalf("crlf = %v", got)
	}
	if got := paths(t, h.obj("grep", `{"pattern":"Alpha","include_hidden":true,"root":"."}`)); len(got) != 6 {
		t.Fatalf("hidden = %v", got)
	}
	// Limits.
	if got := paths(t, h.obj("grep", `{"pattern":"Alpha","max_matches_per_file":1}`)); !reflect.DeepEqual(got, []string{"a.go", "b.txt", "crlf.txt", "skills/s/SKILL.md"}) {
		t.Fatalf("per file = %v", got)
	}
	res = h.obj("grep", `{"pattern":"Alpha","max_files":2}`)
	if got := paths(t, res); !reflect.DeepEqual(got, []string{"a.go", "a.go", "b.txt"}) || res["truncated"] != true {
		t.Fatalf("max files = %v", res)
	}
	if got := paths(t, h.obj("grep", `{"pattern":"Alpha","max_results":3}`)); !reflect.DeepEqual(got, []string{"a.go", "a.go", "b.txt"}) {
		t.Fatalf("max results = %v", got)
	}
	if got := paths(t, h.obj("grep", `{"pattern":"Alpha","max_results":-1,"max_files":-1,"max_matches_per_file":-1}`)); len(got) != 5 {
		t.Fatalf("unlimited = %v", got)
	}
	if got := paths(t, h.obj("grep", `{"pattern":"nothing here"}`)); len(got) != 0 {
		t.Fatalf("no match = %v", got)
	}
	h.feedback("grep", `{"pattern":"("}`, "not a valid regular expression")
	h.feedback("grep", `{"pattern":"x","context_lines":-1}`, "context_lines")
	h.feedback("grep", `{"pattern":"x","max_files":-3}`, "max_files")
	h.feedback("grep", `{"pattern":"x","root":"missing"}`, "not found", `"missing"`)
}

func TestOutputBounding(t *testing.T) {
	v := env.NewVirtual("t")
	for i := range 2000 {
		v.WithFile(fmt.Sprintf("dir/file-%04d.txt", i), "needle "+strings.Repeat("x", 400)+"\nsecond line\n")
	}
	h := newHarness(t, v)

	res := h.obj("glob", `{"pattern":"*.txt","max_results":-1}`)
	where, _ := res["output_file_path"].(string)
	if res["truncated"] != true || res["total_matches"] != 2000.0 || !strings.HasPrefix(where, ".starweaver/scratch/glob-") ||
		len(res["matches"].([]any)) != int(res["showing"].(float64)) || !strings.Contains(res["note"].(string), where) {
		t.Fatalf("glob preview: %v", res)
	}
	if size := len(mustJSON(t, res)); size > filesystem.OutputLimit {
		t.Fatalf("glob preview is %d bytes", size)
	}
	full := files(t, v)[where]
	if strings.Count(full, `"path"`) != 2000 {
		t.Fatalf("scratch has %d matches", strings.Count(full, `"path"`))
	}

	ls := h.obj("ls", `{"path":"dir","max_entries":-1}`)
	if ls["truncated"] != true || ls["total_entries"] != 2000.0 || !strings.HasPrefix(ls["output_file_path"].(string), ".starweaver/scratch/ls-") {
		t.Fatalf("ls preview: %v", ls["note"])
	}

	// A grep over the limit first drops context...
	res = h.obj("grep", `{"pattern":"needle","max_results":40,"max_files":-1}`)
	m := res["matches"].([]any)[0].(map[string]any)
	if res["system"] != filesystem.ContextDropped || len(res["matches"].([]any)) != 40 || m["context"] != nil ||
		len(m["matching_line"].(string)) != filesystem.GrepLineLimit+3 {
		t.Fatalf("grep without context: %v", res["system"])
	}
	// ...then spills to scratch.
	res = h.obj("grep", `{"pattern":"needle","max_results":-1,"max_files":-1}`)
	if res["truncated"] != true || res["total_matches"] != 2000.0 || !strings.HasPrefix(res["output_file_path"].(string), ".starweaver/scratch/grep-") ||
		len(mustJSON(t, res)) > filesystem.OutputLimit {
		t.Fatalf("grep preview: %v %v", res["note"], res["total_matches"])
	}
	if !strings.Contains(files(t, v)[res["output_file_path"].(string)], `"context": "needle `) {
		t.Fatal("the scratch file does not hold the full grep result")
	}
}
