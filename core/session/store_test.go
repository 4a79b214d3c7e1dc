package session_test

import (
	"testing"

	"github.com/starweaver-go/starweaver/core/session"
	"github.com/starweaver-go/starweaver/core/session/sessiontest"
)

func TestMemoryStoreConformance(t *testing.T) {
	sessiontest.Run(t, func(*testing.T) session.Store { return &session.MemoryStore{} })
}

// The adapter passes both calls through, so a host's own storage passes
// the same suite.
func TestStoreFuncsConformance(t *testing.T) {
	sessiontest.Run(t, func(*testing.T) session.Store {
		m := &session.MemoryStore{}
		return session.StoreFuncs{LoadFunc: m.Load, SaveFunc: m.Save}
	})
}
