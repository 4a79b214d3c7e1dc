package skills_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/starweaver-go/starweaver/core/agent"
	"github.com/starweaver-go/starweaver/core/agentctx"
	"github.com/starweaver-go/starweaver/core/env"
	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/skills"
)

var ctx = context.Background()

func skill(name, description string, extra ...string) string {
	return "---\nname: " + name + "\ndescription: " + description + "\n" + strings.Join(extra, "\n") + "\n---\nBody of " + name + ".\n"
}

func names(r *skills.Registry) []string {
	var out []string
	for _, p := range r.Packages() {
		out = append(out, p.Name+"="+p.Path)
	}
	return out
}

func TestScopeConstructorsAndPrecedence(t *testing.T) {
	cases := []struct {
		s    skills.SourceScope
		kind skills.SourceKind
		prec int
		dirs []string
	}{
		{skills.NewScope("r"), skills.Custom, 50, []string{".agents/skills", "skills"}},
		{skills.BuiltInScope("r"), skills.BuiltIn, 0, []string{"skills"}},
		{skills.UserSharedScope("r"), skills.UserShared, 10, []string{".agents/skills"}},
		{skills.UserToolScope("r"), skills.UserTool, 20, []string{"skills"}},
		{skills.WorkspaceSharedScope("r"), skills.WorkspaceShared, 30, []string{".agents/skills"}},
		{skills.WorkspaceToolScope("r"), skills.WorkspaceTool, 40, []string{"skills"}},
		{skills.SourceScope{Root: "r"}, "", 50, []string{".agents/skills", "skills"}},
	}
	for _, c := range cases {
		if c.s.Kind != c.kind || c.s.Kind.Precedence() != c.prec || !slices.Equal(c.s.Dirs(), c.dirs) || c.s.Root != "r" {
			t.Errorf("%+v: kind %q precedence %d dirs %v", c.s, c.s.Kind, c.s.Kind.Precedence(), c.s.Dirs())
		}
	}
	if got := skills.NewScope("").WithDirectories().Dirs(); len(got) != 0 {
		t.Errorf("an explicit empty list searches %v", got)
	}
	if skills.SourceKind("nope").Precedence() != -1 {
		t.Error("an unknown kind has a precedence")
	}
}

// The higher precedence wins whatever the order of the scopes; with equal
// precedence the later scope wins, and inside a scope the later directory.
func TestScanPrecedence(t *testing.T) {
	p := env.NewVirtual("skills").
		WithFile("builtin/skills/a/SKILL.md", skill("a", "built-in")).
		WithFile("user/.agents/skills/a/SKILL.md", skill("a", "user shared")).
		WithFile("user/skills/a/SKILL.md", skill("a", "user tool")).
		WithFile("ws/.agents/skills/a/SKILL.md", skill("a", "workspace shared")).
		WithFile("ws/skills/b/SKILL.md", skill("b", "workspace tool")).
		WithFile("ws/.agents/skills/b/SKILL.md", skill("b", "workspace shared")).
		WithFile("c1/skills/c/SKILL.md", skill("c", "first custom")).
		WithFile("c2/skills/c/SKILL.md", skill("c", "second custom")).
		WithFile("d/.agents/skills/d/SKILL.md", skill("d", "shared dir")).
		WithFile("d/skills/d/SKILL.md", skill("d", "tool dir"))
	scopes := []skills.SourceScope{
		skills.NewScope("c1"), skills.WorkspaceSharedScope("ws"), skills.WorkspaceToolScope("ws"),
		skills.UserToolScope("user"), skills.NewScope("c2"), skills.UserSharedScope("user"),
		skills.BuiltInScope("builtin"), skills.NewScope("d"),
	}
	r, err := skills.Scan(ctx, p, scopes)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"a=ws/.agents/skills/a/SKILL.md", "b=ws/skills/b/SKILL.md", "c=c2/skills/c/SKILL.md", "d=d/skills/d/SKILL.md"}
	if got := names(r); !slices.Equal(got, want) {
		t.Fatalf("scan = %v, want %v", got, want)
	}
	a, _ := r.Get("a")
	if a.Description != "workspace shared" || a.Body != nil || a.Activated() {
		t.Fatalf("a = %+v", a)
	}
}

func TestScanSkipsWhatIsNotASkill(t *testing.T) {
	p := env.NewVirtual("skills").
		WithFile("skills/notes.md", "not a skill dir").
		WithFile("skills/empty/README.md", "no SKILL.md").
		WithFile("skills/nested/deeper/SKILL.md", skill("deep", "too deep")).
		WithFile("skills/dir/SKILL.md/x", "a directory named SKILL.md").
		WithFile(".agents/skills", "a file where a directory was expected").
		WithFile("skills/ok/SKILL.md", skill("ok", "fine"))
	r, err := skills.Scan(ctx, p, []skills.SourceScope{skills.NewScope(""), skills.NewScope("missing")})
	if err != nil {
		t.Fatal(err)
	}
	if got := names(r); !slices.Equal(got, []string{"ok=skills/ok/SKILL.md"}) {
		t.Fatalf("scan = %v", got)
	}
}

func TestScanRejectsInvalidScopes(t *testing.T) {
	p := env.NewVirtual("skills")
	for _, s := range []skills.SourceScope{
		{Root: "x", Kind: "team"}, {Root: "/abs"}, {Root: "../up"}, skills.NewScope("").WithDirectories("../x"),
	} {
		if _, err := skills.Scan(ctx, p, []skills.SourceScope{s}); !errors.Is(err, skills.ErrInvalidScope) {
			t.Errorf("%+v: err = %v", s, err)
		}
	}
}

func TestScanWithReportDiagnostics(t *testing.T) {
	p := env.NewVirtual("skills").
		WithFile(".agents/skills/dup/SKILL.md", skill("dup", "shared")).
		WithFile("skills/dup/SKILL.md", skill("dup", "tool")).
		WithFile("skills/bad/SKILL.md", "no frontmatter").
		WithFile("skills/binary/SKILL.md", "---\nname: \xff\n---\n").
		WithFile("skills/huge/SKILL.md", "---\nname: huge\ndescription: big\n---\n"+strings.Repeat("x", skills.MaxSkillBytes)).
		WithFile("skills/good/SKILL.md", skill("good", "fine"))
	rep, err := skills.ScanWithReport(ctx, p, []skills.SourceScope{skills.NewScope("")})
	if err != nil {
		t.Fatal(err)
	}
	if got := names(rep.Registry); !slices.Equal(got, []string{"dup=skills/dup/SKILL.md", "good=skills/good/SKILL.md"}) {
		t.Fatalf("registry = %v", got)
	}
	want := []skills.Diagnostic{
		{Kind: skills.InvalidSkill, Source: skills.Custom, Path: "skills/bad/SKILL.md", Message: "invalid skill markdown: expected frontmatter delimited by ---"},
		{Kind: skills.UnreadableSkill, Source: skills.Custom, Path: "skills/binary/SKILL.md", Message: "skill file is not UTF-8 text: skills/binary/SKILL.md"},
		{Kind: skills.DuplicateOverridden, Source: skills.Custom, Name: "dup", Path: "skills/dup/SKILL.md", PreviousPath: ".agents/skills/dup/SKILL.md",
			Message: "higher-precedence skill replaced an earlier skill with the same name"},
		{Kind: skills.UnreadableSkill, Source: skills.Custom, Path: "skills/huge/SKILL.md", Message: "skill file too large: skills/huge/SKILL.md is larger than 1048576 bytes"},
	}
	if !slices.Equal(rep.Diagnostics, want) {
		t.Fatalf("diagnostics:\n got %+v\nwant %+v", rep.Diagnostics, want)
	}
	// Scan is strict: the first bad file fails it.
	_, err = skills.Scan(ctx, p, []skills.SourceScope{skills.NewScope("")})
	var fe *skills.FileError
	if !errors.Is(err, skills.ErrMissingFrontmatter) || !errors.As(err, &fe) || fe.Path != "skills/bad/SKILL.md" ||
		err.Error() != "skills: skills/bad/SKILL.md: invalid skill markdown: expected frontmatter delimited by ---" {
		t.Fatalf("strict scan: %v", err)
	}
	if _, err := skills.Scan(ctx, p, []skills.SourceScope{skills.NewScope("").WithDirectories("skills/binary/..", "skills")}); err == nil {
		t.Fatal("a strict scan went past an unreadable skill")
	}
}

// A file the provider refuses to read is an unreadable skill.
func TestScanUnreadableSkill(t *testing.T) {
	p := denyRead{env.NewVirtual("skills").WithFile("skills/secret/SKILL.md", skill("secret", "hidden"))}
	rep, err := skills.ScanWithReport(ctx, p, []skills.SourceScope{skills.WorkspaceToolScope("")})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Diagnostics) != 1 || rep.Diagnostics[0].Kind != skills.UnreadableSkill || rep.Diagnostics[0].Source != skills.WorkspaceTool ||
		!strings.Contains(rep.Diagnostics[0].Message, "access denied") || rep.Registry.Len() != 0 {
		t.Fatalf("report %+v", rep)
	}
	if _, err := skills.Scan(ctx, p, []skills.SourceScope{skills.WorkspaceToolScope("")}); !errors.Is(err, env.ErrAccessDenied) {
		t.Fatalf("strict: %v", err)
	}
}

type denyRead struct{ *env.Virtual }

func (d denyRead) ReadFile(context.Context, string, int64, int64) ([]byte, error) {
	return nil, &env.Error{Op: "read", Err: env.ErrAccessDenied}
}

func TestParse(t *testing.T) {
	p, err := skills.Parse("s/SKILL.md", "\n\n---\r\nname: research\ndescription: Gather sources\nversion: 2\ntags: [a, b]\nowner: {team: docs}\n---\n\n  Step one.\n\nStep two.  \n")
	if err != nil {
		t.Fatal(err)
	}
	if p.Name != "research" || p.Description != "Gather sources" || p.Path != "s/SKILL.md" || p.Body == nil || *p.Body != "Step one.\n\nStep two." {
		t.Fatalf("parsed %+v", p)
	}
	if p.Metadata["version"] != uint64(2) || len(p.Metadata["tags"].([]any)) != 2 || p.Metadata["owner"].(map[string]any)["team"] != "docs" {
		t.Fatalf("metadata %#v", p.Metadata)
	}
	if p.SummaryLine() != "- research: Gather sources (s/SKILL.md)" {
		t.Fatalf("summary %q", p.SummaryLine())
	}
	empty, err := skills.Parse("e", "---\nname: e\ndescription: d\n---")
	if err != nil || empty.Body == nil || *empty.Body != "" || empty.Metadata != nil {
		t.Fatalf("empty body: %+v %v", empty, err)
	}
	for content, want := range map[string]struct {
		err error
		msg string
	}{
		"# Title\nno frontmatter":                    {skills.ErrMissingFrontmatter, "expected frontmatter delimited by ---"},
		"---\nname: x\ndescription: y\n":             {skills.ErrMissingFrontmatter, "expected frontmatter"},
		"---\nname: [\n---\n":                        {skills.ErrInvalidFrontmatter, "invalid skill frontmatter: [1:7]"},
		"---\n- a\n- b\n---\n":                       {skills.ErrInvalidFrontmatter, "invalid skill frontmatter"},
		"---\nname: x\nname: y\n---\n":               {skills.ErrInvalidFrontmatter, "already defined"},
		"---\nname: 5\ndescription: d\n---\n":        {skills.ErrInvalidFrontmatter, "name must be a string, not a number"},
		"---\nname: n\ndescription: [d]\n---\n":      {skills.ErrInvalidFrontmatter, "description must be a string, not a sequence"},
		"---\ndescription: d\n---\n":                 {skills.ErrMissingField, "missing required skill field: name"},
		"---\nname: n\n---\nbody":                    {skills.ErrMissingField, "missing required skill field: description"},
		"---\nname: ' '\ndescription: d\n---\n":      {skills.ErrMissingField, "field: name"},
		"---\n---\n":                                 {skills.ErrMissingFrontmatter, ""},
		"---\n\n---\n":                               {skills.ErrMissingFrontmatter, ""},
		"---\n# only a comment\n---\n":               {skills.ErrMissingField, "field: name"},
		"---\nname: n\ndescription: ~\n---\nx":       {skills.ErrMissingField, "field: description"},
		"---\nname: n\ndescription: d\nx: y: z\n---": {skills.ErrInvalidFrontmatter, "mapping value is not allowed"},
	} {
		_, err := skills.Parse("p", content)
		if !errors.Is(err, want.err) || !strings.Contains(err.Error(), want.msg) {
			t.Errorf("Parse(%q) = %v, want %v containing %q", content, err, want.err, want.msg)
		}
	}
}

func TestActivate(t *testing.T) {
	p := env.NewVirtual("skills").WithFile("skills/r/SKILL.md", skill("r", "research", "level: 3"))
	actx := agentctx.New()
	pkg, err := skills.ActivateWithContext(ctx, p, "skills/r/SKILL.md", actx)
	if err != nil || pkg.Body == nil || *pkg.Body != "Body of r." || !pkg.Activated() {
		t.Fatalf("activate: %+v %v", pkg, err)
	}
	evs := actx.TakeEvents()
	if len(evs) != 1 || evs[0].Kind != skills.EventActivated {
		t.Fatalf("events %+v", evs)
	}
	want := map[string]any{"name": "r", "description": "research", "path": "skills/r/SKILL.md", "body_bytes": len("Body of r."),
		"metadata": map[string]any{"level": uint64(3)}}
	if !equalJSONish(evs[0].Payload, want) {
		t.Fatalf("payload %#v", evs[0].Payload)
	}
	if _, ok := evs[0].Payload["body"]; ok {
		t.Fatal("the event carries the body")
	}
	if _, err := skills.ActivateWithContext(ctx, p, "skills/none/SKILL.md", actx); !errors.Is(err, env.ErrNotFound) || len(actx.TakeEvents()) != 0 {
		t.Fatalf("a missing skill: %v", err)
	}
	if _, err := skills.Activate(ctx, p, "../etc/passwd"); !errors.Is(err, env.ErrInvalidRequest) {
		t.Fatalf("a path outside the root: %v", err)
	}
}

func equalJSONish(a, b map[string]any) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		w, ok := b[k]
		if !ok {
			return false
		}
		if m, ok := v.(map[string]any); ok {
			n, ok := w.(map[string]any)
			if !ok || !equalJSONish(m, n) {
				return false
			}
			continue
		}
		if v != w {
			return false
		}
	}
	return true
}

func TestReloadChanges(t *testing.T) {
	p := env.NewVirtual("skills").
		WithFile("skills/keep/SKILL.md", skill("keep", "same")).
		WithFile("skills/edit/SKILL.md", skill("edit", "before")).
		WithFile("skills/meta/SKILL.md", skill("meta", "m", "v: 1")).
		WithFile("skills/gone/SKILL.md", skill("gone", "bye")).
		WithFile("skills/body/SKILL.md", skill("body", "only the body changes"))
	scopes := []skills.SourceScope{skills.NewScope("")}
	r, err := skills.Scan(ctx, p, scopes)
	if err != nil {
		t.Fatal(err)
	}
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	must(p.WriteFile(ctx, "skills/edit/SKILL.md", []byte(skill("edit", "after")), env.WriteOptions{}))
	must(p.WriteFile(ctx, "skills/meta/SKILL.md", []byte(skill("meta", "m", "v: 2")), env.WriteOptions{}))
	must(p.WriteFile(ctx, "skills/body/SKILL.md", []byte("---\nname: body\ndescription: only the body changes\n---\nnew body"), env.WriteOptions{}))
	must(p.Remove(ctx, "skills/gone", true))
	must(p.WriteFile(ctx, "skills/new/SKILL.md", []byte(skill("new", "hello")), env.WriteOptions{Parents: true}))
	must(p.WriteFile(ctx, "skills/broken/SKILL.md", []byte("oops"), env.WriteOptions{Parents: true}))

	actx := agentctx.New()
	rep, err := r.Reload(ctx, p, scopes, actx)
	if err != nil {
		t.Fatal(err)
	}
	want := []skills.Change{
		{Kind: skills.Modified, Name: "edit", PreviousPath: "skills/edit/SKILL.md", Path: "skills/edit/SKILL.md"},
		{Kind: skills.Removed, Name: "gone", PreviousPath: "skills/gone/SKILL.md"},
		{Kind: skills.Modified, Name: "meta", PreviousPath: "skills/meta/SKILL.md", Path: "skills/meta/SKILL.md"},
		{Kind: skills.Added, Name: "new", Path: "skills/new/SKILL.md"},
	}
	if !slices.Equal(rep.Changes, want) {
		t.Fatalf("changes\n got %+v\nwant %+v", rep.Changes, want)
	}
	if len(rep.Diagnostics) != 1 || rep.Diagnostics[0].Kind != skills.InvalidSkill || rep.Registry.Len() != 5 {
		t.Fatalf("report %+v", rep)
	}
	if r.Len() != 5 {
		t.Fatal("reload changed the previous registry")
	}
	evs := actx.TakeEvents()
	if len(evs) != 1 || evs[0].Kind != skills.EventReloaded || evs[0].Payload["package_count"] != 5 ||
		len(evs[0].Payload["changes"].([]skills.Change)) != 4 || len(evs[0].Payload["diagnostics"].([]skills.Diagnostic)) != 1 {
		t.Fatalf("events %+v", evs)
	}
	if _, ok := evs[0].Payload["reload_scheduled"]; ok {
		t.Fatal("an unscheduled reload says it was scheduled")
	}
	pkgs := evs[0].Payload["packages"].([]map[string]any)
	if pkgs[0]["name"] != "body" || pkgs[0]["activated"] != false || len(pkgs[0]) != 4 {
		t.Fatalf("packages %+v", pkgs)
	}
	// An activated package differs from its summary.
	body := "x"
	if got := skills.Changes(skills.NewRegistry(skills.Package{Name: "a"}), skills.NewRegistry(skills.Package{Name: "a", Body: &body})); len(got) != 1 || got[0].Kind != skills.Modified {
		t.Fatalf("body presence: %+v", got)
	}
	if got := skills.Changes(nil, nil); got == nil || len(got) != 0 {
		t.Fatalf("no registries: %#v", got)
	}
}

func TestReloadIfDue(t *testing.T) {
	p := env.NewVirtual("skills").WithFile("skills/a/SKILL.md", skill("a", "one"))
	scopes := []skills.SourceScope{skills.NewScope("")}
	r, err := skills.Scan(ctx, p, scopes)
	if err != nil {
		t.Fatal(err)
	}
	actx := agentctx.New()
	b := skills.ReloadBinding{IntervalMS: 60_000, DebounceMS: 500, LastRefreshMS: 1000}
	rep, b2, err := r.ReloadIfDue(ctx, p, scopes, actx, b, 1200)
	if rep != nil || err != nil || b2 != b || len(actx.TakeEvents()) != 0 {
		t.Fatalf("not due: %+v %+v %v", rep, b2, err)
	}
	b = b.InventoryChanged(3, 1300)
	if rep, _, _ = r.ReloadIfDue(ctx, p, scopes, actx, b, 1799); rep != nil {
		t.Fatal("reloaded inside the debounce")
	}
	rep, b, err = r.ReloadIfDue(ctx, p, scopes, actx, b, 1800)
	if err != nil || rep == nil || b.InventoryVersion != 3 || b.PendingVersion != 0 || b.LastRefreshMS != 1800 {
		t.Fatalf("due: %+v %+v %v", rep, b, err)
	}
	evs := actx.TakeEvents()
	if len(evs) != 1 || evs[0].Payload["reload_scheduled"] != true || evs[0].Payload["reload_reason"] != skills.ReasonInventoryChanged ||
		evs[0].Payload["reload_ms"] != int64(1800) || evs[0].Payload["inventory_version"] != int64(3) {
		t.Fatalf("events %+v", evs)
	}
	rep, _, _ = r.ReloadIfDue(ctx, p, scopes, actx, b, 61_800)
	if ev := actx.TakeEvents(); rep == nil || ev[0].Payload["reload_reason"] != skills.ReasonIntervalElapsed {
		t.Fatalf("interval: %+v", ev)
	}
	// A failed reload keeps the binding, so the reload stays due.
	bad := []skills.SourceScope{{Root: "x", Kind: "nope"}}
	if _, kept, err := r.ReloadIfDue(ctx, p, bad, actx, b, 61_800); err == nil || kept != b {
		t.Fatalf("failed reload: %v %+v", err, kept)
	}
}

func TestInstruction(t *testing.T) {
	if got := skills.Instruction(nil); got != "No fileops-loaded skills are currently available." {
		t.Fatalf("empty: %q", got)
	}
	got := skills.Instruction([]skills.Package{
		{Name: "writing", Description: "Edit prose", Path: "skills/writing/SKILL.md"},
		{Name: "research", Description: "Gather sources", Path: "skills/research/SKILL.md"},
	})
	list := "<available-skills>\nAvailable fileops-loaded skills:\n- research: Gather sources (skills/research/SKILL.md)\n- writing: Edit prose (skills/writing/SKILL.md)\n</available-skills>"
	if !strings.HasPrefix(got, "<skill-routing-policy>\nSkill use is mandatory when applicable.\n") || !strings.Contains(got, "</skill-routing-policy>\n\n"+list+"\n\n<skill-activation-procedure>\n") ||
		!strings.HasSuffix(got, "6. Treat <available-skills> as an index only; the authoritative instructions live in SKILL.md.\n</skill-activation-procedure>") {
		t.Fatalf("instruction:\n%s", got)
	}
	ts := skills.Toolset(nil)
	tools, err := ts.Tools(nil)
	ins := ts.Instructions(nil)
	if err != nil || len(tools) != 0 || ts.Name() != "skills" || ts.ID() != "skills" || len(ins) != 1 || ins[0].Group != "skills" || ins[0].Content != skills.NoSkills {
		t.Fatalf("toolset: %v %v %+v", tools, err, ins)
	}
}

// An agent given a scan report's toolset sends the skills instruction and
// publishes skills_scanned when each run starts.
func TestAgentRunPublishesTheScan(t *testing.T) {
	p := env.NewVirtual("skills").
		WithFile(".agents/skills/research/SKILL.md", skill("research", "Shared research")).
		WithFile("skills/research/SKILL.md", skill("research", "Tool-specific research"))
	rep, err := skills.ScanWithReport(ctx, p, []skills.SourceScope{skills.NewScope("")})
	if err != nil {
		t.Fatal(err)
	}
	m := model.NewTestModel(model.Response(model.TextPart("ok")), model.Response(model.TextPart("ok")))
	s := agent.NewBuilder(m).Toolset(rep.Toolset()).MustBuild().NewSession()
	var scanned []map[string]any
	record := agent.WithEvents(func(ev agent.Event) {
		if ev.Kind == agent.EventCustom && ev.Custom.Kind == skills.EventScanned {
			scanned = append(scanned, ev.Custom.Payload)
		}
	})
	for range 2 {
		if _, err := s.Run(ctx, "hello", record); err != nil {
			t.Fatal(err)
		}
	}
	if len(scanned) != 2 || scanned[0]["package_count"] != 1 || len(scanned[0]["diagnostics"].([]skills.Diagnostic)) != 1 {
		t.Fatalf("skills_scanned: %+v", scanned)
	}
	ins := m.Requests()[0].Messages[0].Instructions
	if !strings.Contains(ins, `<tool-instruction name="skills">`) || !strings.Contains(ins, "- research: Tool-specific research (skills/research/SKILL.md)") {
		t.Fatalf("instructions:\n%s", ins)
	}
}
