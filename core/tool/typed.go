package tool

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/invopop/jsonschema"
)

// TypedOption configures schema generation for Typed.
type TypedOption func(*typedOptions)

type typedOptions struct {
	reflector                 *jsonschema.Reflector
	commentsBase, commentsDir string
}

// WithReflector generates the schema with r instead of the default
// reflector (expanded top-level struct, required unless omitempty).
func WithReflector(r *jsonschema.Reflector) TypedOption {
	return func(o *typedOptions) { o.reflector = r }
}

// WithGoComments reads field doc comments from the Go sources of the package
// whose import path is base, found in directory dir, so that they become
// per-argument descriptions.
func WithGoComments(base, dir string) TypedOption {
	return func(o *typedOptions) { o.commentsBase, o.commentsDir = base, dir }
}

// SchemaOf generates the JSON Schema of T. Descriptions come from
// `jsonschema:"description=..."` tags (or doc comments with WithGoComments),
// defaults from `jsonschema:"default=..."`. A top-level property with a
// default is optional, as Typed fills it in when a call omits it.
func SchemaOf[T any](opts ...TypedOption) (map[string]any, error) {
	var o typedOptions
	for _, opt := range opts {
		opt(&o)
	}
	r := o.reflector
	if r == nil {
		r = &jsonschema.Reflector{ExpandedStruct: true}
	}
	if o.commentsDir != "" {
		if err := r.AddGoComments(o.commentsBase, o.commentsDir); err != nil {
			return nil, fmt.Errorf("tool: reading Go comments of %s: %w", o.commentsBase, err)
		}
	}
	s := r.ReflectFromType(reflect.TypeFor[T]())
	b, err := json.Marshal(s)
	if err != nil {
		return nil, fmt.Errorf("tool: encoding schema of %s: %w", reflect.TypeFor[T](), err)
	}
	var out map[string]any
	if err := json.Unmarshal(b, &out); err != nil {
		return nil, fmt.Errorf("tool: decoding schema of %s: %w", reflect.TypeFor[T](), err)
	}
	dropDefaultedRequired(out)
	return out, nil
}

// dropDefaultedRequired removes top-level properties that have a default
// from the required list: a call may omit them and get the default.
func dropDefaultedRequired(schema map[string]any) {
	req, ok := schema["required"].([]any)
	if !ok {
		return
	}
	props, _ := schema["properties"].(map[string]any)
	kept := req[:0]
	for _, r := range req {
		name, _ := r.(string)
		if p, ok := props[name].(map[string]any); ok {
			if _, hasDefault := p["default"]; hasDefault {
				continue
			}
		}
		kept = append(kept, r)
	}
	if len(kept) == 0 {
		delete(schema, "required")
		return
	}
	schema["required"] = kept
}

// Typed returns a function tool whose arguments are decoded into T. Its
// schema is generated from T; arguments missing from the call take the
// schema's defaults before decoding. A schema that cannot be generated or
// is not an object makes registration fail.
func Typed[T any](name, description string, fn func(ctx context.Context, tc *Context, args T) (Result, error), opts ...TypedOption) *Function {
	schema, err := SchemaOf[T](opts...)
	var defaults []byte
	if err == nil {
		defaults, err = topLevelDefaults(schema)
	}
	f := New(name, description, schema, nil)
	if err != nil {
		f.buildErr = err
		return f
	}
	if fn == nil {
		return f
	}
	f.handler = func(ctx context.Context, tc *Context, raw json.RawMessage) (Result, error) {
		var args T
		if defaults != nil {
			if err := json.Unmarshal(defaults, &args); err != nil {
				return Result{}, UserError("schema defaults do not decode into %s: %v", reflect.TypeFor[T](), err)
			}
		}
		if len(raw) > 0 {
			if err := json.Unmarshal(raw, &args); err != nil {
				return Result{}, decodeError(err)
			}
		}
		return fn(ctx, tc, args)
	}
	return f
}

// topLevelDefaults collects the defaults of top-level properties as a JSON
// object, or nil when there are none.
func topLevelDefaults(schema map[string]any) ([]byte, error) {
	props, _ := schema["properties"].(map[string]any)
	defs := map[string]any{}
	for name, p := range props {
		if pm, ok := p.(map[string]any); ok {
			if d, ok := pm["default"]; ok {
				defs[name] = d
			}
		}
	}
	if len(defs) == 0 {
		return nil, nil
	}
	return json.Marshal(defs)
}
