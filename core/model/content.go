package model

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"github.com/starweaver-go/starweaver/core/tool"
)

// What providers send for the content parts of tool returns is decided
// here, once: ReturnParts says which parts a return carries (or that it
// must not be sent at all), ResourceLinkText how a resource link reads,
// and ResolveArtifacts turns artifact references into bytes just before a
// request leaves. Each provider then maps every part kind it can send
// natively and fails on the others, never flattening media into text.

// ReturnParts returns the content parts a provider sends for the tool
// return r: nil when r has none (the provider then sends r's content as
// text, as for any plain return), r's parts otherwise. It fails, wrapping
// ErrModel, for a host-only return (which must never reach a model) and
// for a part whose source is still an artifact reference: references are
// resolved by ResolveArtifacts before a request is sent, which the agent
// does when it has an artifact store, so meeting one means there is none.
func ReturnParts(r *tool.Return) ([]tool.Part, error) {
	if r == nil {
		return nil, fmt.Errorf("%w: tool_return part without a return", ErrModel)
	}
	if r.HostOnly {
		return nil, fmt.Errorf("%w: the output of tool %q (call %q) is host-only and may not be sent to a model", ErrModel, r.Name, r.ToolCallID)
	}
	for i := range r.Parts {
		if s := r.Parts[i].Source; s != nil && s.Kind == tool.SourceArtifact {
			id := ""
			if s.Artifact != nil {
				id = s.Artifact.ID
			}
			return nil, fmt.Errorf("%w: part %d of the return of call %q refers to artifact %s, which was not resolved (give the agent its artifact store)",
				ErrModel, i, r.ToolCallID, id)
		}
	}
	return r.Parts, nil
}

// ResourceLinkText is the text a resource link is sent as: no provider has
// a tool-result form for one, and its JSON keeps every field readable.
func ResourceLinkText(l *tool.ResourceLink) string {
	if l == nil {
		return ""
	}
	b, _ := json.Marshal(tool.ResourceLinkPart(*l)) // strings and a number: cannot fail
	return string(b)
}

// ArtifactResolver turns artifact references into bytes for
// ResolveArtifacts. core/artifact's Resolver implements it over an
// artifact store and a scope.
type ArtifactResolver interface {
	// Resolve returns the media type and the bytes of the artifact ref
	// refers to; it fails when the artifact cannot be read.
	Resolve(ctx context.Context, ref tool.ArtifactRef) (mediaType string, data []byte, err error)
}

// ResolveArtifacts returns messages with every artifact source in the parts
// of their tool returns replaced by an inline base64 source holding the
// bytes r resolves. It fails, wrapping r's error (so that artifact.KindOf
// classifies an artifact store's), when r cannot resolve a reference: for
// artifact.Resolver, one of another scope than its own, larger than its
// limit, or unreadable.
//
// messages are not modified: messages without references are shared, and
// the others are copied, so histories and checkpoints keep the references
// and only the request carries the bytes.
func ResolveArtifacts(ctx context.Context, messages []Message, r ArtifactResolver) ([]Message, error) {
	var out []Message
	for i := range messages {
		m := &messages[i]
		if !holdsArtifacts(m) {
			if out != nil {
				out = append(out, *m)
			}
			continue
		}
		if out == nil {
			out = make([]Message, i, len(messages))
			copy(out, messages[:i])
		}
		resolved, err := resolveMessage(ctx, *m, r)
		if err != nil {
			return nil, err
		}
		out = append(out, resolved)
	}
	if out == nil {
		return messages, nil
	}
	return out, nil
}

// holdsArtifacts reports whether a tool return of m has an artifact source.
func holdsArtifacts(m *Message) bool {
	for i := range m.Parts {
		if ret := m.Parts[i].Return; ret != nil {
			for j := range ret.Parts {
				if s := ret.Parts[j].Source; s != nil && s.Kind == tool.SourceArtifact {
					return true
				}
			}
		}
	}
	return false
}

func resolveMessage(ctx context.Context, m Message, r ArtifactResolver) (Message, error) {
	parts := make([]Part, len(m.Parts))
	copy(parts, m.Parts)
	for i := range parts {
		ret := parts[i].Return
		if ret == nil || len(ret.Parts) == 0 {
			continue
		}
		c := *ret
		c.Parts = make([]tool.Part, len(ret.Parts))
		copy(c.Parts, ret.Parts)
		for j := range c.Parts {
			s := c.Parts[j].Source
			if s == nil || s.Kind != tool.SourceArtifact {
				continue
			}
			if s.Artifact == nil {
				return Message{}, fmt.Errorf("%w: part %d of the return of call %q: an artifact source without a reference", ErrModel, j, ret.ToolCallID)
			}
			mt, data, err := r.Resolve(ctx, *s.Artifact)
			if err != nil {
				return Message{}, fmt.Errorf("model: resolving artifact %s for the return of call %q: %w", s.Artifact.ID, ret.ToolCallID, err)
			}
			src := tool.Base64Source(mt, data)
			c.Parts[j].Source = &src
			if c.Parts[j].Kind == tool.PartDocument && c.Parts[j].Name == "" {
				c.Parts[j].Name = s.Artifact.Name
			}
		}
		parts[i].Return = &c
	}
	m.Parts = parts
	return m, nil
}

// StringContent returns the text of a tool return's content that is a
// string: a Go string, or a JSON string as the content of a host tool's
// return arrives (json.RawMessage). Providers send it as is, never as a
// quoted JSON literal, whichever runtime the tool ran in; ok is false for
// any other content, which they send as its JSON.
func StringContent(content any) (s string, ok bool) {
	switch c := content.(type) {
	case string:
		return c, true
	case json.RawMessage:
		b := bytes.TrimSpace(c)
		if len(b) == 0 || b[0] != '"' {
			return "", false
		}
		if err := json.Unmarshal(b, &s); err != nil {
			return "", false
		}
		return s, true
	}
	return "", false
}
