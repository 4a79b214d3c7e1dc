package artifacttest

import (
	"context"
	"fmt"
	"testing"

	"github.com/starweaver-go/starweaver/core/artifact"
)

// benchSize is the size of the benchmarks' artifacts: a small chart.
const benchSize = 4096

func benchData() []byte {
	b := make([]byte, benchSize)
	for i := range b {
		b[i] = byte(i)
	}
	return b
}

// BenchPut measures s.Put of new 4 KiB artifacts, each under a new key.
func BenchPut(b *testing.B, s artifact.Store) {
	ctx := context.Background()
	sc := scope(b, "bench")
	data := benchData()
	b.SetBytes(benchSize)
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

// BenchGet measures s.Get, verification included, of one 4 KiB artifact.
func BenchGet(b *testing.B, s artifact.Store) {
	ctx := context.Background()
	w, err := artifact.NewWrite(scope(b, "bench"), "k", "application/octet-stream", benchData())
	if err != nil {
		b.Fatal(err)
	}
	ref, err := s.Put(ctx, w)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(benchSize)
	for b.Loop() {
		if _, err := s.Get(ctx, ref); err != nil {
			b.Fatal(err)
		}
	}
}
