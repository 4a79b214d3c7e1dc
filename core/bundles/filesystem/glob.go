package filesystem

import (
	"context"
	"errors"
	"strings"

	"github.com/starweaver-go/starweaver/core/env"
	"github.com/starweaver-go/starweaver/core/tool"
)

// GlobArgs are the arguments of glob.
type GlobArgs struct {
	Pattern string `json:"pattern" jsonschema:"description=Glob of the files to find: a bare pattern such as *.go matches at any depth; src/*.go one level under src; **/*.go everywhere."`
	Root    string `json:"root,omitempty" jsonschema:"description=Directory to search from (relative to the environment's root; default .)."`
	// Path is an alias of Root.
	Path           string `json:"path,omitempty" jsonschema:"description=Alias of root."`
	IncludeHidden  bool   `json:"include_hidden,omitempty" jsonschema:"description=Also match hidden files and directories (names starting with a dot); the root's .agents directory is always searched.,default=false"`
	IncludeIgnored bool   `json:"include_ignored,omitempty" jsonschema:"description=Also match files that .gitignore rules exclude.,default=false"`
	MaxResults     int    `json:"max_results" jsonschema:"description=Maximum number of matches (-1 for no limit).,default=500"`
}

// GlobMatch is one file glob found.
type GlobMatch struct {
	Path string `json:"path"`
}

// GlobResult is what glob returns. Truncated, TotalMatches, Showing,
// OutputFilePath and Note are set when the result was shortened.
type GlobResult struct {
	Root           string      `json:"root"`
	Pattern        string      `json:"pattern"`
	Matches        []GlobMatch `json:"matches"`
	Truncated      bool        `json:"truncated,omitempty"`
	TotalMatches   int         `json:"total_matches,omitempty"`
	Showing        int         `json:"showing,omitempty"`
	OutputFilePath string      `json:"output_file_path,omitempty"`
	Note           string      `json:"note,omitempty"`
	SystemReminder string      `json:"system-reminder,omitempty"`
}

const globDescription = "Find files by glob pattern under a root directory, in path order. " +
	"A bare pattern such as *.go matches at any depth, src/*.go matches one level under src, **/*.go matches everywhere. " +
	"Hidden paths and .gitignore'd files are skipped unless include_hidden / include_ignored. " +
	"Returns {root, pattern, matches: [{path}]}; paths are relative to the environment's root."

// Glob returns a new glob tool.
func Glob() *tool.Function {
	return finish(tool.Typed(NameGlob, globDescription, glob), false)
}

func glob(ctx context.Context, tc *tool.Context, a GlobArgs) (tool.Result, error) {
	p, err := provider(tc)
	if err != nil {
		return tool.Result{}, err
	}
	rootArg := a.Root
	if rootArg == "" {
		rootArg = a.Path
	}
	if rootArg == "" {
		rootArg = "."
	}
	root, err := cleanPath("root", rootArg)
	if err != nil {
		return tool.Result{}, err
	}
	max, err := limit("max_results", a.MaxResults)
	if err != nil {
		return tool.Result{}, err
	}
	found, more, err := GlobFiles(ctx, p, root, a.Pattern, GlobOptions{IncludeHidden: a.IncludeHidden,
		IncludeIgnored: a.IncludeIgnored, MaxResults: max})
	if err != nil {
		var te *tool.Error
		if errors.As(err, &te) {
			return tool.Result{}, err
		}
		return tool.Result{}, fail("glob", rootArg, err)
	}
	res := GlobResult{Root: rootArg, Pattern: a.Pattern, Matches: make([]GlobMatch, len(found))}
	for i, f := range found {
		res.Matches[i] = GlobMatch{Path: f}
	}
	for _, m := range res.Matches {
		if hasSkill(m.Path) {
			res.SystemReminder = SkillReminder
			break
		}
	}
	if more {
		res.Truncated = true
		res.Note = "More files match; raise max_results (-1 for no limit) or narrow the pattern."
	}
	return bounded(ctx, p, NameGlob, res)
}

// GlobOptions configure GlobFiles.
type GlobOptions struct {
	IncludeHidden  bool
	IncludeIgnored bool
	MaxResults     int // 0: no limit
}

// GlobFiles returns the files under root (cleaned, relative to the
// environment's root) that match pattern with glob's rules, in walk order,
// as paths relative to the environment's root; more reports that
// MaxResults cut the list. An invalid pattern is a tool.Feedback error. It
// is exported for benchmarks and for hosts that search without a model.
func GlobFiles(ctx context.Context, p env.Provider, root, pattern string, o GlobOptions) (found []string, more bool, err error) {
	g, err := compileGlob("pattern", pattern)
	if err != nil {
		return nil, false, err
	}
	found = []string{}
	wo := walkOptions{root: root, includeHidden: o.IncludeHidden, includeIgnored: o.IncludeIgnored}
	err = walkFiles(ctx, p, wo, g.base, func(fi env.FileInfo, rel string) error {
		if !g.match(rel) {
			return nil
		}
		if o.MaxResults > 0 && len(found) == o.MaxResults {
			more = true
			return errStop
		}
		found = append(found, fi.Path)
		return nil
	})
	if err != nil && g.base != "." && errors.Is(err, env.ErrNotFound) && statOK(ctx, p, root) {
		err = nil // the pattern's literal directory does not exist: no matches
	}
	if err != nil {
		return nil, false, err
	}
	return found, more, nil
}

// statOK reports whether p exists.
func statOK(ctx context.Context, p env.Provider, name string) bool {
	_, err := p.Stat(ctx, name)
	return err == nil
}

// bounded returns res, or a preview of it with the full result spilled
// to scratch when its JSON is larger than OutputLimit.
func bounded(ctx context.Context, p env.Provider, toolName string, res GlobResult) (tool.Result, error) {
	if jsonSize(res) <= OutputLimit {
		return tool.JSON(res), nil
	}
	where := spill(ctx, p, toolName, res)
	total := len(res.Matches)
	build := func(n int) any {
		r := res
		r.Matches = res.Matches[:n]
		r.Truncated, r.TotalMatches, r.Showing, r.OutputFilePath = true, total, n, where
		r.Note = pagingNote(where, "narrow the pattern or lower max_results")
		return r
	}
	n := fitPrefix(total, OutputLimit, build)
	if n < 0 {
		return tool.Result{}, errors.New("filesystem: glob result does not fit even as a preview")
	}
	return tool.JSON(build(n)), nil
}

// trimmed shortens s to at most n bytes, dropping a rune cut in two, and
// adds suffix when it shortened it.
func trimmed(s string, n int, suffix string) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "") + suffix
}
