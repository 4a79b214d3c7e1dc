package agent_test

import (
	"testing"

	"github.com/starweaver-go/starweaver/core/agent"
	"github.com/starweaver-go/starweaver/core/agent/sessionstoretest"
)

func TestMemorySessionStoreConformance(t *testing.T) {
	sessionstoretest.Run(t, func(*testing.T) agent.SessionStore { return &agent.MemorySessionStore{} })
}

// The adapter passes both calls through, so a host's own storage passes
// the same suite.
func TestSessionStoreFuncsConformance(t *testing.T) {
	sessionstoretest.Run(t, func(*testing.T) agent.SessionStore {
		m := &agent.MemorySessionStore{}
		return agent.SessionStoreFuncs{LoadFunc: m.Load, SaveFunc: m.Save}
	})
}
