package postgres

import (
	"errors"

	"github.com/jackc/pgx/v5/pgconn"
)

// redact keeps a server error's code and message (which name no
// credentials) and drops connection errors' text, which pgx builds from
// the host, user and database of the DSN.
func redact(err error) error {
	if err == nil {
		return nil
	}
	var pg *pgconn.PgError
	if errors.As(err, &pg) {
		return pg
	}
	var conn *pgconn.ConnectError
	if errors.As(err, &conn) {
		return errors.New("cannot connect to the server")
	}
	return err
}

// uniqueViolation reports a unique constraint violation (SQLSTATE 23505),
// the loser of a race to create the same row.
func uniqueViolation(err error) bool {
	var pg *pgconn.PgError
	return errors.As(err, &pg) && pg.Code == "23505"
}
