package artifactref

import (
	"bytes"
	"fmt"
	"strings"
	"unicode/utf8"
)

// normalizeMediaType checks that s is a bare "type/subtype" of RFC 7230
// tokens and returns it in lower case.
//
// Parameters ("; charset=utf-8") are rejected rather than kept: the media
// type is part of the content address, and parameters have many spellings
// of one meaning (case, spaces, quoting, order), so keeping them would
// give identical content several addresses. Providers take the bare type
// too. Lower-casing does the same for the case-insensitive type and
// subtype.
func normalizeMediaType(s string) (string, error) {
	typ, sub, ok := strings.Cut(s, "/")
	if !ok || !isToken(typ) || !isToken(sub) {
		return "", fmt.Errorf("%w: the media type must be type/subtype (RFC 7230 tokens, no parameters)", ErrInvalidInput)
	}
	return strings.ToLower(s), nil
}

// isToken reports whether s is a non-empty RFC 7230 token (1*tchar).
func isToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0:
		default:
			return false
		}
	}
	return true
}

// checkContent rejects bytes that cannot be what the (normalised) media
// type claims. Providers reject a mislabelled image or document late and
// with an opaque message, mid-run; checking the leading bytes when the
// artifact is written reports the tool's mistake where it happens. Types
// without a known signature are accepted as they are.
func checkContent(mediaType string, data []byte) error {
	ok := true
	switch mediaType {
	case "image/png":
		ok = bytes.HasPrefix(data, []byte("\x89PNG\r\n\x1a\n"))
	case "image/jpeg":
		ok = bytes.HasPrefix(data, []byte{0xff, 0xd8, 0xff})
	case "image/gif":
		ok = bytes.HasPrefix(data, []byte("GIF87a")) || bytes.HasPrefix(data, []byte("GIF89a"))
	case "image/webp":
		ok = riff(data, "WEBP")
	case "audio/wav", "audio/x-wav":
		ok = riff(data, "WAVE")
	case "audio/mpeg":
		// An ID3v2 tag, or an MPEG audio frame header (11 sync bits).
		ok = bytes.HasPrefix(data, []byte("ID3")) || len(data) >= 2 && data[0] == 0xff && data[1]&0xe0 == 0xe0
	case "audio/ogg":
		ok = bytes.HasPrefix(data, []byte("OggS"))
	case "application/pdf":
		ok = bytes.HasPrefix(data, []byte("%PDF-"))
	default:
		if strings.HasPrefix(mediaType, "text/") && !utf8.Valid(data) {
			return fmt.Errorf("%w: %s content must be valid UTF-8", ErrInvalidInput, mediaType)
		}
	}
	if !ok {
		return fmt.Errorf("%w: the content does not start with the signature of %s", ErrInvalidInput, mediaType)
	}
	return nil
}

// riff reports whether data is a RIFF container of the given form type.
func riff(data []byte, form string) bool {
	return len(data) >= 12 && string(data[:4]) == "RIFF" && string(data[8:12]) == form
}
