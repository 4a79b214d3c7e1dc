package postgres_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/starweaver-go/starweaver/core/store"
	"github.com/starweaver-go/starweaver/core/store/postgres"
	"github.com/starweaver-go/starweaver/core/store/postgres/pgtest"
)

func TestOpenConcurrentWorkersMigrateOnce(t *testing.T) {
	dsn := pgtest.DSN(t)
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make([]error, 4)
	dbs := make([]*postgres.DB, 4)
	for i := range dbs {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			dbs[i], errs[i] = postgres.Open(ctx, dsn)
		}(i)
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("worker %d: %v", i, err)
		}
		defer dbs[i].Close()
	}
}

func TestOpenErrorsHideTheDSN(t *testing.T) {
	ctx := context.Background()
	for _, dsn := range []string{
		"postgres://alice:s3cret@127.0.0.1:1/db?sslmode=disable&connect_timeout=2",
		"postgres://alice:s3cret@[bad",
	} {
		_, err := postgres.Open(ctx, dsn)
		if err == nil {
			t.Fatalf("%s: want an error", dsn)
		}
		if strings.Contains(err.Error(), "s3cret") || strings.Contains(err.Error(), "alice") {
			t.Fatalf("error repeats the DSN: %v", err)
		}
		if !errors.Is(err, store.ErrUnavailable) {
			t.Fatalf("want ErrUnavailable, got %v", err)
		}
	}
}
