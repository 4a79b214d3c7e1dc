package spawn

import (
	"fmt"
	"os/exec"
	"runtime"
	"sync"
)

var (
	once sync.Once
	work chan func()
)

// thread runs the submitted functions, one at a time, on a thread it
// never unlocks and never leaves.
func thread() {
	runtime.LockOSThread()
	for f := range work {
		f()
	}
}

// Do runs f on the spawning thread and returns when f has returned; a
// panic in f is re-raised in the caller. f must not block for long (every
// start waits for it) and must not call Do.
func Do(f func()) {
	once.Do(func() {
		work = make(chan func())
		go thread()
	})
	var panicked any
	done := make(chan struct{})
	work <- func() {
		defer close(done)
		defer func() { panicked = recover() }()
		f()
	}
	<-done
	if panicked != nil {
		panic(fmt.Sprintf("spawn: %v", panicked))
	}
}

// Start prepares cmd to die with the host (see [DieWithHost]) and starts it
// on the spawning thread.
func Start(cmd *exec.Cmd) error {
	DieWithHost(cmd)
	var err error
	Do(func() { err = cmd.Start() })
	return err
}
