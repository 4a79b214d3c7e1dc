package tool

import (
	"context"
	"encoding/json"
	"time"

	"github.com/starweaver-go/starweaver/core/internal/effectclass"
)

// Tool is a callable the model can use.
//
// Call receives arguments that already passed JSON parsing, hooks, argument
// validators and JSON Schema validation. It should return promptly once ctx
// is done; the registry stops waiting for it at that point either way. A
// returned *Error selects the outcome kind; any other error is an
// unexpected execution failure, retried internally.
type Tool interface {
	Definition() Definition
	Call(ctx context.Context, tc *Context, args json.RawMessage) (Result, error)
}

// Cooperative is implemented by tools that always return promptly once
// their context is done, such as tools that only wait on channels selected
// together with ctx.Done(). The registry calls them directly instead of
// watching each attempt from a second goroutine.
type Cooperative interface {
	Cooperative() bool
}

// Handler is the function signature of a schema-given tool.
type Handler func(ctx context.Context, tc *Context, args json.RawMessage) (Result, error)

// ArgumentValidator checks or normalises decoded arguments before the schema
// validation. It may change args in place; returning an error rejects the
// call (an *Error keeps its kind, other errors become invalid_arguments).
// Numbers arrive as json.Number, so that large integers keep their value;
// any JSON-encodable value may be stored. The arguments are re-encoded
// and validated against the schema afterwards.
type ArgumentValidator func(tc *Context, args map[string]any) error

// PreprocessResult is what a user-input preprocessor makes of the input a
// person supplied with an approval.
type PreprocessResult struct {
	// OverrideArguments, when set, replaces the call's arguments.
	OverrideArguments json.RawMessage
	// Metadata is merged into the approval metadata.
	Metadata map[string]any
}

// UserInputPreprocessor turns input supplied during an approval into
// replacement arguments and approval metadata.
type UserInputPreprocessor func(ctx context.Context, tc *Context, input json.RawMessage) (PreprocessResult, error)

// Config holds the optional runtime behaviour of a tool. Tools expose it by
// implementing Configured; wrappers forward it so that renaming or prefixing
// a tool keeps its behaviour.
type Config struct {
	// MaxRetries overrides the inherited retry budget when non-nil.
	MaxRetries *int
	// Timeout overrides the inherited timeout when positive.
	Timeout time.Duration
	// Validators run in order before schema validation.
	Validators []ArgumentValidator
	// Available hides the tool from runs where it returns false.
	Available func(rc *RunContext) bool
	// Listed, when set, says whether the model is offered the tool in rc.
	// A tool that is not listed waits to be discovered (tool search's
	// tools wait to be loaded): it is left out of the definitions without
	// being reported unavailable (so FailOnUnavailable ignores it), and a
	// call naming it anyway is refused as user_error before anything of it
	// runs. Available, by contrast, reports a tool that should be there
	// and is not.
	Listed func(rc *RunContext) bool
	// Prepare rewrites the definition for one run; false hides the tool.
	Prepare func(rc *RunContext, d Definition) (Definition, bool)
	// PreprocessUserInput handles input given with an approval.
	PreprocessUserInput UserInputPreprocessor
	// Hooks run around this tool only, after (before-phase) or before
	// (after-phase) the registry's global hooks.
	Hooks []Hook
	// Capabilities names mutable context capabilities the tool asks for;
	// asking for any forces sequential scheduling.
	Capabilities []string
	// Effect classifies what a call does to the world; it decides whether
	// a failed call may be re-run (see effect.RetrySafe) and whether calls
	// of the tool may run in parallel under one name. Undeclared (""),
	// the registry's default applies.
	Effect EffectClass
	// Concurrency, when set, caps how many calls of the tool run at once
	// (see Limiter); it wins over the toolset's Entry.Concurrency.
	Concurrency *Limiter
	// Resource, when set, orders the tool's calls by what they touch (see
	// ResourceKey) instead of by the tool's name.
	Resource *ResourceKey
	// ArgumentProjection says which projected values the tool receives
	// materialised (all of them by default; see ArgumentProjectionPolicy).
	ArgumentProjection ArgumentProjectionPolicy
	// AttemptMayDefer declares that the tool's attempts may end Pending:
	// only such a tool gets a completion key (see Pending).
	AttemptMayDefer bool
}

// Configured is implemented by tools that carry a Config.
type Configured interface {
	ToolConfig() *Config
}

// ConfigOf returns the tool's Config, or an empty one.
func ConfigOf(t Tool) *Config {
	if c, ok := t.(Configured); ok {
		if cfg := c.ToolConfig(); cfg != nil {
			return cfg
		}
	}
	return &Config{}
}

// EffectClass says what running a tool does to the world (see
// core/effect's Class, the same type, and its constants): it decides
// whether a failed call may run again and whether calls of one tool may
// run in parallel.
type EffectClass = effectclass.Class
