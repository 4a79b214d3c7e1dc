package bridge

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"sync"

	"github.com/starweaver-go/starweaver/core/agent"
	coresession "github.com/starweaver-go/starweaver/core/session" // capi tests declare a session helper
	"github.com/starweaver-go/starweaver/core/store/postgres"
	"github.com/starweaver-go/starweaver/core/store/sqlite"
)

// storeSpec is the JSON given to sw_store_open: a database of the durable
// stores (sessions now; artifacts and effects keep their tables in the
// same database).
type storeSpec struct {
	Kind string `json:"kind"`
	// Path is the SQLite file (created if needed); ":memory:" is a private
	// in-memory database.
	Path string `json:"path"`
	// DSN is the PostgreSQL connection string; it never appears in errors.
	DSN string `json:"dsn"`
}

// database is one open database, shared by every store handle of the same
// kind and location in the process (and by the agents using them), so
// that the stores of several concerns and several agents use one pool and
// migrate once. refs counts its users; the last release closes it.
type database struct {
	key   string
	ready chan struct{} // closed once the open finished (err tells how)
	err   error

	sqlite   *sqlite.DB
	postgres *postgres.DB
	refs     int // guarded by databases.mu
}

// databases is the process's open databases by key.
var databases = struct {
	mu   sync.Mutex
	m    map[string]*database
	next int // numbers private in-memory databases
}{m: map[string]*database{}}

// storeHandle is what a store handle refers to: one reference to a shared
// database, given up when the handle is released.
type storeHandle struct {
	db   *database
	once sync.Once
}

// release gives up the handle's reference (once, whatever the callers).
func (h *storeHandle) release() { h.once.Do(h.db.release) }

// openStore opens (or shares) the database a spec names.
func openStore(s storeSpec) (*storeHandle, error) {
	ctx, ok := rootContext()
	if !ok {
		return nil, &abiError{Type: "state", Message: "the runtime is shut down"}
	}
	var key string
	var open func(context.Context, *database) error
	switch s.Kind {
	case "sqlite":
		if s.Path == "" {
			return nil, specError(`a "sqlite" store needs a "path"`)
		}
		path := s.Path
		if path == ":memory:" {
			databases.mu.Lock()
			databases.next++
			key = fmt.Sprintf("sqlite:memory:%d", databases.next)
			databases.mu.Unlock()
		} else {
			abs, err := filepath.Abs(path)
			if err != nil {
				return nil, specError("sqlite store path %q: %v", path, err)
			}
			path, key = abs, "sqlite:"+abs
		}
		open = func(ctx context.Context, d *database) (err error) {
			d.sqlite, err = sqlite.Open(ctx, path)
			return err
		}
	case "postgres":
		if s.DSN == "" {
			return nil, specError(`a "postgres" store needs a "dsn"`)
		}
		key = "postgres:" + s.DSN
		open = func(ctx context.Context, d *database) (err error) {
			d.postgres, err = postgres.Open(ctx, s.DSN)
			return err
		}
	default:
		return nil, specError("unknown store kind %q (want \"sqlite\" or \"postgres\")", s.Kind)
	}
	d, err := acquireDatabase(ctx, key, open)
	if err != nil {
		return nil, &abiError{Type: "store_unavailable", Message: err.Error()}
	}
	return &storeHandle{db: d}, nil
}

// acquireDatabase returns the open database of key with one more
// reference, opening it when no one holds it. Callers asking for a key
// being opened wait for that open rather than open it twice.
func acquireDatabase(ctx context.Context, key string, open func(context.Context, *database) error) (*database, error) {
	databases.mu.Lock()
	d := databases.m[key]
	if d != nil {
		d.refs++
		databases.mu.Unlock()
		<-d.ready
		if d.err != nil {
			return nil, d.err // a failed open was never counted: nothing to release
		}
		return d, nil
	}
	d = &database{key: key, ready: make(chan struct{}), refs: 1}
	databases.m[key] = d
	databases.mu.Unlock()

	d.err = open(ctx, d)
	if d.err != nil {
		databases.mu.Lock()
		delete(databases.m, key)
		databases.mu.Unlock()
	}
	close(d.ready)
	if d.err != nil {
		return nil, d.err
	}
	return d, nil
}

// acquire adds a reference to an open database.
func (d *database) acquire() {
	databases.mu.Lock()
	d.refs++
	databases.mu.Unlock()
}

// release drops a reference; the last one closes the database.
func (d *database) release() {
	databases.mu.Lock()
	d.refs--
	last := d.refs == 0
	if last && databases.m[d.key] == d {
		delete(databases.m, d.key)
	}
	databases.mu.Unlock()
	if !last {
		return
	}
	if d.sqlite != nil {
		_ = d.sqlite.Close() // nothing to report to: its users are gone
	}
	if d.postgres != nil {
		d.postgres.Close()
	}
}

// openDatabases counts the open databases, for tests.
func openDatabases() int {
	databases.mu.Lock()
	defer databases.mu.Unlock()
	return len(databases.m)
}

// heldSessionStore is the session store an agent uses. It holds a
// reference to its database for as long as the agent (or a session of
// it) can reach it, so releasing the store handle never closes the
// database under an agent: the reference is dropped when the store is
// garbage collected.
type heldSessionStore struct {
	coresession.Store
}

// sessionStore returns the session store of the handle's database, with a
// reference of its own (see heldSessionStore).
func (h *storeHandle) sessionStore() coresession.Store {
	d := h.db
	var st coresession.Store
	if d.sqlite != nil {
		st = sqlite.NewSessionStore(d.sqlite)
	} else {
		st = postgres.NewSessionStore(d.postgres)
	}
	held := &heldSessionStore{Store: st}
	d.acquire()
	runtime.AddCleanup(held, (*database).release, d)
	return held
}

// useSessionStore gives b the session store of the store handle h (an
// agent spec's "session_store"; 0 for none).
func useSessionStore(b *agent.Builder, h int64) error {
	if h == 0 {
		return nil
	}
	st, err := lookup[*storeHandle](h)
	if err != nil {
		return err
	}
	b.SessionStore(st.sessionStore())
	return nil
}
