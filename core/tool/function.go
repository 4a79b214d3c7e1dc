package tool

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"time"
)

// Function is a tool built from a Handler and a JSON Schema given as data,
// for schemas that come from elsewhere (MCP servers, other languages). The
// With methods configure it before registration; they must not be called
// once the tool is registered.
type Function struct {
	def     Definition
	handler Handler
	cfg     Config
	// buildErr is a construction failure reported at registration.
	buildErr error
}

// Err reports a failure to build the tool (for example a schema that could
// not be generated). Registration returns it too.
func (f *Function) Err() error { return f.buildErr }

// New returns a function tool. parameters is a JSON Schema object; nil means
// a tool without arguments. The schema is normalised and checked when the
// tool is registered.
func New(name, description string, parameters map[string]any, h Handler) *Function {
	return &Function{
		def:     Definition{Name: name, Description: description, Parameters: parameters},
		handler: h,
	}
}

// NewFromJSON is New with the schema given as JSON text.
func NewFromJSON(name, description string, parameters []byte, h Handler) (*Function, error) {
	var schema map[string]any
	if len(parameters) > 0 {
		if err := json.Unmarshal(parameters, &schema); err != nil {
			return nil, fmt.Errorf("tool %q: parameters schema is not a JSON object: %w", name, err)
		}
	}
	return New(name, description, schema, h), nil
}

// Definition returns the model-facing definition. Its metadata map is a
// copy, so changing it does not change the tool.
func (f *Function) Definition() Definition { return f.def.Clone() }

// ToolConfig returns the runtime configuration.
func (f *Function) ToolConfig() *Config { return &f.cfg }

// Call runs the handler, turning a nil handler into a user error.
func (f *Function) Call(ctx context.Context, tc *Context, args json.RawMessage) (Result, error) {
	if f.handler == nil {
		return Result{}, UserError("tool %q has no handler", f.def.Name)
	}
	return f.handler(ctx, tc, args)
}

func (f *Function) meta() map[string]any {
	if f.def.Metadata == nil {
		f.def.Metadata = map[string]any{}
	}
	return f.def.Metadata
}

// WithMetadata merges md into the definition metadata.
func (f *Function) WithMetadata(md map[string]any) *Function {
	maps.Copy(f.meta(), md)
	return f
}

// WithKind records the tool kind in the metadata.
func (f *Function) WithKind(k Kind) *Function {
	f.meta()[MetaKind] = string(k)
	return f
}

// WithTags sets the capability tags (normalised).
func (f *Function) WithTags(tags ...string) *Function {
	setTags(f.meta(), MetaTags, append(MetadataTags(f.def.Metadata), tags...))
	return f
}

// WithHiddenByTags sets the tags that hide this tool when active.
func (f *Function) WithHiddenByTags(tags ...string) *Function {
	setTags(f.meta(), MetaHiddenByTags, append(MetadataHiddenByTags(f.def.Metadata), tags...))
	return f
}

// WithReturnSchema sets the JSON Schema of successful results.
func (f *Function) WithReturnSchema(schema map[string]any) *Function {
	f.def.ReturnSchema = schema
	return f
}

// WithStrict asks providers for a strict schema.
func (f *Function) WithStrict(strict bool) *Function {
	f.def.Strict = boolPtr(strict)
	return f
}

// WithSequential asks for model-order execution of any batch containing it.
func (f *Function) WithSequential(seq bool) *Function {
	f.def.Sequential = boolPtr(seq)
	return f
}

// WithMaxRetries sets the tool's retry budget and records it in the
// metadata. A negative n is reported by Err and at registration (see
// [CheckMaxRetries]).
func (f *Function) WithMaxRetries(n int) *Function {
	f.fail(f.cfg.SetMaxRetries(f.meta(), n))
	return f
}

// WithTimeout sets the tool's execution timeout and records it in the
// metadata. A timeout that is not positive is reported by Err and at
// registration (see [CheckTimeout]).
func (f *Function) WithTimeout(d time.Duration) *Function {
	f.fail(f.cfg.SetTimeout(f.meta(), d))
	return f
}

// WithEffect declares what the tool's calls do to the world (see
// effect.Class): it decides whether a failed call is re-run and whether
// calls under one name may run in parallel. An unknown class is reported
// by Err and at registration.
func (f *Function) WithEffect(c EffectClass) *Function {
	f.fail(f.cfg.SetEffect(f.meta(), c))
	return f
}

// fail keeps the first construction failure.
func (f *Function) fail(err error) {
	if err != nil && f.buildErr == nil {
		f.buildErr = err
	}
}

// WithAvailability hides the tool from runs where available returns false.
func (f *Function) WithAvailability(available func(rc *RunContext) bool) *Function {
	f.cfg.Available = available
	return f
}

// WithPrepareDefinition rewrites the definition per run; returning false
// hides the tool from that run's request without unregistering it.
func (f *Function) WithPrepareDefinition(prepare func(rc *RunContext, d Definition) (Definition, bool)) *Function {
	f.cfg.Prepare = prepare
	return f
}

// WithArgumentValidator appends a validator; validators run in order.
func (f *Function) WithArgumentValidator(v ArgumentValidator) *Function {
	f.cfg.Validators = append(f.cfg.Validators, v)
	return f
}

// WithUserInputPreprocessor sets the approval user-input preprocessor.
func (f *Function) WithUserInputPreprocessor(p UserInputPreprocessor) *Function {
	f.cfg.PreprocessUserInput = p
	return f
}

// WithHook adds a hook that runs around this tool only.
func (f *Function) WithHook(h Hook) *Function {
	f.cfg.Hooks = append(f.cfg.Hooks, h)
	return f
}

// WithDependencies records the tool's dependency requirements.
func (f *Function) WithDependencies(req Dependencies) *Function {
	f.meta()[MetaDependencies] = req.metadataValue()
	return f
}
