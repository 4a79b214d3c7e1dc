package bridge

import (
	"context"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/starweaver-go/starweaver/core/agent"
	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/skills"
	"github.com/starweaver-go/starweaver/core/toolset"
)

const skillsEnv = `{"kind":"virtual","files":{
	".agents/skills/research/SKILL.md":"---\nname: research\ndescription: Shared research\n---\nShared.",
	"skills/research/SKILL.md":"---\nname: research\ndescription: Tool research\nlevel: 2\n---\nTool body.",
	"skills/broken/SKILL.md":"no frontmatter",
	"user/skills/writing/SKILL.md":"---\nname: writing\ndescription: Edit prose\n---\n"}}`

func skillsOut(t *testing.T, s abiStatus) map[string]any {
	t.Helper()
	if s.RC != 0 {
		t.Fatalf("status %+v", s)
	}
	var out map[string]any
	if err := json.Unmarshal([]byte(s.Out), &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestSkillsScanThroughTheABI(t *testing.T) {
	noLeaks(t)
	scopes := `"scopes":[{"root":"","kind":"custom"},{"root":"user","kind":"user_tool"}]`
	// Strict: the broken skill fails the scan.
	wantError(t, abi.SkillsScan([]byte(`{"environment":`+skillsEnv+`,`+scopes+`}`), none), "invalid_argument", "expected frontmatter delimited by ---")

	out := skillsOut(t, abi.SkillsScan([]byte(`{"environment":`+skillsEnv+`,`+scopes+`,"report":true}`), none))
	pkgs := out["packages"].([]any)
	if len(pkgs) != 2 || pkgs[0].(map[string]any)["path"] != "skills/research/SKILL.md" || pkgs[1].(map[string]any)["name"] != "writing" {
		t.Fatalf("packages %v", pkgs)
	}
	if _, ok := pkgs[0].(map[string]any)["body"]; ok || pkgs[0].(map[string]any)["metadata"].(map[string]any)["level"] != 2.0 {
		t.Fatalf("package %v", pkgs[0])
	}
	var kinds []string
	for _, d := range out["diagnostics"].([]any) {
		kinds = append(kinds, d.(map[string]any)["kind"].(string))
	}
	if !slices.Equal(kinds, []string{"invalid_skill", "duplicate_overridden"}) {
		t.Fatalf("diagnostics %v", out["diagnostics"])
	}

	// A reload against earlier packages reports the changes.
	prev := `[{"name":"research","description":"Old","path":"skills/research/SKILL.md"},{"name":"gone","description":"x","path":"skills/gone/SKILL.md"}]`
	out = skillsOut(t, abi.SkillsScan([]byte(`{"environment":`+skillsEnv+`,`+scopes+`,"previous":`+prev+`}`), none))
	if ev := out["event"].(map[string]any); ev["package_count"] != 2.0 || len(ev["changes"].([]any)) != 3 {
		t.Fatalf("event %v", ev)
	}
	b, _ := json.Marshal(out["changes"])
	if string(b) != `[{"kind":"removed","name":"gone","previous_path":"skills/gone/SKILL.md"},`+
		`{"kind":"modified","name":"research","path":"skills/research/SKILL.md","previous_path":"skills/research/SKILL.md"},`+
		`{"kind":"added","name":"writing","path":"user/skills/writing/SKILL.md"}]` {
		t.Fatalf("changes %s", b)
	}

	act := skillsOut(t, abi.SkillsActivate([]byte(`{"environment":`+skillsEnv+`,"path":"skills/research/SKILL.md"}`), none))
	if pkg := act["package"].(map[string]any); pkg["body"] != "Tool body." || pkg["name"] != "research" || act["event"].(map[string]any)["body_bytes"] != 10.0 {
		t.Fatalf("activate %v", act)
	}
	wantError(t, abi.SkillsActivate([]byte(`{"environment":`+skillsEnv+`,"path":"skills/none/SKILL.md"}`), none), "invalid_argument", "not found")
	wantError(t, abi.SkillsActivate([]byte(`{"environment":`+skillsEnv+`,"path":"../x/SKILL.md"}`), none), "invalid_argument", "..")
}

func TestSkillsScanErrors(t *testing.T) {
	noLeaks(t)
	for req, want := range map[string]struct{ slug, msg string }{
		`{"scopes":[]}`: {"invalid_spec", `an "environment" is required`},
		`{"environment":{"kind":"local","root":"/nonexistent/skills"},"scopes":[]}`: {"invalid_spec", "environment"},
		`{"environment":{"kind":"cloud"},"scopes":[]}`:                              {"invalid_spec", `unknown kind "cloud"`},
		`{"environment":{"kind":"virtual","files":{"/etc/x":"y"}},"scopes":[]}`:     {"invalid_spec", "absolute paths"},
		`{"environment":{"kind":"virtual"},"scopes":[{"root":"","kind":"team"}]}`:   {"invalid_spec", `unknown source kind "team"`},
		`{"environment":{"kind":"virtual"},"scopes":[{"root":"../up"}]}`:            {"invalid_spec", "invalid source scope"},
		`{"environment":{"kind":"virtual"},"scopes":[{"root":"","directory":"x"}]}`: {"invalid_spec", "unknown field"},
		`{"environment":{"kind":"virtual","root":"x"},"scopes":[]}`:                 {"invalid_spec", `"root" is not a field of a virtual environment`},
		`not json`: {"invalid_spec", ""},
	} {
		wantError(t, abi.SkillsScan([]byte(req), none), want.slug, want.msg)
	}
	wantError(t, abi.SkillsScan([]byte(`{"environment":{"kind":"virtual"},"scopes":[]}`), nullOut), "invalid_argument", "out must not be NULL")
	wantError(t, abi.SkillsActivate([]byte(`{"environment":{"kind":"virtual"},"path":"x","extra":1}`), none), "invalid_spec", "unknown field")
	if s := abi.SkillsScan([]byte(`{"environment":{"kind":"virtual"},"scopes":[]}`), nullErr); s.RC != 0 || s.Out != `{"packages":[]}` {
		t.Fatalf("empty scan: %+v", s)
	}
}

// The packages sw_skills_scan writes build, through a toolset spec, the
// same instruction as core's toolset of the scanned registry.
func TestSkillsToolsetSpecMatchesCore(t *testing.T) {
	out := abi.SkillsScan([]byte(`{"environment":`+skillsEnv+`,"scopes":[{"root":""}],"report":true}`), none)
	var res struct {
		Packages    json.RawMessage `json:"packages"`
		Diagnostics json.RawMessage `json:"diagnostics"`
	}
	if err := json.Unmarshal([]byte(out.Out), &res); err != nil {
		t.Fatal(err)
	}
	var specs []toolsetSpec
	spec := `[{"kind":"skills","skills":{"packages":` + string(res.Packages) + `}}]`
	if err := decodeStrict([]byte(spec), &specs); err != nil {
		t.Fatal(err)
	}
	sets, err := buildToolsets(specs)
	if err != nil {
		t.Fatal(err)
	}
	var pkgs []skills.Package
	if err := json.Unmarshal(res.Packages, &pkgs); err != nil {
		t.Fatal(err)
	}
	got, want := sets[0].Instructions(nil), skills.Toolset(pkgs).Instructions(nil)
	if !slices.Equal(got, want) || sets[0].Name() != "skills" || sets[0].ID() != "skills" || !strings.Contains(got[0].Content, "- research: Tool research (skills/research/SKILL.md)") {
		t.Fatalf("instructions %+v, want %+v", got, want)
	}
	if toolset.Managed(sets[0]) {
		t.Fatal("an instruction-only skills toolset has a lifecycle")
	}

	for spec, want := range map[string]string{
		`[{"kind":"skills"}]`:                                                               `needs a "skills" object`,
		`[{"skills":{"packages":[]}}]`:                                                      `needs "kind": "skills"`,
		`[{"name":"other","kind":"skills","skills":{"packages":[]}}]`:                       `is named "skills"`,
		`[{"kind":"skills","instructions":["x"],"skills":{"packages":[]}}]`:                 `takes its instruction`,
		`[{"kind":"skills","skills":{"packages":[{"name":"a","path":"p"}]}}]`:               "needs a name, a description and a path",
		`[{"kind":"skills","skills":{"packages":[],"diagnostics":[{"kind":"x"}]}}]`:         `"publish_scan": true`,
		`[{"kind":"skills","skills":{"packages":[],"bogus":1}}]`:                            "unknown field",
		`[{"kind":"skills","mcp":{"transport":{"kind":"stdio"}},"skills":{"packages":[]}}]`: "takes no",
	} {
		if _, err := toolNames(t, spec); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", spec, err, want)
		}
	}
}

// A skills toolset with publish_scan publishes skills_scanned when a run
// starts, and the model request carries the instruction.
func TestSkillsToolsetPublishesTheScan(t *testing.T) {
	h := testModelHandle(t, model.Response(model.TextPart("ok")))
	a, err := agentFromJSON(t, `{"model":`+strconv.FormatInt(h, 10)+`,"toolsets":[{"kind":"skills","skills":{"publish_scan":true,
		"packages":[{"name":"research","description":"Gather sources","path":"skills/research/SKILL.md"}],
		"diagnostics":[{"kind":"invalid_skill","source":"custom","path":"skills/bad/SKILL.md","message":"bad"}]}}]}`)
	if err != nil {
		t.Fatal(err)
	}
	var scanned map[string]any
	_, err = a.NewSession().Run(context.Background(), "hi", agent.WithEvents(func(ev agent.Event) {
		if ev.Kind == agent.EventCustom && ev.Custom.Kind == skills.EventScanned {
			scanned = ev.Custom.Payload
		}
	}))
	if err != nil {
		t.Fatal(err)
	}
	if scanned == nil || scanned["package_count"] != 1 || len(scanned["diagnostics"].([]skills.Diagnostic)) != 1 {
		t.Fatalf("skills_scanned %+v", scanned)
	}
	mh, _ := lookup[*modelHandle](h)
	ins := mh.m.(*model.TestModel).Requests()[0].Messages[0].Instructions
	if !strings.Contains(ins, "- research: Gather sources (skills/research/SKILL.md)") {
		t.Fatalf("instructions %q", ins)
	}
}

func TestSkillsReloadIfDueThroughTheABI(t *testing.T) {
	noLeaks(t)
	base := `{"environment":` + skillsEnv + `,"scopes":[{"root":""}],"previous":[]`
	var out struct {
		Reloaded bool                 `json:"reloaded"`
		Binding  skills.ReloadBinding `json:"binding"`
		Result   *skillsScanResult    `json:"result"`
	}
	s := abi.SkillsScan([]byte(base+`,"binding":{"debounce_ms":100,"pending_inventory_version":4,"pending_since_ms":1000},"now_ms":1050}`), none)
	if err := json.Unmarshal([]byte(s.Out), &out); err != nil || out.Reloaded || out.Result != nil || out.Binding.PendingVersion != 4 {
		t.Fatalf("not due: %+v %v %s", out, err, s.Err)
	}
	s = abi.SkillsScan([]byte(base+`,"binding":{"debounce_ms":100,"pending_inventory_version":4,"pending_since_ms":1000},"now_ms":1100}`), none)
	if err := json.Unmarshal([]byte(s.Out), &out); err != nil || !out.Reloaded || out.Binding.InventoryVersion != 4 || out.Binding.LastRefreshMS != 1100 {
		t.Fatalf("due: %+v %v %s", out, err, s.Err)
	}
	ev := out.Result.Event
	if ev["reload_scheduled"] != true || ev["reload_reason"] != "inventory_changed" || ev["reload_ms"] != 1100.0 || ev["inventory_version"] != 4.0 || len(out.Result.Changes) != 1 {
		t.Fatalf("result %+v", out.Result)
	}
	wantError(t, abi.SkillsScan([]byte(`{"environment":`+skillsEnv+`,"scopes":[],"binding":{},"now_ms":1}`), none), "invalid_spec", `needs the "previous" packages`)
}
