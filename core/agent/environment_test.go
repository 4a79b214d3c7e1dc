package agent_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/starweaver-go/starweaver/core/agent"
	"github.com/starweaver-go/starweaver/core/env"
	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/tool"
)

// envTool reads or writes a file of the environment it receives as the
// named dependency env.Capability, declared as its host capability.
func envTool(declare bool) *tool.Function {
	type args struct {
		Path  string `json:"path"`
		Write string `json:"write,omitempty"`
	}
	deps := tool.Dependencies{Profile: tool.ProfileFiltered}
	if declare {
		deps.HostCapabilities = []string{env.Capability}
	}
	return tool.Typed("file", "", func(ctx context.Context, tc *tool.Context, a args) (tool.Result, error) {
		v, _ := tc.Deps.Named(env.Capability)
		p, ok := v.(env.Provider)
		if !ok {
			return tool.Text("no environment"), nil
		}
		if a.Write != "" {
			if err := p.WriteFile(ctx, a.Path, []byte(a.Write), env.WriteOptions{Parents: true}); err != nil {
				return tool.Text(err.Error()), nil
			}
			return tool.Text("written"), nil
		}
		b, err := p.ReadFile(ctx, a.Path, 0, -1)
		if err != nil {
			return tool.Text(err.Error()), nil
		}
		return tool.Text(p.ID() + ":" + string(b)), nil
	}).WithDependencies(deps)
}

// callFile runs one turn (the model calls the file tool) and returns the
// tool's result.
func callFile(t *testing.T, s *agent.Session) string {
	t.Helper()
	res, err := s.Run(context.Background(), "go")
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range res.NewMessages {
		for _, p := range m.Parts {
			if p.Return != nil {
				return fmt.Sprint(p.Return.Content)
			}
		}
	}
	t.Fatalf("no tool return in %+v", res.NewMessages)
	return ""
}

func fileAgent(t *testing.T, declare bool, p env.Provider, turns ...map[string]any) *agent.Agent {
	t.Helper()
	var script []model.Message
	for i, a := range turns {
		script = append(script, calls(model.Call("c"+string(rune('0'+i)), "file", a)), text("done"))
	}
	b := agent.NewBuilder(model.NewTestModel(script...)).Tool(envTool(declare)).StateKey([]byte("k"))
	if p != nil {
		b.Environment(p)
	}
	return b.MustBuild()
}

func TestEnvironmentReachesToolsDeclaringTheCapability(t *testing.T) {
	v := env.NewVirtual("docs").WithFile("README.md", "hello")
	read := map[string]any{"path": "README.md"}
	if got := callFile(t, fileAgent(t, true, v, read).NewSession()); got != "docs:hello" {
		t.Fatalf("a tool declaring the capability read %q", got)
	}
	if got := callFile(t, fileAgent(t, false, v, read).NewSession()); got != "no environment" {
		t.Fatalf("a filtered tool not declaring the capability got the provider: %q", got)
	}
	if got := callFile(t, fileAgent(t, true, nil, read).NewSession()); got != "no environment" {
		t.Fatalf("an agent without an environment: %q", got)
	}
}

func TestSessionsGetTheirOwnVirtualEnvironment(t *testing.T) {
	v := env.NewVirtual("docs").WithFile("README.md", "hello")
	write := map[string]any{"path": "new.txt", "write": "mine"}
	read := map[string]any{"path": "new.txt"}
	a := fileAgent(t, true, v, write, read)
	s1 := a.NewSession()
	if got := callFile(t, s1); got != "written" {
		t.Fatal(got)
	}
	if _, err := v.ReadFile(context.Background(), "new.txt", 0, -1); !errors.Is(err, env.ErrNotFound) {
		t.Fatalf("a session wrote into the agent's provider: %v", err)
	}
	if got := callFile(t, s1); got != "docs:mine" {
		t.Fatalf("the session reads back its write: %q", got)
	}
	s2 := a.NewSession()
	if _, err := s2.Environment().ReadFile(context.Background(), "new.txt", 0, -1); !errors.Is(err, env.ErrNotFound) {
		t.Fatalf("another session sees the first one's file: %v", err)
	}
}

func TestSetEnvironmentReplacesTheDefault(t *testing.T) {
	read := map[string]any{"path": "a.txt"}
	a := fileAgent(t, true, env.NewVirtual("default").WithFile("a.txt", "d"), read, read)
	s := a.NewSession()
	dir := t.TempDir()
	if err := os.WriteFile(dir+"/a.txt", []byte("local"), 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := env.NewLocal(dir, env.LocalOptions{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	s.SetEnvironment(l)
	if got := callFile(t, s); got != "local:local" {
		t.Fatalf("after SetEnvironment: %q", got)
	}
	if s.Environment() != env.Provider(l) {
		t.Fatal("Environment does not return the provider set")
	}
	s.SetEnvironment(nil)
	if got := callFile(t, s); got != "no environment" {
		t.Fatalf("after SetEnvironment(nil): %q", got)
	}
}

func TestVirtualEnvironmentTravelsWithExportedState(t *testing.T) {
	write := map[string]any{"path": "notes/n.txt", "write": "remember"}
	read := map[string]any{"path": "notes/n.txt"}
	a := fileAgent(t, true, env.NewVirtual("docs"), write, read)
	s := a.NewSession()
	if got := callFile(t, s); got != "written" {
		t.Fatal(got)
	}
	data, err := s.ExportState()
	if err != nil {
		t.Fatal(err)
	}
	r, err := a.SessionFromState(data)
	if err != nil {
		t.Fatal(err)
	}
	b, err := r.Environment().ReadFile(context.Background(), "notes/n.txt", 0, -1)
	if err != nil || string(b) != "remember" || r.Environment().ID() != "docs" {
		t.Fatalf("the restored environment: %q, %v", b, err)
	}

	// A read-only virtual provider stays read-only.
	s2 := a.NewSession()
	s2.SetEnvironment(env.NewVirtual("ro").WithFile("x", "y").ReadOnly())
	data, err = s2.ExportState()
	if err != nil {
		t.Fatal(err)
	}
	r2, err := a.SessionFromState(data)
	if err != nil {
		t.Fatal(err)
	}
	if err := r2.Environment().WriteFile(context.Background(), "x", nil, env.WriteOptions{}); !errors.Is(err, env.ErrAccessDenied) {
		t.Fatalf("a restored read-only environment accepted a write: %v", err)
	}
}

func TestLocalEnvironmentIsNotExported(t *testing.T) {
	l, err := env.NewLocal(t.TempDir(), env.LocalOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	a := fileAgent(t, true, l)
	data, err := a.NewSession().ExportState()
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(data, []byte(`environment`)) {
		t.Fatalf("a local provider was exported: %s", data)
	}
	r, err := a.SessionFromState(data)
	if err != nil {
		t.Fatal(err)
	}
	if r.Environment() != env.Provider(l) {
		t.Fatal("a restored session does not start with the agent's local provider")
	}
}

// Environment state of a kind that cannot be rebuilt is refused, not
// silently dropped.
func TestUnknownEnvironmentStateIsRefused(t *testing.T) {
	a := agent.NewBuilder(model.NewTestModel()).MustBuild()
	s := a.NewSession()
	s.SetEnvironment(env.NewVirtual("v"))
	data, err := s.ExportState()
	if err != nil {
		t.Fatal(err)
	}
	var envelope map[string]json.RawMessage
	_ = json.Unmarshal(data, &envelope)
	var st map[string]any
	_ = json.Unmarshal(envelope["state"], &st)
	st["environment"].(map[string]any)["kind"] = "sandbox"
	raw, _ := json.Marshal(st)
	sum := sha256.Sum256(raw)
	envelope["state"] = raw
	envelope["digest"], _ = json.Marshal("sha256:" + hex.EncodeToString(sum[:]))
	data, _ = json.Marshal(envelope)
	_, err = a.SessionFromState(data, agent.AllowUnsigned())
	if !errors.Is(err, agent.ErrState) || !strings.Contains(err.Error(), "sandbox") {
		t.Fatalf("restore of an unknown environment kind: %v", err)
	}
}
