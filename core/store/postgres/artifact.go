package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/starweaver-go/starweaver/core/artifact"
	"github.com/starweaver-go/starweaver/core/store"
)

// ArtifactStore is an [artifact.Store] in the database's
// starweaver_artifacts and starweaver_artifact_idempotency tables, shared
// by every worker process connected to it.
//
// Workers are not serialised: a Put inserts with ON CONFLICT DO NOTHING
// and then reads back what is stored, so that whichever worker loses a
// race answers from the winner's rows (the same reference, or the
// conflict its write deserves). It is safe for concurrent use.
type ArtifactStore struct {
	db  *DB
	cfg artifact.Config
}

// NewArtifactStore returns a store over db, whose migrations (applied by
// Open) created the tables, configured by cfg (the zero Config for the
// defaults). The caller keeps owning db. It panics if cfg.MaxBytes is
// negative.
func NewArtifactStore(db *DB, cfg artifact.Config) *ArtifactStore {
	return &ArtifactStore{db: db, cfg: cfg.Normalised()}
}

// refColumns are the columns scanRef reads, in its order.
const refColumns = `artifact_id, media_type, size_bytes, sha256, name, created_at_ms, expires_at_ms`

// scanRef reads refColumns (and then extra) into a reference of scope.
func scanRef(row pgx.Row, scope artifact.Scope, extra ...any) (artifact.Ref, error) {
	r := artifact.Ref{Scope: scope}
	var name *string
	dest := append([]any{&r.ID, &r.MediaType, &r.Size, &r.SHA256, &name, &r.CreatedAtUnixMS, &r.ExpiresAtUnixMS}, extra...)
	if err := row.Scan(dest...); err != nil {
		return artifact.Ref{}, err
	}
	if name != nil {
		r.Name = *name
	}
	return r, nil
}

// unavailable wraps a database failure of op, without the connection
// details pgx puts in its messages.
func unavailable(op string, err error) error {
	return fmt.Errorf("postgres: artifact %s: %w", op, errors.Join(store.ErrUnavailable, redact(err)))
}

// errVanished is the answer to a put whose artifact another worker
// deleted between the put's insert and its read back (or its key insert):
// the put stored nothing, and trying again stores it afresh.
func errVanished(id string) error {
	return fmt.Errorf("postgres: artifact put: %s was deleted while being stored; try again: %w", id, store.ErrConflict)
}

// txOptions pins READ COMMITTED whatever the server's default: each
// statement of a put must see the rows racing workers committed just
// before it, which a snapshot taken at the first statement would hide.
var txOptions = pgx.TxOptions{IsoLevel: pgx.ReadCommitted}

// Put implements [artifact.Writer].
func (s *ArtifactStore) Put(ctx context.Context, w artifact.Write) (artifact.Ref, error) {
	if err := w.Validate(s.cfg.MaxBytes); err != nil {
		return artifact.Ref{}, err
	}
	var ref artifact.Ref
	var inner error // the put's own answer, already wrapped
	err := pgx.BeginTxFunc(ctx, s.db.Pool(), txOptions, func(tx pgx.Tx) error {
		ref, inner = s.put(ctx, tx, w)
		return inner // an error rolls back: a conflict stores nothing
	})
	switch {
	case inner != nil:
		return artifact.Ref{}, inner
	case err != nil: // connecting, beginning or committing failed
		return artifact.Ref{}, unavailable("put", err)
	}
	return ref, nil
}

func (s *ArtifactStore) put(ctx context.Context, tx pgx.Tx, w artifact.Write) (artifact.Ref, error) {
	scope := w.Scope().String()
	byKey := func() (artifact.Ref, error) {
		return scanRef(tx.QueryRow(ctx, `SELECT `+refColumns+` FROM starweaver_artifacts
			WHERE scope = $1 AND artifact_id = (SELECT artifact_id FROM starweaver_artifact_idempotency
				WHERE scope = $1 AND idempotency_key = $2)`, scope, w.IdempotencyKey()), w.Scope())
	}

	// The key is known: a replay or an idempotency conflict.
	stored, err := byKey()
	switch {
	case err == nil:
		return w.Replay(stored)
	case !errors.Is(err, pgx.ErrNoRows):
		return artifact.Ref{}, unavailable("put", err)
	}

	// Store the content unless the scope holds it already (possibly
	// inserted a moment ago by another worker: the insert waits for that
	// worker's transaction to end), then compare metadata with what is
	// stored, whoever stored it.
	created := w.Ref(s.cfg.NowUnixMS())
	var name *string
	if created.Name != "" {
		name = &created.Name
	}
	if _, err := tx.Exec(ctx, `INSERT INTO starweaver_artifacts
		(scope, artifact_id, media_type, size_bytes, sha256, name, bytes, created_at_ms, expires_at_ms)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT (scope, artifact_id) DO NOTHING`,
		scope, created.ID, created.MediaType, created.Size, created.SHA256, name, w.Bytes(),
		created.CreatedAtUnixMS, created.ExpiresAtUnixMS); err != nil {
		return artifact.Ref{}, unavailable("put", err)
	}
	existing, err := scanRef(tx.QueryRow(ctx, `SELECT `+refColumns+` FROM starweaver_artifacts
		WHERE scope = $1 AND artifact_id = $2`, scope, w.ID()), w.Scope())
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return artifact.Ref{}, errVanished(w.ID())
	case err != nil:
		return artifact.Ref{}, unavailable("put", err)
	}
	if _, err := w.Alias(existing); err != nil {
		return artifact.Ref{}, err
	}

	// Map the key, unless a racing worker mapped it first; either way the
	// stored mapping decides.
	if _, err := tx.Exec(ctx, `INSERT INTO starweaver_artifact_idempotency (scope, idempotency_key, artifact_id)
		VALUES ($1, $2, $3) ON CONFLICT (scope, idempotency_key) DO NOTHING`, scope, w.IdempotencyKey(), w.ID()); err != nil {
		if foreignKeyViolation(err) {
			return artifact.Ref{}, errVanished(w.ID())
		}
		return artifact.Ref{}, unavailable("put", err)
	}
	stored, err = byKey()
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return artifact.Ref{}, errVanished(w.ID())
	case err != nil:
		return artifact.Ref{}, unavailable("put", err)
	}
	return w.Replay(stored)
}

// foreignKeyViolation reports SQLSTATE 23503: the key's artifact is gone.
func foreignKeyViolation(err error) bool {
	var pg *pgconn.PgError
	return errors.As(err, &pg) && pg.Code == "23503"
}

// Get implements [artifact.Reader].
func (s *ArtifactStore) Get(ctx context.Context, ref artifact.Ref) (artifact.Artifact, error) {
	if err := ref.Validate(); err != nil {
		return artifact.Artifact{}, err
	}
	var data []byte
	stored, err := scanRef(s.db.Pool().QueryRow(ctx, `SELECT `+refColumns+`, bytes FROM starweaver_artifacts
		WHERE scope = $1 AND artifact_id = $2`, ref.Scope.String(), ref.ID), ref.Scope, &data)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return artifact.Artifact{}, fmt.Errorf("%w: %s", artifact.ErrNotFound, ref.ID)
	case err != nil:
		return artifact.Artifact{}, unavailable("get", err)
	}
	if err := artifact.Verify(ref, stored, data, s.cfg.NowUnixMS()); err != nil {
		return artifact.Artifact{}, err
	}
	return artifact.Artifact{Ref: stored, Bytes: data}, nil
}

// List implements [artifact.Store].
func (s *ArtifactStore) List(ctx context.Context, scope artifact.Scope, after string, limit int) (artifact.Page, error) {
	if err := artifact.CheckList(scope, after, limit); err != nil {
		return artifact.Page{}, err
	}
	rows, err := s.db.Pool().Query(ctx, `SELECT `+refColumns+` FROM starweaver_artifacts
		WHERE scope = $1 AND artifact_id > $2 ORDER BY artifact_id LIMIT $3`, scope.String(), after, limit+1)
	if err != nil {
		return artifact.Page{}, unavailable("list", err)
	}
	refs, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (artifact.Ref, error) { return scanRef(row, scope) })
	if err != nil {
		return artifact.Page{}, unavailable("list", err)
	}
	return artifact.NewPage(refs, limit), nil
}

// Delete implements [artifact.Store]. The idempotency keys go with the
// artifact through the foreign key's ON DELETE CASCADE.
func (s *ArtifactStore) Delete(ctx context.Context, scope artifact.Scope, id string) (bool, error) {
	if err := artifact.CheckDelete(scope, id); err != nil {
		return false, err
	}
	tag, err := s.db.Pool().Exec(ctx, `DELETE FROM starweaver_artifacts WHERE scope = $1 AND artifact_id = $2`, scope.String(), id)
	if err != nil {
		return false, unavailable("delete", err)
	}
	return tag.RowsAffected() > 0, nil
}

// PurgeExpired implements [artifact.Store]. The idempotency keys go with
// the artifacts through the foreign key's ON DELETE CASCADE. Rows another
// transaction holds (a worker purging the same scope, a put aliasing the
// artifact) are skipped rather than waited for, so workers purging
// together delete disjoint batches; a skipped row is left for a later
// call.
func (s *ArtifactStore) PurgeExpired(ctx context.Context, scope artifact.Scope, nowUnixMS int64, limit int) (int, error) {
	if err := artifact.CheckPurge(scope, nowUnixMS, limit); err != nil {
		return 0, err
	}
	tag, err := s.db.Pool().Exec(ctx, `DELETE FROM starweaver_artifacts WHERE scope = $1 AND artifact_id IN (
		SELECT artifact_id FROM starweaver_artifacts WHERE scope = $1 AND expires_at_ms <= $2
		ORDER BY expires_at_ms, artifact_id LIMIT $3 FOR UPDATE SKIP LOCKED)`, scope.String(), nowUnixMS, limit)
	if err != nil {
		return 0, unavailable("purge", err)
	}
	return int(tag.RowsAffected()), nil
}
