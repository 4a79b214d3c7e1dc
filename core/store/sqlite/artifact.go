package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/starweaver-go/starweaver/core/artifact"
	"github.com/starweaver-go/starweaver/core/store"
)

// ArtifactStore is an [artifact.Store] in the database's
// starweaver_artifacts and starweaver_artifact_idempotency tables.
//
// A Put runs in one IMMEDIATE transaction on the writer connection: it
// holds SQLite's write lock from its first read, so the idempotency and
// content lookups and the inserts are one atomic step, even against
// other processes sharing the file. Reads use the reader pool and run
// beside writes. It is safe for concurrent use.
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

type scanner interface{ Scan(dest ...any) error }

// scanRef reads refColumns (and then extra) into a reference of scope.
func scanRef(row scanner, scope artifact.Scope, extra ...any) (artifact.Ref, error) {
	r := artifact.Ref{Scope: scope}
	var name sql.NullString
	var expires sql.NullInt64
	dest := append([]any{&r.ID, &r.MediaType, &r.Size, &r.SHA256, &name, &r.CreatedAtUnixMS, &expires}, extra...)
	if err := row.Scan(dest...); err != nil {
		return artifact.Ref{}, err
	}
	r.Name = name.String
	if expires.Valid {
		r.ExpiresAtUnixMS = &expires.Int64
	}
	return r, nil
}

// unavailable wraps a database failure of op.
func unavailable(op string, err error) error {
	return fmt.Errorf("sqlite: artifact %s: %w", op, errors.Join(store.ErrUnavailable, err))
}

// Put implements [artifact.Writer].
func (s *ArtifactStore) Put(ctx context.Context, w artifact.Write) (artifact.Ref, error) {
	if err := w.Validate(s.cfg.MaxBytes); err != nil {
		return artifact.Ref{}, err
	}
	tx, err := s.db.Writer().BeginTx(ctx, nil)
	if err != nil {
		return artifact.Ref{}, unavailable("put", err)
	}
	defer tx.Rollback() //nolint:errcheck // after Commit it does nothing
	scope := w.Scope().String()

	stored, err := scanRef(tx.QueryRowContext(ctx, `SELECT `+refColumns+` FROM starweaver_artifacts
		WHERE scope = ?1 AND artifact_id = (SELECT artifact_id FROM starweaver_artifact_idempotency
			WHERE scope = ?1 AND idempotency_key = ?2)`, scope, w.IdempotencyKey()), w.Scope())
	switch {
	case err == nil:
		return w.Replay(stored)
	case !errors.Is(err, sql.ErrNoRows):
		return artifact.Ref{}, unavailable("put", err)
	}

	ref, err := scanRef(tx.QueryRowContext(ctx, `SELECT `+refColumns+` FROM starweaver_artifacts
		WHERE scope = ? AND artifact_id = ?`, scope, w.ID()), w.Scope())
	switch {
	case err == nil:
		if ref, err = w.Alias(ref); err != nil {
			return artifact.Ref{}, err
		}
	case errors.Is(err, sql.ErrNoRows):
		ref = w.Ref(s.cfg.NowUnixMS())
		var name sql.NullString
		if ref.Name != "" {
			name = sql.NullString{String: ref.Name, Valid: true}
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO starweaver_artifacts
			(scope, artifact_id, media_type, size_bytes, sha256, name, bytes, created_at_ms, expires_at_ms)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			scope, ref.ID, ref.MediaType, ref.Size, ref.SHA256, name, w.Bytes(), ref.CreatedAtUnixMS, ref.ExpiresAtUnixMS); err != nil {
			return artifact.Ref{}, unavailable("put", err)
		}
	default:
		return artifact.Ref{}, unavailable("put", err)
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO starweaver_artifact_idempotency (scope, idempotency_key, artifact_id)
		VALUES (?, ?, ?)`, scope, w.IdempotencyKey(), ref.ID); err != nil {
		return artifact.Ref{}, unavailable("put", err)
	}
	if err := tx.Commit(); err != nil {
		return artifact.Ref{}, unavailable("put", err)
	}
	return ref, nil
}

// Get implements [artifact.Reader].
func (s *ArtifactStore) Get(ctx context.Context, ref artifact.Ref) (artifact.Artifact, error) {
	if err := ref.Validate(); err != nil {
		return artifact.Artifact{}, err
	}
	var data []byte
	stored, err := scanRef(s.db.Reader().QueryRowContext(ctx, `SELECT `+refColumns+`, bytes FROM starweaver_artifacts
		WHERE scope = ? AND artifact_id = ?`, ref.Scope.String(), ref.ID), ref.Scope, &data)
	switch {
	case errors.Is(err, sql.ErrNoRows):
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
	rows, err := s.db.Reader().QueryContext(ctx, `SELECT `+refColumns+` FROM starweaver_artifacts
		WHERE scope = ? AND artifact_id > ? ORDER BY artifact_id LIMIT ?`, scope.String(), after, limit+1)
	if err != nil {
		return artifact.Page{}, unavailable("list", err)
	}
	defer rows.Close()
	var refs []artifact.Ref
	for rows.Next() {
		r, err := scanRef(rows, scope)
		if err != nil {
			return artifact.Page{}, unavailable("list", err)
		}
		refs = append(refs, r)
	}
	if err := rows.Err(); err != nil {
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
	res, err := s.db.Writer().ExecContext(ctx, `DELETE FROM starweaver_artifacts WHERE scope = ? AND artifact_id = ?`, scope.String(), id)
	if err != nil {
		return false, unavailable("delete", err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return false, unavailable("delete", err)
	}
	return n > 0, nil
}

// PurgeExpired implements [artifact.Store]. The idempotency keys go with
// the artifacts through the foreign key's ON DELETE CASCADE.
func (s *ArtifactStore) PurgeExpired(ctx context.Context, scope artifact.Scope, nowUnixMS int64, limit int) (int, error) {
	if err := artifact.CheckPurge(scope, nowUnixMS, limit); err != nil {
		return 0, err
	}
	res, err := s.db.Writer().ExecContext(ctx, `DELETE FROM starweaver_artifacts WHERE scope = ?1 AND artifact_id IN (
		SELECT artifact_id FROM starweaver_artifacts WHERE scope = ?1 AND expires_at_ms <= ?2
		ORDER BY expires_at_ms, artifact_id LIMIT ?3)`, scope.String(), nowUnixMS, limit)
	if err != nil {
		return 0, unavailable("purge", err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return 0, unavailable("purge", err)
	}
	return int(n), nil
}
