package tool

import (
	"bytes"
	"context"
	"encoding/json"
)

// ProjectionMarker is the key of a projected value in a call's arguments:
// a host that hands a model references to values it keeps (a large
// document, an earlier result) writes each as the object
// {"__projection_ref__": <reference>}. Tools never see the marker unless
// their ArgumentProjectionPolicy keeps it (see PreserveProjectedRefsInField).
const ProjectionMarker = "__projection_ref__"

// ProjectionResolver materialises projected values: it returns the JSON
// value a reference stands for. The host supplies it
// (Registry.SetProjectionResolver); it runs before a call's hooks and
// schema validation, once per projected value, and must be safe for
// concurrent use. An error ends the call as invalid_arguments, so that
// the model can correct a reference it made up.
type ProjectionResolver interface {
	Materialize(ctx context.Context, tc *Context, ref json.RawMessage) (json.RawMessage, error)
}

// ProjectionResolverFunc is an adapter to allow the use of ordinary
// functions as ProjectionResolvers.
type ProjectionResolverFunc func(ctx context.Context, tc *Context, ref json.RawMessage) (json.RawMessage, error)

// Materialize calls f.
func (f ProjectionResolverFunc) Materialize(ctx context.Context, tc *Context, ref json.RawMessage) (json.RawMessage, error) {
	return f(ctx, tc, ref)
}

// ArgumentProjectionPolicy says how a tool receives projected values. The
// zero value materialises every one (the default: tools receive plain
// JSON and know nothing of the marker).
type ArgumentProjectionPolicy struct {
	// PreserveField, when set, names the one top-level argument whose
	// projected values keep their {"__projection_ref__": ...} wrappers (a
	// tool that hands references on, to a child run say); projected
	// values anywhere else are materialised.
	PreserveField string
}

// MaterializeProjections is the default policy: every projected value is
// materialised.
func MaterializeProjections() ArgumentProjectionPolicy { return ArgumentProjectionPolicy{} }

// PreserveProjectedRefsInField is the policy of a projection-aware tool:
// only field (a top-level argument) keeps projected wrappers.
func PreserveProjectedRefsInField(field string) ArgumentProjectionPolicy {
	return ArgumentProjectionPolicy{PreserveField: field}
}

// WithArgumentProjection sets the tool's projection policy.
func (f *Function) WithArgumentProjection(p ArgumentProjectionPolicy) *Function {
	f.cfg.ArgumentProjection = p
	return f
}

// SetProjectionResolver makes the registry normalise projected values in
// its calls' arguments through x, each tool's ArgumentProjectionPolicy
// deciding which are materialised; nil (the default) leaves arguments as
// the model wrote them. Like every setting it must not change while calls
// run.
func (r *Registry) SetProjectionResolver(x ProjectionResolver) { r.projection = x }

var projectionMarker = []byte(`"` + ProjectionMarker + `"`)

// project normalises the projected values of the call c prepares (raw
// is its checked arguments object) and returns the arguments the rest of
// the call sees. Arguments without the marker are returned as they are,
// without being decoded.
func (c *callRun) project(raw json.RawMessage) (json.RawMessage, error) {
	x := c.r.projection
	if x == nil || !bytes.Contains(raw, projectionMarker) {
		return raw, nil
	}
	var args map[string]json.RawMessage
	if err := json.Unmarshal(raw, &args); err != nil {
		return nil, InvalidArguments("tool arguments are not a JSON object: %v", err)
	}
	keep := c.e.cfg.ArgumentProjection.PreserveField
	changed := false
	for k, v := range args {
		if k == keep || !bytes.Contains(v, projectionMarker) {
			continue
		}
		out, err := c.materialize(x, v)
		if err != nil {
			return nil, err
		}
		args[k], changed = out, true
	}
	if !changed {
		return raw, nil
	}
	b, err := json.Marshal(args)
	if err != nil {
		return nil, InvalidArguments("projected arguments are not JSON: %v", err)
	}
	return checkArguments(b)
}

// materialize replaces every projected value in v (a JSON value) by what
// the resolver gives for it. A materialised value is not searched again:
// it is the host's, not the model's.
func (c *callRun) materialize(x ProjectionResolver, v json.RawMessage) (json.RawMessage, error) {
	var tree any
	d := json.NewDecoder(bytes.NewReader(v))
	d.UseNumber()
	if err := d.Decode(&tree); err != nil {
		return nil, InvalidArguments("tool arguments are not JSON: %v", err)
	}
	out, err := c.walkProjection(x, tree)
	if err != nil {
		return nil, err
	}
	return json.Marshal(out)
}

func (c *callRun) walkProjection(x ProjectionResolver, v any) (any, error) {
	switch t := v.(type) {
	case map[string]any:
		if ref, ok := t[ProjectionMarker]; ok && len(t) == 1 {
			b, err := json.Marshal(ref)
			if err != nil {
				return nil, InvalidArguments("projected reference is not JSON: %v", err)
			}
			val, err := x.Materialize(c.ctx, &c.tc, b)
			if err != nil {
				return nil, InvalidArguments("the projected value %s cannot be materialised: %v", b, err)
			}
			if !json.Valid(val) {
				return nil, UserError("the projection resolver gave a value that is not JSON for %s", b)
			}
			return json.RawMessage(val), nil
		}
		for k, e := range t {
			out, err := c.walkProjection(x, e)
			if err != nil {
				return nil, err
			}
			t[k] = out
		}
		return t, nil
	case []any:
		for i, e := range t {
			out, err := c.walkProjection(x, e)
			if err != nil {
				return nil, err
			}
			t[i] = out
		}
		return t, nil
	}
	return v, nil
}
