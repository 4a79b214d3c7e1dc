package filesystem_test

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/starweaver-go/starweaver/core/bundles/filesystem"
	"github.com/starweaver-go/starweaver/core/env"
	"github.com/starweaver-go/starweaver/core/tool"
)

var allTools = []string{"copy", "delete", "edit", "glob", "grep", "ls", "mkdir", "move", "multi_edit", "view", "write"}

func TestToolsetShape(t *testing.T) {
	ts := filesystem.Tools()
	if ts.Name() != "filesystem" || ts.ID() != "filesystem" || ts.Err() != nil {
		t.Fatalf("toolset %q id %q err %v", ts.Name(), ts.ID(), ts.Err())
	}
	h := newHarness(t, nil)
	var names []string
	writers := map[string]bool{"write": true, "edit": true, "multi_edit": true, "mkdir": true, "move": true, "copy": true, "delete": true}
	for _, d := range h.reg.Definitions() {
		names = append(names, d.Name)
		if (d.Sequential != nil && *d.Sequential) != writers[d.Name] {
			t.Errorf("%s: sequential = %v", d.Name, d.Sequential)
		}
		deps := tool.ParseDependencies(d.Metadata)
		if deps.Profile != tool.ProfileFiltered || !slices.Equal(deps.HostCapabilities, []string{"starweaver.environment"}) {
			t.Errorf("%s: dependencies %+v", d.Name, deps)
		}
		if d.Metadata[tool.MetaBundle] != "first_party" || d.Metadata["auto_inherit"] != false {
			t.Errorf("%s: metadata %v", d.Name, d.Metadata)
		}
		if d.Description == "" {
			t.Errorf("%s: no description", d.Name)
		}
	}
	slices.Sort(names)
	if !slices.Equal(names, allTools) {
		t.Fatalf("tools %v", names)
	}
	// Defaults and aliases are in the schemas.
	grep, _ := h.reg.Definition("grep")
	props := grep.Parameters["properties"].(map[string]any)
	for arg, want := range map[string]any{"include": "**/*", "context_lines": 2, "max_results": 100, "max_matches_per_file": 20, "max_files": 50} {
		if fmt.Sprint(props[arg].(map[string]any)["default"]) != fmt.Sprint(want) {
			t.Errorf("grep %s default = %v", arg, props[arg])
		}
	}
	if !reflect.DeepEqual(grep.Parameters["required"], []any{"pattern"}) {
		t.Errorf("grep required = %v", grep.Parameters["required"])
	}
	view, _ := h.reg.Definition("view")
	for _, arg := range []string{"file_path", "path", "line_offset", "line_limit", "max_line_length"} {
		if _, ok := view.Parameters["properties"].(map[string]any)[arg]; !ok {
			t.Errorf("view has no %s", arg)
		}
	}
}

func TestMissingEnvironmentIsUserError(t *testing.T) {
	h := newHarness(t, nil)
	args := map[string]any{
		"ls": `{}`, "glob": `{"pattern":"*"}`, "grep": `{"pattern":"x"}`, "view": `{"file_path":"a"}`,
		"write": `{"file_path":"a","content":""}`, "edit": `{"file_path":"a","old_string":"x","new_string":"y"}`,
		"multi_edit": `{"file_path":"a","edits":[{"old_string":"x","new_string":"y"}]}`, "mkdir": `{"paths":["a"]}`,
		"move": `{"pairs":[{"src":"a","dst":"b"}]}`, "copy": `{"pairs":[{"src":"a","dst":"b"}]}`, "delete": `{"paths":["a"]}`,
	}
	for _, name := range allTools {
		h.kind(tool.ErrorKindUserError, name, args[name], "starweaver.environment")
	}
}

func TestProviderFailureIsExecutionError(t *testing.T) {
	h := newHarness(t, &broken{})
	h.kind(tool.ErrorKindExecution, "view", `{"file_path":"a.txt"}`, "disk on fire")
	h.kind(tool.ErrorKindExecution, "write", `{"file_path":"a.txt","content":"x"}`, "disk on fire")
	h.kind(tool.ErrorKindExecution, "glob", `{"pattern":"*"}`, "disk on fire")
	h.kind(tool.ErrorKindExecution, "ls", `{}`, "disk on fire")
}

// Every path argument of every tool refuses paths that leave the root,
// naming the path, and nothing reaches the provider.
func TestPathTraversalIsRefused(t *testing.T) {
	b := &broken{}
	h := newHarness(t, b)
	for _, bad := range []string{"../x", "/etc/passwd", "a/../../x", "C:/x", "a\nb"} {
		q := fmt.Sprintf("%q", bad)
		calls := map[string][]string{
			"ls":         {`{"path":` + q + `}`, `{"root":` + q + `}`},
			"glob":       {`{"pattern":"*","root":` + q + `}`, `{"pattern":"*","path":` + q + `}`},
			"grep":       {`{"pattern":"x","root":` + q + `}`, `{"pattern":"x","path":` + q + `}`},
			"view":       {`{"file_path":` + q + `}`, `{"path":` + q + `}`},
			"write":      {`{"file_path":` + q + `,"content":"x"}`, `{"path":` + q + `,"content":"x","mode":"a"}`},
			"edit":       {`{"file_path":` + q + `,"old_string":"a","new_string":"b"}`, `{"file_path":` + q + `,"old_string":"","new_string":"b"}`},
			"multi_edit": {`{"file_path":` + q + `,"edits":[{"old_string":"a","new_string":"b"}]}`},
			"mkdir":      {`{"paths":["ok",` + q + `]}`},
			"delete":     {`{"paths":["ok",` + q + `]}`},
			"move":       {`{"pairs":[{"src":"ok","dst":"ok2"},{"src":` + q + `,"dst":"b"}]}`, `{"operations":[{"src":"a","dst":` + q + `}]}`},
			"copy":       {`{"pairs":[{"src":` + q + `,"dst":"b"}]}`, `{"pairs":[{"src":"a","dst":` + q + `}]}`},
		}
		for _, name := range allTools {
			for _, args := range calls[name] {
				msg := h.feedback(name, args, "not a valid path")
				if !strings.Contains(msg, fmt.Sprintf("%q", bad)) {
					t.Errorf("%s %s: message %q does not name the path", name, args, msg)
				}
			}
		}
	}
	if b.calls != 0 {
		t.Fatalf("%d operations reached the provider", b.calls)
	}
	// Globs cannot climb out either.
	for _, pat := range []string{"../*.go", "/etc/*", "a/../../x"} {
		h.feedback("glob", map[string]any{"pattern": pat}, pat)
		h.feedback("grep", map[string]any{"pattern": "x", "include": pat}, pat)
	}
	if b.calls != 0 {
		t.Fatalf("%d operations reached the provider", b.calls)
	}
}

func TestView(t *testing.T) {
	v := env.NewVirtual("t").WithFile("a.txt", "one\ntwo\nthree\n").WithFile("dir/b.txt", "x").
		WithFile("bin.dat", "ab\x00cd").WithFile("doc.pdf", "%PDF").WithFile("long.txt", strings.Repeat("y", 50)+"\nshort\n")
	h := newHarness(t, v)
	if got := h.ok("view", `{"file_path":"a.txt"}`); got != "     1\tone\n     2\ttwo\n     3\tthree\n" {
		t.Fatalf("whole file = %q", got)
	}
	if got := h.ok("view", `{"path":"dir/b.txt"}`); got != "     1\tx\n" {
		t.Fatalf("alias path = %q", got)
	}
	part := h.obj("view", `{"file_path":"a.txt","line_offset":1,"line_limit":1}`)
	if part["content"] != "     2\ttwo\n" {
		t.Fatalf("segment = %v", part["content"])
	}
	md := part["metadata"].(map[string]any)
	seg := md["current_segment"].(map[string]any)
	if md["file_path"] != "a.txt" || md["total_lines"] != 3.0 || md["file_size_bytes"] != 14.0 || md["total_characters"] != 14.0 ||
		seg["start_line"] != 2.0 || seg["end_line"] != 2.0 || seg["has_more_content"] != true ||
		md["reading_parameters"].(map[string]any)["line_offset"] != 1.0 {
		t.Fatalf("metadata = %v", md)
	}
	if !strings.Contains(part["system"].(string), "line_offset=2") {
		t.Fatalf("system = %v", part["system"])
	}
	cut := h.obj("view", `{"file_path":"long.txt","max_line_length":10}`)
	if !strings.HasPrefix(cut["content"].(string), "     1\tyyyyyyyyyy... (line truncated)\n") ||
		cut["metadata"].(map[string]any)["truncation_info"].(map[string]any)["lines_truncated"] != 1.0 {
		t.Fatalf("cut = %v", cut)
	}
	// The reading parameters echo a missing line_offset as null.
	first := h.obj("view", `{"file_path":"a.txt","line_limit":2}`)
	if rp := first["metadata"].(map[string]any)["reading_parameters"].(map[string]any); rp["line_offset"] != nil || rp["line_limit"] != 2.0 {
		t.Fatalf("reading parameters = %v", rp)
	}

	h.feedback("view", `{"file_path":"bin.dat"}`, "binary", `"bin.dat"`)
	h.feedback("view", `{"file_path":"doc.pdf"}`, "PDF", `"doc.pdf"`)
	h.feedback("view", `{"file_path":"dir"}`, "directory", `"dir"`)
	h.feedback("view", `{"file_path":"nope.txt"}`, "not found", `"nope.txt"`)
	h.feedback("view", `{"file_path":"a.txt","line_offset":3}`, "past the end", `"a.txt"`)
	h.feedback("view", `{"file_path":"a.txt","line_limit":0}`, "line_limit")
	h.feedback("view", `{"file_path":"a.txt","max_line_length":0}`, "max_line_length")
	h.feedback("view", `{}`, "file_path is required")
	h.feedback("view", `{"file_path":"a.txt","path":"b.txt"}`, "disagree")
}

func TestViewBounds(t *testing.T) {
	v := env.NewVirtual("t").WithFile("big.txt", strings.Repeat("x", filesystem.ViewMaxFileSize+1))
	var many strings.Builder
	for i := range 400 {
		fmt.Fprintf(&many, "%s %d\n", strings.Repeat("z", 200), i)
	}
	v.WithFile("many.txt", many.String())
	h := newHarness(t, v)
	h.feedback("view", `{"file_path":"big.txt"}`, "more than view reads", `"big.txt"`)
	res := h.obj("view", `{"file_path":"many.txt","line_limit":400}`)
	content := res["content"].(string)
	if !strings.HasSuffix(content, "\n... (content truncated)") || len([]rune(content)) > filesystem.ViewMaxContentChars+30 ||
		res["metadata"].(map[string]any)["truncation_info"].(map[string]any)["content_truncated"] != true {
		t.Fatalf("content of %d characters, metadata %v", len(content), res["metadata"])
	}
	def := h.obj("view", `{"file_path":"many.txt"}`)
	if seg := def["metadata"].(map[string]any)["current_segment"].(map[string]any); seg["end_line"] != 300.0 || seg["has_more_content"] != true {
		t.Fatalf("default segment = %v", seg)
	}
}

func TestWrite(t *testing.T) {
	v := env.NewVirtual("t").WithFile("a.txt", "old")
	h := newHarness(t, v)
	if got := h.obj("write", `{"file_path":"a.txt","content":"new"}`); !reflect.DeepEqual(got, map[string]any{"file_path": "a.txt", "written": true}) {
		t.Fatalf("write = %v", got)
	}
	h.obj("write", `{"path":"a.txt","content":"+","mode":"a"}`)
	h.obj("write", `{"file_path":"deep/new/b.txt","content":"b","mode":"a"}`)
	h.obj("write", `{"file_path":"c.txt","content":"c","mode":"w"}`)
	want := map[string]string{"a.txt": "new+", "deep/new/b.txt": "b", "c.txt": "c"}
	if got := files(t, v); !reflect.DeepEqual(got, want) {
		t.Fatalf("files = %v", got)
	}
	h.feedback("write", `{"file_path":"a.txt","content":"x","mode":"rw"}`, `mode "rw"`, `"a.txt"`)
	h.feedback("write", `{"file_path":"deep","content":"x"}`, "directory", `"deep"`)
	ro := newHarness(t, env.NewVirtual("ro").ReadOnly())
	ro.feedback("write", `{"file_path":"a.txt","content":"x"}`, "access denied", `"a.txt"`)
}

func TestEdit(t *testing.T) {
	v := env.NewVirtual("t").WithFile("a.go", "func a() {}\nfunc b() {}\n").WithFile("bin", "\x00x")
	h := newHarness(t, v)
	if got := h.obj("edit", `{"file_path":"a.go","old_string":"a()","new_string":"alpha()"}`); !reflect.DeepEqual(got,
		map[string]any{"file_path": "a.go", "edited": true}) {
		t.Fatalf("edit = %v", got)
	}
	h.feedback("edit", `{"file_path":"a.go","old_string":"func","new_string":"fn"}`, "occurs 2 times", `"a.go"`, "replace_all")
	h.feedback("edit", `{"file_path":"a.go","old_string":"missing","new_string":"x"}`, "not found", `"a.go"`)
	h.feedback("edit", `{"file_path":"a.go","old_string":"b","new_string":"b"}`, "same", `"a.go"`)
	h.feedback("edit", `{"file_path":"bin","old_string":"x","new_string":"y"}`, "binary", `"bin"`)
	h.feedback("edit", `{"file_path":"nope.go","old_string":"x","new_string":"y"}`, "not found", `"nope.go"`)
	h.obj("edit", `{"file_path":"a.go","old_string":"func","new_string":"fn","replace_all":true}`)
	if got := files(t, v)["a.go"]; got != "fn alpha() {}\nfn b() {}\n" {
		t.Fatalf("a.go = %q", got)
	}
	// An empty old_string creates a file, never overwrites one.
	if got := h.obj("edit", `{"file_path":"new/c.go","old_string":"","new_string":"package c"}`); got["created"] != true {
		t.Fatalf("create = %v", got)
	}
	h.feedback("edit", `{"file_path":"a.go","old_string":"","new_string":"x"}`, "already exists", `"a.go"`)
	if got := files(t, v)["new/c.go"]; got != "package c" {
		t.Fatalf("c.go = %q", got)
	}
}

func TestMultiEdit(t *testing.T) {
	v := env.NewVirtual("t").WithFile("a.txt", "alpha beta gamma")
	h := newHarness(t, v)
	h.obj("multi_edit", `{"file_path":"a.txt","edits":[{"old_string":"alpha","new_string":"one"},{"old_string":"one beta","new_string":"two"}]}`)
	if got := files(t, v)["a.txt"]; got != "two gamma" {
		t.Fatalf("a.txt = %q", got)
	}
	// All or nothing: a failing second edit leaves the file as it was.
	h.feedback("multi_edit", `{"file_path":"a.txt","edits":[{"old_string":"two","new_string":"2"},{"old_string":"delta","new_string":"4"}]}`,
		"edit 2", "not found", `"a.txt"`)
	if got := files(t, v)["a.txt"]; got != "two gamma" {
		t.Fatalf("a.txt changed to %q", got)
	}
	h.feedback("multi_edit", `{"file_path":"a.txt","edits":[{"old_string":"two","new_string":"2"},{"old_string":"","new_string":"4"}]}`,
		"only the first edit may be empty")
	h.feedback("multi_edit", `{"file_path":"a.txt","edits":[]}`, "edits is empty")
	got := h.obj("multi_edit", `{"file_path":"b.txt","edits":[{"old_string":"","new_string":"x y x"},{"old_string":"x","new_string":"z","replace_all":true}]}`)
	if got["created"] != true || files(t, v)["b.txt"] != "z y z" {
		t.Fatalf("create = %v, b.txt = %q", got, files(t, v)["b.txt"])
	}
}

func TestLs(t *testing.T) {
	v := env.NewVirtual("t").WithFile("b.txt", "").WithFile("a/x.go", "").WithFile(".hidden", "").WithFile("node_modules/m.js", "").
		WithFile("skills/s/SKILL.md", "")
	h := newHarness(t, v)
	got := h.obj("ls", `{}`)
	if !reflect.DeepEqual(got["entries"], []any{".hidden", "a/", "b.txt", "node_modules/", "skills/"}) || got["path"] != "." ||
		got["max_entries"] != 500.0 || got["system-reminder"] != nil {
		t.Fatalf("ls = %v", got)
	}
	got = h.obj("ls", `{"root":".","ignore":["node_modules","*.txt"],"max_entries":2}`)
	if !reflect.DeepEqual(got["entries"], []any{".hidden", "a/"}) || got["truncated"] != true || got["total_entries"] != 3.0 {
		t.Fatalf("ls ignore = %v", got)
	}
	if got := h.obj("ls", `{"path":"skills/s"}`); got["system-reminder"] != filesystem.SkillReminder ||
		!reflect.DeepEqual(got["entries"], []any{"skills/s/SKILL.md"}) {
		t.Fatalf("ls skill = %v", got)
	}
	h.feedback("ls", `{"path":"nope"}`, "not found", `"nope"`)
	h.feedback("ls", `{"path":"b.txt"}`, "invalid request", `"b.txt"`)
	h.feedback("ls", `{"max_entries":-2}`, "max_entries")
	if got := h.obj("ls", `{"max_entries":-1}`); len(got["entries"].([]any)) != 5 {
		t.Fatalf("unlimited = %v", got)
	}
}

func TestMkdirDeleteMoveCopy(t *testing.T) {
	v := env.NewVirtual("t").WithFile("a.txt", "a").WithFile("dir/b.txt", "b")
	h := newHarness(t, v)
	if got := h.obj("mkdir", `{"paths":["x","y/z"],"parents":true}`); !reflect.DeepEqual(got,
		map[string]any{"created": []any{"x", "y/z"}, "parents": true}) {
		t.Fatalf("mkdir = %v", got)
	}
	h.feedback("mkdir", `{"paths":["q/r"]}`, "not found", `"q/r"`)
	h.feedback("mkdir", `{"paths":["n","x"]}`, "already exists", `"x"`, `Already created before this failure: "n"`)

	if got := h.obj("copy", `{"pairs":[{"src":"a.txt","dst":"x/a.txt"}]}`); !reflect.DeepEqual(got,
		map[string]any{"copied": []any{map[string]any{"src": "a.txt", "dst": "x/a.txt"}}, "overwrite": false}) {
		t.Fatalf("copy = %v", got)
	}
	h.feedback("copy", `{"pairs":[{"src":"a.txt","dst":"x/a.txt"}]}`, "already exists", `"x/a.txt"`)
	h.obj("copy", `{"operations":[{"src":"dir","dst":"dir2"}],"overwrite":true}`)
	if got := h.obj("move", `{"pairs":[{"src":"dir2/b.txt","dst":"c.txt"}]}`); !reflect.DeepEqual(got,
		map[string]any{"moved": []any{map[string]any{"src": "dir2/b.txt", "dst": "c.txt"}}, "overwrite": false}) {
		t.Fatalf("move = %v", got)
	}
	h.feedback("move", `{"pairs":[{"src":"gone","dst":"c2.txt"}]}`, "not found", `"gone"`)
	h.feedback("move", `{"pairs":[]}`, "pairs is empty")
	h.feedback("move", `{"pairs":[{"src":"a","dst":"b"}],"operations":[{"src":"a","dst":"b"}]}`, "not both")

	h.feedback("delete", `{"paths":["dir"]}`, "not empty", `"dir"`)
	h.feedback("delete", `{"paths":["gone"]}`, "not found", `"gone"`)
	h.feedback("delete", `{"paths":["."]}`, "root")
	if got := h.obj("delete", `{"paths":["dir","gone","a.txt"],"recursive":true,"force":true}`); !reflect.DeepEqual(got,
		map[string]any{"deleted": []any{"dir", "a.txt"}, "missing": []any{"gone"}, "recursive": true, "force": true}) {
		t.Fatalf("delete = %v", got)
	}
	want := map[string]string{"c.txt": "b", "x/a.txt": "a"}
	if got := files(t, v); !reflect.DeepEqual(got, want) {
		t.Fatalf("files = %v", got)
	}
}
