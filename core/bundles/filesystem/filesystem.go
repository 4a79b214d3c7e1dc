package filesystem

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"path"

	"github.com/starweaver-go/starweaver/core/env"
	"github.com/starweaver-go/starweaver/core/tool"
	"github.com/starweaver-go/starweaver/core/toolset"
)

// Names of the bundle.
const (
	// ToolsetName is the name, id and instruction group of the toolset.
	ToolsetName = "filesystem"
	// EnvironmentCapability is the named dependency the tools read the
	// active env.Provider from.
	EnvironmentCapability = "starweaver.environment"
	// Bundle is the value of the tools' "bundle" metadata.
	Bundle = "first_party"
)

// Tool names.
const (
	NameLs        = "ls"
	NameGlob      = "glob"
	NameGrep      = "grep"
	NameView      = "view"
	NameWrite     = "write"
	NameEdit      = "edit"
	NameMultiEdit = "multi_edit"
	NameMkdir     = "mkdir"
	NameMove      = "move"
	NameCopy      = "copy"
	NameDelete    = "delete"
)

// Limits of the tools' outputs and inputs.
const (
	// OutputLimit bounds the serialized JSON of a glob, ls or grep result
	// in bytes; a larger result is spilled to scratch and previewed.
	OutputLimit = 20_000
	// GrepLineLimit bounds a matching line once grep drops context to fit.
	GrepLineLimit = 300
	// ViewMaxFileSize is the largest file view reads, in bytes.
	ViewMaxFileSize = 10 << 20
	// ViewMaxContentChars bounds the text view returns.
	ViewMaxContentChars = 60_000
	// BinarySniffBytes is how much of a file is checked for a NUL byte
	// to tell binary files apart.
	BinarySniffBytes = 8192
)

// SkillReminder is the "system-reminder" a glob, grep or ls result
// carries when it lists a SKILL.md file.
const SkillReminder = "The results include a SKILL.md file. Before acting on a skill, read its SKILL.md in full with view " +
	"and follow its instructions."

// Instruction is the toolset instruction, in group ToolsetName.
const Instruction = "The filesystem tools work on the environment's files by paths relative to its root " +
	"(absolute paths and \"..\" are refused). Find files with glob, search contents with grep, " +
	"list a directory with ls and read a file with view before changing it; " +
	"edit and multi_edit replace exact text, write replaces or appends a whole file. " +
	"Large results are shortened and the full output is saved to a file you can view."

// Tools returns a new "filesystem" toolset (id "filesystem") holding
// every filesystem tool and the toolset instruction.
func Tools() *toolset.Static {
	return toolset.New(ToolsetName,
		Ls(), Glob(), Grep(), View(), Write(), Edit(), MultiEdit(), Mkdir(), Move(), Copy(), Delete()).
		WithID(ToolsetName).
		WithInstruction(ToolsetName, Instruction)
}

// finish gives every tool of the bundle its shared definition: the
// environment dependency, bundle metadata and, for writers, sequential.
func finish(f *tool.Function, writer bool) *tool.Function {
	return f.WithKind(tool.KindFunction).
		WithSequential(writer).
		WithMetadata(map[string]any{tool.MetaBundle: Bundle, "auto_inherit": false}).
		WithDependencies(tool.Dependencies{
			Profile:          tool.ProfileFiltered,
			HostCapabilities: []string{EnvironmentCapability},
		})
}

// provider returns the call's environment provider. A missing one is a
// user_error: the application did not attach an environment.
func provider(tc *tool.Context) (env.Provider, error) {
	var deps *tool.Deps
	if tc != nil {
		deps = tc.Deps
	}
	v, ok := deps.Named(EnvironmentCapability)
	if !ok || v == nil {
		return nil, tool.UserError("the filesystem tools need an environment: provide an env.Provider as the named dependency %q "+
			"(attach an environment to the agent)", EnvironmentCapability)
	}
	p, ok := v.(env.Provider)
	if !ok {
		return nil, tool.UserError("the named dependency %q is a %T, not an env.Provider", EnvironmentCapability, v)
	}
	return p, nil
}

// cleanPath cleans a path argument; an invalid one is feedback naming it.
func cleanPath(arg, p string) (string, error) {
	c, err := env.Clean(p)
	if err != nil {
		reason := err.Error()
		var e *env.Error
		if errors.As(err, &e) {
			reason = e.Err.Error()
		}
		return "", tool.Feedback("%s %q is not a valid path (%s). Give a path relative to the environment's root, "+
			"without \"..\" segments, such as \"src/main.go\".", arg, p, trimSentinel(reason))
	}
	return c, nil
}

// trimSentinel drops the "env: invalid request: " prefix of a wrapped
// sentinel's text.
func trimSentinel(s string) string {
	for _, sentinel := range []error{env.ErrInvalidRequest, env.ErrNotFound, env.ErrAccessDenied, env.ErrUnsupported} {
		if p := sentinel.Error() + ": "; len(s) > len(p) && s[:len(p)] == p {
			return s[len(p):]
		}
	}
	return s
}

// fail maps a provider error on p to what the model reads: the expected
// failures are feedback with guidance naming the path, a cancelled context
// is returned as is, anything else is an execution error.
func fail(op, p string, err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	detail := err.Error()
	var e *env.Error
	if errors.As(err, &e) {
		detail = trimSentinel(e.Err.Error())
	}
	switch {
	case errors.Is(err, env.ErrNotFound):
		return tool.Feedback("%s %q failed: not found (%s). Check the path with ls or glob and try again.", op, p, detail)
	case errors.Is(err, env.ErrAccessDenied):
		return tool.Feedback("%s %q failed: access denied (%s). The environment does not allow this; do not retry it, "+
			"work with other paths or ask the user.", op, p, detail)
	case errors.Is(err, env.ErrInvalidRequest):
		return tool.Feedback("%s %q failed: invalid request (%s). Change the request and try again.", op, p, detail)
	case errors.Is(err, env.ErrUnsupported):
		return tool.Feedback("%s %q failed: the environment does not support this (%s). Try another way.", op, p, detail)
	}
	return fmt.Errorf("filesystem: %s %q: %w", op, p, err)
}

// limit checks a limit argument (-1 or 0: unlimited) and returns it with
// 0 meaning unlimited.
func limit(name string, v int) (int, error) {
	if v < -1 {
		return 0, tool.Feedback("%s must be -1 (no limit) or a positive number, not %d.", name, v)
	}
	if v < 0 {
		return 0, nil
	}
	return v, nil
}

// pick returns the value of an argument that has an alias: the two must
// agree when both are given.
func pick(name, v, alias, aliasName string) (string, error) {
	switch {
	case v == "" && alias == "":
		return "", tool.Feedback("%s is required.", name)
	case v == "":
		return alias, nil
	case alias != "" && alias != v:
		return "", tool.Feedback("%s %q and its alias %s %q disagree; give only %s.", name, v, aliasName, alias, name)
	}
	return v, nil
}

// hasSkill reports whether a path names a SKILL.md file.
func hasSkill(p string) bool { return path.Base(p) == "SKILL.md" }

// scratchName returns a unique scratch file name for a tool's output.
func scratchName(toolName, ext string) string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return toolName + "-" + hex.EncodeToString(b[:]) + "." + ext
}

// jsonSize is the length of v's JSON encoding.
func jsonSize(v any) int {
	b, err := json.Marshal(v)
	if err != nil {
		return 0
	}
	return len(b)
}

// spill writes v to scratch as indented JSON (one value a line, so view
// pages it) and returns its path, or "" when the
// provider cannot store it (the preview then says so).
func spill(ctx context.Context, p env.Provider, toolName string, v any) string {
	b, err := json.MarshalIndent(v, "", " ")
	if err != nil {
		return ""
	}
	where, err := p.WriteScratch(ctx, scratchName(toolName, "json"), b)
	if err != nil {
		return ""
	}
	return where
}

// fitPrefix returns the largest n <= total such that build(n) encodes to
// at most max bytes, or -1 when even build(0) does not fit.
func fitPrefix(total, max int, build func(n int) any) int {
	if jsonSize(build(0)) > max {
		return -1
	}
	lo, hi := 0, total
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if jsonSize(build(mid)) <= max {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return lo
}

// pagingNote tells the model how to get the rest of a shortened result.
func pagingNote(where, narrow string) string {
	if where != "" {
		return fmt.Sprintf("The result was too large and was shortened; the full result is in %q (read it with view, "+
			"using line_offset and line_limit to page), or %s.", where, narrow)
	}
	return "The result was too large and was shortened; " + narrow + "."
}
