//go:build linux

package shell_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/starweaver-go/starweaver/core/agent"
	"github.com/starweaver-go/starweaver/core/bundles/shell"
	"github.com/starweaver-go/starweaver/core/env"
	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/tool"
)

func localShell(t *testing.T, policy env.ShellPolicy) *env.LocalShell {
	t.Helper()
	s, err := env.NewLocalShell(t.TempDir(), policy, env.LocalShellOptions{TermGrace: 300 * time.Millisecond, DrainTimeout: 500 * time.Millisecond})
	if errors.Is(err, env.ErrNoSandbox) && os.Getenv("STARWEAVER_REQUIRE_SANDBOX") == "" {
		t.Skipf("no sandbox here (set STARWEAVER_REQUIRE_SANDBOX=1 to fail instead): %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func depsWith(name string, v any) *tool.Deps {
	d := &tool.Deps{}
	d.SetNamed(name, v)
	return d
}

// run has a test model make the calls, one response each, and returns
// the returns the agent recorded, in order.
func run(t *testing.T, deps *tool.Deps, shellEnv map[string]string, calls ...map[string]any) []tool.Return {
	t.Helper()
	return runWith(t, shell.Options{}, deps, shellEnv, calls...)
}

// runWith is run with the toolset built from opts.
func runWith(t *testing.T, opts shell.Options, deps *tool.Deps, shellEnv map[string]string, calls ...map[string]any) []tool.Return {
	t.Helper()
	var responses []model.Message
	for i, c := range calls {
		name := c["tool"].(string)
		args := map[string]any{}
		for k, v := range c {
			if k != "tool" {
				args[k] = v
			}
		}
		responses = append(responses, model.CallsResponse(model.Call("call_"+string(rune('a'+i)), name, args)))
	}
	responses = append(responses, model.Response(model.TextPart("done")))
	b := agent.NewBuilder(model.NewTestModel(responses...)).Toolset(shell.Tools(opts))
	if deps != nil {
		b.Deps(deps)
	}
	s := b.MustBuild().NewSession()
	if shellEnv != nil {
		s.Context().SetShellEnvironment(shellEnv)
	}
	res, err := s.Run(context.Background(), "go")
	if err != nil || res.Status != agent.StatusCompleted {
		t.Fatalf("run %+v %v", res, err)
	}
	return res.Returns()
}

func content(t *testing.T, r tool.Return) map[string]any {
	t.Helper()
	b, err := json.Marshal(r.Content)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("content %s is not an object", b)
	}
	return m
}

func TestToolsetShape(t *testing.T) {
	ts := shell.Tools(shell.Options{})
	if ts.Name() != "shell" || ts.ID() != "shell" || ts.Err() != nil {
		t.Fatalf("toolset %q %q %v", ts.Name(), ts.ID(), ts.Err())
	}
	tools, _ := ts.Tools(nil)
	var names []string
	for _, tl := range tools {
		d := tl.Definition()
		names = append(names, d.Name)
		deps := tool.ParseDependencies(d.Metadata)
		if deps.Profile != tool.ProfileFiltered || !deps.ShellEnvironment || len(deps.HostCapabilities) != 2 ||
			deps.HostCapabilities[0] != env.ShellCapability {
			t.Errorf("%s dependencies %+v", d.Name, deps)
		}
		if seq := d.Sequential != nil && *d.Sequential; seq != (d.Name != shell.StatusTool) {
			t.Errorf("%s sequential=%v", d.Name, d.Sequential)
		}
	}
	if strings.Join(names, ",") != "shell_exec,shell_wait,shell_status,shell_input,shell_signal,shell_kill" {
		t.Fatalf("tools %v", names)
	}
}

func TestExecForeground(t *testing.T) {
	sh := localShell(t, env.ShellPolicy{AllowExecute: true})
	if err := os.Mkdir(sh.Root()+"/sub", 0o755); err != nil {
		t.Fatal(err)
	}
	rets := run(t, depsWith(env.ShellCapability, sh), map[string]string{"BASE": "b", "OVER": "session"},
		map[string]any{"tool": shell.ExecTool, "command": `echo "$BASE $OVER $CALL"; pwd; echo e >&2; exit 4`,
			"cwd": "sub", "environment": map[string]any{"OVER": "call", "CALL": "c"}},
		map[string]any{"tool": shell.ExecTool, "command": "printf", "arguments": []any{"%s", "a;b"}},
		map[string]any{"tool": shell.ExecTool, "command": "sleep 10", "timeout_seconds": 0.3},
	)
	c := content(t, rets[0])
	if rets[0].IsError || c["return_code"] != 4.0 || c["stdout"] != "b call c\n"+sh.Root()+"/sub\n" || c["stderr"] != "e\n" ||
		c["cwd"] != "sub" || c["timeout_seconds"] != 180.0 || c["environment"].(map[string]any)["CALL"] != "c" {
		t.Fatalf("return %+v", c)
	}
	if md := c["metadata"].(map[string]any); md["stdout_truncated"] != false {
		t.Fatalf("metadata %v", md)
	}
	if c := content(t, rets[1]); c["stdout"] != "a;b" || c["command"] != `"printf" "%s" "a;b"` {
		t.Fatalf("program %+v", c)
	}
	c = content(t, rets[2])
	if md := c["metadata"].(map[string]any); md["timed_out"] != true || !strings.Contains(c["stderr"].(string), "timed out") {
		t.Fatalf("timeout %+v", c)
	}
}

func TestExpectedFailuresAreFeedback(t *testing.T) {
	sh := localShell(t, env.ShellPolicy{AllowExecute: true, AllowedPrograms: []string{"echo"}})
	rets := run(t, depsWith(env.ShellCapability, sh), nil,
		map[string]any{"tool": shell.ExecTool, "command": "   "},
		map[string]any{"tool": shell.ExecTool, "command": "echo hi"},
		map[string]any{"tool": shell.ExecTool, "command": "echo", "arguments": []any{"hi"}, "environment": map[string]any{"PATH": "/tmp"}},
		map[string]any{"tool": shell.ExecTool, "command": "echo", "arguments": []any{"allowed"}},
		map[string]any{"tool": shell.WaitTool, "process_id": "process_1", "timeout_seconds": 0},
		map[string]any{"tool": shell.ExecTool, "command": "echo", "arguments": []any{"x"}, "cwd": "../.."},
	)
	wants := []string{"command is blank", "shell scripts are refused", "environment overrides are refused", "", "no such background process", "is not allowed; give a path inside"}
	for i, want := range wants {
		r := rets[i]
		if want == "" {
			if c := content(t, r); r.IsError || c["stdout"] != "allowed\n" {
				t.Errorf("call %d: %+v", i, r)
			}
			continue
		}
		if r.ErrorKind() != tool.ErrorKindFeedback || !strings.Contains(asText(t, r.Content), want) {
			t.Errorf("call %d: kind %q content %v, want feedback with %q", i, r.ErrorKind(), r.Content, want)
		}
	}
	// Without a shell the application is at fault.
	rets = run(t, nil, nil, map[string]any{"tool": shell.ExecTool, "command": "true"})
	if rets[0].ErrorKind() != tool.ErrorKindUserError || !strings.Contains(asText(t, rets[0].Content), env.ShellCapability) {
		t.Fatalf("no shell: %+v", rets[0])
	}
}

func asText(t *testing.T, v any) string {
	t.Helper()
	b, _ := json.Marshal(v)
	return string(b)
}

func TestBackgroundProcesses(t *testing.T) {
	sh := localShell(t, env.ShellPolicy{AllowExecute: true})
	deps := depsWith(env.ShellCapability, sh)
	rets := run(t, deps, nil,
		map[string]any{"tool": shell.ExecTool, "command": `read l; echo "got $l"`, "background": true},
	)
	c := content(t, rets[0])
	id, _ := c["process_id"].(string)
	if c["status"] != "running" || !strings.HasPrefix(id, "process_") || c["return_code"] != nil {
		t.Fatalf("start %+v", c)
	}
	rets = run(t, deps, nil,
		map[string]any{"tool": shell.InputTool, "process_id": id, "text": "x", "close_stdin": true},
		map[string]any{"tool": shell.WaitTool, "process_id": id, "timeout_seconds": 5},
		map[string]any{"tool": shell.ExecTool, "command": "sleep 100", "background": true},
		map[string]any{"tool": shell.StatusTool},
	)
	if c := content(t, rets[1]); c["status"] != "completed" || c["stdout"] != "got x\n" || c["return_code"] != 0.0 {
		t.Fatalf("wait %+v", c)
	}
	sleeper := content(t, rets[2])["process_id"].(string)
	if procs := content(t, rets[3])["processes"].([]any); len(procs) != 2 {
		t.Fatalf("status %+v", procs)
	}
	rets = run(t, deps, nil,
		map[string]any{"tool": shell.SignalTool, "process_id": sleeper, "signal": 0},
		map[string]any{"tool": shell.KillTool, "process_id": sleeper},
		map[string]any{"tool": shell.KillTool, "process_id": "process_0"},
	)
	if rets[0].ErrorKind() != tool.ErrorKindFeedback {
		t.Fatalf("bad signal %+v", rets[0])
	}
	if c := content(t, rets[1]); c["status"] != "killed" {
		t.Fatalf("kill %+v", c)
	}
	if rets[2].ErrorKind() != tool.ErrorKindFeedback {
		t.Fatalf("unknown process %+v", rets[2])
	}
}

// The virtual environment provider is a shell too (canned outputs), and
// its scratch directory receives what is too long to return.
func TestVirtualEnvironmentAndOutputBounding(t *testing.T) {
	long := strings.Repeat("0123456789", 3000) // 30,000 characters
	v := env.NewVirtual("virtual").
		WithShellOutput("go test", env.Output{Stdout: "ok"}).
		WithShellOutput("cat big", env.Output{Stdout: long, Stderr: long})
	rets := run(t, depsWith(shell.EnvironmentCapability, v), nil,
		map[string]any{"tool": shell.ExecTool, "command": "go test"},
		map[string]any{"tool": shell.ExecTool, "command": "cat big"},
		map[string]any{"tool": shell.ExecTool, "command": "sleep 1", "background": true},
	)
	if c := content(t, rets[0]); c["stdout"] != "ok" || c["return_code"] != 0.0 {
		t.Fatalf("canned %+v", c)
	}
	c := content(t, rets[1])
	out := c["stdout"].(string)
	if c["truncated"] != true || !strings.HasPrefix(out, "0123") || !strings.HasSuffix(out, "789") ||
		!strings.Contains(out, "middle truncated") || len(asText(t, c)) > 21000 {
		t.Fatalf("bounded %d chars: %v", len(asText(t, c)), c["hint"])
	}
	for _, k := range []string{"stdout_file_path", "stderr_file_path", "output_file_path"} {
		p, _ := c[k].(string)
		if !strings.HasPrefix(p, ".starweaver/scratch/") {
			t.Fatalf("%s = %q", k, p)
		}
	}
	full, err := v.ReadFile(context.Background(), c["stdout_file_path"].(string), 0, -1)
	if err != nil || string(full) != long {
		t.Fatalf("spilled stdout: %d bytes, %v", len(full), err)
	}
	if rets[2].ErrorKind() != tool.ErrorKindUserError {
		t.Fatalf("background on a provider without processes: %+v", rets[2])
	}
}

// A toolset's own policy narrows the shell it is given and never widens it.
func TestToolsetPolicyNarrowsTheShell(t *testing.T) {
	echoOnly := &env.ShellPolicy{AllowExecute: true, AllowedPrograms: []string{"echo"}}
	open := depsWith(env.ShellCapability, localShell(t, env.ShellPolicy{AllowExecute: true}))
	rets := runWith(t, shell.Options{Policy: echoOnly}, open, nil,
		map[string]any{"tool": shell.ExecTool, "command": "echo", "arguments": []string{"hi; rm -rf /"}},
		map[string]any{"tool": shell.ExecTool, "command": "echo hi"},
		map[string]any{"tool": shell.ExecTool, "command": "touch", "arguments": []string{"x"}},
		map[string]any{"tool": shell.ExecTool, "command": "echo", "arguments": []string{"x"}, "environment": map[string]string{"PATH": "/tmp"}},
	)
	if got := content(t, rets[0]); got["stdout"] != "hi; rm -rf /\n" {
		t.Fatalf("allowed program: %v", got)
	}
	for i, want := range []string{"shell scripts are refused", `"touch" is not one of the allowed programs`, "environment overrides are refused"} {
		r := rets[i+1]
		if r.Runtime == nil || r.Runtime.ErrorKind != tool.ErrorKindFeedback || !strings.Contains(tool.ErrorMessage(r), want) {
			t.Fatalf("call %d: want feedback %q, got %+v", i+1, want, r.Content)
		}
	}
	// A permissive toolset policy over a shell that runs nothing runs nothing.
	closed := depsWith(env.ShellCapability, localShell(t, env.ShellPolicy{}))
	rets = runWith(t, shell.Options{Policy: &env.ShellPolicy{AllowExecute: true}}, closed, nil,
		map[string]any{"tool": shell.ExecTool, "command": "echo hi"})
	if r := rets[0]; r.Runtime == nil || r.Runtime.ErrorKind != tool.ErrorKindFeedback || !strings.Contains(tool.ErrorMessage(r), "does not allow running commands") {
		t.Fatalf("closed shell: %+v", r.Content)
	}
}
