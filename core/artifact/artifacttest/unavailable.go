package artifacttest

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/starweaver-go/starweaver/core/artifact"
	"github.com/starweaver-go/starweaver/core/internal/storeerr"
)

// RunUnavailable stores an artifact in s, calls breakDown (which closes
// the database under s), and checks that every method then fails with
// store.ErrUnavailable, with a message that holds neither the stored
// bytes, nor the idempotency key, nor any of forbidden (a DSN's host and
// user, a file path).
func RunUnavailable(t *testing.T, s artifact.Store, breakDown func(), forbidden ...string) {
	t.Helper()
	ctx := context.Background()
	sc := scope(t, "s")
	w, err := artifact.NewWrite(sc, "secret-key", "text/plain", []byte("secret content"))
	if err != nil {
		t.Fatal(err)
	}
	ref, err := s.Put(ctx, w)
	if err != nil {
		t.Fatal(err)
	}
	breakDown()
	calls := map[string]func() error{
		"put":    func() error { _, err := s.Put(ctx, w); return err },
		"get":    func() error { _, err := s.Get(ctx, ref); return err },
		"list":   func() error { _, err := s.List(ctx, sc, "", 10); return err },
		"delete": func() error { _, err := s.Delete(ctx, sc, ref.ID); return err },
		"purge":  func() error { _, err := s.PurgeExpired(ctx, sc, 0, 10); return err },
	}
	for name, call := range calls {
		err := call()
		if !errors.Is(err, storeerr.ErrUnavailable) || artifact.KindOf(err) != artifact.KindUnavailable {
			t.Errorf("%s: err = %v, want storeerr.ErrUnavailable", name, err)
			continue
		}
		for _, s := range append([]string{"secret"}, forbidden...) {
			if strings.Contains(err.Error(), s) {
				t.Errorf("%s: the error shows %q: %v", name, s, err)
			}
		}
	}
}
