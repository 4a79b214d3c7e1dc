package artifact_test

import (
	"context"
	"errors"
	"testing"

	"github.com/starweaver-go/starweaver/core/artifact"
)

func TestResolver(t *testing.T) {
	ctx := context.Background()
	s := artifact.NewMemoryStore(artifact.Config{})
	sc := mustScope(t, "tenant.acme")
	w, _ := artifact.NewWrite(sc, "k", "image/gif", []byte("GIF89a-pixels"))
	ref, err := s.Put(ctx, w)
	if err != nil {
		t.Fatal(err)
	}

	mt, data, err := artifact.Resolver{Reader: s, Scope: sc}.Resolve(ctx, ref)
	if err != nil || mt != "image/gif" || string(data) != "GIF89a-pixels" {
		t.Fatalf("resolve = %s %q, %v", mt, data, err)
	}

	// Another scope's reference is refused even though the store has it.
	other := artifact.Resolver{Reader: s, Scope: mustScope(t, "tenant.other")}
	if _, _, err := other.Resolve(ctx, ref); !errors.Is(err, artifact.ErrInvalidInput) {
		t.Fatalf("scope mismatch: err = %v, want ErrInvalidInput", err)
	}
	if _, _, err := (artifact.Resolver{Reader: s, Scope: sc}).Resolve(ctx, artifact.Ref{}); !errors.Is(err, artifact.ErrInvalidInput) {
		t.Fatalf("zero ref: err = %v, want ErrInvalidInput", err)
	}
	// Errors of the reader come back as they are.
	forged := ref
	forged.Name = "x"
	if _, _, err := (artifact.Resolver{Reader: s, Scope: sc}).Resolve(ctx, forged); !errors.Is(err, artifact.ErrIntegrity) {
		t.Fatalf("forged ref: err = %v, want ErrIntegrity", err)
	}
}

func TestResolverLimitIsCheckedBeforeReading(t *testing.T) {
	ctx := context.Background()
	sc := mustScope(t, "s")
	w, _ := artifact.NewWrite(sc, "k", "text/plain", []byte("0123456789"))
	ref := w.Ref(0)
	reads := 0
	reader := artifact.ReaderFunc(func(context.Context, artifact.Ref) (artifact.Artifact, error) {
		reads++
		return artifact.Artifact{Ref: ref, Bytes: []byte("0123456789")}, nil
	})
	if _, _, err := (artifact.Resolver{Reader: reader, Scope: sc, MaxBytes: 9}).Resolve(ctx, ref); !errors.Is(err, artifact.ErrInvalidInput) {
		t.Fatalf("over the limit: err = %v, want ErrInvalidInput", err)
	}
	if _, data, err := (artifact.Resolver{Reader: reader, Scope: sc, MaxBytes: 10}).Resolve(ctx, ref); err != nil || len(data) != 10 {
		t.Fatalf("at the limit: %q, %v", data, err)
	}
	if reads != 1 {
		t.Fatalf("the reader was called %d times, want once (never for the refused ref)", reads)
	}
	// MaxBytes 0 is DefaultMaxBytes.
	big := ref
	big.Size = artifact.DefaultMaxBytes + 1
	if _, _, err := (artifact.Resolver{Reader: reader, Scope: sc}).Resolve(ctx, big); !errors.Is(err, artifact.ErrInvalidInput) || reads != 1 {
		t.Fatalf("over the default limit: err = %v, reads %d", err, reads)
	}
}

func TestResolverChecksWhatTheReaderReturns(t *testing.T) {
	sc := mustScope(t, "s")
	w, _ := artifact.NewWrite(sc, "k", "text/plain", []byte("0123456789"))
	ref := w.Ref(0)
	liar := artifact.ReaderFunc(func(context.Context, artifact.Ref) (artifact.Artifact, error) {
		return artifact.Artifact{Ref: ref, Bytes: make([]byte, 1<<20)}, nil
	})
	if _, _, err := (artifact.Resolver{Reader: liar, Scope: sc}).Resolve(context.Background(), ref); !errors.Is(err, artifact.ErrIntegrity) {
		t.Fatalf("err = %v, want ErrIntegrity", err)
	}
}
