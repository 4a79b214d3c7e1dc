package openai

import (
	"fmt"

	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/tool"
)

// The content of tool results. Which parts a return carries is core/model's
// decision (model.ReturnParts); this file maps each part kind onto what
// the API takes and refuses the rest: Chat Completions tool messages carry
// text only, the Responses API's function_call_output takes text, images
// and files but no audio.

// errorLead is how the text of an error return starts: neither API has an
// error flag on tool results (see returnText).
const errorLead = "Error: "

// chatToolContent is the content of the tool message answering r: a
// string, or a list of text parts for a rich return. Media fails the
// request rather than being dropped or described.
func chatToolContent(r *tool.Return) (any, error) {
	parts, err := model.ReturnParts(r)
	if err != nil {
		return nil, err
	}
	if parts == nil {
		return returnText(r)
	}
	out := make([]textPart, 0, len(parts)+1)
	if r.IsError {
		out = append(out, textPart{Type: "text", Text: errorLead})
	}
	for i := range parts {
		p := &parts[i]
		switch p.Kind {
		case tool.PartText:
			out = append(out, textPart{Type: "text", Text: p.Text})
		case tool.PartResourceLink:
			out = append(out, textPart{Type: "text", Text: model.ResourceLinkText(p.Link)})
		case tool.PartImage, tool.PartAudio, tool.PartDocument:
			return nil, fmt.Errorf("%w: tool %q (call %q) returned %s content, but Chat Completions tool messages carry text only: use the Responses API model for media in tool results",
				model.ErrModel, r.Name, r.ToolCallID, p.Kind)
		default:
			return nil, fmt.Errorf("%w: tool %q (call %q) returned a content part of unknown kind %q", model.ErrModel, r.Name, r.ToolCallID, p.Kind)
		}
	}
	if len(out) == 1 {
		return out[0].Text, nil
	}
	return out, nil
}

// responsesOutputPart is one item of a function_call_output's output list.
type responsesOutputPart struct {
	Type     string `json:"type"`
	Text     string `json:"text,omitempty"`
	ImageURL string `json:"image_url,omitempty"`
	FileData string `json:"file_data,omitempty"`
	FileURL  string `json:"file_url,omitempty"`
	Filename string `json:"filename,omitempty"`
}

// responsesToolOutput is the output of the function_call_output item
// answering r: its text, or for a rich return the list of its parts as
// input_text, input_image and input_file items.
func responsesToolOutput(r *tool.Return) (any, error) {
	parts, err := model.ReturnParts(r)
	if err != nil {
		return nil, err
	}
	if parts == nil {
		return returnText(r)
	}
	out := make([]responsesOutputPart, 0, len(parts)+1)
	if r.IsError {
		out = append(out, responsesOutputPart{Type: "input_text", Text: errorLead})
	}
	for i := range parts {
		p := &parts[i]
		switch p.Kind {
		case tool.PartText:
			out = append(out, responsesOutputPart{Type: "input_text", Text: p.Text})
		case tool.PartResourceLink:
			out = append(out, responsesOutputPart{Type: "input_text", Text: model.ResourceLinkText(p.Link)})
		case tool.PartImage:
			u, err := sourceURL(r, p)
			if err != nil {
				return nil, err
			}
			out = append(out, responsesOutputPart{Type: "input_image", ImageURL: u})
		case tool.PartDocument:
			f := responsesOutputPart{Type: "input_file", Filename: p.Name}
			if p.Source == nil {
				return nil, unsupportedSource(r, p)
			}
			switch s := p.Source; s.Kind {
			case tool.SourceURL:
				f.FileURL = s.URL
			case tool.SourceBase64:
				f.FileData = dataURL(s)
				if f.Filename == "" {
					f.Filename = "document" // the API names inline files
				}
			default:
				return nil, unsupportedSource(r, p)
			}
			out = append(out, f)
		case tool.PartAudio:
			return nil, fmt.Errorf("%w: tool %q (call %q) returned audio, which Responses API tool results cannot carry",
				model.ErrModel, r.Name, r.ToolCallID)
		default:
			return nil, fmt.Errorf("%w: tool %q (call %q) returned a content part of unknown kind %q", model.ErrModel, r.Name, r.ToolCallID, p.Kind)
		}
	}
	return out, nil
}

// sourceURL is the URL of a media part's source: its own, or a data: URL
// of inline bytes.
func sourceURL(r *tool.Return, p *tool.Part) (string, error) {
	if p.Source == nil {
		return "", unsupportedSource(r, p)
	}
	switch s := p.Source; s.Kind {
	case tool.SourceURL:
		return s.URL, nil
	case tool.SourceBase64:
		return dataURL(s), nil
	}
	return "", unsupportedSource(r, p)
}

func unsupportedSource(r *tool.Return, p *tool.Part) error {
	kind := ""
	if p.Source != nil {
		kind = p.Source.Kind
	}
	return fmt.Errorf("%w: tool %q (call %q) returned a %s part with a %q source, which this model cannot send",
		model.ErrModel, r.Name, r.ToolCallID, p.Kind, kind)
}

// dataURL is the data: URL of an inline source.
func dataURL(s *tool.MediaSource) string {
	return "data:" + s.MediaType + ";base64," + s.Data
}
