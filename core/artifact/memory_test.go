package artifact_test

import (
	"testing"

	"github.com/starweaver-go/starweaver/core/artifact"
	"github.com/starweaver-go/starweaver/core/artifact/artifacttest"
)

func TestMemoryStoreConformance(t *testing.T) {
	artifacttest.Run(t, func(t *testing.T, opts ...artifact.Option) artifact.Store {
		return artifact.NewMemoryStore(opts...)
	})
}

func BenchmarkMemoryStorePut(b *testing.B) { artifacttest.BenchPut(b, artifact.NewMemoryStore()) }

func BenchmarkMemoryStoreGet(b *testing.B) { artifacttest.BenchGet(b, artifact.NewMemoryStore()) }
