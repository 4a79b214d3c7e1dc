package tool

import (
	"encoding/json"
	"sync"
)

// SchemaCache remembers normalised, compiled parameter schemas by their
// JSON text. Compiling a schema costs far more than executing a call, and
// agents rebuild their registry for every run, so an agent keeps one cache
// for its lifetime. The zero value is ready; it is safe for concurrent use.
// Cached schemas are shared and must not be modified.
type SchemaCache struct {
	mu sync.Mutex
	m  map[string]cachedSchema
}

type cachedSchema struct {
	params map[string]any
	schema *Schema
}

// Len reports how many schemas are cached.
func (c *SchemaCache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.m)
}

// compile normalises and compiles raw, reusing an earlier compilation of
// the same JSON text. Failures are not cached.
func (c *SchemaCache) compile(name string, raw map[string]any) (map[string]any, *Schema, error) {
	var key string
	if c != nil {
		if b, err := json.Marshal(raw); err == nil {
			key = string(b)
			c.mu.Lock()
			hit, ok := c.m[key]
			c.mu.Unlock()
			if ok {
				return hit.params, hit.schema, nil
			}
		}
	}
	params, err := NormalizeSchema(raw)
	if err != nil {
		return nil, nil, err
	}
	schema, err := CompileSchema(name, params)
	if err != nil {
		return nil, nil, err
	}
	if c != nil && key != "" {
		c.mu.Lock()
		if c.m == nil {
			c.m = map[string]cachedSchema{}
		}
		c.m[key] = cachedSchema{params: params, schema: schema}
		c.mu.Unlock()
	}
	return params, schema, nil
}
