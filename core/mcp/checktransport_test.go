package mcp_test

import (
	"errors"
	"reflect"
	"testing"

	"github.com/starweaver-go/starweaver/core/mcp"
)

func TestCheckTransport(t *testing.T) {
	stdio := mcp.Stdio("srv", "--x").WithEnv(map[string]string{"K": "v"}).WithDir("/tmp")
	got, err := mcp.CheckTransport("docs", mcp.Transport{Kind: "stdio", Command: "srv", Args: []string{"--x"}, Env: map[string]string{"K": "v"}, Dir: "/tmp", Headers: map[string]string{}})
	if err != nil || !reflect.DeepEqual(got, stdio) {
		t.Fatalf("stdio: %+v %v", got, err)
	}
	http := mcp.StreamableHTTP("http://h/mcp", map[string]string{"A": "b"})
	got, err = mcp.CheckTransport("docs", mcp.Transport{Kind: "streamable_http", URL: "http://h/mcp", Headers: map[string]string{"A": "b"}, Args: []string{}})
	if err != nil || !reflect.DeepEqual(got, http) {
		t.Fatalf("streamable_http: %+v %v", got, err)
	}
	for _, c := range []struct {
		t    mcp.Transport
		want string
	}{
		{mcp.Transport{Kind: "stdio", Command: "c", URL: "http://h"}, `toolset "docs": a stdio transport takes no url or headers`},
		{mcp.Transport{Kind: "stdio", Command: "c", Headers: map[string]string{"A": "b"}}, `toolset "docs": a stdio transport takes no url or headers`},
		{mcp.Transport{Kind: "streamable_http", URL: "http://h", Dir: "/"}, `toolset "docs": a streamable_http transport takes no command, args, env or cwd`},
		{mcp.Transport{Kind: "sse", URL: "http://h"}, `toolset "docs": unknown MCP transport kind "sse"`},
		{mcp.Transport{}, `toolset "docs": unknown MCP transport kind ""`},
	} {
		_, err := mcp.CheckTransport("docs", c.t)
		if err == nil || err.Error() != c.want || !errors.Is(err, mcp.ErrConfig) {
			t.Errorf("%+v: %v, want %q", c.t, err, c.want)
		}
	}
}
