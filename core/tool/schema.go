package tool

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// printer renders validator messages; it is immutable after creation.
var printer = message.NewPrinter(language.English)

// ErrSchema marks a malformed parameters schema, rejected at registration.
var ErrSchema = errors.New("tool: malformed parameters schema")

// EmptySchema returns the parameters schema of a tool without arguments,
// {"type": "object", "properties": {}}: what NormalizeSchema makes of a
// nil schema, and what a provider sends for a definition without one. Each
// call returns a new map.
func EmptySchema() map[string]any {
	return map[string]any{"type": "object", "properties": map[string]any{}}
}

// NormalizeSchema returns the canonical form of a parameters schema: a
// JSON-decoded object with type "object" and a properties object. A nil
// schema means no arguments. It rejects (with ErrSchema) schemas that are not
// JSON, not objects, or whose properties, required or additionalProperties
// are malformed. The input is not modified.
func NormalizeSchema(schema map[string]any) (map[string]any, error) {
	if schema == nil {
		return EmptySchema(), nil
	}
	s, err := canonical(schema)
	if err != nil {
		return nil, fmt.Errorf("%w: not JSON-serialisable: %v", ErrSchema, err)
	}
	return normalizeCanonical(s)
}

// normalizeCanonical is NormalizeSchema of a canonical copy, which it
// changes in place.
func normalizeCanonical(s map[string]any) (map[string]any, error) {
	delete(s, "$schema")
	switch t := s["type"].(type) {
	case nil:
		if _, has := s["type"]; has {
			return nil, fmt.Errorf("%w: type must be \"object\", got null", ErrSchema)
		}
		s["type"] = "object"
	case string:
		if t != "object" {
			return nil, fmt.Errorf("%w: type must be \"object\", got %q", ErrSchema, t)
		}
	default:
		return nil, fmt.Errorf("%w: type must be \"object\", got %v", ErrSchema, t)
	}
	props, has := s["properties"]
	if !has {
		props = map[string]any{}
		s["properties"] = props
	}
	pm, ok := props.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%w: properties must be an object", ErrSchema)
	}
	for name, p := range pm {
		switch p.(type) {
		case map[string]any, bool:
		default:
			return nil, fmt.Errorf("%w: property %q must be a schema object", ErrSchema, name)
		}
	}
	if req, has := s["required"]; has {
		list, ok := req.([]any)
		if !ok {
			return nil, fmt.Errorf("%w: required must be a list of property names", ErrSchema)
		}
		for _, r := range list {
			name, ok := r.(string)
			if !ok {
				return nil, fmt.Errorf("%w: required must be a list of property names", ErrSchema)
			}
			if _, ok := pm[name]; !ok {
				return nil, fmt.Errorf("%w: required names %q, which is not a property", ErrSchema, name)
			}
		}
	}
	if ap, has := s["additionalProperties"]; has {
		switch ap.(type) {
		case bool, map[string]any:
		default:
			return nil, fmt.Errorf("%w: additionalProperties must be a boolean or a schema", ErrSchema)
		}
	}
	return s, nil
}

// Schema is a compiled parameters schema.
type Schema struct {
	// The full validator, compiled on first use when the quick acceptor
	// read the whole schema (see CompileSchema); normalized is its source
	// until then, read and cleared only under once.
	once       sync.Once
	compiled   *jsonschema.Schema
	err        error
	normalized map[string]any
	// quick accepts most valid arguments without the full validator.
	quick *quickSchema
	// patterns are the schema's compiled patterns (ECMA-262, see
	// PatternMatchTimeout), shared by compiled and quick.
	patterns *patternSet
}

// schemaURL is where each compiler keeps its one schema. Every schema gets a
// compiler of its own, so the URL never needs the tool name (which may
// contain characters that are not valid in a URL).
const schemaURL = "mem:///tool-parameters.json"

// noLoader refuses every external reference: schemas may come from remote
// servers (MCP), and compiling one must never read local files or the
// network. References inside the schema ($defs) still resolve.
type noLoader struct{}

func (noLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("external schema reference %q is not allowed", url)
}

// CompileSchema compiles a normalised schema once, for validating every call.
// References to other documents are rejected. Patterns (pattern and
// patternProperties keys) are ECMA-262 regular expressions, as JSON Schema
// specifies; one that does not compile is an ErrSchema error, and each
// match is bounded by PatternMatchTimeout. Errors do not name the tool:
// the registry prefixes them with its name.
//
// A schema the quick acceptor reads whole (every keyword and value well
// formed: compileQuick) gets its full validator on the first call that
// needs one. Compiling it costs a few hundred microseconds, two thirds of
// them checking the schema against the draft's metaschema, so an agent of
// a thousand distinct tools took most of a second to build; most calls
// never need it, since the quick acceptor passes valid arguments. Any
// other schema is compiled now, so a malformed one fails here.
func CompileSchema(normalized map[string]any) (*Schema, error) {
	patterns := &patternSet{}
	quick, whole := compileQuick(normalized, patterns)
	s := &Schema{quick: quick, patterns: patterns, normalized: normalized}
	if whole {
		return s, nil
	}
	if _, err := s.full(); err != nil {
		return nil, err
	}
	return s, nil
}

// full returns the full validator, compiling it on first use.
func (s *Schema) full() (*jsonschema.Schema, error) {
	s.once.Do(func() {
		c := jsonschema.NewCompiler()
		c.UseLoader(noLoader{})
		c.UseRegexpEngine(s.patterns.engine)
		// Fixed rather than "latest", so that an upgrade of the validator
		// never changes what schemas mean (format, for one, is an
		// annotation here).
		c.DefaultDraft(jsonschema.Draft2020)
		if err := c.AddResource(schemaURL, s.normalized); err != nil {
			s.err = fmt.Errorf("%w: %v", ErrSchema, err)
			return
		}
		if s.compiled, s.err = c.Compile(schemaURL); s.err != nil {
			s.err = fmt.Errorf("%w: %v", ErrSchema, s.err)
		}
		s.normalized = nil
	})
	return s.compiled, s.err
}

// Validate checks decoded arguments. The error names every failing path
// and never repeats argument values, which may be secrets. A pattern match
// that exceeds PatternMatchTimeout fails validation.
func (s *Schema) Validate(args any) error {
	compiled, err := s.full()
	if err != nil {
		// compileQuick vouched for the schema, so this is a bug in it
		// (FuzzWholeQuickSchemaCompiles); the call fails, the runtime goes on.
		return UserError("the tool's parameters schema does not compile: %v", err)
	}
	timeouts := s.patterns.timeouts.Load()
	err = compiled.Validate(args)
	if err == nil {
		// The validator sees a timed-out patternProperties match as a
		// plain non-match; a timeout on one of these arguments fails them.
		if s.patterns.timeouts.Load() != timeouts {
			if p, ok := s.patterns.timedOutIn(args); ok {
				return InvalidArguments("arguments do not match the schema: %s", timeoutMessage(p))
			}
		}
		return nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return InvalidArguments("arguments do not match the schema")
	}
	var msgs []string
	collectLeaves(ve, &msgs, s.patterns)
	sort.Strings(msgs)
	if len(msgs) == 0 {
		msgs = []string{"at '': arguments do not match the schema"}
	}
	return InvalidArguments("arguments do not match the schema: %s", strings.Join(msgs, "; "))
}

// validateJSON checks arguments given as a JSON object text that
// checkArguments accepted. Most valid arguments are accepted in place by the quick path;
// the others are decoded and go through Validate.
func (s *Schema) validateJSON(raw []byte) error {
	if s.quick != nil && s.quick.acceptsJSON(raw) {
		return nil
	}
	return s.Validate(parseValidObject(raw))
}

func collectLeaves(e *jsonschema.ValidationError, out *[]string, patterns *patternSet) {
	if len(e.Causes) == 0 {
		msg := safeMessage(e.ErrorKind)
		if p, ok := e.ErrorKind.(*kind.Pattern); ok && patterns.wasTimedOut(p.Want, p.Got) {
			msg = timeoutMessage(p.Want)
		}
		*out = append(*out, fmt.Sprintf("at '%s': %s", pointer(e.InstanceLocation), msg))
		return
	}
	for _, c := range e.Causes {
		collectLeaves(c, out, patterns)
	}
}

func pointer(loc []string) string {
	if len(loc) == 0 {
		return ""
	}
	var b strings.Builder
	for _, t := range loc {
		b.WriteByte('/')
		b.WriteString(strings.ReplaceAll(strings.ReplaceAll(t, "~", "~0"), "/", "~1"))
	}
	return b.String()
}

// safeMessage describes a failed keyword by its rule, never by the
// instance's value: the keywords whose library text quotes the value
// (pattern, format, the bounds, content) get their own, the ones whose
// text names only the schema, counts, indices or property names keep it,
// and any other (a kind a later version of the library adds) is named by
// its keyword path.
func safeMessage(k jsonschema.ErrorKind) string {
	switch k := k.(type) {
	case *kind.Pattern:
		return fmt.Sprintf("value does not match pattern %q", k.Want)
	case *kind.Format:
		return fmt.Sprintf("value is not a valid %s", k.Want)
	case *kind.Minimum:
		return fmt.Sprintf("must be >= %s", k.Want.RatString())
	case *kind.Maximum:
		return fmt.Sprintf("must be <= %s", k.Want.RatString())
	case *kind.ExclusiveMinimum:
		return fmt.Sprintf("must be > %s", k.Want.RatString())
	case *kind.ExclusiveMaximum:
		return fmt.Sprintf("must be < %s", k.Want.RatString())
	case *kind.MultipleOf:
		return fmt.Sprintf("must be a multiple of %s", k.Want.RatString())
	case *kind.ContentMediaType, *kind.ContentEncoding:
		return strings.Join(k.KeywordPath(), "/") + " failed"
	case *kind.Type, *kind.Enum, *kind.Const, *kind.Required, *kind.AdditionalProperties, *kind.PropertyNames,
		*kind.Dependency, *kind.DependentRequired, *kind.MinLength, *kind.MaxLength, *kind.MinItems, *kind.MaxItems,
		*kind.MinProperties, *kind.MaxProperties, *kind.AdditionalItems, *kind.UniqueItems, *kind.Contains,
		*kind.MinContains, *kind.MaxContains, *kind.FalseSchema, *kind.Not, *kind.AllOf, *kind.AnyOf, *kind.OneOf,
		*kind.Group, *kind.Reference, *kind.Schema, *kind.ContentSchema, *kind.InvalidJsonValue:
		// Their text names the schema's own values (enum, const, type),
		// counts, indices or property names, never an instance value.
		return k.LocalizedString(printer)
	}
	if path := k.KeywordPath(); len(path) > 0 {
		return strings.Join(path, "/") + " failed"
	}
	return "value does not match the schema"
}

// decodeError is the invalid_arguments error of arguments that passed the
// schema but do not decode into a typed tool's parameters: it names the
// field and the Go type, never the value (a custom decoder's error, which
// may quote it, stays in the private metadata).
func decodeError(err error) *Error {
	var te *json.UnmarshalTypeError
	var se *json.SyntaxError
	var msg string
	switch {
	case errors.As(err, &te) && te.Field != "":
		msg = fmt.Sprintf("at '/%s': cannot be decoded as %s", strings.ReplaceAll(te.Field, ".", "/"), te.Type)
	case errors.As(err, &te):
		msg = fmt.Sprintf("cannot be decoded as %s", te.Type)
	case errors.As(err, &se):
		msg = fmt.Sprintf("not valid JSON at offset %d", se.Offset)
	default:
		msg = "a value does not decode into the tool's parameter types"
	}
	e := InvalidArguments("arguments do not decode: %s", msg)
	e.Err = err
	e.PrivateMetadata = map[string]any{"decode_error": err.Error()}
	return e
}
