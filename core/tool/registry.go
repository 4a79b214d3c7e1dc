package tool

import (
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/starweaver-go/starweaver/core/internal/effectclass"
)

// DefaultMaxRetries is the retry budget of a tool when neither the tool, its
// toolset nor the registry sets one.
const DefaultMaxRetries = 3

// ErrDuplicateTool is returned when a name is registered twice.
var ErrDuplicateTool = errors.New("tool: duplicate tool name")

// Entry is a tool together with the defaults it inherits from the toolset
// that contributed it. Toolset defaults apply only where the tool sets none.
type Entry struct {
	Tool       Tool
	Toolset    string
	ToolsetID  string
	MaxRetries *int
	Timeout    time.Duration
	// Concurrency is the toolset's cap on this tool's calls (see
	// Limiters.For); the tool's own Config.Concurrency wins.
	Concurrency *Limiter
}

type entry struct {
	Entry
	def    Definition
	cfg    *Config
	schema *Schema
	deps   Dependencies
}

// Registry holds tools by name and executes calls to them. Build it first,
// then execute: a Registry must not be modified while calls run, and then
// it is safe for concurrent use. The zero value is an empty registry.
type Registry struct {
	entries    map[string]*entry
	names      []string
	maxRetries *int
	timeout    time.Duration
	// effect is the class of tools that declare none.
	effect EffectClass
	hooks  []Hook
	cache  *SchemaCache
	// maxOutput bounds one call's output (see SetMaxOutputBytes); 0 means
	// DefaultMaxOutputBytes.
	maxOutput int
	// refused holds the registered names a grant left out (see Grant).
	refused map[string]bool
	// journal, when set, journals the calls that may change the world
	// (journal.go).
	journal CallJournal
	// intents, when set, realises the intents calls declare (intents.go).
	intents IntentRealiser
	// unlisted holds the tools registered unlisted (unlisted.go): kept
	// apart from entries, so that no listing or lookup of a model's call
	// ever sees them.
	unlisted map[string]*entry
	// destructive, when set, is the policy of destructive calls
	// (destructive.go).
	destructive *destructiveRule
	// projection, when set, materialises projected argument values
	// (projection.go).
	projection ProjectionResolver
	// completionKeys, when set, reserves the completion keys of the
	// calls of tools that may defer (pending.go).
	completionKeys CompletionKeyFunc
}

// NewRegistry returns a registry holding tools.
func NewRegistry(tools ...Tool) (*Registry, error) {
	r := &Registry{}
	if err := r.Add(tools...); err != nil {
		return nil, err
	}
	return r, nil
}

// Add registers tools. It fails without registering anything further when a
// tool is nil, its name is blank or taken, or its schema is malformed.
func (r *Registry) Add(tools ...Tool) error {
	for _, t := range tools {
		if err := r.AddEntry(Entry{Tool: t}); err != nil {
			return err
		}
	}
	return nil
}

// AddEntry registers one tool with inherited toolset defaults.
func (r *Registry) AddEntry(e Entry) error {
	if isNilTool(e.Tool) {
		return errors.New("tool: cannot register a nil tool")
	}
	if f, ok := e.Tool.(interface{ Err() error }); ok && f.Err() != nil {
		return fmt.Errorf("tool %q: %w", e.Tool.Definition().Name, f.Err())
	}
	def := e.Tool.Definition().Clone()
	if strings.TrimSpace(def.Name) == "" {
		return errors.New("tool: tool name must not be empty")
	}
	if r.taken(def.Name) {
		return fmt.Errorf("%w %q", ErrDuplicateTool, def.Name)
	}
	params, schema, err := r.cache.compile(def.Parameters)
	if err != nil {
		return fmt.Errorf("tool %q: %w", def.Name, err)
	}
	def.Parameters = params
	cfg := ConfigOf(e.Tool)
	if err := CheckEffect(cfg.Effect); err != nil {
		return fmt.Errorf("tool %q: %w", def.Name, err)
	}
	ent := &entry{Entry: e, def: def, cfg: cfg, schema: schema, deps: ParseDependencies(def.Metadata)}
	if IsUnlisted(e.Tool) {
		r.addUnlisted(ent)
		return nil
	}
	if r.entries == nil {
		r.entries = map[string]*entry{}
	}
	r.entries[def.Name] = ent
	i, _ := slices.BinarySearch(r.names, def.Name)
	r.names = slices.Insert(r.names, i, def.Name)
	return nil
}

// isNilTool reports whether t is nil or a nil pointer (or other nil
// reference) stored in the interface, whose methods would panic.
func isNilTool(t Tool) bool {
	if t == nil {
		return true
	}
	switch v := reflect.ValueOf(t); v.Kind() {
	case reflect.Pointer, reflect.Map, reflect.Slice, reflect.Func, reflect.Chan, reflect.Interface:
		return v.IsNil()
	}
	return false
}

// Merge registers every tool of other, keeping their toolset defaults.
func (r *Registry) Merge(other *Registry) error {
	if other == nil {
		return nil
	}
	for _, n := range other.names {
		if err := r.AddEntry(other.entries[n].Entry); err != nil {
			return err
		}
	}
	for _, n := range other.unlistedNames() {
		if err := r.AddEntry(other.unlisted[n].Entry); err != nil {
			return err
		}
	}
	r.hooks = append(r.hooks, other.hooks...)
	if r.effect == effectclass.ClassUndeclared {
		r.effect = other.effect
	}
	if r.intents == nil {
		r.intents = other.intents
	}
	if r.journal == nil {
		r.journal = other.journal
	}
	return nil
}

// SetMaxRetries sets the registry-wide retry budget (below tool and toolset).
func (r *Registry) SetMaxRetries(n int) { r.maxRetries = &n }

// SetDefaultEffect sets the effect class of tools that declare none
// (undeclared by default: such tools keep the seeds' rule, unexpected
// failures re-run within the retry budget). An unknown class is an
// ErrInvalidOption.
func (r *Registry) SetDefaultEffect(c EffectClass) error {
	if err := CheckEffect(c); err != nil {
		return err
	}
	r.effect = c
	return nil
}

// EffectOf returns the effect class of the named tool: its own, else the
// registry's default; undeclared ("") for unknown names.
func (r *Registry) EffectOf(name string) EffectClass {
	e, ok := r.entries[name]
	if !ok {
		return effectclass.ClassUndeclared
	}
	return r.effectOf(e)
}

func (r *Registry) effectOf(e *entry) EffectClass {
	if e.cfg.Effect != effectclass.ClassUndeclared {
		return e.cfg.Effect
	}
	return r.effect
}

// SetTimeout sets the registry-wide timeout (below tool and toolset).
func (r *Registry) SetTimeout(d time.Duration) { r.timeout = d }

// SetSchemaCache makes registration reuse compiled schemas from c; nil
// turns caching off.
func (r *Registry) SetSchemaCache(c *SchemaCache) { r.cache = c }

// AddHook adds a global hook; global hooks run in the order added.
func (r *Registry) AddHook(h Hook) { r.hooks = append(r.hooks, h) }

// Len returns the number of tools.
func (r *Registry) Len() int { return len(r.names) }

// Names returns the tool names, sorted.
func (r *Registry) Names() []string { return slices.Clone(r.names) }

// Tool returns the tool registered under name.
func (r *Registry) Tool(name string) (Tool, bool) {
	e, ok := r.entries[name]
	if !ok {
		return nil, false
	}
	return e.Tool, true
}

// Entry returns the registration of name.
func (r *Registry) Entry(name string) (Entry, bool) {
	e, ok := r.entries[name]
	if !ok {
		return Entry{}, false
	}
	return e.Entry, true
}

// Definition returns the normalised definition of name. Its metadata map
// is a copy; its schemas are shared and must not be modified.
func (r *Registry) Definition(name string) (Definition, bool) {
	e, ok := r.entries[name]
	if !ok {
		return Definition{}, false
	}
	return e.def.Clone(), true
}

// MetadataValue returns the value the normalised definition of name holds
// under key in its metadata, without copying the definition as Definition
// does: for callers that read one key per call. The value is shared and
// must not be modified.
func (r *Registry) MetadataValue(name, key string) (any, bool) {
	e, ok := r.entries[name]
	if !ok {
		return nil, false
	}
	v, ok := e.def.Metadata[key]
	return v, ok
}

// Definitions returns every definition, sorted by name, with copied
// metadata maps as Definition does.
func (r *Registry) Definitions() []Definition {
	out := make([]Definition, 0, len(r.names))
	for _, n := range r.names {
		out = append(out, r.entries[n].def.Clone())
	}
	return out
}

// Availability is the outcome of preparing the registry for one run step.
type Availability struct {
	Definitions []Definition
	Available   []string
	Unavailable []string
}

// DefinitionsFor prepares the definitions for a run context: a tool is
// unavailable when its availability check fails, an active tag hides it, or
// its prepare function hides it; prepare may also rewrite the definition.
// A tool that is not listed (tool search has not loaded it) is left out
// without being unavailable. AvailabilityReport gives the same outcome with
// the reason each tool is left out.
func (r *Registry) DefinitionsFor(rc *RunContext) Availability {
	return r.definitionsFor(rc, nil)
}

// definitionsFor is DefinitionsFor; hidden, when not nil, learns each tool
// left out and why (the runner's per-step path passes nil and pays
// nothing for reasons).
func (r *Registry) definitionsFor(rc *RunContext, hidden func(name string, why Reason)) Availability {
	a := Availability{Definitions: make([]Definition, 0, len(r.names)), Available: make([]string, 0, len(r.names))}
	if rc == nil {
		rc = &RunContext{}
	}
	for _, n := range r.names {
		e := r.entries[n]
		if e.cfg.Listed != nil && !e.cfg.Listed(rc) {
			if hidden != nil {
				hidden(n, ReasonNotLoaded)
			}
			continue
		}
		def, ok, why := e.def, true, Reason("")
		if e.cfg.Available != nil && !e.cfg.Available(rc) {
			ok, why = false, ReasonUnavailable
		}
		if ok && HiddenByActiveTags(def.Metadata, rc.ActiveTags) {
			ok, why = false, ReasonHiddenByTags
		}
		if ok && e.cfg.Prepare != nil {
			if def, ok = e.cfg.Prepare(rc, def.Clone()); !ok {
				why = ReasonPrepareHidden
			}
		}
		if !ok {
			a.Unavailable = append(a.Unavailable, n)
			if hidden != nil {
				hidden(n, why)
			}
			continue
		}
		if e.cfg.Prepare == nil {
			if len(def.Metadata) == 0 {
				def.Metadata = nil // nothing to copy; nil reads as empty
			} else {
				def = def.Clone()
			}
		}
		a.Available = append(a.Available, n)
		a.Definitions = append(a.Definitions, def)
	}
	return a
}

// Clone returns a registry with the same tools, settings (the default
// effect class and the journal included), hooks and schema cache, which
// can be extended without changing r. Registered tools are shared, not
// copied.
func (r *Registry) Clone() *Registry {
	return &Registry{
		entries:    maps.Clone(r.entries),
		names:      slices.Clone(r.names),
		maxRetries: r.maxRetries,
		timeout:    r.timeout,
		effect:     r.effect,
		hooks:      slices.Clip(r.hooks),
		cache:      r.cache,
		maxOutput:  r.maxOutput,
		refused:    r.cloneRefused(),
		journal:    r.journal,
		intents:    r.intents,
		unlisted:   maps.Clone(r.unlisted),

		destructive: r.destructive,
		projection:  r.projection,

		completionKeys: r.completionKeys,
	}
}

// Select returns a registry with only the named tools (unknown names are
// ignored), keeping defaults, global hooks and every unlisted tool (they
// are selected by the tool that dispatches to them, not by name).
func (r *Registry) Select(names []string) *Registry {
	// The hooks slice is clipped so that hooks added to either registry
	// later never overwrite the other's.
	out := &Registry{maxRetries: r.maxRetries, timeout: r.timeout, effect: r.effect, hooks: slices.Clip(r.hooks), cache: r.cache,
		entries: map[string]*entry{}, maxOutput: r.maxOutput, refused: r.cloneRefused(), journal: r.journal,
		intents:  r.intents,
		unlisted: maps.Clone(r.unlisted), destructive: r.destructive, projection: r.projection, completionKeys: r.completionKeys}
	for _, n := range names {
		if e, ok := r.entries[n]; ok {
			if _, dup := out.entries[n]; !dup {
				out.entries[n] = e
				out.names = append(out.names, n)
			}
		}
	}
	sort.Strings(out.names)
	return out
}

// MaxRetriesFor resolves the budget of name: tool, toolset, registry, then
// DefaultMaxRetries.
func (r *Registry) MaxRetriesFor(name string) int { return r.maxRetriesOf(r.entries[name]) }

// maxRetriesOf is MaxRetriesFor of a registered entry, or of an unknown
// name when e is nil.
func (r *Registry) maxRetriesOf(e *entry) int {
	if e != nil {
		if e.cfg.MaxRetries != nil {
			return *e.cfg.MaxRetries
		}
		if e.MaxRetries != nil {
			return *e.MaxRetries
		}
	}
	if r.maxRetries != nil {
		return *r.maxRetries
	}
	return DefaultMaxRetries
}

// TimeoutFor resolves the timeout of name: tool, toolset, then registry.
// Zero means none.
func (r *Registry) TimeoutFor(name string) time.Duration { return r.timeoutOf(r.entries[name]) }

// timeoutOf is TimeoutFor of a registered entry, or of an unknown name when
// e is nil.
func (r *Registry) timeoutOf(e *entry) time.Duration {
	if e != nil {
		if e.cfg.Timeout > 0 {
			return e.cfg.Timeout
		}
		if e.Timeout > 0 {
			return e.Timeout
		}
	}
	return r.timeout
}
