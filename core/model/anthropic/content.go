package anthropic

import (
	"encoding/base64"
	"fmt"
	"unicode/utf8"

	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/tool"
)

// The content of tool results. Which parts a return carries is core/model's
// decision (model.ReturnParts); this file maps each part kind onto the
// Messages API's tool_result content, which takes text, image and document
// blocks, and refuses the rest (audio, media types the API does not read).

// imageTypes are the image media types the Messages API reads.
var imageTypes = map[string]bool{"image/jpeg": true, "image/png": true, "image/gif": true, "image/webp": true}

// toolResultOf is the tool_result block answering r: its content as one
// text block, or for a rich return its parts as text, image and document
// blocks. The error flag is the API's own is_error.
func toolResultOf(r *tool.Return) (toolResultBlock, error) {
	parts, err := model.ReturnParts(r)
	if err != nil {
		return toolResultBlock{}, fmt.Errorf("anthropic: %w", err)
	}
	if parts == nil {
		text, err := returnText(r.Content)
		if err != nil {
			return toolResultBlock{}, fmt.Errorf("%w: anthropic: tool return %q: %w", model.ErrModel, r.ToolCallID, err)
		}
		return toolResult(r.ToolCallID, text, r.IsError), nil
	}
	b := toolResultBlock{Type: "tool_result", ToolUseID: r.ToolCallID, IsError: r.IsError, Content: make([]any, 0, len(parts))}
	for i := range parts {
		p := &parts[i]
		switch p.Kind {
		case tool.PartText:
			if p.Text != "" { // the API rejects empty text blocks
				b.Content = append(b.Content, textBlock{Type: "text", Text: p.Text})
			}
		case tool.PartResourceLink:
			b.Content = append(b.Content, textBlock{Type: "text", Text: model.ResourceLinkText(p.Link)})
		case tool.PartImage:
			src, err := imageSource(r, p)
			if err != nil {
				return toolResultBlock{}, err
			}
			b.Content = append(b.Content, imageBlock{Type: "image", Source: src})
		case tool.PartDocument:
			src, err := documentSource(r, p)
			if err != nil {
				return toolResultBlock{}, err
			}
			b.Content = append(b.Content, documentBlock{Type: "document", Source: src, Title: p.Name})
		case tool.PartAudio:
			return toolResultBlock{}, fmt.Errorf("%w: anthropic: tool %q (call %q) returned audio, which tool results cannot carry",
				model.ErrModel, r.Name, r.ToolCallID)
		default:
			return toolResultBlock{}, fmt.Errorf("%w: anthropic: tool %q (call %q) returned a content part of unknown kind %q",
				model.ErrModel, r.Name, r.ToolCallID, p.Kind)
		}
	}
	return b, nil
}

func imageSource(r *tool.Return, p *tool.Part) (mediaSource, error) {
	s := p.Source
	if s == nil {
		return mediaSource{}, unsupported(r, p, "no source")
	}
	switch s.Kind {
	case tool.SourceURL:
		return mediaSource{Type: "url", URL: s.URL}, nil
	case tool.SourceBase64:
		if !imageTypes[s.MediaType] {
			return mediaSource{}, unsupported(r, p, s.MediaType+" (the API reads JPEG, PNG, GIF and WebP images)")
		}
		return mediaSource{Type: "base64", MediaType: s.MediaType, Data: s.Data}, nil
	}
	return mediaSource{}, unsupported(r, p, "a "+s.Kind+" source")
}

// documentSource maps a document: PDFs inline or by URL, plain text as a
// text source (the API takes text documents as text, not base64).
func documentSource(r *tool.Return, p *tool.Part) (mediaSource, error) {
	s := p.Source
	if s == nil {
		return mediaSource{}, unsupported(r, p, "no source")
	}
	switch s.Kind {
	case tool.SourceURL:
		if s.MediaType != "" && s.MediaType != "application/pdf" {
			return mediaSource{}, unsupported(r, p, s.MediaType+" by URL (the API fetches PDFs only)")
		}
		return mediaSource{Type: "url", URL: s.URL}, nil
	case tool.SourceBase64:
		switch s.MediaType {
		case "application/pdf":
			return mediaSource{Type: "base64", MediaType: s.MediaType, Data: s.Data}, nil
		case "text/plain":
			data, err := base64.StdEncoding.DecodeString(s.Data)
			if err != nil || !utf8.Valid(data) {
				return mediaSource{}, unsupported(r, p, "text/plain that is not UTF-8")
			}
			return mediaSource{Type: "text", MediaType: s.MediaType, Data: string(data)}, nil
		}
		return mediaSource{}, unsupported(r, p, s.MediaType+" (the API reads PDF and plain-text documents)")
	}
	return mediaSource{}, unsupported(r, p, "a "+s.Kind+" source")
}

func unsupported(r *tool.Return, p *tool.Part, what string) error {
	return fmt.Errorf("%w: anthropic: tool %q (call %q) returned a %s part with %s, which the API cannot read",
		model.ErrModel, r.Name, r.ToolCallID, p.Kind, what)
}
