package mcp

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/starweaver-go/starweaver/core/internal/optionerr"
	"github.com/starweaver-go/starweaver/core/internal/spawn"
)

// Transport kinds, as they appear in the mcp_transport metadata key and in
// the "kind" field of a serialised transport.
const (
	TransportStdio          = "stdio"
	TransportStreamableHTTP = "streamable_http"
)

// Transport says how to reach an MCP server: a command started as a child
// process that speaks MCP over its stdin and stdout (Stdio), or a
// streamable HTTP endpoint (StreamableHTTP). Build it with those
// constructors and the With methods; the zero value is no transport and
// makes every connection fail.
type Transport struct {
	// Kind is TransportStdio or TransportStreamableHTTP.
	Kind string
	// Command, Args, Env and Dir describe a stdio server's process. Env
	// is added to the environment the process inherits (a key given here
	// wins); Dir "" is the current directory.
	Command string
	Args    []string
	Env     map[string]string
	Dir     string
	// URL and Headers describe a streamable HTTP server; the headers are
	// sent with every request.
	URL     string
	Headers map[string]string
}

// Stdio returns the transport of a server started as command with args.
func Stdio(command string, args ...string) Transport {
	return Transport{Kind: TransportStdio, Command: command, Args: args}
}

// StreamableHTTP returns the transport of a server at rawURL; headers may
// be nil.
func StreamableHTTP(rawURL string, headers map[string]string) Transport {
	return Transport{Kind: TransportStreamableHTTP, URL: rawURL, Headers: headers}
}

// WithEnv returns t whose process environment also holds env.
func (t Transport) WithEnv(env map[string]string) Transport {
	t.Env = env
	return t
}

// WithDir returns t whose process starts in dir.
func (t Transport) WithDir(dir string) Transport {
	t.Dir = dir
	return t
}

// CheckTransport checks a transport a host described field by field, for
// the toolset id, before New: its kind must be TransportStdio or
// TransportStreamableHTTP, and it must set no field of the other kind (a
// stdio transport takes no URL or Headers, a streamable HTTP one no
// Command, Args, Env or Dir; empty ones are dropped). It returns t with
// the fields of its kind only. Its errors match [ErrConfig] and read as
// hosts show them (`toolset "docs": unknown MCP transport kind "sse"`);
// New still checks what Validate checks (a command, an http(s) URL).
func CheckTransport(id string, t Transport) (Transport, error) {
	switch t.Kind {
	case TransportStdio:
		if t.URL != "" || len(t.Headers) > 0 {
			return Transport{}, optionerr.New(ErrConfig, "toolset %q: a stdio transport takes no url or headers", id)
		}
		return Transport{Kind: t.Kind, Command: t.Command, Args: t.Args, Env: t.Env, Dir: t.Dir}, nil
	case TransportStreamableHTTP:
		if t.Command != "" || len(t.Args) > 0 || len(t.Env) > 0 || t.Dir != "" {
			return Transport{}, optionerr.New(ErrConfig, "toolset %q: a streamable_http transport takes no command, args, env or cwd", id)
		}
		return Transport{Kind: t.Kind, URL: t.URL, Headers: t.Headers}, nil
	}
	return Transport{}, optionerr.New(ErrConfig, "toolset %q: unknown MCP transport kind %q", id, t.Kind)
}

// Validate returns an error unless t is a complete transport of a known
// kind: a stdio transport with a command, or a streamable HTTP transport
// with an http(s) URL.
func (t Transport) Validate() error {
	switch t.Kind {
	case TransportStdio:
		if strings.TrimSpace(t.Command) == "" {
			return errors.New("a stdio transport needs a command")
		}
		return nil
	case TransportStreamableHTTP:
		u, err := url.Parse(t.URL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fmt.Errorf("a streamable_http transport needs an http or https URL, got %q", t.URL)
		}
		return nil
	case "":
		return errors.New("no transport")
	}
	return fmt.Errorf("unknown transport kind %q (want %q or %q)", t.Kind, TransportStdio, TransportStreamableHTTP)
}

// String describes the transport for errors, without header values or
// environment values (they may hold secrets).
func (t Transport) String() string {
	switch t.Kind {
	case TransportStdio:
		return "stdio " + strings.Join(append([]string{t.Command}, t.Args...), " ")
	case TransportStreamableHTTP:
		return "streamable_http " + t.URL
	}
	return t.Kind
}

// stderrLimit is how much of a stdio server's standard error is kept, for
// the error of a server that fails to start.
const stderrLimit = 4 << 10

// waitDelay bounds how long stopping a stdio server waits for its output
// pipes once the process has exited (a grandchild may hold them open).
const waitDelay = 2 * time.Second

// terminateAfter is how long Close waits, after closing a stdio server's
// input, before it signals the process to stop.
const terminateAfter = 2 * time.Second

// sdkTransport returns the SDK transport for t and, for stdio servers, the
// buffer collecting the tail of the server's standard error and the
// server's command (started by the SDK in its own process group).
func (t Transport) sdkTransport() (sdk.Transport, *tailBuffer, *exec.Cmd) {
	switch t.Kind {
	case TransportStdio:
		cmd := exec.Command(t.Command, t.Args...)
		cmd.Dir = t.Dir
		if len(t.Env) > 0 {
			env := os.Environ()
			for k, v := range t.Env {
				env = append(env, k+"="+v)
			}
			cmd.Env = env
		}
		tail := &tailBuffer{}
		cmd.Stderr = tail
		cmd.WaitDelay = waitDelay
		ownGroup(cmd)
		spawn.DieWithHost(cmd)
		return onSpawnThread{&sdk.CommandTransport{Command: cmd, TerminateDuration: terminateAfter}}, tail, cmd
	default:
		client := &http.Client{Transport: headerTransport{headers: t.Headers, base: http.DefaultTransport}}
		return &sdk.StreamableClientTransport{Endpoint: t.URL, HTTPClient: client, MaxRetries: -1}, nil, nil
	}
}

// onSpawnThread connects (starts the server) on the thread that starts
// every child, so that the server's parent-death signal fires when the
// host process dies and at no other time (see core/internal/spawn).
type onSpawnThread struct{ sdk.Transport }

func (t onSpawnThread) Connect(ctx context.Context) (sdk.Connection, error) {
	var conn sdk.Connection
	var err error
	spawn.Do(func() { conn, err = t.Transport.Connect(ctx) })
	return conn, err
}

// headerTransport adds fixed headers to every request.
type headerTransport struct {
	headers map[string]string
	base    http.RoundTripper
}

func (h headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if len(h.headers) > 0 {
		r = r.Clone(r.Context())
		for k, v := range h.headers {
			r.Header.Set(k, v)
		}
	}
	return h.base.RoundTrip(r)
}

// tailBuffer keeps the last stderrLimit bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	buf []byte
}

func (b *tailBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf = append(b.buf, p...)
	if over := len(b.buf) - stderrLimit; over > 0 {
		b.buf = append(b.buf[:0], b.buf[over:]...)
	}
	return len(p), nil
}

// String returns the kept output, trimmed.
func (b *tailBuffer) String() string {
	if b == nil {
		return ""
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return strings.TrimSpace(string(b.buf))
}

// startError adds what a stdio server wrote to its standard error, if
// anything, to err.
func startError(err error, tail *tailBuffer) error {
	if s := tail.String(); s != "" {
		err = fmt.Errorf("%w; the server's stderr ends with: %s", err, s)
	}
	return err
}
