package artifact_test

import (
	"testing"

	"github.com/starweaver-go/starweaver/core/artifact"
	"github.com/starweaver-go/starweaver/core/artifact/artifacttest"
)

func TestMemoryStoreConformance(t *testing.T) {
	artifacttest.Run(t, func(t *testing.T, cfg artifact.Config) artifact.Store {
		return artifact.NewMemoryStore(cfg)
	})
}

func BenchmarkMemoryStorePut(b *testing.B) {
	artifacttest.BenchPut(b, artifact.NewMemoryStore(artifact.Config{}))
}

func BenchmarkMemoryStoreGet(b *testing.B) {
	artifacttest.BenchGet(b, artifact.NewMemoryStore(artifact.Config{}))
}
