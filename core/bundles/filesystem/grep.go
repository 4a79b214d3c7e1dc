package filesystem

import (
	"bytes"
	"context"
	"errors"
	"path"
	"regexp"
	"regexp/syntax"
	"runtime"
	"strings"
	"sync"

	"github.com/starweaver-go/starweaver/core/env"
	"github.com/starweaver-go/starweaver/core/tool"
)

// GrepArgs are the arguments of grep.
type GrepArgs struct {
	Pattern string `json:"pattern" jsonschema:"description=Regular expression (Go RE2 syntax) searched line by line."`
	Include string `json:"include" jsonschema:"description=Glob of the files to search with glob's rules (*.go matches at any depth).,default=**/*"`
	Root    string `json:"root,omitempty" jsonschema:"description=Directory to search from (relative to the environment's root; default .)."`
	// Path is an alias of Root.
	Path              string `json:"path,omitempty" jsonschema:"description=Alias of root."`
	ContextLines      int    `json:"context_lines" jsonschema:"description=Lines of context before and after each matching line.,default=2"`
	MaxResults        int    `json:"max_results" jsonschema:"description=Maximum number of matching lines in all (-1 for no limit).,default=100"`
	MaxMatchesPerFile int    `json:"max_matches_per_file" jsonschema:"description=Maximum number of matching lines per file (-1 for no limit).,default=20"`
	MaxFiles          int    `json:"max_files" jsonschema:"description=Maximum number of files with matches (-1 for no limit).,default=50"`
	IncludeHidden     bool   `json:"include_hidden,omitempty" jsonschema:"description=Also search hidden files and directories.,default=false"`
	IncludeIgnored    bool   `json:"include_ignored,omitempty" jsonschema:"description=Also search files that .gitignore rules exclude.,default=false"`
}

// GrepMatch is one matching line. Context holds the lines from
// ContextStartLine to the last context line, the matching one included.
type GrepMatch struct {
	Path             string `json:"path"`
	LineNumber       int    `json:"line_number"`
	MatchingLine     string `json:"matching_line"`
	Context          string `json:"context"`
	ContextStartLine int    `json:"context_start_line"`
}

// GrepBrief is a matching line without its context, as a shortened grep
// result lists it.
type GrepBrief struct {
	Path         string `json:"path"`
	LineNumber   int    `json:"line_number"`
	MatchingLine string `json:"matching_line"`
}

// GrepResult is what grep returns; Matches holds GrepMatch values, or
// GrepBrief values once context was dropped to fit.
type GrepResult struct {
	Root           string `json:"root"`
	Pattern        string `json:"pattern"`
	Matches        any    `json:"matches"`
	Truncated      bool   `json:"truncated,omitempty"`
	TotalMatches   int    `json:"total_matches,omitempty"`
	Showing        int    `json:"showing,omitempty"`
	OutputFilePath string `json:"output_file_path,omitempty"`
	Note           string `json:"note,omitempty"`
	System         string `json:"system,omitempty"`
	SystemReminder string `json:"system-reminder,omitempty"`
}

// ContextDropped is the "system" note of a grep result whose context was
// dropped to fit.
const ContextDropped = "Context dropped to reduce output size. Use view to read specific files."

const grepDescription = "Search file contents with a regular expression (Go RE2 syntax), line by line, " +
	"in the files under root that match include. Hidden and .gitignore'd files are skipped unless asked, binary files always. " +
	"Returns {root, pattern, matches: [{path, line_number, matching_line, context, context_start_line}]} in path order."

// Grep returns a new grep tool.
func Grep() *tool.Function {
	return finish(tool.Typed(NameGrep, grepDescription, grep), false)
}

// maxLineChars bounds a matching or context line in a full grep result.
const maxLineChars = 2000

// GrepOptions configure a Search.
type GrepOptions struct {
	Root           string // cleaned, relative to the environment's root
	Include        string // glob with glob's rules; "" for every file
	ContextLines   int
	MaxResults     int // 0: no limit
	MaxPerFile     int // 0: no limit
	MaxFiles       int // 0: no limit
	IncludeHidden  bool
	IncludeIgnored bool
}

// Search runs grep's search over p: the walk runs once, files are read
// and searched in parallel (GOMAXPROCS workers) and the matches come back
// in walk order. more reports that the limits cut the search short. It is
// exported for benchmarks and for hosts that search without a model.
func Search(ctx context.Context, p env.Provider, pattern string, o GrepOptions) (matches []GrepMatch, more bool, err error) {
	s, err := newSearcher(pattern, o.ContextLines)
	if err != nil {
		return nil, false, err
	}
	include := o.Include
	if include == "" {
		include = "**/*"
	}
	g, err := compileGlob("include", include)
	if err != nil {
		return nil, false, err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	// A job is a run of files of one directory, in walk order (the first
	// has index idx): a provider that reads a directory's files together
	// (env.BatchReader) then resolves the directory once, not every path.
	type job struct {
		idx   int
		dir   string
		names []string
	}
	type result struct {
		idx     int
		matches []GrepMatch
		more    bool
	}
	const jobFiles = 64
	jobs := make(chan job, 64)
	results := make(chan result, 512)
	var walkErr error
	go func() {
		defer close(jobs)
		n := 0
		var cur job
		flush := func() error {
			if len(cur.names) == 0 {
				return nil
			}
			select {
			case jobs <- cur:
				cur = job{idx: n}
				return nil
			case <-ctx.Done():
				return errStop
			}
		}
		wo := walkOptions{root: o.Root, includeHidden: o.IncludeHidden, includeIgnored: o.IncludeIgnored}
		walkErr = walkFiles(ctx, p, wo, g.base, func(fi env.FileInfo, rel string) error {
			if !g.match(rel) {
				return nil
			}
			dir, name := path.Split(fi.Path)
			dir = strings.TrimSuffix(dir, "/")
			if dir == "" {
				dir = "."
			}
			if len(cur.names) > 0 && (dir != cur.dir || len(cur.names) == jobFiles) {
				if err := flush(); err != nil {
					return err
				}
			}
			cur.dir = dir
			cur.names = append(cur.names, name)
			n++
			return nil
		})
		if walkErr == nil {
			walkErr = flush()
		}
		if walkErr != nil && g.base != "." && errors.Is(walkErr, env.ErrNotFound) && statOK(ctx, p, o.Root) {
			walkErr = nil
		}
	}()
	batch, _ := p.(env.BatchReader)
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				i := j.idx
				emit := func(file string, data []byte, err error) error {
					r := result{idx: i}
					i++
					if err == nil {
						r.matches, r.more = s.search(file, data, o.MaxPerFile)
					}
					select {
					case results <- r:
					case <-ctx.Done():
						// Keep draining jobs so the walker ends.
					}
					return nil
				}
				if batch != nil {
					_ = batch.ReadFiles(ctx, j.dir, j.names, emit)
					// A read stopped by cancellation still owes its files a
					// result each, so the assembler's order stays whole.
					for ; i < j.idx+len(j.names); i++ {
						select {
						case results <- result{idx: i}:
						case <-ctx.Done():
						}
					}
					continue
				}
				for _, name := range j.names {
					file := name
					if j.dir != "." {
						file = j.dir + "/" + name
					}
					data, err := p.ReadFile(ctx, file, 0, -1)
					_ = emit(file, data, err)
				}
			}
		}()
	}
	go func() {
		wg.Wait()
		close(results)
	}()

	// Assemble in walk order: results wait in pending until every earlier
	// file is done.
	pending := map[int]result{}
	next, files, stopped := 0, 0, false
	for r := range results {
		if stopped {
			continue
		}
		pending[r.idx] = r
		for {
			r, ok := pending[next]
			if !ok {
				break
			}
			delete(pending, next)
			next++
			if len(r.matches) == 0 {
				continue
			}
			if o.MaxFiles > 0 && files == o.MaxFiles {
				more, stopped = true, true
				break
			}
			files++
			if r.more {
				more = true
			}
			for _, m := range r.matches {
				if o.MaxResults > 0 && len(matches) == o.MaxResults {
					more, stopped = true, true
					break
				}
				matches = append(matches, m)
			}
			if stopped {
				break
			}
		}
		if stopped {
			cancel()
		}
	}
	if walkErr != nil && !errors.Is(walkErr, context.Canceled) {
		return nil, false, walkErr
	}
	if err := context.Cause(ctx); err != nil && !stopped {
		return nil, false, err
	}
	return matches, more, nil
}

// searcher finds matching lines in a file's bytes.
type searcher struct {
	re *regexp.Regexp
	// literal is set when the whole pattern is a case-sensitive literal:
	// bytes.Index then finds candidates much faster than the regexp.
	literal      []byte
	contextLines int
}

// newSearcher compiles pattern (multi-line mode, so ^ and $ match at line
// boundaries). An invalid pattern is feedback.
func newSearcher(pattern string, contextLines int) (*searcher, error) {
	re, err := regexp.Compile("(?m)" + pattern)
	if err != nil {
		return nil, tool.Feedback("pattern %q is not a valid regular expression (Go RE2 syntax): %v. Escape special characters "+
			"such as ( [ { . * + ? with a backslash to search for them literally.", pattern, err)
	}
	s := &searcher{re: re, contextLines: contextLines}
	if parsed, err := syntax.Parse(pattern, syntax.Perl); err == nil {
		parsed = parsed.Simplify()
		if parsed.Op == syntax.OpLiteral && parsed.Flags&syntax.FoldCase == 0 && !strings.ContainsRune(string(parsed.Rune), '\n') {
			s.literal = []byte(string(parsed.Rune))
		}
	}
	return s, nil
}

// search returns the matching lines of data (at most max, 0: no limit)
// and whether more were cut off. A file with a NUL byte in its first
// BinarySniffBytes is binary and has no matches.
func (s *searcher) search(name string, data []byte, max int) ([]GrepMatch, bool) {
	if bytes.IndexByte(data[:min(len(data), BinarySniffBytes)], 0) >= 0 {
		return nil, false
	}
	var out []GrepMatch
	pos, counted, line := 0, 0, 1
	for pos <= len(data) {
		var start int
		if s.literal != nil {
			i := bytes.Index(data[pos:], s.literal)
			if i < 0 {
				break
			}
			start = pos + i
		} else {
			loc := s.re.FindIndex(data[pos:])
			if loc == nil {
				break
			}
			start = pos + loc[0]
		}
		lineStart := bytes.LastIndexByte(data[:start], '\n') + 1
		lineEnd := len(data)
		if i := bytes.IndexByte(data[start:], '\n'); i >= 0 {
			lineEnd = start + i
		}
		if s.literal == nil && !s.re.Match(data[lineStart:lineEnd]) {
			// The match ran across a line break; this line alone does not match.
			pos = lineEnd + 1
			continue
		}
		if lineStart >= len(data) {
			break // an empty match after the final newline (or in an empty file) is no line
		}
		line += bytes.Count(data[counted:lineStart], []byte{'\n'})
		counted = lineStart
		if max > 0 && len(out) == max {
			return out, true
		}
		out = append(out, s.match(name, data, lineStart, lineEnd, line))
		pos = lineEnd + 1
	}
	return out, false
}

// match builds the GrepMatch of the line data[lineStart:lineEnd], number
// line, with its context.
func (s *searcher) match(name string, data []byte, lineStart, lineEnd, line int) GrepMatch {
	from, first := lineStart, line
	for range s.contextLines {
		if from == 0 {
			break
		}
		from = bytes.LastIndexByte(data[:from-1], '\n') + 1
		first--
	}
	to := lineEnd
	for range s.contextLines {
		if to >= len(data) {
			break
		}
		i := bytes.IndexByte(data[to+1:], '\n')
		if i < 0 {
			if to+1 < len(data) {
				to = len(data)
			}
			break
		}
		to = to + 1 + i
	}
	lines := strings.Split(string(data[from:to]), "\n")
	for i, l := range lines {
		lines[i] = clip(l)
	}
	return GrepMatch{
		Path:             name,
		LineNumber:       line,
		MatchingLine:     clip(string(data[lineStart:lineEnd])),
		Context:          strings.Join(lines, "\n"),
		ContextStartLine: first,
	}
}

// clip drops a trailing CR and shortens a line longer than maxLineChars.
func clip(l string) string {
	return trimmed(strings.TrimSuffix(l, "\r"), maxLineChars, "... (line truncated)")
}

func grep(ctx context.Context, tc *tool.Context, a GrepArgs) (tool.Result, error) {
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
	if a.ContextLines < 0 {
		return tool.Result{}, tool.Feedback("context_lines must be 0 or more, not %d.", a.ContextLines)
	}
	o := GrepOptions{Root: root, Include: a.Include, ContextLines: a.ContextLines,
		IncludeHidden: a.IncludeHidden, IncludeIgnored: a.IncludeIgnored}
	for _, l := range []struct {
		name string
		v    int
		dst  *int
	}{{"max_results", a.MaxResults, &o.MaxResults}, {"max_matches_per_file", a.MaxMatchesPerFile, &o.MaxPerFile}, {"max_files", a.MaxFiles, &o.MaxFiles}} {
		if *l.dst, err = limit(l.name, l.v); err != nil {
			return tool.Result{}, err
		}
	}
	matches, more, err := Search(ctx, p, a.Pattern, o)
	if err != nil {
		var te *tool.Error
		if errors.As(err, &te) {
			return tool.Result{}, err
		}
		return tool.Result{}, fail("grep", rootArg, err)
	}
	if matches == nil {
		matches = []GrepMatch{}
	}
	res := GrepResult{Root: rootArg, Pattern: a.Pattern, Matches: matches}
	for _, m := range matches {
		if hasSkill(m.Path) {
			res.SystemReminder = SkillReminder
			break
		}
	}
	if more {
		res.Truncated = true
		res.Note = "More lines match; raise max_results, max_matches_per_file or max_files (-1 for no limit), or narrow the pattern or include."
	}
	return boundGrep(ctx, p, res, matches)
}

// boundGrep fits a grep result in OutputLimit: first without context
// (matching lines shortened to GrepLineLimit), then as a preview with the
// full result spilled to scratch.
func boundGrep(ctx context.Context, p env.Provider, res GrepResult, matches []GrepMatch) (tool.Result, error) {
	if jsonSize(res) <= OutputLimit {
		return tool.JSON(res), nil
	}
	briefs := make([]GrepBrief, len(matches))
	for i, m := range matches {
		briefs[i] = GrepBrief{Path: m.Path, LineNumber: m.LineNumber, MatchingLine: trimmed(m.MatchingLine, GrepLineLimit, "...")}
	}
	brief := res
	brief.Matches, brief.System = briefs, ContextDropped
	if jsonSize(brief) <= OutputLimit {
		return tool.JSON(brief), nil
	}
	where := spill(ctx, p, NameGrep, res)
	build := func(n int) any {
		r := brief
		r.Matches = briefs[:n]
		r.Truncated, r.TotalMatches, r.Showing, r.OutputFilePath = true, len(briefs), n, where
		r.Note = pagingNote(where, "narrow the pattern, include or root")
		return r
	}
	n := fitPrefix(len(briefs), OutputLimit, build)
	if n < 0 {
		return tool.Result{}, errors.New("filesystem: grep result does not fit even as a preview")
	}
	return tool.JSON(build(n)), nil
}
