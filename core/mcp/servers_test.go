package mcp_test

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/starweaver-go/starweaver/core/mcp"
)

// The tests run against real MCP servers that nobody here wrote:
//
//   - @modelcontextprotocol/server-everything (npm, stdio), found through
//     STARWEAVER_MCP_EVERYTHING (the path of its mcp-server-everything
//     executable) or in .ci/cache/mcp-npm, where .ci/run installs it;
//   - mcp-server-time (PyPI, stdio: python -m mcp_server_time) and a small
//     server written with the Python mcp package
//     (python/tests/fixtures/mcp_http_server.py, streamable HTTP), both run
//     by the Python named by STARWEAVER_MCP_PYTHON (default python3).
//
// Without them the tests skip, saying how to install them, unless
// STARWEAVER_REQUIRE_MCP is set (CI sets it): then they fail.

var root = func() string {
	dir, _ := filepath.Abs(filepath.Join("..", ".."))
	return dir
}()

func needServers(t *testing.T, msg string) {
	t.Helper()
	msg += " (run .ci/run, or: npm install --prefix .ci/cache/mcp-npm @modelcontextprotocol/server-everything; pip install mcp mcp-server-time)"
	if os.Getenv("STARWEAVER_REQUIRE_MCP") != "" {
		t.Fatal(msg)
	}
	t.Skip(msg)
}

// everything returns the transport of server-everything.
func everything(t *testing.T) mcp.Transport {
	t.Helper()
	bin := os.Getenv("STARWEAVER_MCP_EVERYTHING")
	if bin == "" {
		bin = filepath.Join(root, ".ci", "cache", "mcp-npm", "node_modules", ".bin", "mcp-server-everything")
	}
	if _, err := os.Stat(bin); err != nil {
		needServers(t, "MCP tests need @modelcontextprotocol/server-everything: "+err.Error())
	}
	if _, err := exec.LookPath("node"); err != nil {
		needServers(t, "MCP tests need node for server-everything")
	}
	return mcp.Stdio(bin, "stdio")
}

var pythonCheck struct {
	once sync.Once
	err  error
}

// python returns the Python that runs the Python servers.
func python(t *testing.T) string {
	t.Helper()
	py := os.Getenv("STARWEAVER_MCP_PYTHON")
	if py == "" {
		py = "python3"
	}
	pythonCheck.once.Do(func() {
		out, err := exec.Command(py, "-c", "import mcp_server_time, mcp.server.mcpserver").CombinedOutput()
		if err != nil {
			pythonCheck.err = fmt.Errorf("%s cannot import mcp_server_time and mcp: %v: %s", py, err, strings.TrimSpace(string(out)))
		}
	})
	if pythonCheck.err != nil {
		needServers(t, "MCP tests need the Python packages mcp and mcp-server-time: "+pythonCheck.err.Error())
	}
	return py
}

// timeServer returns the transport of mcp-server-time.
func timeServer(t *testing.T) mcp.Transport {
	return mcp.Stdio(python(t), "-m", "mcp_server_time")
}

// httpServer starts the fixture server on a free port and returns its URL;
// the server is killed when t ends.
func httpServer(t *testing.T) string {
	t.Helper()
	py := python(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	script := filepath.Join(root, "python", "tests", "fixtures", "mcp_http_server.py")
	cmd := exec.Command(py, script, fmt.Sprint(port))
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-exited
	})
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	deadline := time.Now().Add(60 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			c.Close()
			return "http://" + addr + "/mcp"
		}
		select {
		case <-exited:
			t.Fatalf("the MCP fixture server exited: %s", out.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("the MCP fixture server did not listen on %s within 60s", addr)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
