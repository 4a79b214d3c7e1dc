package artifact_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/starweaver-go/starweaver/core/artifact"
	"github.com/starweaver-go/starweaver/core/artifact/artifacttest"
)

func TestMemoryStoreConformance(t *testing.T) {
	artifacttest.Run(t, func(t *testing.T, opts ...artifact.Option) artifact.Store {
		return artifact.NewMemoryStore(opts...)
	})
}

// benchData is a 4 KiB artifact, the size of a small chart.
var benchData = func() []byte {
	b := make([]byte, 4096)
	for i := range b {
		b[i] = byte(i)
	}
	return b
}()

func BenchmarkMemoryStorePut(b *testing.B) {
	ctx := context.Background()
	s := artifact.NewMemoryStore()
	sc, _ := artifact.ParseScope("bench")
	data := append([]byte(nil), benchData...)
	b.SetBytes(int64(len(data)))
	i := 0
	for b.Loop() {
		i++
		data[0], data[1], data[2] = byte(i), byte(i>>8), byte(i>>16) // new content each time
		w, err := artifact.NewWrite(sc, fmt.Sprint("k", i), "application/octet-stream", data)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := s.Put(ctx, w); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkMemoryStoreGet(b *testing.B) {
	ctx := context.Background()
	s := artifact.NewMemoryStore()
	sc, _ := artifact.ParseScope("bench")
	w, _ := artifact.NewWrite(sc, "k", "application/octet-stream", benchData)
	ref, err := s.Put(ctx, w)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(benchData)))
	for b.Loop() {
		if _, err := s.Get(ctx, ref); err != nil {
			b.Fatal(err)
		}
	}
}
