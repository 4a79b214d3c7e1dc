package sqlite

import (
	"context"
	"path/filepath"
	"testing"
	"time"
)

// Commits on a file database are counted, and every checkpointEvery of
// them a goroutine of the DB checkpoints the WAL, so that commits do not;
// the writer's own automatic checkpoint waits much longer.
func TestCheckpointsRunInTheBackground(t *testing.T) {
	ctx := context.Background()
	d, err := Open(ctx, filepath.Join(t.TempDir(), "sw.db"))
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	d.checkpointed = func(err error) {
		select {
		case done <- err:
		default:
		}
	}
	defer d.Close()
	var pages int
	if err := d.Writer().QueryRowContext(ctx, `PRAGMA wal_autocheckpoint`).Scan(&pages); err != nil || pages != safetyCheckpointPages {
		t.Fatalf("the writer checkpoints every %d pages (%v), want %d", pages, err, safetyCheckpointPages)
	}
	if _, err := d.Writer().ExecContext(ctx, `CREATE TABLE t (x INTEGER)`); err != nil {
		t.Fatal(err)
	}
	for i := range checkpointEvery {
		if _, err := d.Writer().ExecContext(ctx, `INSERT INTO t (x) VALUES (?)`, i); err != nil {
			t.Fatal(err)
		}
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("background checkpoint: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("no background checkpoint after %d commits (%d counted)", checkpointEvery, d.commits.Load())
	}
	// The WAL was copied back: a checkpoint now has nothing left to copy.
	var busy, log, copied int
	if err := d.Writer().QueryRowContext(ctx, `PRAGMA wal_checkpoint(PASSIVE)`).Scan(&busy, &log, &copied); err != nil || busy != 0 || log != copied {
		t.Fatalf("wal_checkpoint: busy %d, %d frames, %d copied (%v)", busy, log, copied, err)
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
}
