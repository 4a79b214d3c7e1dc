package google

import (
	"encoding/base64"
	"fmt"
	"strings"

	"google.golang.org/genai"

	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/tool"
)

// The content of tool results. Which parts a return carries is core/model's
// decision (model.ReturnParts); this file maps each part kind onto a
// functionResponse: its text (and JSON) as response.output (response.error
// for an error return), its images and documents as inline data in
// functionResponse.parts (Gemini's multimodal function responses), and
// refuses the rest (audio, media types the API does not read).

// imageTypes and documentTypes are the media types Gemini reads in a
// multimodal function response.
var (
	imageTypes    = map[string]bool{"image/png": true, "image/jpeg": true, "image/webp": true, "image/heic": true, "image/heif": true}
	documentTypes = map[string]bool{"application/pdf": true, "text/plain": true}
)

// functionResponseOf is the functionResponse answering r. vertex says
// whether the backend is Vertex AI, which also takes media by URL
// (fileData); the Gemini API takes inline data only.
func functionResponseOf(r *tool.Return, vertex bool) (*genai.FunctionResponse, error) {
	parts, err := model.ReturnParts(r)
	if err != nil {
		return nil, fmt.Errorf("google: %w", err)
	}
	if r.Name == "" {
		return nil, fmt.Errorf("%w: google: the return of call %q has no tool name, which a functionResponse needs", model.ErrModel, r.ToolCallID)
	}
	fr := &genai.FunctionResponse{Name: r.Name}
	if !isGenerated(r.ToolCallID) {
		fr.ID = r.ToolCallID
	}
	key := "output"
	if r.IsError {
		key = "error"
	}
	if parts == nil {
		v, err := returnValue(r.Content)
		if err != nil {
			return nil, fmt.Errorf("%w: google: tool return %q: %w", model.ErrModel, r.ToolCallID, err)
		}
		fr.Response = map[string]any{key: v}
		return fr, nil
	}
	var text []string
	for i := range parts {
		p := &parts[i]
		switch p.Kind {
		case tool.PartText:
			if p.Text != "" {
				text = append(text, p.Text)
			}
		case tool.PartResourceLink:
			text = append(text, model.ResourceLinkText(p.Link))
		case tool.PartImage, tool.PartDocument:
			fp, err := mediaPart(r, p, vertex)
			if err != nil {
				return nil, err
			}
			fr.Parts = append(fr.Parts, fp)
		case tool.PartAudio:
			return nil, fmt.Errorf("%w: google: tool %q (call %q) returned audio, which function responses cannot carry",
				model.ErrModel, r.Name, r.ToolCallID)
		default:
			return nil, fmt.Errorf("%w: google: tool %q (call %q) returned a content part of unknown kind %q",
				model.ErrModel, r.Name, r.ToolCallID, p.Kind)
		}
	}
	fr.Response = map[string]any{key: strings.Join(text, "\n")}
	return fr, nil
}

// mediaPart maps an image or a document onto a function response part.
func mediaPart(r *tool.Return, p *tool.Part, vertex bool) (*genai.FunctionResponsePart, error) {
	s := p.Source
	if s == nil {
		return nil, unsupported(r, p, "no source")
	}
	types := imageTypes
	if p.Kind == tool.PartDocument {
		types = documentTypes
	}
	mt := s.SourceMediaType()
	switch s.Kind {
	case tool.SourceBase64:
		if !types[mt] {
			return nil, unsupported(r, p, mt+" (function responses take PNG, JPEG, WebP, HEIC and HEIF images, PDF and plain-text documents)")
		}
		data, err := base64.StdEncoding.DecodeString(s.Data)
		if err != nil {
			return nil, unsupported(r, p, "data that is not base64")
		}
		return &genai.FunctionResponsePart{InlineData: &genai.FunctionResponseBlob{MIMEType: mt, Data: data, DisplayName: p.Name}}, nil
	case tool.SourceURL:
		if !vertex {
			return nil, unsupported(r, p, "a url source (the Gemini API takes inline data only in function responses)")
		}
		if !types[mt] {
			return nil, unsupported(r, p, "a url source of media type "+fmt.Sprintf("%q", mt)+" (Vertex AI needs one of the types it reads)")
		}
		return &genai.FunctionResponsePart{FileData: &genai.FunctionResponseFileData{FileURI: s.URL, MIMEType: mt, DisplayName: p.Name}}, nil
	}
	return nil, unsupported(r, p, "a "+s.Kind+" source")
}

func unsupported(r *tool.Return, p *tool.Part, what string) error {
	return fmt.Errorf("%w: google: tool %q (call %q) returned a %s part with %s, which the API cannot read",
		model.ErrModel, r.Name, r.ToolCallID, p.Kind, what)
}
