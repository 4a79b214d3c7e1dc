package skills

import "errors"

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
)
