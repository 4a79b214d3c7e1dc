package tool_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/starweaver-go/starweaver/core/tool"
)

func TestSchemaCache(t *testing.T) {
	var cache tool.SchemaCache
	schema := func() map[string]any {
		return map[string]any{"properties": map[string]any{"n": map[string]any{"type": "integer", "maximum": 3}}}
	}
	build := func(names ...string) *tool.Registry {
		var r tool.Registry
		r.SetSchemaCache(&cache)
		for _, n := range names {
			if err := r.Add(tool.New(n, "", schema(), okHandler)); err != nil {
				t.Fatal(err)
			}
		}
		return &r
	}
	r1 := build("a", "b")
	r2 := build("c")
	if cache.Len() != 1 {
		t.Fatalf("cache holds %d schemas, want 1", cache.Len())
	}
	for _, r := range []*tool.Registry{r1, r2} {
		for _, n := range r.Names() {
			wantSuccess(t, r.Execute(context.Background(), nil, call("1", n, `{"n":2}`)))
			wantKind(t, r.Execute(context.Background(), nil, call("2", n, `{"n":9}`)), tool.ErrorKindInvalidArguments)
			d, _ := r.Definition(n)
			if d.Parameters["type"] != "object" {
				t.Fatalf("cached parameters not normalised: %v", d.Parameters)
			}
		}
	}
	// Malformed schemas are rejected and not cached.
	var r tool.Registry
	r.SetSchemaCache(&cache)
	for range 2 {
		if err := r.Add(tool.New("bad", "", map[string]any{"type": "array"}, okHandler)); !errors.Is(err, tool.ErrSchema) {
			t.Fatalf("malformed schema: %v", err)
		}
	}
	if cache.Len() != 1 {
		t.Fatalf("cache holds %d schemas after failures", cache.Len())
	}
	// A nil cache turns caching off.
	r.SetSchemaCache(nil)
	if err := r.Add(tool.New("ok", "", schema(), okHandler)); err != nil {
		t.Fatal(err)
	}
}

func TestSchemaCacheConcurrentUse(t *testing.T) {
	var cache tool.SchemaCache
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for i := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var r tool.Registry
			r.SetSchemaCache(&cache)
			s := map[string]any{"properties": map[string]any{"v": map[string]any{"type": "string", "maxLength": i % 4}}}
			if err := r.Add(tool.New(fmt.Sprintf("t%d", i), "", s, okHandler)); err != nil {
				errs <- err
				return
			}
			ret := r.Execute(context.Background(), nil, call("1", fmt.Sprintf("t%d", i), `{"v":"abcdef"}`))
			if ret.ErrorKind() != tool.ErrorKindInvalidArguments {
				errs <- fmt.Errorf("t%d: %v", i, ret.Content)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if cache.Len() != 4 {
		t.Fatalf("cache holds %d schemas, want 4", cache.Len())
	}
}
