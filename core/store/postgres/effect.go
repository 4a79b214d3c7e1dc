package postgres

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/starweaver-go/starweaver/core/effect"
	"github.com/starweaver-go/starweaver/core/store"
)

// EffectStore keeps the effect journal (core/effect) in the
// starweaver_effects table. It implements effect.Store and
// effect.BatchStore.
//
// Its CompareAndSwap is group-committed (see effect.Batcher): the swaps of
// concurrent calls that queue while a batch is in flight are sent
// together, as one pipelined round trip run in one implicit transaction.
// Workers sharing the database race only through compare-and-swap: of
// several workers attempting one effect, one runs it.
//
// An EffectStore is safe for concurrent use.
type EffectStore struct {
	db      *DB
	batcher *effect.Batcher
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

const (
	selectEffect = `SELECT revision, record_json, input, output FROM starweaver_effects`

	// ON CONFLICT DO NOTHING: a create that meets an existing id or key
	// changes nothing, raises nothing, and so never aborts the other
	// statements of its transaction.
	insertEffect = `INSERT INTO starweaver_effects
		(effect_id, idempotency_key, revision, record_json, input, output, updated_at_ms)
		VALUES ($1, $2, 0, $3, $4, $5, $6) ON CONFLICT DO NOTHING`

	// One statement swaps and says why it did not: prior reads the row as
	// the statement's snapshot saw it (no row: not found; a row: the
	// revision or the key did not match). The key is fixed at creation:
	// it is matched, never written.
	updateEffect = `WITH prior AS (SELECT revision FROM starweaver_effects WHERE effect_id = $6),
		swapped AS (UPDATE starweaver_effects
			SET revision = $1, record_json = $2, input = $3, output = $4, updated_at_ms = $5
			WHERE effect_id = $6 AND revision = $7 AND idempotency_key IS NOT DISTINCT FROM $8
			RETURNING 1)
		SELECT (SELECT count(*) FROM swapped), (SELECT revision FROM prior)`
)

// Load implements effect.Store.
func (s *EffectStore) Load(ctx context.Context, id string) (effect.Record, error) {
	if strings.ContainsRune(id, 0) {
		// PostgreSQL text cannot hold it, and no record has it (see
		// effect.Request.Validate).
		return effect.Record{}, fmt.Errorf("postgres: load effect %q: %w", id, effect.ErrNotFound)
	}
	rec, err := scanEffect(s.db.Pool().QueryRow(ctx, selectEffect+` WHERE effect_id = $1`, id))
	if err != nil {
		return effect.Record{}, fmt.Errorf("postgres: load effect %q: %w", id, err)
	}
	return rec, nil
}

// FindByKey implements effect.Store.
func (s *EffectStore) FindByKey(ctx context.Context, key string) (effect.Record, error) {
	if key == "" || strings.ContainsRune(key, 0) {
		return effect.Record{}, fmt.Errorf("postgres: find effect by key %q: %w", key, effect.ErrNotFound)
	}
	rec, err := scanEffect(s.db.Pool().QueryRow(ctx, selectEffect+` WHERE idempotency_key = $1`, key))
	if err != nil {
		return effect.Record{}, fmt.Errorf("postgres: find effect by key %q: %w", key, err)
	}
	return rec, nil
}

// CompareAndSwap implements effect.Store, group-committing with the swaps
// of concurrent callers.
func (s *EffectStore) CompareAndSwap(ctx context.Context, rec effect.Record, expected uint64) error {
	return s.batcher.CompareAndSwap(ctx, rec, expected)
}

// maxDeadlockRetries bounds the re-sends of a batch that PostgreSQL chose
// as a deadlock victim (two workers' batches locking the same rows or
// keys in different orders); the victim's transaction applied nothing.
// Sorting a batch to lock in one order would avoid it, but swaps must run
// in their given order: two creates racing for one key are decided by it.
const maxDeadlockRetries = 3

// CompareAndSwapBatch implements effect.BatchStore: ops are pipelined in
// one round trip and run in one implicit transaction. A lost swap changes
// nothing and raises nothing, so it never aborts the others.
func (s *EffectStore) CompareAndSwapBatch(ctx context.Context, ops []effect.Op) ([]error, error) {
	errs := make([]error, len(ops))
	var pending []int
	rows := make([]effectRow, len(ops))
	for i, op := range ops {
		if errs[i] = effect.CheckSwap(op.Record, op.Expected); errs[i] == nil {
			rows[i], errs[i] = encodeEffect(op.Record)
		}
		if errs[i] == nil {
			pending = append(pending, i)
		}
	}
	if len(pending) == 0 {
		return errs, nil
	}
	now := time.Now().UnixMilli()
	for attempt := 0; ; attempt++ {
		err := s.apply(ctx, ops, rows, pending, errs, now)
		if err == nil {
			return errs, nil
		}
		var pg *pgconn.PgError
		if errors.As(err, &pg) && pg.Code == "40P01" && attempt < maxDeadlockRetries {
			continue
		}
		if uniqueViolation(err) && len(pending) > 1 {
			// ON CONFLICT DO NOTHING should leave no unique violation to
			// raise; if one does, it aborted the whole batch without
			// saying which swap lost, so apply them one by one.
			for _, i := range pending {
				if err := s.apply(ctx, ops, rows, []int{i}, errs, now); err != nil {
					return nil, fmt.Errorf("postgres: effect swap: %w", errors.Join(store.ErrUnavailable, redact(err)))
				}
			}
			return errs, nil
		}
		return nil, fmt.Errorf("postgres: effect batch: %w", errors.Join(store.ErrUnavailable, redact(err)))
	}
}

// apply runs the swaps ops[i] for i in pending (one statement each, in
// that order) and sets errs[i] to each one's own result. A non-nil error
// means the transaction failed and nothing was applied.
func (s *EffectStore) apply(ctx context.Context, ops []effect.Op, rows []effectRow, pending []int, errs []error, now int64) error {
	if len(pending) == 1 {
		// A statement alone is atomic: no batch, no transaction.
		i := pending[0]
		switch op, r := ops[i], rows[i]; {
		case op.Expected == effect.CreateOnly:
			tag, err := s.db.Pool().Exec(ctx, insertEffect, r.insertArgs(now)...)
			if uniqueViolation(err) {
				errs[i] = createConflict(op)
				return nil
			}
			if err != nil {
				return err
			}
			errs[i] = createResult(op, tag)
		default:
			var swapped int64
			var prior *int64
			if err := s.db.Pool().QueryRow(ctx, updateEffect, r.updateArgs(op, now)...).Scan(&swapped, &prior); err != nil {
				return err
			}
			errs[i] = updateResult(op, swapped, prior)
		}
		return nil
	}
	b := &pgx.Batch{}
	for _, i := range pending {
		if ops[i].Expected == effect.CreateOnly {
			b.Queue(insertEffect, rows[i].insertArgs(now)...)
		} else {
			b.Queue(updateEffect, rows[i].updateArgs(ops[i], now)...)
		}
	}
	br := s.db.Pool().SendBatch(ctx, b)
	results := make([]error, len(pending))
	for k, i := range pending {
		op := ops[i]
		if op.Expected == effect.CreateOnly {
			tag, err := br.Exec()
			if err != nil {
				br.Close()
				return err
			}
			results[k] = createResult(op, tag)
			continue
		}
		var swapped int64
		var prior *int64
		if err := br.QueryRow().Scan(&swapped, &prior); err != nil {
			br.Close()
			return err
		}
		results[k] = updateResult(op, swapped, prior)
	}
	// Close reads the end of the implicit transaction: only then is the
	// batch committed, and only then are the results true.
	if err := br.Close(); err != nil {
		return err
	}
	for k, i := range pending {
		errs[i] = results[k]
	}
	return nil
}

func createResult(op effect.Op, tag pgconn.CommandTag) error {
	if tag.RowsAffected() == 0 {
		return createConflict(op)
	}
	return nil
}

func createConflict(op effect.Op) error {
	return fmt.Errorf("postgres: create effect %q: the id or the key is taken: %w", op.Record.Request.ID, effect.ErrConflict)
}

func updateResult(op effect.Op, swapped int64, prior *int64) error {
	id := op.Record.Request.ID
	switch {
	case swapped == 1:
		return nil
	case prior == nil:
		return fmt.Errorf("postgres: update effect %q: %w", id, effect.ErrNotFound)
	}
	return fmt.Errorf("postgres: update effect %q from revision %d: it is at revision %d or has another key: %w",
		id, op.Expected, *prior, effect.ErrConflict)
}

// effectRow is a record as the table's columns hold it.
type effectRow struct {
	id       string
	key      *string // nil for no key
	envelope string
	input    string
	output   *string // nil unless completed
}

func (r effectRow) insertArgs(now int64) []any {
	return []any{r.id, r.key, r.envelope, r.input, r.output, now}
}

func (r effectRow) updateArgs(op effect.Op, now int64) []any {
	return []any{int64(op.Record.Revision), r.envelope, r.input, r.output, now, r.id, int64(op.Expected), r.key}
}

func encodeEffect(rec effect.Record) (effectRow, error) {
	q := rec.Request
	env, err := effect.EncodeEnvelope(rec)
	if err != nil {
		return effectRow{}, fmt.Errorf("postgres: encode effect %q: %w", q.ID, err)
	}
	r := effectRow{id: q.ID, envelope: string(env), input: string(q.Input)}
	if q.Key != "" {
		r.key = &q.Key
	}
	if rec.Status.State == effect.StateCompleted {
		out := string(rec.Status.Output)
		r.output = &out
	}
	return r, nil
}

func scanEffect(row pgx.Row) (effect.Record, error) {
	var rev int64
	var env, input, output []byte
	if err := row.Scan(&rev, &env, &input, &output); err != nil {
		if errors.Is(err, pgx.ErrNoRows) {
			return effect.Record{}, effect.ErrNotFound
		}
		return effect.Record{}, errors.Join(store.ErrUnavailable, redact(err))
	}
	return effect.DecodeStored(uint64(rev), env, input, output)
}
