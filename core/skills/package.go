package skills

import (
	"fmt"
	"maps"
	"strings"

	"github.com/goccy/go-yaml"

	"github.com/starweaver-go/starweaver/core/internal/optionerr"
)

// Package is one skill: its summary (name, description, the path of its
// SKILL.md and the frontmatter's other keys), and its body once
// activated. Scanned packages have no body (Body is nil); an activated
// one has it, even when empty.
type Package struct {
	Name        string         `json:"name"`
	Description string         `json:"description"`
	Path        string         `json:"path"`
	Body        *string        `json:"body,omitempty"`
	Metadata    map[string]any `json:"metadata,omitempty"`
}

// Validate reports a package a host gave that lacks its summary: a
// package needs a name, a description and a path (a scan never makes one
// without them). The error matches [ErrInvalidPackage] and reads
// `toolset "skills": a package needs a name, a description and a path`.
func (p Package) Validate() error {
	if p.Name == "" || p.Description == "" || p.Path == "" {
		return optionerr.New(ErrInvalidPackage, "toolset %q: a package needs a name, a description and a path", ToolsetName)
	}
	return nil
}

// SummaryLine is the package's line in the skills instruction:
// "- {name}: {description} ({path})".
func (p Package) SummaryLine() string {
	return fmt.Sprintf("- %s: %s (%s)", p.Name, p.Description, p.Path)
}

// Activated reports whether the package holds its body.
func (p Package) Activated() bool { return p.Body != nil }

// summary returns p without its body.
func (p Package) summary() Package {
	p.Body = nil
	return p
}

// Parse parses the content of the SKILL.md at path. The content is
// trimmed and must start with "---"; the frontmatter runs up to the next
// line starting with "---" and is a YAML mapping with string name and
// description (neither blank); every other key goes to Metadata (nested
// mappings become map[string]any). The rest, trimmed, is the Body.
//
// Errors wrap ErrMissingFrontmatter, ErrInvalidFrontmatter or
// ErrMissingField.
func Parse(path, content string) (Package, error) {
	rest, ok := strings.CutPrefix(strings.TrimSpace(content), "---")
	if !ok {
		return Package{}, ErrMissingFrontmatter
	}
	rest = strings.TrimLeft(rest, "\r\n")
	front, body, ok := strings.Cut(rest, "\n---")
	if !ok {
		return Package{}, ErrMissingFrontmatter
	}
	// The closing line's remaining dashes and its line break.
	body = strings.TrimLeft(strings.TrimPrefix(body, "---"), "\r\n")
	body = strings.TrimSpace(body)

	var fields map[string]any
	if err := yaml.Unmarshal([]byte(front), &fields); err != nil {
		return Package{}, fmt.Errorf("%w: %s", ErrInvalidFrontmatter, yaml.FormatError(err, false, false))
	}
	name, err := field(fields, "name")
	if err != nil {
		return Package{}, err
	}
	description, err := field(fields, "description")
	if err != nil {
		return Package{}, err
	}
	meta := maps.Clone(fields)
	delete(meta, "name")
	delete(meta, "description")
	if len(meta) == 0 {
		meta = nil
	}
	return Package{Name: name, Description: description, Path: path, Body: &body, Metadata: meta}, nil
}

// field returns the required string field key of the frontmatter.
func field(fields map[string]any, key string) (string, error) {
	v, ok := fields[key]
	if !ok || v == nil {
		return "", fmt.Errorf("%w: %s", ErrMissingField, key)
	}
	s, ok := v.(string)
	if !ok {
		return "", fmt.Errorf("%w: %s must be a string, not %s", ErrInvalidFrontmatter, key, yamlKind(v))
	}
	if strings.TrimSpace(s) == "" {
		return "", fmt.Errorf("%w: %s", ErrMissingField, key)
	}
	return s, nil
}

// yamlKind names the YAML kind of a decoded value, for errors.
func yamlKind(v any) string {
	switch v.(type) {
	case bool:
		return "a boolean"
	case map[string]any:
		return "a mapping"
	case []any:
		return "a sequence"
	case float32, float64, int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64:
		return "a number"
	}
	return fmt.Sprintf("a %T", v)
}
