package openai

import (
	"encoding/json"
	"reflect"
	"sync"

	"github.com/starweaver-go/starweaver/core/tool"
)

// Tool definitions are sent with every request, and encoding their schemas
// (converting the strict ones first) is most of what building a request
// costs. Schemas are immutable once registered (see tool.Definition.Clone),
// so each definition is encoded once and the bytes reused: the cache is
// keyed by the identity of the schema map, plus the fields beside it, and
// keeps the map itself alive, so its address cannot be reused by another
// map while the entry exists. The cache is bounded: past encodedMax
// entries (schemas built anew for every request) it starts over.

const encodedMax = 4096

type encodedKey struct {
	api        string // "chat", "responses" or "format"
	schema     uintptr
	name, desc string
	strict     bool
}

type encodedEntry struct {
	schema map[string]any // keeps the key's map alive
	json   json.RawMessage
}

var encoded struct {
	sync.RWMutex
	m map[encodedKey]encodedEntry
}

// encodeOnce returns build's encoding, cached for a non-nil schema.
func encodeOnce(k encodedKey, schema map[string]any, build func() any) (json.RawMessage, error) {
	if schema == nil {
		return json.Marshal(build())
	}
	k.schema = uintptr(reflect.ValueOf(schema).UnsafePointer())
	encoded.RLock()
	e, ok := encoded.m[k]
	encoded.RUnlock()
	if ok {
		return e.json, nil
	}
	b, err := json.Marshal(build())
	if err != nil {
		return nil, err
	}
	encoded.Lock()
	if encoded.m == nil || len(encoded.m) >= encodedMax {
		encoded.m = make(map[encodedKey]encodedEntry)
	}
	encoded.m[k] = encodedEntry{schema: schema, json: b}
	encoded.Unlock()
	return b, nil
}

// chatToolJSON is the encoded Chat Completions tool of d.
func chatToolJSON(d tool.Definition) (json.RawMessage, error) {
	return encodeOnce(encodedKey{api: "chat", name: d.Name, desc: d.Description, strict: d.IsStrict()}, d.Parameters,
		func() any { return chatTool{Type: "function", Function: function(d)} })
}

// responsesToolJSON is the encoded Responses tool of d.
func responsesToolJSON(d tool.Definition) (json.RawMessage, error) {
	return encodeOnce(encodedKey{api: "responses", name: d.Name, desc: d.Description, strict: d.IsStrict()}, d.Parameters,
		func() any {
			f := function(d)
			return responsesTool{Type: "function", Name: f.Name, Description: f.Description, Parameters: f.Parameters, Strict: f.Strict != nil}
		})
}

// strictSchemaJSON is the encoded strict form of a native output schema.
func strictSchemaJSON(schema map[string]any) (json.RawMessage, error) {
	return encodeOnce(encodedKey{api: "format"}, schema, func() any { return strictSchema(schema) })
}
