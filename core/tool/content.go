package tool

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"net/url"
	"strings"

	"github.com/starweaver-go/starweaver/core/internal/artifactref"
)

// Content part kinds, as they appear in the "kind" field of a serialised
// part. The set is closed: decoding refuses any other kind, and so does
// every provider (see core/model's ToolResultParts).
const (
	PartText         = "text"
	PartImage        = "image"
	PartAudio        = "audio"
	PartDocument     = "document"
	PartResourceLink = "resource_link"
)

// Media source kinds, as they appear in the "kind" field of a source.
const (
	// SourceURL is media the provider fetches from an http(s) URL.
	SourceURL = "url"
	// SourceBase64 is media carried inline, base64-encoded.
	SourceBase64 = "base64"
	// SourceArtifact is media kept in an artifact store: history holds the
	// reference, and the bytes are read just before a request goes to the
	// provider (see core/model's ResolveArtifacts).
	SourceArtifact = "artifact"
)

// ErrInvalidPart is wrapped by the errors of Part.Validate and of decoding
// a part or a source.
var ErrInvalidPart = errors.New("tool: invalid content part")

// Part is one element of a tool's rich output (see Rich): text, an image,
// audio, a document or a link to a resource, in the order the model should
// read them. Build parts with TextPart, ImagePart, AudioPart, DocumentPart
// and ResourceLinkPart; the fields a kind does not use stay zero.
//
// Its JSON form is an object tagged by "kind": {"kind":"text","text"},
// {"kind":"image"|"audio","source"}, {"kind":"document","source","name"?}
// and {"kind":"resource_link","uri","name","title"?,"description"?,
// "media_type"?,"size"?}. Decoding checks the part with Validate.
type Part struct {
	Kind string
	// Text is the text of a text part.
	Text string
	// Source is where the media of an image, audio or document part is.
	Source *MediaSource
	// Name is a document's display or file name ("" for none).
	Name string
	// Link describes a resource_link part.
	Link *ResourceLink
}

// ResourceLink points the model at a resource it may fetch or mention
// (an MCP resource link): URI and Name are required.
type ResourceLink struct {
	URI         string `json:"uri"`
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	MediaType   string `json:"media_type,omitempty"`
	// Size in bytes, when known.
	Size *int64 `json:"size,omitempty"`
}

// MediaSource says where the bytes of a media part are. Build sources with
// URLSource, Base64Source and ArtifactSource.
//
// Its JSON form is an object tagged by "kind": {"kind":"url","url",
// "media_type"?}, {"kind":"base64","media_type","data"} and
// {"kind":"artifact","reference": ArtifactRef}.
type MediaSource struct {
	Kind string
	// URL of a url source (http or https).
	URL string
	// MediaType of the media: required for base64, optional for url, and
	// the reference's own for artifact sources (left empty here).
	MediaType string
	// Data is the standard base64 encoding of a base64 source's bytes.
	Data string
	// Artifact is the reference of an artifact source.
	Artifact *ArtifactRef
}

// ArtifactRef is the reference to a stored artifact that an artifact
// source carries (core/artifact's Ref).
type ArtifactRef = artifactref.Ref

// TextPart returns a text part.
func TextPart(text string) Part { return Part{Kind: PartText, Text: text} }

// ImagePart returns an image part.
func ImagePart(src MediaSource) Part { return Part{Kind: PartImage, Source: &src} }

// AudioPart returns an audio part.
func AudioPart(src MediaSource) Part { return Part{Kind: PartAudio, Source: &src} }

// DocumentPart returns a document part; name may be "".
func DocumentPart(src MediaSource, name string) Part {
	return Part{Kind: PartDocument, Source: &src, Name: name}
}

// ResourceLinkPart returns a resource_link part.
func ResourceLinkPart(link ResourceLink) Part { return Part{Kind: PartResourceLink, Link: &link} }

// URLSource returns a source the provider fetches from rawURL; mediaType
// may be "" when unknown.
func URLSource(rawURL, mediaType string) MediaSource {
	return MediaSource{Kind: SourceURL, URL: rawURL, MediaType: mediaType}
}

// Base64Source returns an inline source holding data (encoded here).
func Base64Source(mediaType string, data []byte) MediaSource {
	return MediaSource{Kind: SourceBase64, MediaType: mediaType, Data: base64.StdEncoding.EncodeToString(data)}
}

// ArtifactSource returns a source kept in an artifact store.
func ArtifactSource(ref ArtifactRef) MediaSource {
	return MediaSource{Kind: SourceArtifact, Artifact: &ref}
}

// SourceMediaType returns the media type of s: an artifact's from its
// reference, any other's MediaType ("" when a url source gives none).
func (s *MediaSource) SourceMediaType() string {
	if s.Kind == SourceArtifact && s.Artifact != nil {
		return s.Artifact.MediaType
	}
	return s.MediaType
}

// Validate returns an error wrapping ErrInvalidPart unless p is a
// well-formed part of a known kind: a media part has a valid source whose
// media type, when known, is of the part's family (image/* for images,
// audio/* for audio); a resource link has a URI and a name and no negative
// size. Any text is valid.
func (p *Part) Validate() error {
	switch p.Kind {
	case PartText:
		return nil
	case PartImage, PartAudio, PartDocument:
		if p.Source == nil {
			return fmt.Errorf("%w: a %s part needs a source", ErrInvalidPart, p.Kind)
		}
		if err := p.Source.Validate(); err != nil {
			return fmt.Errorf("%s part: %w", p.Kind, err)
		}
		family := map[string]string{PartImage: "image/", PartAudio: "audio/"}[p.Kind]
		if mt := p.Source.SourceMediaType(); family != "" && mt != "" && !strings.HasPrefix(mt, family) {
			return fmt.Errorf("%w: a %s part cannot hold %s media", ErrInvalidPart, p.Kind, mt)
		}
		return nil
	case PartResourceLink:
		l := p.Link
		if l == nil || strings.TrimSpace(l.URI) == "" || strings.TrimSpace(l.Name) == "" {
			return fmt.Errorf("%w: a resource link needs a uri and a name", ErrInvalidPart)
		}
		if l.Size != nil && *l.Size < 0 {
			return fmt.Errorf("%w: a resource link's size must not be negative", ErrInvalidPart)
		}
		if l.MediaType != "" {
			if err := checkMediaType(l.MediaType); err != nil {
				return err
			}
		}
		return nil
	}
	return fmt.Errorf("%w: unknown part kind %q", ErrInvalidPart, p.Kind)
}

// Validate returns an error wrapping ErrInvalidPart unless s is a
// well-formed source of a known kind: an http(s) URL, base64 data in the
// standard encoding with a media type, or a valid artifact reference.
func (s *MediaSource) Validate() error {
	switch s.Kind {
	case SourceURL:
		u, err := url.Parse(s.URL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fmt.Errorf("%w: a url source needs an http or https URL", ErrInvalidPart)
		}
		if s.MediaType != "" {
			return checkMediaType(s.MediaType)
		}
		return nil
	case SourceBase64:
		if err := checkMediaType(s.MediaType); err != nil {
			return err
		}
		if s.Data == "" {
			return fmt.Errorf("%w: a base64 source must not be empty", ErrInvalidPart)
		}
		if _, err := base64.StdEncoding.Strict().DecodeString(s.Data); err != nil {
			return fmt.Errorf("%w: a base64 source's data is not standard base64", ErrInvalidPart)
		}
		return nil
	case SourceArtifact:
		if s.Artifact == nil {
			return fmt.Errorf("%w: an artifact source needs a reference", ErrInvalidPart)
		}
		if err := s.Artifact.Validate(); err != nil {
			return fmt.Errorf("%w: %w", ErrInvalidPart, err)
		}
		return nil
	}
	return fmt.Errorf("%w: unknown media source kind %q", ErrInvalidPart, s.Kind)
}

// checkMediaType accepts a bare type/subtype (no parameters).
func checkMediaType(mt string) error {
	parsed, params, err := mime.ParseMediaType(mt)
	if err != nil || len(params) > 0 || !strings.Contains(parsed, "/") {
		return fmt.Errorf("%w: %q is not a media type (type/subtype)", ErrInvalidPart, mt)
	}
	return nil
}

// wirePart is the JSON form of every part kind; MarshalJSON writes only
// the fields of the part's kind.
type wirePart struct {
	Kind        string       `json:"kind"`
	Text        *string      `json:"text,omitempty"`
	Source      *MediaSource `json:"source,omitempty"`
	Name        string       `json:"name,omitempty"`
	URI         string       `json:"uri,omitempty"`
	Title       string       `json:"title,omitempty"`
	Description string       `json:"description,omitempty"`
	MediaType   string       `json:"media_type,omitempty"`
	Size        *int64       `json:"size,omitempty"`
}

// MarshalJSON writes the part in its tagged form. A part of an unknown
// kind is an error, never written half.
func (p Part) MarshalJSON() ([]byte, error) {
	w := wirePart{Kind: p.Kind}
	switch p.Kind {
	case PartText:
		w.Text = &p.Text
	case PartImage, PartAudio, PartDocument:
		if p.Source == nil {
			return nil, fmt.Errorf("%w: a %s part needs a source", ErrInvalidPart, p.Kind)
		}
		w.Source = p.Source
		if p.Kind == PartDocument {
			w.Name = p.Name
		}
	case PartResourceLink:
		if p.Link == nil {
			return nil, fmt.Errorf("%w: a resource link needs a uri and a name", ErrInvalidPart)
		}
		l := p.Link
		w.URI, w.Name, w.Title, w.Description, w.MediaType, w.Size = l.URI, l.Name, l.Title, l.Description, l.MediaType, l.Size
	default:
		return nil, fmt.Errorf("%w: unknown part kind %q", ErrInvalidPart, p.Kind)
	}
	return json.Marshal(w)
}

// UnmarshalJSON reads a tagged part, refusing unknown kinds and fields that
// are not the kind's, and checks it with Validate.
func (p *Part) UnmarshalJSON(b []byte) error {
	var w wirePart
	d := json.NewDecoder(bytes.NewReader(b))
	d.DisallowUnknownFields()
	if err := d.Decode(&w); err != nil {
		return fmt.Errorf("%w: %w", ErrInvalidPart, err)
	}
	var out Part
	switch w.Kind {
	case PartText:
		if w.Text == nil || w.Source != nil || w.Name != "" || hasLinkFields(w) {
			return fmt.Errorf("%w: a text part holds only \"text\"", ErrInvalidPart)
		}
		out = TextPart(*w.Text)
	case PartImage, PartAudio, PartDocument:
		if w.Text != nil || hasLinkFields(w) || (w.Kind != PartDocument && w.Name != "") {
			return fmt.Errorf("%w: a %s part holds only a source (and a document a name)", ErrInvalidPart, w.Kind)
		}
		out = Part{Kind: w.Kind, Source: w.Source, Name: w.Name}
	case PartResourceLink:
		if w.Text != nil || w.Source != nil {
			return fmt.Errorf("%w: a resource link holds no text or source", ErrInvalidPart)
		}
		out = ResourceLinkPart(ResourceLink{URI: w.URI, Name: w.Name, Title: w.Title, Description: w.Description, MediaType: w.MediaType, Size: w.Size})
	default:
		return fmt.Errorf("%w: unknown part kind %q", ErrInvalidPart, w.Kind)
	}
	if err := out.Validate(); err != nil {
		return err
	}
	*p = out
	return nil
}

func hasLinkFields(w wirePart) bool {
	return w.URI != "" || w.Title != "" || w.Description != "" || w.MediaType != "" || w.Size != nil
}

// wireSource is the JSON form of every source kind.
type wireSource struct {
	Kind      string       `json:"kind"`
	URL       string       `json:"url,omitempty"`
	MediaType string       `json:"media_type,omitempty"`
	Data      string       `json:"data,omitempty"`
	Reference *ArtifactRef `json:"reference,omitempty"`
}

// MarshalJSON writes the source in its tagged form.
func (s MediaSource) MarshalJSON() ([]byte, error) {
	w := wireSource{Kind: s.Kind}
	switch s.Kind {
	case SourceURL:
		w.URL, w.MediaType = s.URL, s.MediaType
	case SourceBase64:
		w.MediaType, w.Data = s.MediaType, s.Data
	case SourceArtifact:
		if s.Artifact == nil {
			return nil, fmt.Errorf("%w: an artifact source needs a reference", ErrInvalidPart)
		}
		w.Reference = s.Artifact
	default:
		return nil, fmt.Errorf("%w: unknown media source kind %q", ErrInvalidPart, s.Kind)
	}
	return json.Marshal(w)
}

// UnmarshalJSON reads a tagged source, refusing unknown kinds and fields
// that are not the kind's. A reference is checked as it is decoded (see
// artifact.Ref); Part.UnmarshalJSON validates the rest.
func (s *MediaSource) UnmarshalJSON(b []byte) error {
	var w wireSource
	d := json.NewDecoder(bytes.NewReader(b))
	d.DisallowUnknownFields()
	if err := d.Decode(&w); err != nil {
		return fmt.Errorf("%w: media source: %w", ErrInvalidPart, err)
	}
	switch w.Kind {
	case SourceURL:
		if w.Data != "" || w.Reference != nil {
			return fmt.Errorf("%w: a url source holds only \"url\" and \"media_type\"", ErrInvalidPart)
		}
		*s = URLSource(w.URL, w.MediaType)
	case SourceBase64:
		if w.URL != "" || w.Reference != nil {
			return fmt.Errorf("%w: a base64 source holds only \"media_type\" and \"data\"", ErrInvalidPart)
		}
		*s = MediaSource{Kind: SourceBase64, MediaType: w.MediaType, Data: w.Data}
	case SourceArtifact:
		if w.URL != "" || w.Data != "" || w.MediaType != "" || w.Reference == nil {
			return fmt.Errorf("%w: an artifact source holds only \"reference\"", ErrInvalidPart)
		}
		*s = ArtifactSource(*w.Reference)
	default:
		return fmt.Errorf("%w: unknown media source kind %q", ErrInvalidPart, w.Kind)
	}
	return nil
}

// String describes the part for logs and errors without its bytes.
func (p Part) String() string {
	switch p.Kind {
	case PartText:
		return fmt.Sprintf("text(%d bytes)", len(p.Text))
	case PartResourceLink:
		if p.Link != nil {
			return "resource_link(" + p.Link.URI + ")"
		}
	}
	if p.Source != nil {
		return fmt.Sprintf("%s(%s, %s)", p.Kind, p.Source.Kind, p.Source.SourceMediaType())
	}
	return p.Kind
}
