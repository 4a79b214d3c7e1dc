package postgres_test

import (
	"testing"

	"github.com/starweaver-go/starweaver/core/agent/sessionstoretest"
	"github.com/starweaver-go/starweaver/core/session"
	"github.com/starweaver-go/starweaver/core/session/sessiontest"
	"github.com/starweaver-go/starweaver/core/store/postgres"
	"github.com/starweaver-go/starweaver/core/store/postgres/pgtest"
)

func TestSessionStoreConformance(t *testing.T) {
	sessiontest.Run(t, func(t *testing.T) session.Store {
		return postgres.NewSessionStore(openDB(t, pgtest.DSN(t)))
	})
}

// Two pools on one database, as two worker processes hold them: worker a's
// waiting run is approved and finished by worker b, and concurrent
// approvals from both run the approved call once.
func TestSessionStoreDurableAcrossWorkers(t *testing.T) {
	sessionstoretest.RunDurable(t, func(t *testing.T) (session.Store, session.Store) {
		dsn := pgtest.DSN(t)
		return postgres.NewSessionStore(openDB(t, dsn)), postgres.NewSessionStore(openDB(t, dsn))
	})
}
