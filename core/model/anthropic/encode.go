package anthropic

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"sync"
	"unicode/utf8"
)

// The request body is appended by hand: its shape is fixed and small, and
// encoding/json spends most of its time on reflection and on sorting the
// keys of the tool schemas, which are the same at every step of a run.
// Values of unknown shape (tool return content, schemas the first time,
// extra body keys) still go through encoding/json. TestEncodeMatchesJSON
// checks this encoder against encoding/json on the same structs.

// appendRequest appends the JSON encoding of r to dst.
func (m *Model) appendRequest(dst []byte, r *wireRequest) ([]byte, error) {
	dst = append(dst, `{"model":`...)
	dst = appendString(dst, r.Model)
	dst = append(dst, `,"max_tokens":`...)
	dst = strconv.AppendInt(dst, int64(r.MaxTokens), 10)
	if len(r.System) > 0 {
		dst = append(dst, `,"system":[`...)
		for i := range r.System {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendText(dst, r.System[i].Text)
		}
		dst = append(dst, ']')
	}
	dst = append(dst, `,"messages":[`...)
	for i := range r.Messages {
		if i > 0 {
			dst = append(dst, ',')
		}
		var err error
		if dst, err = appendMessage(dst, &r.Messages[i]); err != nil {
			return nil, err
		}
	}
	dst = append(dst, ']')
	if len(r.Tools) > 0 {
		dst = append(dst, `,"tools":[`...)
		for i := range r.Tools {
			t := &r.Tools[i]
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = append(dst, `{"name":`...)
			dst = appendString(dst, t.Name)
			if t.Description != "" {
				dst = append(dst, `,"description":`...)
				dst = appendString(dst, t.Description)
			}
			schema, err := m.schemas.encode(t.InputSchema)
			if err != nil {
				return nil, fmt.Errorf("tool %q: input schema: %w", t.Name, err)
			}
			dst = append(dst, `,"input_schema":`...)
			dst = append(dst, schema...)
			if t.Strict {
				dst = append(dst, `,"strict":true`...)
			}
			dst = append(dst, '}')
		}
		dst = append(dst, ']')
	}
	if c := r.ToolChoice; c != nil {
		dst = append(dst, `,"tool_choice":{"type":`...)
		dst = appendString(dst, c.Type)
		if c.Name != "" {
			dst = append(dst, `,"name":`...)
			dst = appendString(dst, c.Name)
		}
		if c.DisableParallelToolUse {
			dst = append(dst, `,"disable_parallel_tool_use":true`...)
		}
		dst = append(dst, '}')
	}
	var err error
	if r.Temperature != nil {
		dst = append(dst, `,"temperature":`...)
		if dst, err = appendFloat(dst, *r.Temperature); err != nil {
			return nil, fmt.Errorf("temperature: %w", err)
		}
	}
	if r.TopP != nil {
		dst = append(dst, `,"top_p":`...)
		if dst, err = appendFloat(dst, *r.TopP); err != nil {
			return nil, fmt.Errorf("top_p: %w", err)
		}
	}
	if len(r.StopSequences) > 0 {
		dst = append(dst, `,"stop_sequences":[`...)
		for i, s := range r.StopSequences {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendString(dst, s)
		}
		dst = append(dst, ']')
	}
	if t := r.Thinking; t != nil {
		dst = append(dst, `,"thinking":{"type":`...)
		dst = appendString(dst, t.Type)
		dst = append(dst, `,"budget_tokens":`...)
		dst = strconv.AppendInt(dst, int64(t.BudgetTokens), 10)
		dst = append(dst, '}')
	}
	if o := r.OutputConfig; o != nil {
		schema, err := json.Marshal(o.Format.Schema)
		if err != nil {
			return nil, fmt.Errorf("output schema: %w", err)
		}
		dst = append(dst, `,"output_config":{"format":{"type":`...)
		dst = appendString(dst, o.Format.Type)
		dst = append(dst, `,"schema":`...)
		dst = append(dst, schema...)
		dst = append(dst, `}}`...)
	}
	if r.Stream {
		dst = append(dst, `,"stream":true`...)
	}
	return append(dst, '}'), nil
}

func appendMessage(dst []byte, msg *wireMessage) ([]byte, error) {
	dst = append(dst, `{"role":`...)
	dst = appendString(dst, msg.Role)
	dst = append(dst, `,"content":[`...)
	for i, b := range msg.Content {
		if i > 0 {
			dst = append(dst, ',')
		}
		switch b := b.(type) {
		case textBlock:
			dst = appendText(dst, b.Text)
		case toolUseBlock:
			dst = append(dst, `{"type":"tool_use","id":`...)
			dst = appendString(dst, b.ID)
			dst = append(dst, `,"name":`...)
			dst = appendString(dst, b.Name)
			dst = append(dst, `,"input":`...)
			dst = append(dst, b.Input...) // a valid JSON object (mapResponsePart)
			dst = append(dst, '}')
		case toolResultBlock:
			dst = append(dst, `{"type":"tool_result","tool_use_id":`...)
			dst = appendString(dst, b.ToolUseID)
			if len(b.Content) > 0 {
				dst = append(dst, `,"content":[`...)
				for j, c := range b.Content {
					if j > 0 {
						dst = append(dst, ',')
					}
					switch c := c.(type) {
					case textBlock:
						dst = appendText(dst, c.Text)
					case imageBlock:
						dst = append(dst, `{"type":`...)
						dst = appendString(dst, c.Type)
						dst = append(dst, `,"source":`...)
						dst = appendSource(dst, &c.Source)
						dst = append(dst, '}')
					case documentBlock:
						dst = append(dst, `{"type":`...)
						dst = appendString(dst, c.Type)
						dst = append(dst, `,"source":`...)
						dst = appendSource(dst, &c.Source)
						if c.Title != "" {
							dst = append(dst, `,"title":`...)
							dst = appendString(dst, c.Title)
						}
						dst = append(dst, '}')
					default:
						return nil, fmt.Errorf("unknown tool result block %T", c)
					}
				}
				dst = append(dst, ']')
			}
			if b.IsError {
				dst = append(dst, `,"is_error":true`...)
			}
			dst = append(dst, '}')
		case thinkingBlock:
			dst = append(dst, `{"type":"thinking","thinking":`...)
			dst = appendString(dst, b.Thinking)
			dst = append(dst, `,"signature":`...)
			dst = appendString(dst, b.Signature)
			dst = append(dst, '}')
		case redactedThinkingBlock:
			dst = append(dst, `{"type":"redacted_thinking","data":`...)
			dst = appendString(dst, b.Data)
			dst = append(dst, '}')
		default:
			return nil, fmt.Errorf("unknown content block %T", b)
		}
	}
	return append(dst, `]}`...), nil
}

func appendSource(dst []byte, s *mediaSource) []byte {
	dst = append(dst, `{"type":`...)
	dst = appendString(dst, s.Type)
	if s.MediaType != "" {
		dst = append(dst, `,"media_type":`...)
		dst = appendString(dst, s.MediaType)
	}
	if s.Data != "" {
		dst = append(dst, `,"data":`...)
		dst = appendString(dst, s.Data)
	}
	if s.URL != "" {
		dst = append(dst, `,"url":`...)
		dst = appendString(dst, s.URL)
	}
	return append(dst, '}')
}

func appendText(dst []byte, text string) []byte {
	dst = append(dst, `{"type":"text","text":`...)
	dst = appendString(dst, text)
	return append(dst, '}')
}

// appendFloat appends f as encoding/json does.
func appendFloat(dst []byte, f float64) ([]byte, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil, fmt.Errorf("unsupported value %v", f)
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	dst = strconv.AppendFloat(dst, f, format, -1, 64)
	if format == 'e' {
		// clean up e-09 to e-9
		if n := len(dst); n >= 4 && dst[n-4] == 'e' && dst[n-3] == '-' && dst[n-2] == '0' {
			dst[n-2] = dst[n-1]
			dst = dst[:n-1]
		}
	}
	return dst, nil
}

const hex = "0123456789abcdef"

// appendString appends s as a JSON string, escaping as encoding/json does
// (HTML characters included, invalid UTF-8 replaced by U+FFFD).
func appendString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hex[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// schemaCache keeps the encoding of tool schemas. Schemas are immutable
// once registered (tool.Definition) and the same map is sent at every step
// of a run, so a schema is keyed by its map's identity; each entry holds
// the map itself, so that its address cannot be reused by another map
// while the entry lives. The cache is cleared when it reaches
// maxCachedSchemas entries.
type schemaCache struct {
	mu      sync.Mutex
	entries map[uintptr]cachedSchema
}

type cachedSchema struct {
	schema  map[string]any // keeps the key's map alive
	encoded []byte
}

const maxCachedSchemas = 1024

func (c *schemaCache) encode(schema map[string]any) ([]byte, error) {
	key := reflect.ValueOf(schema).Pointer()
	c.mu.Lock()
	e, ok := c.entries[key]
	c.mu.Unlock()
	if ok {
		return e.encoded, nil
	}
	b, err := json.Marshal(schema)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	if c.entries == nil || len(c.entries) >= maxCachedSchemas {
		c.entries = make(map[uintptr]cachedSchema)
	}
	c.entries[key] = cachedSchema{schema: schema, encoded: b}
	c.mu.Unlock()
	return b, nil
}
