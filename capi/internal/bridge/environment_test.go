package bridge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/starweaver-go/starweaver/core/agent"
	"github.com/starweaver-go/starweaver/core/env"
)

func TestDecodeEnvironment(t *testing.T) {
	ctx := context.Background()
	p, err := decodeEnvironment([]byte(`{"kind":"virtual","id":"docs","files":{"a/b.txt":"hi"},
		"shell_outputs":{"make":{"exit_code":2,"stdout":"o","stderr":"e"}},"read_only":true}`))
	if err != nil {
		t.Fatal(err)
	}
	v, ok := p.(*env.Virtual)
	if !ok || v.ID() != "docs" {
		t.Fatalf("a virtual spec built %T %v", p, p)
	}
	if b, err := v.ReadFile(ctx, "a/b.txt", 0, -1); err != nil || string(b) != "hi" {
		t.Fatalf("file: %q, %v", b, err)
	}
	if out, err := v.Run(ctx, env.ShellCommand("make")); err != nil || out.ExitCode != 2 || out.Stdout != "o" || out.Stderr != "e" {
		t.Fatalf("shell output: %+v, %v", out, err)
	}
	if err := v.WriteFile(ctx, "x", nil, env.WriteOptions{}); !errors.Is(err, env.ErrAccessDenied) {
		t.Fatalf("read_only: %v", err)
	}
	if p, err := decodeEnvironment([]byte(`{"kind":"virtual"}`)); err != nil || p.ID() != "virtual" {
		t.Fatalf("the default virtual id: %v, %v", p, err)
	}

	dir := t.TempDir()
	p, err = decodeEnvironment(fmt.Appendf(nil, `{"kind":"local","root":%q,"read_only":true,"shell":{"allow_execute":true,"allowed_programs":["git"]}}`, dir))
	if err != nil {
		t.Fatal(err)
	}
	lw, ok := p.(*localWithShell)
	if !ok || lw.Local.ID() != "local" || !lw.Local.ReadOnly() || lw.Local.Root() != dir {
		t.Fatalf("a local spec built %T %+v", p, p)
	}
	// The spec's policy governs the attached shell: a script is refused
	// under a program allowlist.
	if _, err := lw.LocalShell.Run(context.Background(), env.ShellCommand("echo hi")); !errors.Is(err, env.ErrAccessDenied) {
		t.Fatalf("a script under an allowlist: %v", err)
	}
	_ = lw.Close()

	for _, null := range []string{"", "null", " null "} {
		if p, err := decodeEnvironment([]byte(null)); p != nil || err != nil {
			t.Fatalf("%q: %v, %v; want no environment", null, p, err)
		}
	}
}

func TestDecodeEnvironmentRefusesBadSpecs(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for spec, msg := range map[string]string{
		`{}`:                                                 `"kind" is required`,
		`{"kind":"sandbox"}`:                                 `unknown kind "sandbox"`,
		`{"kind":"virtual","root":"/tmp"}`:                   `"root" is not a field of a virtual environment`,
		`{"kind":"virtual","shell":{}}`:                      `"shell" is not a field of a virtual`,
		`{"kind":"virtual","files":{"../x":"y"}}`:            `".." is not allowed`,
		`{"kind":"virtual","files":{"/etc/passwd":""}}`:      "absolute paths are not allowed",
		`{"kind":"virtual","file":{}}`:                       `unknown field "file"`,
		`{"kind":"local"}`:                                   `needs a "root"`,
		`{"kind":"local","root":"/does/not/exist"}`:          "no such file",
		`{"kind":"local","root":".","files":{}}`:             `"files" is not a field of a local`,
		fmt.Sprintf(`{"kind":"local","root":%q}`, file):      "is not a directory",
		`{"kind":"local","root":".","shell":{"allow":true}}`: `unknown field "allow"`,
	} {
		_, err := decodeEnvironment([]byte(spec))
		var ae *abiError
		if !errors.As(err, &ae) || ae.Type != "invalid_spec" || !strings.Contains(ae.Message, msg) {
			t.Errorf("%s: %v; want invalid_spec with %q", spec, err, msg)
		}
	}
}

// A local environment given through the ABI is confined to its root: a
// symbolic link out of it and ".." are refused.
func TestLocalEnvironmentSpecIsConfined(t *testing.T) {
	base := t.TempDir()
	root, outside := filepath.Join(base, "root"), filepath.Join(base, "outside")
	_ = os.Mkdir(root, 0o755)
	_ = os.Mkdir(outside, 0o755)
	_ = os.WriteFile(filepath.Join(outside, "secret"), []byte("s"), 0o644)
	if err := os.Symlink(outside, filepath.Join(root, "out")); err != nil {
		t.Fatal(err)
	}
	p, err := decodeEnvironment(fmt.Appendf(nil, `{"kind":"local","root":%q}`, root))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, path := range []string{"out/secret", "../outside/secret", filepath.Join(outside, "secret")} {
		if _, err := p.ReadFile(ctx, path, 0, -1); !errors.Is(err, env.ErrAccessDenied) && !errors.Is(err, env.ErrInvalidRequest) {
			t.Errorf("read %s: %v", path, err)
		}
		if err := p.WriteFile(ctx, path, []byte("x"), env.WriteOptions{}); !errors.Is(err, env.ErrAccessDenied) && !errors.Is(err, env.ErrInvalidRequest) {
			t.Errorf("write %s: %v", path, err)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(outside, "secret")); string(b) != "s" {
		t.Fatalf("the outside file changed: %q", b)
	}
}

func TestABISessionSetEnvironment(t *testing.T) {
	noLeaks(t)
	m := newModel(t)
	a := abi.AgentNew(fmt.Appendf(nil, `{"model":%d,"environment":{"kind":"virtual","id":"docs","files":{"README.md":"hello"}}}`, m), none)
	if a.RC != 0 {
		t.Fatalf("sw_agent_new with an environment: %+v", a)
	}
	defer abi.Release(a.Handle, none)
	wantError(t, abi.AgentNew(fmt.Appendf(nil, `{"model":%d,"environment":{"kind":"nope"}}`, m), none), "invalid_spec", `unknown kind "nope"`)

	s := abi.SessionNew(a.Handle, none)
	if s.RC != 0 {
		t.Fatalf("sw_session_new: %+v", s)
	}
	defer abi.Release(s.Handle, none)
	session, err := lookup[*agent.Session](s.Handle)
	if err != nil {
		t.Fatal(err)
	}
	if p := session.Environment(); p == nil || p.ID() != "docs" {
		t.Fatalf("the session's environment: %v", p)
	}
	// The virtual environment travels with the exported state.
	state, err := session.ExportState()
	if err != nil {
		t.Fatal(err)
	}
	var envelope struct{ State json.RawMessage }
	_ = json.Unmarshal(state, &envelope)
	if !strings.Contains(string(envelope.State), `"README.md":"hello"`) {
		t.Fatalf("the exported state lacks the environment: %s", envelope.State)
	}

	dir := t.TempDir()
	if r := abi.SessionSetEnvironment(s.Handle, fmt.Appendf(nil, `{"kind":"local","root":%q,"read_only":true}`, dir), none); r.RC != 0 {
		t.Fatalf("sw_session_set_environment: %+v", r)
	}
	if l, ok := session.Environment().(*localWithShell); !ok || l.Local.Root() != dir {
		t.Fatalf("after set_environment: %v", session.Environment())
	}
	wantError(t, abi.SessionSetEnvironment(s.Handle, []byte(`{"kind":"local","root":"/does/not/exist"}`), none), "invalid_spec", "no such file")
	wantError(t, abi.SessionSetEnvironment(s.Handle, []byte(`{`), none), "invalid_spec", "")
	wantError(t, abi.SessionSetEnvironment(m, []byte(`null`), none), "bad_handle", "not a")
	if r := abi.SessionSetEnvironment(s.Handle, nil, none); r.RC != 0 || session.Environment() != nil {
		t.Fatalf("a NULL spec removes the environment: %+v, %v", r, session.Environment())
	}
	if r := abi.SessionSetEnvironment(s.Handle, []byte(`{"kind":"nope"}`), nullErr); r.RC != -1 {
		t.Fatalf("a NULL err still reports the failure: %+v", r)
	}
}
