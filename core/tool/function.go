package tool

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"time"
)

// Function is a tool built from a Handler and a JSON Schema given as data,
// for schemas that come from elsewhere (MCP servers, other languages). It
// is built by [NewFunction] from a [FunctionOptions], or by New and the
// With methods, a chain over the same settings whose first failure Err
// reports. The With methods must not be called once the tool is
// registered.
type Function struct {
	def     Definition
	handler Handler
	cfg     Config
	// buildErr is a construction failure reported at registration.
	buildErr error
}

// FunctionOptions configures a Function built by [NewFunction]. The zero
// value is the defaults: no description, no arguments, no metadata, and
// every runtime setting inherited. Each field is what the With method of
// the same name sets, with the same checks; Metadata is merged first, so
// the fields recorded in the metadata (Kind, Tags, MaxRetries, ...) win
// over its keys.
type FunctionOptions struct {
	// Description tells the model what the tool does.
	Description string
	// Parameters is the JSON Schema object of the arguments (nil: none);
	// it is normalised and checked when the tool is registered.
	Parameters map[string]any
	// Metadata is merged into the definition metadata.
	Metadata map[string]any
	// Kind is recorded in the metadata ("": none).
	Kind Kind
	// Tags are the capability tags (normalised).
	Tags []string
	// HiddenByTags are the tags that hide the tool when active.
	HiddenByTags []string
	// Dependencies, when set, records the tool's dependency requirements.
	Dependencies *Dependencies
	// ReturnSchema is the JSON Schema of successful results.
	ReturnSchema map[string]any
	// Strict, when set, asks providers for a strict schema (or not).
	Strict *bool
	// Sequential, when set, asks for model-order execution of any batch
	// containing the tool (or not).
	Sequential *bool
	// MaxRetries, when set, is the tool's retry budget (negative: an
	// error, see [CheckMaxRetries]).
	MaxRetries *int
	// Timeout is the tool's execution timeout (0: inherited; negative: an
	// error, see [CheckTimeout]).
	Timeout time.Duration
	// Effect declares what the tool's calls do to the world ("":
	// undeclared; an unknown class is an error).
	Effect EffectClass
	// Availability hides the tool from runs where it returns false.
	Availability func(rc *RunContext) bool
	// PrepareDefinition rewrites the definition per run (see
	// WithPrepareDefinition).
	PrepareDefinition func(rc *RunContext, d Definition) (Definition, bool)
	// ArgumentValidators run in order.
	ArgumentValidators []ArgumentValidator
	// UserInputPreprocessor is the approval user-input preprocessor.
	UserInputPreprocessor UserInputPreprocessor
	// Hooks run around this tool only.
	Hooks []Hook
}

// NewFunction returns a function tool named name running h, configured by
// o, or its first building error (an invalid retry budget, timeout or
// effect): the same tool and the same error as New followed by the With
// method of each field set in o, in the order of the fields.
func NewFunction(name string, h Handler, o FunctionOptions) (*Function, error) {
	f := New(name, o.Description, o.Parameters, h)
	if o.Metadata != nil {
		f.WithMetadata(o.Metadata)
	}
	if o.Kind != "" {
		f.WithKind(o.Kind)
	}
	if len(o.Tags) > 0 {
		f.WithTags(o.Tags...)
	}
	if len(o.HiddenByTags) > 0 {
		f.WithHiddenByTags(o.HiddenByTags...)
	}
	if o.Dependencies != nil {
		f.WithDependencies(*o.Dependencies)
	}
	if o.ReturnSchema != nil {
		f.WithReturnSchema(o.ReturnSchema)
	}
	if o.Strict != nil {
		f.WithStrict(*o.Strict)
	}
	if o.Sequential != nil {
		f.WithSequential(*o.Sequential)
	}
	if o.MaxRetries != nil {
		f.WithMaxRetries(*o.MaxRetries)
	}
	if o.Timeout != 0 {
		f.WithTimeout(o.Timeout)
	}
	if o.Effect != "" {
		f.WithEffect(o.Effect)
	}
	if o.Availability != nil {
		f.WithAvailability(o.Availability)
	}
	if o.PrepareDefinition != nil {
		f.WithPrepareDefinition(o.PrepareDefinition)
	}
	for _, v := range o.ArgumentValidators {
		f.WithArgumentValidator(v)
	}
	if o.UserInputPreprocessor != nil {
		f.WithUserInputPreprocessor(o.UserInputPreprocessor)
	}
	for _, h := range o.Hooks {
		f.WithHook(h)
	}
	if f.buildErr != nil {
		return nil, f.buildErr
	}
	return f, nil
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
