package bridge

import (
	"context"
	"sync"
)

// lifecycle holds the root context every run derives from; sw_shutdown
// cancels it and refuses further runs.
var lifecycle = struct {
	once   sync.Once
	ctx    context.Context
	cancel context.CancelFunc
	mu     sync.Mutex
	down   bool
}{}

func rootContext() (context.Context, bool) {
	lifecycle.once.Do(func() {
		lifecycle.ctx, lifecycle.cancel = context.WithCancel(context.Background())
	})
	lifecycle.mu.Lock()
	defer lifecycle.mu.Unlock()
	return lifecycle.ctx, !lifecycle.down
}

func shutdown() {
	rootContext()
	lifecycle.mu.Lock()
	lifecycle.down = true
	lifecycle.mu.Unlock()
	lifecycle.cancel()
	closeShells()
}
