package filesystem

import (
	"context"
	"errors"
	"path"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/starweaver-go/starweaver/core/env"
	"github.com/starweaver-go/starweaver/core/tool"
)

// LsArgs are the arguments of ls.
type LsArgs struct {
	Path string `json:"path,omitempty" jsonschema:"description=Directory to list (relative to the environment's root; default .)."`
	// Root is an alias of Path.
	Root       string   `json:"root,omitempty" jsonschema:"description=Alias of path."`
	Ignore     []string `json:"ignore,omitempty" jsonschema:"description=Globs of entry names or paths to leave out (for example node_modules or *.log)."`
	MaxEntries int      `json:"max_entries" jsonschema:"description=Maximum number of entries (-1 for no limit).,default=500"`
}

// LsResult is what ls returns. Entries are paths relative to the
// environment's root; directories end with "/".
type LsResult struct {
	Path           string   `json:"path"`
	Ignore         []string `json:"ignore"`
	MaxEntries     int      `json:"max_entries"`
	Entries        []string `json:"entries"`
	Truncated      bool     `json:"truncated,omitempty"`
	TotalEntries   int      `json:"total_entries,omitempty"`
	Showing        int      `json:"showing,omitempty"`
	OutputFilePath string   `json:"output_file_path,omitempty"`
	Note           string   `json:"note,omitempty"`
	SystemReminder string   `json:"system-reminder,omitempty"`
}

// MkdirArgs are the arguments of mkdir.
type MkdirArgs struct {
	Paths   []string `json:"paths" jsonschema:"description=Directories to create (relative to the environment's root)."`
	Parents bool     `json:"parents,omitempty" jsonschema:"description=Also create missing parent directories.,default=false"`
}

// MkdirResult is what mkdir returns.
type MkdirResult struct {
	Created []string `json:"created"`
	Parents bool     `json:"parents"`
}

// DeleteArgs are the arguments of delete.
type DeleteArgs struct {
	Paths     []string `json:"paths" jsonschema:"description=Files or directories to delete (relative to the environment's root)."`
	Recursive bool     `json:"recursive,omitempty" jsonschema:"description=Delete non-empty directories with everything in them.,default=false"`
	Force     bool     `json:"force,omitempty" jsonschema:"description=Treat missing paths as already deleted.,default=false"`
}

// DeleteResult is what delete returns.
type DeleteResult struct {
	Deleted   []string `json:"deleted"`
	Missing   []string `json:"missing"`
	Recursive bool     `json:"recursive"`
	Force     bool     `json:"force"`
}

// Pair is one move or copy.
type Pair struct {
	Src string `json:"src" jsonschema:"description=Source path (relative to the environment's root)."`
	Dst string `json:"dst" jsonschema:"description=Destination path (relative to the environment's root)."`
}

// TransferArgs are the arguments of move and copy.
type TransferArgs struct {
	Pairs []Pair `json:"pairs,omitempty" jsonschema:"description=The moves or copies; done in order."`
	// Operations is an alias of Pairs.
	Operations []Pair `json:"operations,omitempty" jsonschema:"description=Alias of pairs."`
	Overwrite  bool   `json:"overwrite,omitempty" jsonschema:"description=Replace existing destinations.,default=false"`
}

// MoveResult is what move returns.
type MoveResult struct {
	Moved     []Pair `json:"moved"`
	Overwrite bool   `json:"overwrite"`
}

// CopyResult is what copy returns.
type CopyResult struct {
	Copied    []Pair `json:"copied"`
	Overwrite bool   `json:"overwrite"`
}

const lsDescription = "List a directory's entries, sorted by name: paths relative to the environment's root, directories ending with /. " +
	"Leave entries out with ignore globs. Returns {path, ignore, max_entries, entries}."

const mkdirDescription = "Create directories; with parents, missing parent directories too. Returns {created, parents}."

const deleteDescription = "Delete files, and directories (non-empty ones only with recursive). " +
	"With force, missing paths are reported under missing instead of failing. Returns {deleted, missing, recursive, force}."

const moveDescription = "Move or rename files and directories, pair by pair ({src, dst}); an existing dst needs overwrite. Returns {moved, overwrite}."

const copyDescription = "Copy files and directory trees, pair by pair ({src, dst}); an existing dst needs overwrite. Returns {copied, overwrite}."

// Ls returns a new ls tool.
func Ls() *tool.Function { return finish(tool.Typed(NameLs, lsDescription, ls), false) }

// Mkdir returns a new mkdir tool.
func Mkdir() *tool.Function { return finish(tool.Typed(NameMkdir, mkdirDescription, mkdir), true) }

// Delete returns a new delete tool.
func Delete() *tool.Function { return finish(tool.Typed(NameDelete, deleteDescription, del), true) }

// Move returns a new move tool.
func Move() *tool.Function {
	return finish(tool.Typed(NameMove, moveDescription, func(ctx context.Context, tc *tool.Context, a TransferArgs) (tool.Result, error) {
		return transfer(ctx, tc, a, true)
	}), true)
}

// Copy returns a new copy tool.
func Copy() *tool.Function {
	return finish(tool.Typed(NameCopy, copyDescription, func(ctx context.Context, tc *tool.Context, a TransferArgs) (tool.Result, error) {
		return transfer(ctx, tc, a, false)
	}), true)
}

func ls(ctx context.Context, tc *tool.Context, a LsArgs) (tool.Result, error) {
	p, err := provider(tc)
	if err != nil {
		return tool.Result{}, err
	}
	dirArg := a.Path
	if dirArg == "" {
		dirArg = a.Root
	}
	if dirArg == "" {
		dirArg = "."
	}
	dir, err := cleanPath("path", dirArg)
	if err != nil {
		return tool.Result{}, err
	}
	max, err := limit("max_entries", a.MaxEntries)
	if err != nil {
		return tool.Result{}, err
	}
	for _, g := range a.Ignore {
		if !doublestar.ValidatePattern(g) {
			return tool.Result{}, tool.Feedback("ignore pattern %q is not a valid glob.", g)
		}
	}
	entries, err := p.ReadDir(ctx, dir)
	if err != nil {
		return tool.Result{}, fail("ls", dirArg, err)
	}
	res := LsResult{Path: dirArg, Ignore: a.Ignore, MaxEntries: a.MaxEntries, Entries: []string{}}
	if res.Ignore == nil {
		res.Ignore = []string{}
	}
	total := 0
	skill := false
	for _, e := range entries {
		name := path.Base(e.Path)
		if ignoredEntry(a.Ignore, name, e.Path) {
			continue
		}
		total++
		if max > 0 && len(res.Entries) == max {
			continue
		}
		entry := e.Path
		if e.IsDir {
			entry += "/"
		} else if name == "SKILL.md" {
			skill = true
		}
		res.Entries = append(res.Entries, entry)
	}
	if skill {
		res.SystemReminder = SkillReminder
	}
	if total > len(res.Entries) {
		res.Truncated, res.TotalEntries, res.Showing = true, total, len(res.Entries)
		res.Note = "More entries exist; raise max_entries (-1 for no limit), add ignore globs, or use glob."
	}
	if jsonSize(res) <= OutputLimit {
		return tool.JSON(res), nil
	}
	where := spill(ctx, p, NameLs, res)
	all := res.Entries
	build := func(n int) any {
		r := res
		r.Entries = all[:n]
		r.Truncated, r.TotalEntries, r.Showing, r.OutputFilePath = true, total, n, where
		r.Note = pagingNote(where, "add ignore globs or list a subdirectory")
		return r
	}
	n := fitPrefix(len(all), OutputLimit, build)
	if n < 0 {
		return tool.Result{}, errors.New("filesystem: ls result does not fit even as a preview")
	}
	return tool.JSON(build(n)), nil
}

// ignoredEntry reports whether an ignore glob matches the entry's name or
// its path.
func ignoredEntry(globs []string, name, full string) bool {
	for _, g := range globs {
		g = strings.TrimSuffix(g, "/")
		if ok, _ := doublestar.Match(g, name); ok {
			return true
		}
		if ok, _ := doublestar.Match(g, full); ok {
			return true
		}
	}
	return false
}

// cleanAll cleans every path argument before anything is touched.
func cleanAll(arg string, paths []string) ([]string, error) {
	if len(paths) == 0 {
		return nil, tool.Feedback("%s is empty; give at least one path.", arg)
	}
	out := make([]string, len(paths))
	for i, p := range paths {
		c, err := cleanPath(arg, p)
		if err != nil {
			return nil, err
		}
		out[i] = c
	}
	return out, nil
}

func mkdir(ctx context.Context, tc *tool.Context, a MkdirArgs) (tool.Result, error) {
	p, err := provider(tc)
	if err != nil {
		return tool.Result{}, err
	}
	names, err := cleanAll("paths", a.Paths)
	if err != nil {
		return tool.Result{}, err
	}
	res := MkdirResult{Created: []string{}, Parents: a.Parents}
	for i, name := range names {
		if err := p.Mkdir(ctx, name, a.Parents); err != nil {
			return tool.Result{}, partial(fail("mkdir", a.Paths[i], err), "created", res.Created)
		}
		res.Created = append(res.Created, a.Paths[i])
	}
	return tool.JSON(res), nil
}

func del(ctx context.Context, tc *tool.Context, a DeleteArgs) (tool.Result, error) {
	p, err := provider(tc)
	if err != nil {
		return tool.Result{}, err
	}
	names, err := cleanAll("paths", a.Paths)
	if err != nil {
		return tool.Result{}, err
	}
	for i, name := range names {
		if name == "." {
			return tool.Result{}, tool.Feedback("paths %q is the environment's root, which cannot be deleted; delete what is in it instead.", a.Paths[i])
		}
	}
	res := DeleteResult{Deleted: []string{}, Missing: []string{}, Recursive: a.Recursive, Force: a.Force}
	for i, name := range names {
		err := p.Remove(ctx, name, a.Recursive)
		switch {
		case err == nil:
			res.Deleted = append(res.Deleted, a.Paths[i])
		case a.Force && errors.Is(err, env.ErrNotFound):
			res.Missing = append(res.Missing, a.Paths[i])
		default:
			return tool.Result{}, partial(fail("delete", a.Paths[i], err), "deleted", res.Deleted)
		}
	}
	return tool.JSON(res), nil
}

func transfer(ctx context.Context, tc *tool.Context, a TransferArgs, move bool) (tool.Result, error) {
	p, err := provider(tc)
	if err != nil {
		return tool.Result{}, err
	}
	pairs := a.Pairs
	if len(pairs) == 0 {
		pairs = a.Operations
	} else if len(a.Operations) > 0 {
		return tool.Result{}, tool.Feedback("give pairs or its alias operations, not both.")
	}
	if len(pairs) == 0 {
		return tool.Result{}, tool.Feedback("pairs is empty; give at least one {src, dst}.")
	}
	type cleaned struct{ src, dst string }
	cs := make([]cleaned, len(pairs))
	for i, pr := range pairs {
		if cs[i].src, err = cleanPath("src", pr.Src); err != nil {
			return tool.Result{}, err
		}
		if cs[i].dst, err = cleanPath("dst", pr.Dst); err != nil {
			return tool.Result{}, err
		}
	}
	op, key := "copy", "copied"
	if move {
		op, key = "move", "moved"
	}
	done := []Pair{}
	for i, c := range cs {
		if move {
			err = p.Rename(ctx, c.src, c.dst, a.Overwrite)
		} else {
			err = p.Copy(ctx, c.src, c.dst, a.Overwrite)
		}
		if err != nil {
			name := pairs[i].Src
			var e *env.Error
			if errors.As(err, &e) && e.Path == c.dst {
				name = pairs[i].Dst
			}
			return tool.Result{}, partial(fail(op, name, err), key, done)
		}
		done = append(done, pairs[i])
	}
	if move {
		return tool.JSON(MoveResult{Moved: done, Overwrite: a.Overwrite}), nil
	}
	return tool.JSON(CopyResult{Copied: done, Overwrite: a.Overwrite}), nil
}

// partial adds to a feedback error what the call did before it failed, so
// the model does not redo it.
func partial[T any](err error, key string, done []T) error {
	if len(done) == 0 {
		return err
	}
	var te *tool.Error
	if !errors.As(err, &te) || te.Kind != tool.ErrorKindFeedback {
		return err
	}
	c := *te
	c.Message += " Already " + key + " before this failure: " + describe(done) + "."
	return &c
}

func describe[T any](done []T) string {
	parts := make([]string, len(done))
	for i, d := range done {
		switch v := any(d).(type) {
		case string:
			parts[i] = `"` + v + `"`
		case Pair:
			parts[i] = `"` + v.Src + `" -> "` + v.Dst + `"`
		}
	}
	return strings.Join(parts, ", ")
}
