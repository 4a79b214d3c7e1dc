package filesystem

import (
	"context"
	"errors"
	"strconv"
	"strings"

	"github.com/starweaver-go/starweaver/core/env"
	"github.com/starweaver-go/starweaver/core/tool"
)

// WriteArgs are the arguments of write.
type WriteArgs struct {
	FilePath string `json:"file_path,omitempty" jsonschema:"description=Path of the file to write (relative to the environment's root); missing parent directories are created."`
	// Path is an alias of FilePath.
	Path    string `json:"path,omitempty" jsonschema:"description=Alias of file_path."`
	Content string `json:"content" jsonschema:"description=The text to write."`
	Mode    string `json:"mode,omitempty" jsonschema:"description=w replaces the file (the default); a appends to it (creating it when missing)."`
}

// WriteResult is what write returns.
type WriteResult struct {
	FilePath string `json:"file_path"`
	Written  bool   `json:"written"`
}

// EditArgs are the arguments of edit.
type EditArgs struct {
	FilePath   string `json:"file_path" jsonschema:"description=Path of the file to edit (relative to the environment's root)."`
	OldString  string `json:"old_string" jsonschema:"description=The exact text to replace; empty creates a new file holding new_string."`
	NewString  string `json:"new_string" jsonschema:"description=The replacement text."`
	ReplaceAll bool   `json:"replace_all,omitempty" jsonschema:"description=Replace every occurrence; otherwise old_string must occur exactly once.,default=false"`
}

// Replacement is one edit of multi_edit.
type Replacement struct {
	OldString  string `json:"old_string" jsonschema:"description=The exact text to replace; only the first edit may leave it empty (to create the file)."`
	NewString  string `json:"new_string" jsonschema:"description=The replacement text."`
	ReplaceAll bool   `json:"replace_all,omitempty" jsonschema:"description=Replace every occurrence; otherwise old_string must occur exactly once.,default=false"`
}

// MultiEditArgs are the arguments of multi_edit.
type MultiEditArgs struct {
	FilePath string        `json:"file_path" jsonschema:"description=Path of the file to edit (relative to the environment's root)."`
	Edits    []Replacement `json:"edits" jsonschema:"description=Edits applied in order (each to the result of the one before); all or none are applied."`
}

// EditResult is what edit and multi_edit return: Edited for a changed
// file, Created for a new one.
type EditResult struct {
	FilePath string `json:"file_path"`
	Edited   bool   `json:"edited,omitempty"`
	Created  bool   `json:"created,omitempty"`
}

const writeDescription = "Write a text file: mode w (the default) replaces its content, a appends to it. " +
	"Missing parent directories are created. Prefer edit to change part of an existing file. Returns {file_path, written: true}."

const editDescription = "Replace exact text in a file: old_string must occur exactly once unless replace_all. " +
	"Copy old_string from view's output without the line-number prefix, with enough surrounding text to be unique. " +
	"An empty old_string creates a new file holding new_string. Returns {file_path, edited: true} or {file_path, created: true}."

const multiEditDescription = "Apply several exact-text edits to one file in order, all or none, writing it once. " +
	"Each edit works on the result of the previous ones; only the first may have an empty old_string, to create the file."

// Write returns a new write tool.
func Write() *tool.Function { return finish(tool.Typed(NameWrite, writeDescription, write), true) }

// Edit returns a new edit tool.
func Edit() *tool.Function { return finish(tool.Typed(NameEdit, editDescription, edit), true) }

// MultiEdit returns a new multi_edit tool.
func MultiEdit() *tool.Function {
	return finish(tool.Typed(NameMultiEdit, multiEditDescription, multiEdit), true)
}

func write(ctx context.Context, tc *tool.Context, a WriteArgs) (tool.Result, error) {
	p, err := provider(tc)
	if err != nil {
		return tool.Result{}, err
	}
	fp, err := pick("file_path", a.FilePath, a.Path, "path")
	if err != nil {
		return tool.Result{}, err
	}
	name, err := cleanPath("file_path", fp)
	if err != nil {
		return tool.Result{}, err
	}
	var appending bool
	switch a.Mode {
	case "", "w":
	case "a":
		appending = true
	default:
		return tool.Result{}, tool.Feedback("mode %q is not supported for %q: use \"w\" to replace the file or \"a\" to append to it.", a.Mode, fp)
	}
	if err := p.WriteFile(ctx, name, []byte(a.Content), env.WriteOptions{Append: appending, Parents: true}); err != nil {
		return tool.Result{}, fail("write", fp, err)
	}
	return tool.JSON(WriteResult{FilePath: fp, Written: true}), nil
}

func edit(ctx context.Context, tc *tool.Context, a EditArgs) (tool.Result, error) {
	return applyEdits(ctx, tc, a.FilePath, []Replacement{{OldString: a.OldString, NewString: a.NewString, ReplaceAll: a.ReplaceAll}})
}

func multiEdit(ctx context.Context, tc *tool.Context, a MultiEditArgs) (tool.Result, error) {
	if len(a.Edits) == 0 {
		return tool.Result{}, tool.Feedback("edits is empty for %q; give at least one edit.", a.FilePath)
	}
	return applyEdits(ctx, tc, a.FilePath, a.Edits)
}

// applyEdits applies edits to the file fp in memory and writes it once;
// an edit that cannot apply leaves the file untouched.
func applyEdits(ctx context.Context, tc *tool.Context, fp string, edits []Replacement) (tool.Result, error) {
	p, err := provider(tc)
	if err != nil {
		return tool.Result{}, err
	}
	if fp == "" {
		return tool.Result{}, tool.Feedback("file_path is required.")
	}
	name, err := cleanPath("file_path", fp)
	if err != nil {
		return tool.Result{}, err
	}
	for i, e := range edits[1:] {
		if e.OldString == "" {
			return tool.Result{}, tool.Feedback("edit %d for %q has an empty old_string; only the first edit may be empty (to create the file).", i+2, fp)
		}
	}
	var text string
	created := edits[0].OldString == ""
	if created {
		if _, err := p.Stat(ctx, name); err == nil {
			return tool.Result{}, tool.Feedback("%q already exists; an empty old_string only creates new files. "+
				"Give the text to replace, or use write to replace the whole file.", fp)
		} else if !errors.Is(err, env.ErrNotFound) {
			return tool.Result{}, fail("edit", fp, err)
		}
		text = edits[0].NewString
		edits = edits[1:]
	} else {
		data, err := p.ReadFile(ctx, name, 0, -1)
		if err != nil {
			return tool.Result{}, fail("edit", fp, err)
		}
		if binary(data) {
			return tool.Result{}, tool.Feedback("%q is a binary file; edit changes only text files.", fp)
		}
		text = string(data)
	}
	for i, e := range edits {
		which := "old_string"
		if len(edits) > 1 || created {
			which = "the old_string of edit " + strconv.Itoa(i+1+boolInt(created))
		}
		if e.OldString == e.NewString {
			return tool.Result{}, tool.Feedback("%s and its new_string are the same for %q; nothing would change.", which, fp)
		}
		n := strings.Count(text, e.OldString)
		switch {
		case n == 0:
			return tool.Result{}, tool.Feedback("%s was not found in %q. View the file again and copy the text exactly "+
				"(whitespace and indentation included, without the line-number prefix).", which, fp)
		case n > 1 && !e.ReplaceAll:
			return tool.Result{}, tool.Feedback("%s occurs %d times in %q. Add surrounding lines to make it unique, "+
				"or set replace_all to replace every occurrence.", which, n, fp)
		}
		if e.ReplaceAll {
			text = strings.ReplaceAll(text, e.OldString, e.NewString)
		} else {
			text = strings.Replace(text, e.OldString, e.NewString, 1)
		}
	}
	if err := p.WriteFile(ctx, name, []byte(text), env.WriteOptions{Parents: created}); err != nil {
		return tool.Result{}, fail("edit", fp, err)
	}
	if created {
		return tool.JSON(EditResult{FilePath: fp, Created: true}), nil
	}
	return tool.JSON(EditResult{FilePath: fp, Edited: true}), nil
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
