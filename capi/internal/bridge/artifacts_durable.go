package bridge

import (
	"runtime"

	"github.com/starweaver-go/starweaver/core/artifact"
	"github.com/starweaver-go/starweaver/core/store/postgres"
	"github.com/starweaver-go/starweaver/core/store/sqlite"
)

// heldArtifactStore is an artifact store in a shared database (see
// database in store.go). It holds a reference to the database for as long
// as anything can reach it: the artifact store handle, and every agent
// built with it, so releasing the store handle or the artifact store
// handle never closes the database under an agent. The reference is
// dropped when the store is garbage collected, as heldSessionStore's is.
type heldArtifactStore struct {
	artifact.Store
}

// databaseArtifactStore builds the artifact store of kind ("sqlite" or
// "postgres") in the database of the store handle h.
//
// The store is named by a handle rather than by a path or a DSN so that
// sw_store_open stays the one way a database is opened (and refused), and
// an artifact store over ":memory:" can share the session store's private
// database.
func databaseArtifactStore(kind string, h int64, cfg artifact.Config) (*artifactStore, error) {
	if h == 0 {
		return nil, specError(`a %q artifact store needs a "store" (a handle from sw_store_open)`, kind)
	}
	sh, err := lookup[*storeHandle](h)
	if err != nil {
		return nil, err
	}
	d := sh.db
	var st artifact.Store
	switch {
	case kind == "sqlite" && d.sqlite != nil:
		st = sqlite.NewArtifactStore(d.sqlite, cfg)
	case kind == "postgres" && d.postgres != nil:
		st = postgres.NewArtifactStore(d.postgres, cfg)
	default:
		return nil, specError("store %d is not a %q store", h, kind)
	}
	if !holdDatabase(d) {
		// Its last handle was released between the lookup and now.
		return nil, &abiError{Type: "bad_handle", Message: "the store was released"}
	}
	held := &heldArtifactStore{Store: st}
	runtime.AddCleanup(held, (*database).release, d)
	return &artifactStore{store: held}, nil
}

// holdDatabase adds a reference to d unless its last one is gone (the
// database is closed or closing), and reports whether it did.
func holdDatabase(d *database) bool {
	databases.mu.Lock()
	defer databases.mu.Unlock()
	if d.refs == 0 {
		return false
	}
	d.refs++
	return true
}
