package skills

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"path"
	"slices"
	"unicode/utf8"

	"github.com/starweaver-go/starweaver/core/env"
)

// MaxSkillBytes bounds the size of a SKILL.md that scans and activations
// read (1 MiB): a larger one is unreadable (ErrTooLarge).
const MaxSkillBytes = 1 << 20

// Registry is a set of skill packages keyed by name. It is read-only once
// built (Scan, ScanWithReport, NewRegistry) and safe for concurrent use.
// The zero value and nil are empty registries.
type Registry struct {
	packages map[string]Package
}

// NewRegistry returns a registry of pkgs; of two with the same name the
// later wins.
func NewRegistry(pkgs ...Package) *Registry {
	r := &Registry{packages: make(map[string]Package, len(pkgs))}
	for _, p := range pkgs {
		r.packages[p.Name] = p
	}
	return r
}

// Get returns the package named name.
func (r *Registry) Get(name string) (Package, bool) {
	if r == nil {
		return Package{}, false
	}
	p, ok := r.packages[name]
	return p, ok
}

// Packages returns the packages in name order.
func (r *Registry) Packages() []Package {
	if r == nil {
		return []Package{}
	}
	out := make([]Package, 0, len(r.packages))
	for _, name := range slices.Sorted(maps.Keys(r.packages)) {
		out = append(out, r.packages[name])
	}
	return out
}

// Len is the number of packages.
func (r *Registry) Len() int {
	if r == nil {
		return 0
	}
	return len(r.packages)
}

// DiagnosticKind says why a scan skipped or replaced a file.
type DiagnosticKind string

// The diagnostic kinds of ScanWithReport.
const (
	// DuplicateOverridden: a skill replaced an earlier one of the same
	// name (Name, Path the winner, PreviousPath the loser).
	DuplicateOverridden DiagnosticKind = "duplicate_overridden"
	// InvalidSkill: a SKILL.md could not be parsed (see Parse).
	InvalidSkill DiagnosticKind = "invalid_skill"
	// UnreadableSkill: a SKILL.md could not be read.
	UnreadableSkill DiagnosticKind = "unreadable_skill"
)

// duplicateMessage is the Message of a DuplicateOverridden diagnostic.
const duplicateMessage = "higher-precedence skill replaced an earlier skill with the same name"

// Diagnostic is a problem a lenient scan went past.
type Diagnostic struct {
	Kind DiagnosticKind `json:"kind"`
	// Source is the kind of the scope being scanned.
	Source       SourceKind `json:"source"`
	Name         string     `json:"name,omitempty"`
	Path         string     `json:"path"`
	PreviousPath string     `json:"previous_path,omitempty"`
	Message      string     `json:"message"`
}

// ScanReport is the result of a lenient scan.
type ScanReport struct {
	Registry    *Registry
	Diagnostics []Diagnostic
}

// Scan reads the skills of scopes from p (see [SourceScope]), without
// their bodies. Scopes are scanned in ascending (precedence, position)
// order and a later skill replaces an earlier one of the same name, so
// the higher precedence wins, then the later scope, then the later
// directory of a scope. A directory that is missing, not a directory or
// not readable is skipped; a subdirectory without a SKILL.md is not a
// skill. Any other failure, a malformed SKILL.md included, fails the
// scan; an invalid scope (unknown kind, a path outside p's root) fails it
// before anything is read.
func Scan(ctx context.Context, p env.Provider, scopes []SourceScope) (*Registry, error) {
	r, err := scan(ctx, p, scopes, true)
	if err != nil {
		return nil, err
	}
	return r.Registry, nil
}

// ScanWithReport scans as Scan does, but a SKILL.md that cannot be read
// or parsed is skipped with an UnreadableSkill or InvalidSkill
// diagnostic, and a replaced duplicate gets a DuplicateOverridden one.
// Failing to list a directory (other than the skips of Scan) and an
// invalid scope still fail it.
func ScanWithReport(ctx context.Context, p env.Provider, scopes []SourceScope) (*ScanReport, error) {
	return scan(ctx, p, scopes, false)
}

func scan(ctx context.Context, p env.Provider, scopes []SourceScope, strict bool) (*ScanReport, error) {
	order, err := ordered(scopes)
	if err != nil {
		return nil, err
	}
	bases := make([][]string, len(scopes))
	for i, s := range scopes {
		for _, d := range s.Dirs() {
			base, err := env.Clean(path.Join(s.Root, d))
			if err != nil {
				return nil, fmt.Errorf("%w: %w", ErrInvalidScope, err)
			}
			bases[i] = append(bases[i], base)
		}
	}
	rep := &ScanReport{Registry: NewRegistry(), Diagnostics: []Diagnostic{}}
	for _, i := range order {
		source := scopes[i].Kind.orCustom()
		for _, base := range bases[i] {
			files, err := skillFiles(ctx, p, base)
			if err != nil {
				return nil, err
			}
			for _, f := range files {
				text, err := readSkill(ctx, p, f)
				if err != nil {
					if errors.Is(err, env.ErrNotFound) || errors.Is(err, env.ErrInvalidRequest) {
						continue // no SKILL.md (or a directory of that name): not a skill
					}
					if strict {
						return nil, err
					}
					rep.Diagnostics = append(rep.Diagnostics, Diagnostic{Kind: UnreadableSkill, Source: source, Path: f, Message: message(err)})
					continue
				}
				pkg, err := Parse(f, text)
				if err != nil {
					if strict {
						return nil, &FileError{Path: f, Err: err}
					}
					rep.Diagnostics = append(rep.Diagnostics, Diagnostic{Kind: InvalidSkill, Source: source, Path: f, Message: message(err)})
					continue
				}
				if prev, ok := rep.Registry.packages[pkg.Name]; ok {
					rep.Diagnostics = append(rep.Diagnostics, Diagnostic{Kind: DuplicateOverridden, Source: source,
						Name: pkg.Name, Path: f, PreviousPath: prev.Path, Message: duplicateMessage})
				}
				rep.Registry.packages[pkg.Name] = pkg.summary()
			}
		}
	}
	return rep, nil
}

// skillFiles returns the candidate SKILL.md paths under base: one per
// subdirectory, in name order. A base that is missing, a file or denied
// has none.
func skillFiles(ctx context.Context, p env.Provider, base string) ([]string, error) {
	entries, err := p.ReadDir(ctx, base)
	if err != nil {
		if errors.Is(err, env.ErrNotFound) || errors.Is(err, env.ErrAccessDenied) || errors.Is(err, env.ErrInvalidRequest) {
			return nil, nil
		}
		return nil, fmt.Errorf("skills: listing %q: %w", base, err)
	}
	var out []string
	for _, e := range entries {
		if e.IsDir || e.Symlink { // a symlink: the provider decides whether it may be read
			out = append(out, e.Path+"/SKILL.md")
		}
	}
	return out, nil
}

// readSkill reads the SKILL.md at f, bounded by MaxSkillBytes.
func readSkill(ctx context.Context, p env.Provider, f string) (string, error) {
	b, err := p.ReadFile(ctx, f, 0, MaxSkillBytes+1)
	if err != nil {
		return "", err
	}
	if len(b) > MaxSkillBytes {
		return "", fmt.Errorf("%w: %s is larger than %d bytes", ErrTooLarge, f, MaxSkillBytes)
	}
	if !utf8.Valid(b) {
		return "", fmt.Errorf("%w: %s", ErrNotText, f)
	}
	return string(b), nil
}
