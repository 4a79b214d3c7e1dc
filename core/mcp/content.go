package mcp

import (
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/starweaver-go/starweaver/core/tool"
)

// octetStream is the media type of an embedded blob that declares none.
const octetStream = "application/octet-stream"

// result maps a tools/call result to a tool Result.
//
// Content that is all text (the common case) becomes the Result's
// content: the texts joined by blank lines, so the model reads a plain
// string. Any other content becomes ordered parts (tool.Rich): text;
// images and audio as base64 media; an embedded resource as text when it
// is text, else as an image, audio or document part by its media type;
// a resource link as a resource_link part. A result without content
// reads as its structured content, or "". The structured content is kept
// as the Result's StructuredContent either way, and isError makes the
// Result an error the model reads (tool.ModelError): no retry, no budget.
//
// Content of a kind a tool result cannot hold (sampling content) is a
// user_error naming it: the server broke the protocol.
func result(res *sdk.CallToolResult) (tool.Result, error) {
	parts := make([]tool.Part, 0, len(res.Content))
	textOnly := true
	for _, c := range res.Content {
		p, err := part(c)
		if err != nil {
			return tool.Result{}, err
		}
		if p.Kind != tool.PartText {
			textOnly = false
		}
		parts = append(parts, p)
	}
	var out tool.Result
	switch {
	case len(parts) == 0 && res.StructuredContent != nil:
		out = tool.Result{Content: res.StructuredContent}
	case textOnly:
		texts := make([]string, len(parts))
		for i, p := range parts {
			texts[i] = p.Text
		}
		out = tool.Result{Content: strings.Join(texts, "\n\n")}
	default:
		out = tool.Rich(parts...)
	}
	out.StructuredContent = res.StructuredContent
	out.IsError = res.IsError
	return out, nil
}

// part maps one content item.
func part(c sdk.Content) (tool.Part, error) {
	switch c := c.(type) {
	case *sdk.TextContent:
		return tool.TextPart(c.Text), nil
	case *sdk.ImageContent:
		return tool.ImagePart(tool.Base64Source(c.MIMEType, c.Data)), nil
	case *sdk.AudioContent:
		return tool.AudioPart(tool.Base64Source(c.MIMEType, c.Data)), nil
	case *sdk.ResourceLink:
		return tool.ResourceLinkPart(tool.ResourceLink{URI: c.URI, Name: c.Name, Title: c.Title,
			Description: c.Description, MediaType: c.MIMEType, Size: c.Size}), nil
	case *sdk.EmbeddedResource:
		return resourcePart(c.Resource)
	}
	return tool.Part{}, tool.UserError("the MCP server returned %T content, which a tool result cannot hold", c)
}

// resourcePart maps the contents of an embedded resource.
func resourcePart(r *sdk.ResourceContents) (tool.Part, error) {
	if r == nil {
		return tool.Part{}, tool.UserError("the MCP server returned an embedded resource without contents")
	}
	if r.Blob == nil {
		return tool.TextPart(r.Text), nil
	}
	mt := r.MIMEType
	if mt == "" {
		mt = octetStream
	}
	src := tool.Base64Source(mt, r.Blob)
	switch {
	case strings.HasPrefix(mt, "image/"):
		return tool.ImagePart(src), nil
	case strings.HasPrefix(mt, "audio/"):
		return tool.AudioPart(src), nil
	}
	return tool.DocumentPart(src, r.URI), nil
}
