package tool

import (
	"reflect"
	"sync"
)

// maxCachedSchemas bounds a SchemaCache; past it the cache starts afresh,
// so run-scoped tools registered by a long-lived agent cannot grow it
// without limit.
const maxCachedSchemas = 4096

// SchemaCache remembers normalised, compiled parameter schemas. Compiling a
// schema costs far more than executing a call, and agents rebuild their
// registry for every run, so an agent keeps one cache for its lifetime.
//
// Lookups go first by the identity of the schema map (the same tool
// registered again hands over the same map, found without encoding it),
// then by its content. The zero value is ready; it is safe for concurrent
// use. Cached schemas are shared and must not be modified, and a schema map
// must not be modified after its tool is registered.
type SchemaCache struct {
	mu     sync.Mutex
	byText map[string]cachedSchema
	byMap  map[uintptr]cachedSchema
}

type cachedSchema struct {
	// src is the map the entry was found for; holding it keeps its address
	// from being reused by another map while the entry exists.
	src    map[string]any
	params map[string]any
	schema *Schema
}

// Len reports how many distinct schemas are cached.
func (c *SchemaCache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.byText)
}

func mapID(m map[string]any) uintptr {
	if m == nil {
		return 0
	}
	return reflect.ValueOf(m).Pointer()
}

// compile normalises and compiles raw, reusing an earlier compilation of
// the same map or of the same content. Failures are not cached.
func (c *SchemaCache) compile(raw map[string]any) (map[string]any, *Schema, error) {
	if c == nil {
		return compileSchema(raw)
	}
	id := mapID(raw)
	c.mu.Lock()
	hit, ok := c.byMap[id]
	c.mu.Unlock()
	if ok && id != 0 {
		return hit.params, hit.schema, nil
	}
	if raw == nil {
		return compileSchema(raw)
	}
	canon, err := canonical(raw)
	if err != nil {
		return compileSchema(raw) // reports the encoding failure
	}
	key := string(appendKey(nil, canon))
	c.mu.Lock()
	hit, ok = c.byText[key]
	c.mu.Unlock()
	if !ok {
		params, err := normalizeCanonical(canon)
		if err != nil {
			return nil, nil, err
		}
		schema, err := CompileSchema(params)
		if err != nil {
			return nil, nil, err
		}
		hit = cachedSchema{params: params, schema: schema}
	}
	c.mu.Lock()
	if len(c.byText) >= maxCachedSchemas || len(c.byMap) >= maxCachedSchemas {
		c.byText, c.byMap = nil, nil
	}
	if c.byText == nil {
		c.byText = map[string]cachedSchema{}
		c.byMap = map[uintptr]cachedSchema{}
	}
	c.byText[key] = hit
	if id != 0 {
		byMap := hit
		byMap.src = raw
		c.byMap[id] = byMap
	}
	c.mu.Unlock()
	return hit.params, hit.schema, nil
}

func compileSchema(raw map[string]any) (map[string]any, *Schema, error) {
	params, err := NormalizeSchema(raw)
	if err != nil {
		return nil, nil, err
	}
	schema, err := CompileSchema(params)
	if err != nil {
		return nil, nil, err
	}
	return params, schema, nil
}

// SchemaCache returns the cache r compiles parameter schemas with (nil for
// none), so that a registry staged to be merged into r can share it.
func (r *Registry) SchemaCache() *SchemaCache { return r.cache }
