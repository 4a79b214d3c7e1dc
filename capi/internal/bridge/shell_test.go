package bridge

import (
	"strconv"
	"strings"
	"testing"

	"github.com/starweaver-go/starweaver/core/env"
	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/tool"
)

// An agent spec's "shell" gives its runs a local shell for the "shell"
// bundle; releasing the agent handle closes it, killing its processes.
func TestShellSpec(t *testing.T) {
	root := t.TempDir()
	h := testModelHandle(t,
		model.CallsResponse(model.Call("c1", "shell_exec", map[string]any{"command": "echo hi"})),
		model.CallsResponse(model.Call("c2", "shell_exec", map[string]any{"command": "echo", "arguments": []any{"ok"}})),
		model.CallsResponse(model.Call("c3", "shell_exec", map[string]any{"command": "sleep", "arguments": []any{"100"}, "background": true})),
		model.Response(model.TextPart("done")),
	)
	spec := `{"model":` + strconv.FormatInt(h, 10) + `,"toolsets":[{"bundle":"shell"}],` +
		`"shell":{"root":` + strconv.Quote(root) + `,"allow_execute":true,"allowed_programs":["echo","sleep"],"max_processes":2}}`
	a, err := agentFromJSON(t, spec)
	if err != nil {
		t.Fatal(err)
	}
	ah := handles.add(a)
	res, err := runFromJSON(t, a, `{"prompt":"x"}`)
	if err != nil || res.Output != "done" {
		t.Fatalf("run %+v %v", res, err)
	}
	rets := res.Returns()
	if rets[0].ErrorKind() != tool.ErrorKindFeedback {
		t.Fatalf("a script under an allowlist: %+v", rets[0])
	}
	if c, _ := rets[1].Content.(map[string]any); c["stdout"] != "ok\n" {
		t.Fatalf("an allowed program: %+v", rets[1])
	}
	started, _ := rets[2].Content.(map[string]any)
	if started["status"] != "running" {
		t.Fatalf("background: %+v", rets[2])
	}
	liveShells.mu.Lock()
	shells := liveShells.m[a]
	liveShells.mu.Unlock()
	if len(shells) != 1 {
		t.Fatalf("the agent's shells are not kept: %v", shells)
	}
	sh := shells[0]

	v, _ := handles.remove(ah)
	releaseShell(v)
	list, _ := sh.List(t.Context())
	if len(list) != 1 || list[0].Status != env.ProcessKilled {
		t.Fatalf("after release: %+v", list)
	}

	for _, bad := range []string{`"shell":{}`, `"shell":{"root":"/no/such/dir"}`, `"shell":{"root":"/","max_processes":0}`, `"shell":{"root":"/","shell":"bash"}`} {
		_, err := agentFromJSON(t, `{"model":`+strconv.FormatInt(h, 10)+`,`+bad+`}`)
		if ae := toABIError(err); ae.Type != "invalid_spec" || !strings.Contains(ae.Message, "shell") {
			t.Errorf("%s: %+v", bad, ae)
		}
	}
}

// A shell bundle's "policy" narrows the agent's shell; other bundles take
// none.
func TestShellBundlePolicy(t *testing.T) {
	h := testModelHandle(t,
		model.CallsResponse(model.Call("c1", "shell_exec", map[string]any{"command": "echo hi"})),
		model.CallsResponse(model.Call("c2", "shell_exec", map[string]any{"command": "echo", "arguments": []any{"ok"}})),
		model.Response(model.TextPart("done")),
	)
	spec := `{"model":` + strconv.FormatInt(h, 10) +
		`,"toolsets":[{"bundle":"shell","policy":{"allow_execute":true,"allowed_programs":["echo"]}}],` +
		`"shell":{"root":` + strconv.Quote(t.TempDir()) + `,"allow_execute":true}}`
	a, err := agentFromJSON(t, spec)
	if err != nil {
		t.Fatal(err)
	}
	defer releaseShell(a)
	res, err := runFromJSON(t, a, `{"prompt":"x"}`)
	if err != nil || res.Output != "done" {
		t.Fatalf("run %+v %v", res, err)
	}
	rets := res.Returns()
	if rets[0].ErrorKind() != tool.ErrorKindFeedback || !strings.Contains(tool.ErrorMessage(rets[0]), "shell scripts are refused") {
		t.Fatalf("a script under the toolset's allowlist: %+v", rets[0])
	}
	if c, _ := rets[1].Content.(map[string]any); c["stdout"] != "ok\n" {
		t.Fatalf("an allowed program: %+v", rets[1])
	}
	_, err = agentFromJSON(t, `{"model":`+strconv.FormatInt(h, 10)+`,"toolsets":[{"bundle":"filesystem","policy":{"allow_execute":true}}]}`)
	if ae := toABIError(err); ae.Type != "invalid_spec" || !strings.Contains(ae.Message, "takes no policy") {
		t.Fatalf("policy on the filesystem bundle: %+v", ae)
	}
}
