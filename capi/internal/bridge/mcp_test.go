package bridge

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/starweaver-go/starweaver/core/mcp"
	"github.com/starweaver-go/starweaver/core/tool"
	"github.com/starweaver-go/starweaver/core/toolset"
)

func buildMCP(t *testing.T, spec string) (toolset.Toolset, error) {
	t.Helper()
	var specs []toolsetSpec
	if err := decodeStrict([]byte(spec), &specs); err != nil {
		return nil, err
	}
	sets, err := buildToolsets(specs)
	if err != nil {
		return nil, err
	}
	return sets[0], nil
}

func TestMCPSpecDecodesTheTransport(t *testing.T) {
	ts, err := buildMCP(t, `[{"name":"fs","tools":[],"kind":"mcp","mcp":{"transport":{"kind":"stdio","command":"srv","args":["-v"],"env":{"A":"1"},"cwd":"/tmp"},"tool_prefix":"fs","cache_tools":false,"init_timeout_ms":500}}]`)
	if err != nil {
		t.Fatal(err)
	}
	m := ts.(*mcp.Toolset)
	want := mcp.Stdio("srv", "-v").WithEnv(map[string]string{"A": "1"}).WithDir("/tmp")
	if !reflect.DeepEqual(m.Transport(), want) || m.ID() != "fs" {
		t.Errorf("transport %+v, id %q", m.Transport(), m.ID())
	}
	ts, err = buildMCP(t, `[{"name":"web","id":"web-1","timeout_ms":250,"kind":"mcp","mcp":{"transport":{"kind":"streamable_http","url":"http://127.0.0.1:1/mcp","headers":{"Authorization":"Bearer x"}}}}]`)
	if err != nil {
		t.Fatal(err)
	}
	m = ts.(*mcp.Toolset)
	if !reflect.DeepEqual(m.Transport(), mcp.StreamableHTTP("http://127.0.0.1:1/mcp", map[string]string{"Authorization": "Bearer x"})) ||
		m.ID() != "web-1" || m.Defaults().Timeout.Milliseconds() != 250 {
		t.Errorf("transport %+v, id %q, defaults %+v", m.Transport(), m.ID(), m.Defaults())
	}
}

func TestMCPSpecErrors(t *testing.T) {
	for spec, want := range map[string]string{
		`[{"name":"x","kind":"mcp"}]`:                                                                        `needs an "mcp" object`,
		`[{"name":"x","mcp":{"transport":{"kind":"stdio","command":"c"}}}]`:                                  `needs "kind": "mcp"`,
		`[{"name":"x","kind":"lsp"}]`:                                                                        `unknown kind "lsp"`,
		`[{"name":"x","kind":"mcp","mcp":{"transport":{"kind":"sse","url":"http://h"}}}]`:                    `unknown MCP transport kind "sse"`,
		`[{"name":"x","kind":"mcp","mcp":{"transport":{"kind":"stdio"}}}]`:                                   `needs a command`,
		`[{"name":"x","kind":"mcp","mcp":{"transport":{"kind":"streamable_http"}}}]`:                         `http or https URL`,
		`[{"name":"x","kind":"mcp","mcp":{"transport":{"kind":"stdio","url":"http://h"}}}]`:                  `takes no url`,
		`[{"name":"x","kind":"mcp","mcp":{"transport":{"kind":"stdio","command":"c"},"init_timeout_ms":0}}]`: `init_timeout_ms must be positive`,
		`[{"name":"x","kind":"mcp","mcp":{"transport":{"kind":"stdio","command":"c"},"bogus":1}}]`:           `unknown field "bogus"`,
	} {
		_, err := buildMCP(t, spec)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: err = %v, want %q", spec, err, want)
		}
	}
}

// everythingServer returns the path of server-everything's executable,
// skipping (failing under STARWEAVER_REQUIRE_MCP) without it; see
// core/mcp's servers_test.go.
func everythingServer(t *testing.T) string {
	t.Helper()
	bin := os.Getenv("STARWEAVER_MCP_EVERYTHING")
	if bin == "" {
		bin, _ = filepath.Abs(filepath.Join("..", ".ci", "cache", "mcp-npm", "node_modules", ".bin", "mcp-server-everything"))
	}
	_, statErr := os.Stat(bin)
	_, nodeErr := exec.LookPath("node")
	if statErr != nil || nodeErr != nil {
		msg := "MCP tests need node and @modelcontextprotocol/server-everything (run .ci/run)"
		if os.Getenv("STARWEAVER_REQUIRE_MCP") != "" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return bin
}

func TestMCPToolsetCallsTheServer(t *testing.T) {
	bin, _ := json.Marshal(everythingServer(t))
	ts, err := buildMCP(t, `[{"name":"everything","kind":"mcp","mcp":{"transport":{"kind":"stdio","command":`+string(bin)+`,"args":["stdio"]},"tool_prefix":"ev"}}]`)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ts.(*mcp.Toolset).Close() })
	r := &tool.Registry{}
	if err := toolset.Register(r, &tool.RunContext{}, ts); err != nil {
		t.Fatal(err)
	}
	ret := r.Execute(context.Background(), nil, tool.Call{ID: "c1", Name: "ev_echo", Arguments: json.RawMessage(`{"message":"capi"}`)})
	if ret.Content != "Echo: capi" {
		t.Fatalf("echo: %+v", ret)
	}
}
