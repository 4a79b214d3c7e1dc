package artifact_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/starweaver-go/starweaver/core/artifact"
)

// A tool stores a chart under an idempotency key and returns the
// reference; the bytes are read back, checked, where they are needed.
func Example() {
	ctx := context.Background()
	store := artifact.NewMemoryStore(artifact.Config{})
	scope, err := artifact.ParseScope("tenant.acme")
	if err != nil {
		fmt.Println(err)
		return
	}

	chart := []byte("\x89PNG\r\n\x1a\n...pixels...")
	w, err := artifact.NewWrite(scope, "run-42/chart", "image/png", chart)
	if err == nil {
		w, err = w.WithName("chart.png")
	}
	if err != nil {
		fmt.Println(err)
		return
	}
	ref, err := store.Put(ctx, w)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(ref.ID[:15], ref.MediaType, ref.Size, ref.Name)

	a, err := store.Get(ctx, ref)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(len(a.Bytes))
	// Output:
	// sha256:9455962e image/png 20 chart.png
	// 20
}

// A retried put with the same key returns the stored reference; reusing
// the key for other content is a conflict.
func ExampleStore_idempotency() {
	ctx := context.Background()
	store := artifact.NewMemoryStore(artifact.Config{})
	scope, _ := artifact.ParseScope("tenant.acme")

	put := func(key, text string) (artifact.Ref, error) {
		w, err := artifact.NewWrite(scope, key, "text/plain", []byte(text))
		if err != nil {
			return artifact.Ref{}, err
		}
		return store.Put(ctx, w)
	}
	first, _ := put("summary", "The quarter went well.")
	again, _ := put("summary", "The quarter went well.")
	fmt.Println(again.Equal(first))

	_, err := put("summary", "The quarter went badly.")
	fmt.Println(errors.Is(err, artifact.ErrIdempotencyConflict), artifact.KindOf(err))
	// Output:
	// true
	// true artifact_conflict
}

// A resolver reads only its own scope's artifacts, within a size limit.
func ExampleResolver() {
	ctx := context.Background()
	store := artifact.NewMemoryStore(artifact.Config{})
	acme, _ := artifact.ParseScope("tenant.acme")
	other, _ := artifact.ParseScope("tenant.other")

	w, _ := artifact.NewWrite(other, "k", "text/plain", []byte("not yours"))
	ref, _ := store.Put(ctx, w)

	r := artifact.Resolver{Reader: store, Scope: acme}
	_, _, err := r.Resolve(ctx, ref)
	fmt.Println(artifact.KindOf(err))
	// Output:
	// artifact_invalid
}
