package bedrock

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime/document"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime/types"

	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/tool"
)

// The content of tool results. Which parts a return carries is core/model's
// decision (model.ReturnParts); this file maps each part kind onto
// Converse's toolResult content, which takes text, json, image and
// document blocks (with bytes: Converse reads no URL), and refuses the
// rest (audio, URLs, media types the API does not read).

// imageFormats are the image media types Converse reads, by format.
var imageFormats = map[string]types.ImageFormat{
	"image/png": types.ImageFormatPng, "image/jpeg": types.ImageFormatJpeg,
	"image/gif": types.ImageFormatGif, "image/webp": types.ImageFormatWebp,
}

// documentFormats are the document media types Converse reads.
var documentFormats = map[string]types.DocumentFormat{
	"application/pdf":    types.DocumentFormatPdf,
	"text/csv":           types.DocumentFormatCsv,
	"application/msword": types.DocumentFormatDoc,
	"application/vnd.openxmlformats-officedocument.wordprocessingml.document": types.DocumentFormatDocx,
	"application/vnd.ms-excel": types.DocumentFormatXls,
	"application/vnd.openxmlformats-officedocument.spreadsheetml.sheet": types.DocumentFormatXlsx,
	"text/html":     types.DocumentFormatHtml,
	"text/plain":    types.DocumentFormatTxt,
	"text/markdown": types.DocumentFormatMd,
}

// toolResult is a toolResult block holding text (none when text is "").
func toolResult(id, text string, isError bool) *types.ContentBlockMemberToolResult {
	b := types.ToolResultBlock{ToolUseId: aws.String(id), Status: types.ToolResultStatusSuccess}
	if isError {
		b.Status = types.ToolResultStatusError
	}
	if text != "" {
		b.Content = []types.ToolResultContentBlock{&types.ToolResultContentBlockMemberText{Value: text}}
	} else {
		// Converse requires content: an empty text says "nothing".
		b.Content = []types.ToolResultContentBlock{&types.ToolResultContentBlockMemberText{Value: " "}}
	}
	return &types.ContentBlockMemberToolResult{Value: b}
}

// toolResultOf is the toolResult block answering r: a string as a text
// block, a JSON object as a json block, any other value as its JSON text,
// or for a rich return its parts as text, image and document blocks. An
// error return has status "error".
func toolResultOf(r *tool.Return) (*types.ContentBlockMemberToolResult, error) {
	parts, err := model.ReturnParts(r)
	if err != nil {
		return nil, fmt.Errorf("bedrock: %w", err)
	}
	if parts == nil {
		return plainResult(r)
	}
	b := toolResult(r.ToolCallID, "", r.IsError)
	b.Value.Content = make([]types.ToolResultContentBlock, 0, len(parts))
	for i := range parts {
		p := &parts[i]
		switch p.Kind {
		case tool.PartText:
			if p.Text != "" {
				b.Value.Content = append(b.Value.Content, &types.ToolResultContentBlockMemberText{Value: p.Text})
			}
		case tool.PartResourceLink:
			b.Value.Content = append(b.Value.Content, &types.ToolResultContentBlockMemberText{Value: model.ResourceLinkText(p.Link)})
		case tool.PartImage:
			format, data, err := media(r, p, imageFormats, "PNG, JPEG, GIF and WebP images")
			if err != nil {
				return nil, err
			}
			b.Value.Content = append(b.Value.Content, &types.ToolResultContentBlockMemberImage{Value: types.ImageBlock{
				Format: types.ImageFormat(format), Source: &types.ImageSourceMemberBytes{Value: data}}})
		case tool.PartDocument:
			format, data, err := media(r, p, documentFormats, "PDF, CSV, DOC, DOCX, XLS, XLSX, HTML, plain-text and Markdown documents")
			if err != nil {
				return nil, err
			}
			b.Value.Content = append(b.Value.Content, &types.ToolResultContentBlockMemberDocument{Value: types.DocumentBlock{
				Format: types.DocumentFormat(format), Name: aws.String(documentName(p.Name, i)),
				Source: &types.DocumentSourceMemberBytes{Value: data}}})
		case tool.PartAudio:
			return nil, fmt.Errorf("%w: bedrock: tool %q (call %q) returned audio, which Converse tool results cannot carry",
				model.ErrModel, r.Name, r.ToolCallID)
		default:
			return nil, fmt.Errorf("%w: bedrock: tool %q (call %q) returned a content part of unknown kind %q",
				model.ErrModel, r.Name, r.ToolCallID, p.Kind)
		}
	}
	if len(b.Value.Content) == 0 {
		b.Value.Content = append(b.Value.Content, &types.ToolResultContentBlockMemberText{Value: " "})
	}
	return b, nil
}

// plainResult maps a return without parts.
func plainResult(r *tool.Return) (*types.ContentBlockMemberToolResult, error) {
	if s, ok := model.StringContent(r.Content); ok {
		return toolResult(r.ToolCallID, s, r.IsError), nil
	}
	var raw []byte
	switch c := r.Content.(type) {
	case nil:
		return toolResult(r.ToolCallID, "", r.IsError), nil
	case json.RawMessage:
		raw = c
	default:
		b, err := json.Marshal(c)
		if err != nil {
			return nil, fmt.Errorf("%w: bedrock: tool return %q: %w", model.ErrModel, r.ToolCallID, err)
		}
		raw = b
	}
	if !isJSONObject(raw) {
		// A json block holds an object: lists and scalars go as text.
		return toolResult(r.ToolCallID, strings.TrimSpace(string(raw)), r.IsError), nil
	}
	v, err := documentValue(json.RawMessage(raw))
	if err != nil {
		return nil, fmt.Errorf("%w: bedrock: tool return %q: %w", model.ErrModel, r.ToolCallID, err)
	}
	b := toolResult(r.ToolCallID, "", r.IsError)
	b.Value.Content = []types.ToolResultContentBlock{&types.ToolResultContentBlockMemberJson{Value: document.NewLazyDocument(v)}}
	return b, nil
}

// media returns the format and the bytes of an image or document part:
// inline data of a media type formats lists. A URL fails: Converse reads
// bytes (or S3 locations), and fetching is not the model's job.
func media[F ~string](r *tool.Return, p *tool.Part, formats map[string]F, reads string) (string, []byte, error) {
	s := p.Source
	if s == nil {
		return "", nil, unsupported(r, p, "no source")
	}
	switch s.Kind {
	case tool.SourceURL:
		return "", nil, unsupported(r, p, "a URL source ("+s.URL+"): Converse reads inline bytes only; return the bytes or an artifact")
	case tool.SourceBase64:
		mt := strings.ToLower(strings.TrimSpace(strings.Split(s.MediaType, ";")[0]))
		f, ok := formats[mt]
		if !ok {
			return "", nil, unsupported(r, p, s.MediaType+" (Converse reads "+reads+")")
		}
		data, err := base64.StdEncoding.DecodeString(s.Data)
		if err != nil {
			return "", nil, unsupported(r, p, "data that is not base64")
		}
		return string(f), data, nil
	}
	return "", nil, unsupported(r, p, "a "+s.Kind+" source")
}

// documentName is the name Converse requires of a document: letters,
// digits, single spaces, hyphens, parentheses and brackets only.
func documentName(name string, i int) string {
	var b strings.Builder
	space := false
	for _, c := range name {
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("-()[]", c)
		switch {
		case ok:
			b.WriteRune(c)
			space = false
		case b.Len() > 0 && !space:
			b.WriteByte(' ')
			space = true
		}
	}
	out := strings.TrimSpace(b.String())
	if out == "" {
		return fmt.Sprintf("document %d", i+1)
	}
	return out
}

func unsupported(r *tool.Return, p *tool.Part, what string) error {
	return fmt.Errorf("%w: bedrock: tool %q (call %q) returned a %s part with %s, which Converse cannot carry",
		model.ErrModel, r.Name, r.ToolCallID, p.Kind, what)
}
