// Package pgtest gives tests a PostgreSQL database of their own: a fresh
// schema on the server named by STARWEAVER_TEST_POSTGRES_DSN, dropped when
// the test ends.
//
// Without the variable the tests skip, saying how to start a server
// (`make postgres-up`), unless STARWEAVER_REQUIRE_POSTGRES is set (CI sets
// it), where they fail instead: CI must never pass by skipping them.
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
)

// EnvDSN names the variable holding the test server's connection string.
const EnvDSN = "STARWEAVER_TEST_POSTGRES_DSN"

// DSN returns a connection string whose search_path is a new, empty schema
// that is dropped when t ends. Every connection opened with it works in
// that schema only, so tests running in parallel never see each other's
// tables.
func DSN(t testing.TB) string {
	t.Helper()
	base := os.Getenv(EnvDSN)
	if base == "" {
		msg := "PostgreSQL tests need a server: run `make postgres-up` and export the " + EnvDSN + " it prints"
		if os.Getenv("STARWEAVER_REQUIRE_POSTGRES") != "" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, base)
	if err != nil {
		t.Fatalf("pgtest: connect: %v", err)
	}
	defer conn.Close(ctx)
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	schema := "t_" + hex.EncodeToString(b)
	if _, err := conn.Exec(ctx, "CREATE SCHEMA "+schema); err != nil {
		t.Fatalf("pgtest: create schema: %v", err)
	}
	t.Cleanup(func() {
		ctx := context.Background()
		conn, err := pgx.Connect(ctx, base)
		if err != nil {
			t.Errorf("pgtest: connect to drop %s: %v", schema, err)
			return
		}
		defer conn.Close(ctx)
		if _, err := conn.Exec(ctx, "DROP SCHEMA "+schema+" CASCADE"); err != nil {
			t.Errorf("pgtest: drop %s: %v", schema, err)
		}
	})
	return withSearchPath(base, schema)
}

// withSearchPath adds search_path as a run-time parameter, which pgx
// passes to the server for every connection.
func withSearchPath(dsn, schema string) string {
	if strings.Contains(dsn, "://") {
		sep := "?"
		if strings.Contains(dsn, "?") {
			sep = "&"
		}
		return dsn + sep + "search_path=" + schema
	}
	return dsn + " search_path=" + schema
}
