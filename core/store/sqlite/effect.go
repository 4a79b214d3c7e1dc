package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/starweaver-go/starweaver/core/effect"
	"github.com/starweaver-go/starweaver/core/store"
)

// EffectStore keeps the effect journal (core/effect) in the
// starweaver_effects table. It implements effect.Store and
// effect.BatchStore.
//
// Its CompareAndSwap is group-committed (see effect.Batcher): the swaps of
// concurrent calls that queue while a transaction runs commit together in
// the next one, so a thousand parallel journaled calls cost a few
// transactions per round instead of one each. Reads go to the read pool
// and never wait for the writer.
//
// An EffectStore is safe for concurrent use; several EffectStores (and
// several processes) may share one database file, SQLite serialising
// their transactions.
type EffectStore struct {
	db      *DB
	batcher *effect.Batcher

	// stmts are prepared on first use: a journaled call is a few short
	// statements, and parsing them each time would cost as much as
	// running them.
	stmts   atomic.Pointer[effectStmts]
	stmtsMu sync.Mutex
}

type effectStmts struct {
	load, find               *sql.Stmt // read pool
	insert, update, revision *sql.Stmt // writer
}

var _ effect.BatchStore = (*EffectStore)(nil)

// NewEffectStore returns the effect journal kept in db.
func NewEffectStore(db *DB) *EffectStore {
	s := &EffectStore{db: db}
	s.batcher = effect.NewBatcher(s, 0)
	return s
}

// Stats reports how many swaps the store has group-committed, in how many
// transactions.
func (s *EffectStore) Stats() effect.BatchStats { return s.batcher.Stats() }

const effectColumns = `revision, record_json, input, output`

// statements returns the prepared statements, preparing them on first
// use (and again after a failure).
func (s *EffectStore) statements(ctx context.Context) (*effectStmts, error) {
	if st := s.stmts.Load(); st != nil {
		return st, nil
	}
	s.stmtsMu.Lock()
	defer s.stmtsMu.Unlock()
	if st := s.stmts.Load(); st != nil {
		return st, nil
	}
	var st effectStmts
	var prepared []*sql.Stmt
	for _, p := range []struct {
		dst   **sql.Stmt
		pool  *sql.DB
		query string
	}{
		{&st.load, s.db.Reader(), `SELECT ` + effectColumns + ` FROM starweaver_effects WHERE effect_id = ?`},
		{&st.find, s.db.Reader(), `SELECT ` + effectColumns + ` FROM starweaver_effects WHERE idempotency_key = ?`},
		// ON CONFLICT DO NOTHING: a create that meets an existing id or key
		// changes nothing and fails nothing else in its transaction.
		{&st.insert, s.db.Writer(), `INSERT INTO starweaver_effects
			(effect_id, idempotency_key, revision, record_json, input, output, updated_at_ms)
			VALUES (?, ?, 0, ?, ?, ?, ?) ON CONFLICT DO NOTHING`},
		// The key is fixed at creation: it is matched, never written.
		{&st.update, s.db.Writer(), `UPDATE starweaver_effects
			SET revision = ?, record_json = ?, input = ?, output = ?, updated_at_ms = ?
			WHERE effect_id = ? AND revision = ? AND idempotency_key IS ?`},
		{&st.revision, s.db.Writer(), `SELECT revision FROM starweaver_effects WHERE effect_id = ?`},
	} {
		stmt, err := p.pool.PrepareContext(ctx, p.query)
		if err != nil {
			for _, q := range prepared {
				q.Close()
			}
			return nil, fmt.Errorf("sqlite: effect store: prepare: %w", errors.Join(store.ErrUnavailable, err))
		}
		prepared = append(prepared, stmt)
		*p.dst = stmt
	}
	s.stmts.Store(&st)
	return &st, nil
}

// Load implements effect.Store.
func (s *EffectStore) Load(ctx context.Context, id string) (effect.Record, error) {
	st, err := s.statements(ctx)
	if err != nil {
		return effect.Record{}, err
	}
	rec, err := scanEffect(st.load.QueryRowContext(ctx, id))
	if err != nil {
		return effect.Record{}, fmt.Errorf("sqlite: load effect %q: %w", id, err)
	}
	return rec, nil
}

// FindByKey implements effect.Store.
func (s *EffectStore) FindByKey(ctx context.Context, key string) (effect.Record, error) {
	if key == "" {
		return effect.Record{}, fmt.Errorf("sqlite: find effect by the empty key: %w", effect.ErrNotFound)
	}
	st, err := s.statements(ctx)
	if err != nil {
		return effect.Record{}, err
	}
	rec, err := scanEffect(st.find.QueryRowContext(ctx, key))
	if err != nil {
		return effect.Record{}, fmt.Errorf("sqlite: find effect by key %q: %w", key, err)
	}
	return rec, nil
}

// CompareAndSwap implements effect.Store, group-committing with the swaps
// of concurrent callers.
func (s *EffectStore) CompareAndSwap(ctx context.Context, rec effect.Record, expected uint64) error {
	return s.batcher.CompareAndSwap(ctx, rec, expected)
}

// CompareAndSwapBatch implements effect.BatchStore: ops run in order in
// one write transaction. A lost swap changes nothing (an insert that
// meets an existing id or key does nothing; an update that meets another
// revision matches no row), so it never aborts the others.
func (s *EffectStore) CompareAndSwapBatch(ctx context.Context, ops []effect.Op) ([]error, error) {
	errs := make([]error, len(ops))
	rows := make([]effectRow, len(ops))
	pending := 0
	for i, op := range ops {
		if errs[i] = effect.CheckSwap(op.Record, op.Expected); errs[i] == nil {
			rows[i], errs[i] = encodeEffect(op.Record)
		}
		if errs[i] == nil {
			pending++
		}
	}
	if pending == 0 {
		return errs, nil
	}
	st, err := s.statements(ctx)
	if err != nil {
		return nil, err
	}
	now := time.Now().UnixMilli()
	if pending == 1 {
		// One statement is atomic on its own: running it in autocommit
		// mode saves the BEGIN and COMMIT round trips, which cost as much
		// as the write. This is every uncontended call.
		for i, op := range ops {
			if errs[i] == nil {
				if errs[i], err = st.swap(ctx, autocommit, op, rows[i], now); err != nil {
					return nil, fmt.Errorf("sqlite: effect swap: %w", s.db.explain(err))
				}
			}
		}
		return errs, nil
	}
	tx, err := s.db.Writer().BeginTx(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("sqlite: effect batch: begin: %w", s.db.explain(err))
	}
	defer tx.Rollback() //nolint:errcheck // after Commit it does nothing
	inTx := func(stmt *sql.Stmt) *sql.Stmt { return tx.StmtContext(ctx, stmt) }
	for i, op := range ops {
		if errs[i] != nil {
			continue
		}
		if errs[i], err = st.swap(ctx, inTx, op, rows[i], now); err != nil {
			return nil, fmt.Errorf("sqlite: effect batch: %w", s.db.explain(err))
		}
	}
	if err := tx.Commit(); err != nil {
		return nil, fmt.Errorf("sqlite: effect batch: commit: %w", s.db.explain(err))
	}
	return errs, nil
}

// autocommit runs a statement in a transaction of its own.
func autocommit(stmt *sql.Stmt) *sql.Stmt { return stmt }

// swap applies one checked swap, running each statement through bind.
// result is the swap's own outcome; err is a failure of a statement,
// which dooms the transaction.
//
// Records are never deleted, so when an update matches no row, reading
// the row after it says truthfully whether it is missing or has moved
// on, inside a transaction or not.
func (st *effectStmts) swap(ctx context.Context, bind func(*sql.Stmt) *sql.Stmt, op effect.Op, r effectRow, now int64) (result, err error) {
	id := op.Record.Request.ID
	if op.Expected == effect.CreateOnly {
		res, err := bind(st.insert).ExecContext(ctx, id, r.key, r.envelope, r.input, r.output, now)
		if err != nil {
			return nil, err
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			return fmt.Errorf("sqlite: create effect %q: the id or the key is taken: %w", id, effect.ErrConflict), err
		}
		return nil, nil
	}
	res, err := bind(st.update).ExecContext(ctx,
		int64(op.Record.Revision), r.envelope, r.input, r.output, now, id, int64(op.Expected), r.key)
	if err != nil {
		return nil, err
	}
	if n, err := res.RowsAffected(); err != nil || n == 1 {
		return nil, err
	}
	var rev int64
	switch err := bind(st.revision).QueryRowContext(ctx, id).Scan(&rev); {
	case errors.Is(err, sql.ErrNoRows):
		return fmt.Errorf("sqlite: update effect %q: %w", id, effect.ErrNotFound), nil
	case err != nil:
		return nil, err
	}
	return fmt.Errorf("sqlite: update effect %q from revision %d: it is at revision %d or has another key: %w",
		id, op.Expected, rev, effect.ErrConflict), nil
}

// effectRow is a record as the table's columns hold it.
type effectRow struct {
	key      any // string, or nil for no key
	envelope string
	input    string
	output   any // string, or nil unless completed
}

func encodeEffect(rec effect.Record) (effectRow, error) {
	q := rec.Request
	env, err := effect.EncodeEnvelope(rec)
	if err != nil {
		return effectRow{}, fmt.Errorf("sqlite: encode effect %q: %w", q.ID, err)
	}
	r := effectRow{envelope: string(env), input: string(q.Input)}
	if q.Key != "" {
		r.key = q.Key
	}
	if rec.Status.State == effect.StateCompleted {
		r.output = string(rec.Status.Output)
	}
	return r, nil
}

func scanEffect(row *sql.Row) (effect.Record, error) {
	var rev int64
	var env, input, output []byte
	if err := row.Scan(&rev, &env, &input, &output); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return effect.Record{}, effect.ErrNotFound
		}
		return effect.Record{}, errors.Join(store.ErrUnavailable, err)
	}
	return effect.DecodeStored(uint64(rev), env, input, output)
}
