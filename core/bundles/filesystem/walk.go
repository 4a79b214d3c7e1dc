package filesystem

import (
	"context"
	"errors"
	"path"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/go-git/go-git/v5/plumbing/format/gitignore"

	"github.com/starweaver-go/starweaver/core/env"
	"github.com/starweaver-go/starweaver/core/tool"
)

// walkOptions select the files a glob or grep visits.
type walkOptions struct {
	// root is the cleaned search root.
	root           string
	includeHidden  bool
	includeIgnored bool
}

// globPattern is a compiled glob: a pattern relative to the search root,
// and the directory under the root where matches can start (its literal
// prefix), so the walk skips the rest of the tree.
type globPattern struct {
	pattern string // doublestar pattern, relative to the search root
	base    string // literal directory prefix of pattern, relative to the search root ("." for none)
}

// compileGlob applies the ripgrep-style rules: a pattern without "/" is
// matched at any depth (as if it began with "**/"), one with "/" is
// relative to the search root. Absolute patterns and ".." are refused.
func compileGlob(arg, pattern string) (globPattern, error) {
	p := strings.ReplaceAll(strings.TrimSpace(pattern), "\\", "/")
	for strings.HasPrefix(p, "./") {
		p = p[2:]
	}
	if p == "" {
		return globPattern{}, tool.Feedback("%s is empty; give a glob such as \"*.go\" or \"src/**/*.go\".", arg)
	}
	if strings.HasPrefix(p, "/") || (len(p) >= 2 && p[1] == ':') {
		return globPattern{}, tool.Feedback("%s %q is absolute; give a glob relative to root, such as \"**/*.go\".", arg, pattern)
	}
	for _, seg := range strings.Split(p, "/") {
		if seg == ".." {
			return globPattern{}, tool.Feedback("%s %q contains \"..\"; search from another root instead.", arg, pattern)
		}
	}
	p = strings.TrimSuffix(p, "/")
	if !strings.Contains(p, "/") {
		p = "**/" + p
	}
	if !doublestar.ValidatePattern(p) {
		return globPattern{}, tool.Feedback("%s %q is not a valid glob (check its brackets and braces).", arg, pattern)
	}
	base, _ := doublestar.SplitPattern(p)
	return globPattern{pattern: p, base: base}, nil
}

// match reports whether rel (relative to the search root) matches.
func (g globPattern) match(rel string) bool {
	ok, _ := doublestar.Match(g.pattern, rel)
	return ok
}

// hidden reports whether rel (relative to the search root) has a hidden
// segment other than a first ".agents".
func hidden(rel string) bool {
	for i, seg := range strings.Split(rel, "/") {
		if len(seg) > 1 && seg[0] == '.' && seg != ".." {
			if i == 0 && seg == ".agents" {
				continue
			}
			return true
		}
	}
	return false
}

// ignores holds the .gitignore patterns met on a walk, each scoped to the
// directory of its file.
type ignores struct {
	patterns []gitignore.Pattern
	matcher  gitignore.Matcher
}

// load reads dir/.gitignore (dir relative to the environment's root) and
// adds its patterns; a missing or unreadable file adds nothing.
func (ig *ignores) load(ctx context.Context, p env.Provider, dir string) {
	name := ".gitignore"
	var domain []string
	if dir != "." {
		name = dir + "/.gitignore"
		domain = strings.Split(dir, "/")
	}
	b, err := p.ReadFile(ctx, name, 0, 1<<20)
	if err != nil {
		return
	}
	added := false
	for _, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSuffix(line, "\r")
		if strings.HasPrefix(line, "#") || strings.TrimSpace(line) == "" {
			continue
		}
		ig.patterns = append(ig.patterns, gitignore.ParsePattern(line, domain))
		added = true
	}
	if added {
		ig.matcher = gitignore.NewMatcher(ig.patterns)
	}
}

// ignored reports whether p (relative to the environment's root) is
// ignored.
func (ig *ignores) ignored(p string, isDir bool) bool {
	if ig.matcher == nil {
		return false
	}
	return ig.matcher.Match(strings.Split(p, "/"), isDir)
}

// errStop ends a walk early without an error.
var errStop = errors.New("filesystem: stop walking")

// walkFiles calls fn for every file under o.root+"/"+base that the hidden
// and ignore rules let through, in walk order, with its path relative to
// the environment's root and to the search root. Directory symlinks are
// never entered (env.Provider.Walk reports them without following). fn
// returning errStop ends the walk without an error.
func walkFiles(ctx context.Context, p env.Provider, o walkOptions, base string, fn func(fi env.FileInfo, rel string) error) error {
	start := o.root
	if base != "." && base != "" {
		start = path.Join(o.root, base)
		if !o.includeHidden && hidden(base) {
			return nil
		}
	}
	var ig ignores
	if !o.includeIgnored {
		// The ancestors' .gitignore files apply too, from the top down.
		dir := "."
		ig.load(ctx, p, dir)
		if start != "." {
			for _, seg := range strings.Split(start, "/") {
				dir = path.Join(dir, seg)
				if ig.ignored(dir, true) {
					return nil
				}
				ig.load(ctx, p, dir)
			}
		}
	}
	relOf := func(full string) string {
		if o.root == "." {
			return full
		}
		return strings.TrimPrefix(full, o.root+"/")
	}
	err := p.Walk(ctx, start, func(fi env.FileInfo) error {
		rel := relOf(fi.Path)
		name := path.Base(fi.Path)
		if !o.includeHidden && len(name) > 1 && name[0] == '.' && (name != ".agents" || strings.Contains(rel, "/")) {
			if fi.IsDir {
				return env.SkipDir
			}
			return nil
		}
		if !o.includeIgnored && ig.ignored(fi.Path, fi.IsDir) {
			if fi.IsDir {
				return env.SkipDir
			}
			return nil
		}
		if fi.IsDir {
			if fi.Symlink {
				return env.SkipDir
			}
			if !o.includeIgnored {
				ig.load(ctx, p, fi.Path)
			}
			return nil
		}
		return fn(fi, rel)
	})
	if errors.Is(err, errStop) {
		return nil
	}
	return err
}
