package skills

import (
	"errors"
	"strings"
)

// The errors of parsing, scanning and activating; match them with
// errors.Is. A provider's own failures are returned wrapped, so
// errors.Is(err, env.ErrNotFound) and the like keep working.
var (
	// ErrMissingFrontmatter: the file does not start with frontmatter
	// delimited by "---" lines.
	ErrMissingFrontmatter = errors.New("skills: invalid skill markdown: expected frontmatter delimited by ---")
	// ErrInvalidFrontmatter: the frontmatter is not a YAML mapping, or
	// name or description is not a string. The error says where.
	ErrInvalidFrontmatter = errors.New("skills: invalid skill frontmatter")
	// ErrMissingField: name or description is missing or blank. The error
	// names the field.
	ErrMissingField = errors.New("skills: missing required skill field")
	// ErrTooLarge: a SKILL.md is larger than MaxSkillBytes.
	ErrTooLarge = errors.New("skills: skill file too large")
	// ErrNotText: a SKILL.md is not UTF-8 text.
	ErrNotText = errors.New("skills: skill file is not UTF-8 text")
	// ErrInvalidScope: a scope names an unknown kind or a path outside the
	// provider's root.
	ErrInvalidScope = errors.New("skills: invalid source scope")
	// ErrInvalidPackage: a package given by a host lacks its name,
	// description or path (Package.Validate).
	ErrInvalidPackage = errors.New("skills: invalid package")
)

// FileError is a SKILL.md that a strict scan or an activation could not
// parse: Err wraps ErrMissingFrontmatter, ErrInvalidFrontmatter or
// ErrMissingField.
type FileError struct {
	Path string
	Err  error
}

func (e *FileError) Error() string { return "skills: " + e.Path + ": " + message(e.Err) }

func (e *FileError) Unwrap() error { return e.Err }

// message is an error's text without this package's prefix (for
// diagnostics and wrapping errors).
func message(err error) string { return strings.TrimPrefix(err.Error(), "skills: ") }
