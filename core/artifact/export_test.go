package artifact

import (
	"context"
	"fmt"
)

// Tamper lets the conformance suite corrupt a stored artifact
// (artifacttest.Tamperer): it replaces the stored reference and bytes of
// stored.ID with no check at all.
func (s *MemoryStore) Tamper(_ context.Context, stored Ref, data []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	sc := s.scopes[stored.Scope]
	if sc == nil {
		return fmt.Errorf("tamper: %w", ErrNotFound)
	}
	if _, ok := sc.artifacts[stored.ID]; !ok {
		return fmt.Errorf("tamper: %w", ErrNotFound)
	}
	sc.artifacts[stored.ID] = memoryArtifact{ref: stored, data: data}
	return nil
}
