package filesystem

import (
	"bytes"
	"context"
	"fmt"
	"path"
	"strings"
	"unicode/utf8"

	"github.com/starweaver-go/starweaver/core/tool"
)

// ViewArgs are the arguments of view.
type ViewArgs struct {
	FilePath string `json:"file_path,omitempty" jsonschema:"description=Path of the file to read (relative to the environment's root)."`
	// Path is an alias of FilePath.
	Path          string `json:"path,omitempty" jsonschema:"description=Alias of file_path."`
	LineOffset    *int   `json:"line_offset,omitempty" jsonschema:"description=0-based index of the first line to show (default 0)."`
	LineLimit     int    `json:"line_limit" jsonschema:"description=Maximum number of lines to show.,default=300"`
	MaxLineLength int    `json:"max_line_length" jsonschema:"description=Longer lines are cut to this many characters.,default=2000"`
}

// ViewSegment says which lines a view shows (1-based, inclusive).
type ViewSegment struct {
	StartLine      int  `json:"start_line"`
	EndLine        int  `json:"end_line"`
	LinesToShow    int  `json:"lines_to_show"`
	HasMoreContent bool `json:"has_more_content"`
}

// ViewParameters echo the reading arguments.
type ViewParameters struct {
	LineOffset *int `json:"line_offset"`
	LineLimit  int  `json:"line_limit"`
}

// ViewTruncation says what a view shortened.
type ViewTruncation struct {
	LinesTruncated   int  `json:"lines_truncated"`
	ContentTruncated bool `json:"content_truncated"`
	MaxLineLength    int  `json:"max_line_length"`
}

// ViewMetadata describes the file and the part of it a view shows.
type ViewMetadata struct {
	FilePath          string         `json:"file_path"`
	TotalLines        int            `json:"total_lines"`
	TotalCharacters   int            `json:"total_characters"`
	FileSizeBytes     int64          `json:"file_size_bytes"`
	CurrentSegment    ViewSegment    `json:"current_segment"`
	ReadingParameters ViewParameters `json:"reading_parameters"`
	TruncationInfo    ViewTruncation `json:"truncation_info"`
}

// ViewResult is what view returns when it shows part of a file or
// shortened something; a whole, untouched file comes back as a plain
// string.
type ViewResult struct {
	Content  string       `json:"content"`
	Metadata ViewMetadata `json:"metadata"`
	System   string       `json:"system"`
}

const viewDescription = "Read a text file, with line numbers (a number, a tab, then the line). " +
	"Reads up to line_limit lines from line_offset (0-based); long lines are cut to max_line_length characters. " +
	"A whole file comes back as text; part of one comes back as {content, metadata, system}, where system says how to read on. " +
	"Binary files, directories and files over 10 MiB are refused."

// View returns a new view tool.
func View() *tool.Function {
	return finish(tool.Typed(NameView, viewDescription, view), false)
}

// converted lists extensions view cannot read as text.
var converted = map[string]string{
	".pdf": "PDF", ".doc": "Word", ".docx": "Word", ".xls": "Excel", ".xlsx": "Excel", ".ppt": "PowerPoint",
	".pptx": "PowerPoint", ".odt": "OpenDocument", ".ods": "OpenDocument", ".odp": "OpenDocument", ".epub": "EPUB",
}

func view(ctx context.Context, tc *tool.Context, a ViewArgs) (tool.Result, error) {
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
	offset := 0
	if a.LineOffset != nil {
		offset = *a.LineOffset
	}
	switch {
	case offset < 0:
		return tool.Result{}, tool.Feedback("line_offset must be 0 or more, not %d.", offset)
	case a.LineLimit < 1:
		return tool.Result{}, tool.Feedback("line_limit must be 1 or more, not %d.", a.LineLimit)
	case a.MaxLineLength < 1:
		return tool.Result{}, tool.Feedback("max_line_length must be 1 or more, not %d.", a.MaxLineLength)
	}
	if kind, ok := converted[strings.ToLower(path.Ext(name))]; ok {
		return tool.Result{}, tool.Feedback("%q is a %s document, which view cannot read as text. Convert it to text first "+
			"(for example with pdftotext or pandoc through the shell tools) and view the result.", fp, kind)
	}
	fi, err := p.Stat(ctx, name)
	if err != nil {
		return tool.Result{}, fail("view", fp, err)
	}
	if fi.IsDir {
		return tool.Result{}, tool.Feedback("%q is a directory, not a file; list it with ls or search it with glob.", fp)
	}
	if fi.Size > ViewMaxFileSize {
		return tool.Result{}, tool.Feedback("%q is %d bytes, more than view reads (%d bytes); search it with grep instead.",
			fp, fi.Size, ViewMaxFileSize)
	}
	data, err := p.ReadFile(ctx, name, 0, ViewMaxFileSize+1)
	if err != nil {
		return tool.Result{}, fail("view", fp, err)
	}
	if len(data) > ViewMaxFileSize {
		return tool.Result{}, tool.Feedback("%q is more than %d bytes, more than view reads; search it with grep instead.", fp, ViewMaxFileSize)
	}
	if binary(data) {
		return tool.Result{}, tool.Feedback("%q is a binary file (it has a NUL byte in its first %d bytes); view reads only text files.",
			fp, BinarySniffBytes)
	}
	text := string(data)
	lines := strings.Split(text, "\n")
	if strings.HasSuffix(text, "\n") {
		lines = lines[:len(lines)-1]
	}
	total := len(lines)
	if offset > 0 && offset >= total {
		return tool.Result{}, tool.Feedback("line_offset %d is past the end of %q, which has %d lines.", offset, fp, total)
	}
	end := min(offset+a.LineLimit, total)
	var b strings.Builder
	cut := 0
	for i := offset; i < end; i++ {
		l := strings.TrimSuffix(lines[i], "\r")
		if utf8.RuneCountInString(l) > a.MaxLineLength {
			l = string([]rune(l)[:a.MaxLineLength]) + "... (line truncated)"
			cut++
		}
		fmt.Fprintf(&b, "%6d\t%s\n", i+1, l)
	}
	content := b.String()
	contentCut := false
	if utf8.RuneCountInString(content) > ViewMaxContentChars {
		content = string([]rune(content)[:ViewMaxContentChars]) + "\n... (content truncated)"
		contentCut = true
	}
	more := end < total
	if offset == 0 && !more && cut == 0 && !contentCut {
		return tool.Text(content), nil
	}
	system := fmt.Sprintf("Showing lines %d-%d of %d.", offset+1, end, total)
	if more {
		system += fmt.Sprintf(" To read on, call view with line_offset=%d.", end)
	}
	if cut > 0 {
		system += fmt.Sprintf(" %d long lines were cut at %d characters; raise max_line_length to see more of them.", cut, a.MaxLineLength)
	}
	if contentCut {
		system += fmt.Sprintf(" The content was cut at %d characters; lower line_limit to read less at a time.", ViewMaxContentChars)
	}
	return tool.JSON(ViewResult{
		Content: content,
		Metadata: ViewMetadata{
			FilePath:        path.Base(name),
			TotalLines:      total,
			TotalCharacters: utf8.RuneCountInString(text),
			FileSizeBytes:   int64(len(data)),
			CurrentSegment: ViewSegment{StartLine: offset + 1, EndLine: end, LinesToShow: end - offset,
				HasMoreContent: more},
			ReadingParameters: ViewParameters{LineOffset: a.LineOffset, LineLimit: a.LineLimit},
			TruncationInfo:    ViewTruncation{LinesTruncated: cut, ContentTruncated: contentCut, MaxLineLength: a.MaxLineLength},
		},
		System: system,
	}), nil
}

// binary reports whether data has a NUL byte in its first
// BinarySniffBytes.
func binary(data []byte) bool {
	return bytes.IndexByte(data[:min(len(data), BinarySniffBytes)], 0) >= 0
}
