package tool

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/starweaver-go/starweaver/core/internal/jsonscan"
)

// quickSchema is a fast acceptor for the subset of JSON Schema that tool
// parameters almost always use: type, properties, required,
// additionalProperties, items, enum and const of strings, booleans and
// null, integer bounds, string lengths, patterns, item and property counts,
// and local $ref into $defs.
//
// It only ever accepts: accepts reporting true guarantees that the full
// validator accepts too. When it reports false (the instance is invalid, or
// it reaches a keyword or value it does not handle) the full validator
// decides and explains. Calls that pass validation, the common case, thus
// skip the full validator's allocations. FuzzQuickSchemaAgrees checks the
// guarantee against the full validator.
type quickSchema struct {
	// unsupported marks a schema the acceptor cannot judge; any instance
	// reaching it is handed to the full validator.
	unsupported bool
	// never is the false schema.
	never bool
	// unjudged marks, while the schema compiles, a keyword the acceptor
	// read and found well formed but does not judge: the schema then ends
	// unsupported without making the document less than whole.
	unjudged bool
	// anyOf holds the branches of anyOf: a value one of them accepts
	// satisfies it.
	anyOf []*quickSchema

	types    typeSet
	ref      *quickSchema
	props    map[string]*quickSchema
	required []string
	// additional is the additionalProperties schema; nil allows any.
	additional *quickSchema

	items              *quickSchema
	minItems, maxItems int
	uniqueItems        bool
	minProps, maxProps int

	minLen, maxLen int
	pattern        *ecmaPattern

	enum    []any // strings, booleans and nil
	hasEnum bool

	// Integer bounds; the has flags say which are set.
	min, max, exMin, exMax             int64
	hasMin, hasMax, hasExMin, hasExMax bool
}

type typeSet uint8

const (
	tNull typeSet = 1 << iota
	tBoolean
	tObject
	tArray
	tNumber
	tInteger
	tString
)

var typeNames = map[string]typeSet{
	"null": tNull, "boolean": tBoolean, "object": tObject, "array": tArray,
	"number": tNumber, "integer": tInteger, "string": tString,
}

// wellFormedAnnotation reports whether an annotation's value has the type
// the draft's metaschema gives it.
func wellFormedAnnotation(k string, v any) bool {
	switch k {
	case "title", "description", "$comment", "format":
		_, ok := v.(string)
		return ok
	case "deprecated", "readOnly", "writeOnly":
		_, ok := v.(bool)
		return ok
	case "examples":
		_, ok := v.([]any)
		return ok
	}
	return true // default: any value
}

// annotations are keywords that never affect validation.
var annotations = map[string]bool{
	"title": true, "description": true, "default": true, "examples": true,
	"deprecated": true, "readOnly": true, "writeOnly": true, "$comment": true,
	// Draft 2020-12 (the validator's draft) treats format as an annotation.
	"format": true,
}

// quickCompiler builds quickSchemas for one document, resolving local refs.
type quickCompiler struct {
	root map[string]any
	refs map[string]*quickSchema
	// patterns compiles patterns with the full validator's engine.
	patterns *patternSet
	// whole stays true while every keyword and value of the schema was read
	// and found well formed (see compileQuick).
	whole bool
}

// compileQuick returns the acceptor of a normalised schema. It never fails:
// what it cannot handle is marked unsupported. patterns is the full
// validator's set, so both paths share each compiled pattern.
//
// whole reports that the acceptor read every keyword and value of the
// schema, its $defs included, and found each well formed as the draft's
// metaschema has it: the full compiler then accepts the schema too
// (FuzzWholeQuickSchemaCompiles), so it may be compiled later.
func compileQuick(root map[string]any, patterns *patternSet) (q *quickSchema, whole bool) {
	if _, has := root["$schema"]; has {
		// Another draft may change what keywords mean.
		return &quickSchema{unsupported: true}, false
	}
	c := &quickCompiler{root: root, refs: map[string]*quickSchema{}, patterns: patterns, whole: true}
	q = &quickSchema{}
	c.refs["#"] = q
	c.fill(q, root, true)
	// Definitions no reference reaches are still checked by the full
	// compiler.
	for _, container := range []string{"$defs", "definitions"} {
		defs, _ := root[container].(map[string]any)
		for name := range defs {
			if c.resolve("#/"+container+"/"+name) == nil {
				c.whole = false
			}
		}
	}
	return q, c.whole
}

func (c *quickCompiler) compile(v any) *quickSchema {
	q := &quickSchema{}
	c.fill(q, v, false)
	return q
}

func (c *quickCompiler) fill(q *quickSchema, v any, isRoot bool) {
	q.minItems, q.maxItems, q.minProps, q.maxProps, q.minLen, q.maxLen = -1, -1, -1, -1, -1, -1
	switch s := v.(type) {
	case bool:
		q.never = !s
		return
	case map[string]any:
		for k, kv := range s {
			if !c.keyword(q, k, kv, isRoot) {
				*q = quickSchema{unsupported: true}
				c.whole = false
				return
			}
		}
		if q.unjudged {
			*q = quickSchema{unsupported: true}
		}
	default:
		q.unsupported = true
		c.whole = false
	}
}

// keyword compiles one keyword into q, reporting false when it is not
// handled.
func (c *quickCompiler) keyword(q *quickSchema, k string, v any, isRoot bool) bool {
	if annotations[k] {
		if !wellFormedAnnotation(k, v) {
			c.whole = false // the full compiler refuses it: compile it now
		}
		return true
	}
	var ok bool
	switch k {
	case "$id":
		c.whole = false // the metaschema constrains its text
		return isRoot   // a nested $id would change what local refs mean
	case "$defs", "definitions":
		_, ok = v.(map[string]any)
		return ok // compiled when referenced
	case "$ref":
		ref, isStr := v.(string)
		if !isStr {
			return false
		}
		q.ref = c.resolve(ref)
		return q.ref != nil
	case "type":
		q.types, ok = parseTypes(v)
		return ok
	case "properties":
		m, isMap := v.(map[string]any)
		if !isMap {
			return false
		}
		q.props = make(map[string]*quickSchema, len(m))
		for name, sub := range m {
			q.props[name] = c.compile(sub)
		}
		return true
	case "required":
		list, isList := v.([]any)
		if !isList {
			return false
		}
		for _, r := range list {
			name, isStr := r.(string)
			if !isStr || slices.Contains(q.required, name) { // the metaschema wants them unique
				return false
			}
			q.required = append(q.required, name)
		}
		return true
	case "additionalProperties":
		q.additional = c.compile(v)
		return true
	case "items":
		if _, isList := v.([]any); isList {
			return false
		}
		q.items = c.compile(v)
		return true
	case "uniqueItems":
		q.uniqueItems, ok = v.(bool)
		return ok
	case "minItems":
		q.minItems, ok = count(v)
	case "maxItems":
		q.maxItems, ok = count(v)
	case "minProperties":
		q.minProps, ok = count(v)
	case "maxProperties":
		q.maxProps, ok = count(v)
	case "minLength":
		q.minLen, ok = count(v)
	case "maxLength":
		q.maxLen, ok = count(v)
	case "pattern":
		p, isStr := v.(string)
		if !isStr {
			return false
		}
		re, err := c.patterns.compile(p) // the full validator's engine and timeout
		if err != nil {
			return false
		}
		q.pattern = re
		return true
	case "enum":
		list, isList := v.([]any)
		if !isList {
			return false
		}
		for _, e := range list {
			if !simpleValue(e) {
				q.unjudged = true // numbers and containers: well formed
			}
		}
		q.enum, q.hasEnum = list, true
		return true
	case "const":
		if !simpleValue(v) {
			q.unjudged = true
		}
		q.enum, q.hasEnum = []any{v}, true
		return true
	case "anyOf":
		list, ok := schemaList(v)
		for _, sub := range list {
			q.anyOf = append(q.anyOf, c.compile(sub))
		}
		return ok
	case "allOf", "oneOf":
		list, ok := schemaList(v)
		for _, sub := range list {
			c.compile(sub) // read for wholeness only
		}
		q.unjudged = true
		return ok
	case "not":
		c.compile(v)
		q.unjudged = true
		return true
	case "multipleOf":
		n, isNum := v.(json.Number)
		f, err := n.Float64()
		q.unjudged = true
		return isNum && err == nil && f > 0
	case "minimum":
		q.min, ok = c.bound(q, v)
		q.hasMin = ok
	case "maximum":
		q.max, ok = c.bound(q, v)
		q.hasMax = ok
	case "exclusiveMinimum":
		q.exMin, ok = c.bound(q, v)
		q.hasExMin = ok
	case "exclusiveMaximum":
		q.exMax, ok = c.bound(q, v)
		q.hasExMax = ok
	}
	return ok
}

// bound reads a numeric bound: an integer the acceptor judges, or another
// number, well formed but left to the full validator.
func (c *quickCompiler) bound(q *quickSchema, v any) (int64, bool) {
	if i, ok := exactInt(v); ok {
		return i, true
	}
	n, isNum := v.(json.Number)
	if _, err := n.Float64(); !isNum || err != nil {
		return 0, false
	}
	q.unjudged = true
	return 0, true
}

// schemaList reads the value of anyOf, allOf or oneOf: a non-empty list.
func schemaList(v any) ([]any, bool) {
	list, ok := v.([]any)
	return list, ok && len(list) > 0
}

// resolve compiles the target of a local reference, once per target so
// that recursive types terminate.
func (c *quickCompiler) resolve(ref string) *quickSchema {
	if q, ok := c.refs[ref]; ok {
		return q
	}
	var container, name string
	switch {
	case strings.HasPrefix(ref, "#/$defs/"):
		container, name = "$defs", ref[len("#/$defs/"):]
	case strings.HasPrefix(ref, "#/definitions/"):
		container, name = "definitions", ref[len("#/definitions/"):]
	default:
		return nil
	}
	if name == "" || strings.ContainsAny(name, "/~%") {
		return nil
	}
	defs, _ := c.root[container].(map[string]any)
	target, ok := defs[name]
	if !ok {
		return nil
	}
	q := &quickSchema{}
	c.refs[ref] = q
	c.fill(q, target, false)
	return q
}

func parseTypes(v any) (typeSet, bool) {
	switch t := v.(type) {
	case string:
		ts, ok := typeNames[t]
		return ts, ok
	case []any:
		var ts typeSet
		for _, e := range t {
			s, ok := e.(string)
			if !ok {
				return 0, false
			}
			bit, ok := typeNames[s]
			if !ok || ts&bit != 0 { // the metaschema wants them unique
				return 0, false
			}
			ts |= bit
		}
		return ts, len(t) > 0
	}
	return 0, false
}

// count reads a non-negative integer keyword value.
func count(v any) (int, bool) {
	n, ok := exactInt(v)
	if !ok || n < 0 || n > 1<<31 {
		return 0, false
	}
	return int(n), true
}

// exactInt reads a JSON number written as a plain integer that fits int64.
func exactInt(v any) (int64, bool) {
	n, ok := v.(json.Number)
	if !ok || !plainInteger(string(n)) {
		return 0, false
	}
	i, err := strconv.ParseInt(string(n), 10, 64)
	return i, err == nil
}

// plainInteger reports whether s is an optional minus sign and digits.
func plainInteger(s string) bool {
	s = strings.TrimPrefix(s, "-")
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// simpleValue reports whether v compares equal only to itself: a string,
// a boolean or null. (Numbers compare by value: 1 equals 1.0.)
func simpleValue(v any) bool {
	switch v.(type) {
	case string, bool, nil:
		return true
	}
	return false
}

// acceptsJSON reports whether b is a JSON text, within the argument
// limits, that certainly satisfies the schema. It reads b in place,
// without decoding it into Go values, and so allocates nothing. Any text
// is safe to pass: one that is not valid JSON is never accepted.
func (q *quickSchema) acceptsJSON(b []byte) bool {
	s := jsonscan.New(b, argumentLimits())
	// The scanner records every problem in the text, including in values
	// the schema let through unread (s.Skip), so End has the last word.
	return q.accept(&s) && s.End()
}

// accept consumes one value and reports whether it certainly satisfies q.
// A false answer may leave the value partly read.
func (q *quickSchema) accept(s *jsonscan.Scanner) bool {
	if q.unsupported || q.never {
		return false
	}
	if q.ref != nil {
		saved := *s // a copy of a Scanner is a cursor at the same place
		if !q.ref.accept(s) {
			return false
		}
		*s = saved // read the value again for this schema's own keywords
	}
	if len(q.anyOf) > 0 {
		saved := *s
		if !slices.ContainsFunc(q.anyOf, func(b *quickSchema) bool { *s = saved; return b.accept(s) }) {
			return false
		}
		*s = saved
	}
	switch s.Peek() {
	case jsonscan.Object:
		return !q.hasEnum && q.allows(tObject) && q.acceptObject(s)
	case jsonscan.Array:
		return !q.hasEnum && q.allows(tArray) && q.acceptArray(s)
	case jsonscan.String:
		// A plain string's bytes are its value; escapes go to the full path.
		str, plain := s.String()
		return plain && q.allows(tString) && (!q.hasEnum || q.inEnum(str)) && q.acceptString(str)
	case jsonscan.Bool:
		v := s.Bool()
		return q.allows(tBoolean) && (!q.hasEnum || q.inEnumValue(v))
	case jsonscan.Null:
		return s.Null() && q.allows(tNull) && (!q.hasEnum || q.inEnumValue(nil))
	case jsonscan.Number:
		n := s.Number()
		return n != nil && !q.hasEnum && q.acceptNumber(n)
	}
	return false
}

func (q *quickSchema) allows(t typeSet) bool { return q.types == 0 || q.types&t != 0 }

func (q *quickSchema) inEnum(s []byte) bool {
	for _, e := range q.enum {
		if es, ok := e.(string); ok && es == string(s) {
			return true
		}
	}
	return false
}

func (q *quickSchema) inEnumValue(v any) bool {
	for _, e := range q.enum {
		if e == v {
			return true
		}
	}
	return false
}

func (q *quickSchema) acceptString(s []byte) bool {
	if q.minLen >= 0 || q.maxLen >= 0 {
		n := utf8.RuneCount(s)
		if (q.minLen >= 0 && n < q.minLen) || (q.maxLen >= 0 && n > q.maxLen) {
			return false
		}
	}
	// A timed-out match reports false: the full validator then reports it.
	return q.pattern == nil || q.pattern.MatchString(string(s))
}

func (q *quickSchema) acceptNumber(n []byte) bool {
	if q.types != 0 && q.types&(tNumber|tInteger) == 0 {
		return false
	}
	integerOnly := q.types != 0 && q.types&tNumber == 0
	bounded := q.hasMin || q.hasMax || q.hasExMin || q.hasExMax
	if !integerOnly && !bounded {
		return true
	}
	// Integer checks and bounds are decided only for plain integers of up
	// to 18 digits, which compare exactly; 1.0, 1e2 and huge numbers go to
	// the full validator.
	i, ok := smallInteger(n)
	if !ok {
		return false
	}
	return !(q.hasMin && i < q.min) && !(q.hasMax && i > q.max) &&
		!(q.hasExMin && i <= q.exMin) && !(q.hasExMax && i >= q.exMax)
}

// smallInteger parses an optional minus sign and 1 to 18 digits.
func smallInteger(b []byte) (int64, bool) {
	neg := len(b) > 0 && b[0] == '-'
	if neg {
		b = b[1:]
	}
	if len(b) == 0 || len(b) > 18 {
		return 0, false
	}
	var n int64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	if neg {
		n = -n
	}
	return n, true
}

func (q *quickSchema) acceptObject(s *jsonscan.Scanner) bool {
	if q.minProps >= 0 || len(q.required) > 64 {
		return false // duplicate keys make counts uncertain; rare anyway
	}
	var seen uint64 // bit i: required[i] is present
	props := 0
	if !s.BeginObject() {
		return false
	}
	for {
		key, plain, ok := s.NextKey()
		if !ok {
			break
		}
		if !plain {
			return false
		}
		props++
		for i, r := range q.required {
			if r == string(key) {
				seen |= 1 << i
			}
		}
		if p, ok := q.props[string(key)]; ok {
			if !p.accept(s) {
				return false
			}
		} else if q.additional != nil {
			if !q.additional.accept(s) {
				return false
			}
		} else {
			s.Skip()
		}
	}
	if q.maxProps >= 0 && props > q.maxProps {
		return false
	}
	return seen == 1<<len(q.required)-1
}

func (q *quickSchema) acceptArray(s *jsonscan.Scanner) bool {
	if q.uniqueItems {
		return false // equality of JSON values is the full validator's job
	}
	n := 0
	if !s.BeginArray() {
		return false
	}
	for s.NextElement() {
		n++
		if q.items != nil {
			if !q.items.accept(s) {
				return false
			}
		} else {
			s.Skip()
		}
	}
	return (q.minItems < 0 || n >= q.minItems) && (q.maxItems < 0 || n <= q.maxItems)
}
