package spawn

import (
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A child started from a thread that then ends keeps running: the start
// ran on the spawning thread, whose end alone would fire Pdeathsig.
func TestChildOutlivesTheThreadThatAskedForIt(t *testing.T) {
	cmd := exec.Command("sleep", "30")
	// sentinel is forked by the asking thread itself: its death says the
	// thread has ended.
	sentinel := exec.Command("sleep", "30")
	DieWithHost(sentinel)
	started := make(chan error, 2)
	onEndingThread(func() {
		started <- Start(cmd)
		started <- sentinel.Start()
	})
	for range 2 {
		if err := <-started; err != nil {
			t.Fatal(err)
		}
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	if cmd.SysProcAttr == nil || cmd.SysProcAttr.Pdeathsig != syscall.SIGKILL {
		t.Fatalf("Pdeathsig not set: %+v", cmd.SysProcAttr)
	}
	waited := make(chan error, 1)
	go func() { waited <- sentinel.Wait() }()
	select {
	case <-waited:
	case <-time.After(10 * time.Second):
		_ = sentinel.Process.Kill()
		t.Fatal("the asking thread's own child outlived it by 10 s")
	}
	if !alive(cmd.Process.Pid) {
		t.Fatal("the child died with the thread that asked for it")
	}
}

// The parent-death signal is really set: a child of a thread that forked
// it directly and then ended dies (the behaviour Start guards against).
func TestPdeathsigFiresWhenTheForkingThreadEnds(t *testing.T) {
	cmd := exec.Command("sleep", "30")
	DieWithHost(cmd)
	started := make(chan error, 1)
	onEndingThread(func() { started <- cmd.Start() })
	if err := <-started; err != nil {
		t.Fatal(err)
	}
	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()
	select {
	case <-waited:
	case <-time.After(10 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatal("the child outlived its forking thread by 10 s")
	}
}

func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	f := strings.Fields(string(b))
	return len(f) > 2 && f[2] != "Z"
}

func TestDoReraisesAPanic(t *testing.T) {
	defer func() {
		if r := recover(); r == nil || !strings.Contains(r.(string), "boom") {
			t.Fatalf("recovered %v", r)
		}
	}()
	Do(func() { panic("boom") })
}

// onEndingThread runs f on a thread that ends when f returns: a goroutine
// that exits locked to its thread takes the thread with it, except the
// main thread, which the runtime keeps (so that one is not used).
func onEndingThread(f func()) {
	for {
		ran := make(chan bool)
		go func() {
			runtime.LockOSThread()
			if syscall.Gettid() == os.Getpid() {
				runtime.UnlockOSThread()
				ran <- false
				return
			}
			f()
			ran <- true
		}()
		if <-ran {
			return
		}
	}
}
