//go:build unix

package mcp_test

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/starweaver-go/starweaver/core/mcp"
)

// A server command that starts children of its own (as npx starts node)
// leaves none of them running once the toolset stops it.
func TestStoppingAServerStopsWhatItStarted(t *testing.T) {
	py := python(t)
	pidFile := filepath.Join(t.TempDir(), "child.pid")
	script := `sleep 300 & echo $! > "$1"; exec "$2" -m mcp_server_time`
	ts := open(t, "time", mcp.Stdio("/bin/sh", "-c", script, "sh", pidFile, py), mcp.Options{})
	ctx := context.Background()
	if err := ts.Enter(ctx, nil); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	if !running(pid) {
		t.Fatalf("the server's child %d is not running while the server is", pid)
	}
	if err := ts.Exit(ctx, nil); err != nil {
		t.Fatal(err)
	}
	// The kill is sent before Exit returns; the kernel may take a moment
	// to finish the process, which is what this bounded wait is for.
	deadline := time.Now().Add(10 * time.Second)
	for running(pid) {
		if time.Now().After(deadline) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("the server's child %d outlived the server", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// running reports whether pid is a live process (a zombie is not).
func running(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true // no /proc: the signal check is all there is
	}
	fields := strings.Fields(string(stat))
	return len(fields) < 3 || fields[2] != "Z"
}
