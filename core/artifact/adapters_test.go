package artifact_test

import (
	"context"
	"testing"

	"github.com/starweaver-go/starweaver/core/artifact"
)

// The adapters let a plain function stand in for one side of a store, for
// example to record what a tool writes.
func TestFuncAdapters(t *testing.T) {
	ctx := context.Background()
	w, _ := artifact.NewWrite(mustScope(t, "s"), "k", "text/plain", []byte("x"))
	var written []artifact.Write
	var wr artifact.Writer = artifact.WriterFunc(func(_ context.Context, w artifact.Write) (artifact.Ref, error) {
		written = append(written, w)
		return w.Ref(1), nil
	})
	ref, err := wr.Put(ctx, w)
	if err != nil || len(written) != 1 || written[0].ID() != w.ID() || ref.CreatedAtUnixMS != 1 {
		t.Fatalf("WriterFunc: %+v, %v, %d writes", ref, err, len(written))
	}
	var rd artifact.Reader = artifact.ReaderFunc(func(_ context.Context, r artifact.Ref) (artifact.Artifact, error) {
		return artifact.Artifact{Ref: r, Bytes: []byte("x")}, nil
	})
	if a, err := rd.Get(ctx, ref); err != nil || !a.Ref.Equal(ref) || string(a.Bytes) != "x" {
		t.Fatalf("ReaderFunc: %+v, %v", a, err)
	}
}
