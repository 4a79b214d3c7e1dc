package artifact_test

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strings"
	"testing"

	"github.com/starweaver-go/starweaver/core/artifact"
)

func mustScope(t testing.TB, s string) artifact.Scope {
	t.Helper()
	sc, err := artifact.ParseScope(s)
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

func TestNewWriteAddressesContentAndType(t *testing.T) {
	w, err := artifact.NewWrite(mustScope(t, "s"), "k", "text/plain", []byte("hello"))
	if err != nil {
		t.Fatal(err)
	}
	// sha256("text/plain" 0x00 "hello") and sha256("hello"), from sha256sum.
	if want := "sha256:97ef98f924d843749ab0e7f56c8362af9c86e7d214492543f8dbfb6cdf679037"; w.ID() != want {
		t.Fatalf("id = %s, want %s", w.ID(), want)
	}
	ref := w.Ref(7)
	if want := "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824"; ref.SHA256 != want {
		t.Fatalf("sha256 = %s, want %s", ref.SHA256, want)
	}
	if ref.Size != 5 || ref.CreatedAtUnixMS != 7 || ref.MediaType != "text/plain" || ref.Scope != w.Scope() {
		t.Fatalf("ref = %+v", ref)
	}
	if err := ref.Validate(); err != nil {
		t.Fatal(err)
	}
}

func TestNewWriteCopiesData(t *testing.T) {
	data := []byte("hello")
	w, err := artifact.NewWrite(mustScope(t, "s"), "k", "text/plain", data)
	if err != nil {
		t.Fatal(err)
	}
	data[0] = 'j'
	if string(w.Bytes()) != "hello" {
		t.Fatalf("the write's bytes changed with the caller's buffer: %q", w.Bytes())
	}
}

func TestNewWriteKey(t *testing.T) {
	sc := mustScope(t, "s")
	for _, key := range []string{"k", "run-1/tool-call:abc", "clé", strings.Repeat("k", artifact.MaxKeyBytes)} {
		if w, err := artifact.NewWrite(sc, key, "text/plain", []byte("x")); err != nil || w.IdempotencyKey() != key {
			t.Errorf("key %q: %v", key, err)
		}
	}
	for _, key := range []string{"", "  \t", strings.Repeat("k", artifact.MaxKeyBytes+1), "a\nb", "a\x00", "a\x7f", "a\u0085", "\xff"} {
		if _, err := artifact.NewWrite(sc, key, "text/plain", []byte("x")); !errors.Is(err, artifact.ErrInvalidInput) {
			t.Errorf("key %q: err = %v, want ErrInvalidInput", key, err)
		}
	}
}

func TestNewWriteMediaType(t *testing.T) {
	sc := mustScope(t, "s")
	for _, mt := range []string{"application/octet-stream", "application/vnd.api+json", "x-custom/x.y-z", "a/b!#$%&'*+-.^_`|~"} {
		if w, err := artifact.NewWrite(sc, "k", mt, []byte("x")); err != nil || w.MediaType() != mt {
			t.Errorf("%q: %q, %v", mt, w.MediaType(), err)
		}
	}
	for _, mt := range []string{"", "text", "/plain", "text/", "text/plain; charset=utf-8", "text/plain;charset=utf-8", "text/ plain",
		"text/plain/x", "tëxt/plain", "text/(plain)", `text/"plain"`} {
		if _, err := artifact.NewWrite(sc, "k", mt, []byte("x")); !errors.Is(err, artifact.ErrInvalidInput) {
			t.Errorf("%q: err = %v, want ErrInvalidInput", mt, err)
		}
	}
	// Case does not split the address: the type is stored in lower case.
	upper, err := artifact.NewWrite(sc, "k", "Text/PLAIN", []byte("x"))
	if err != nil {
		t.Fatal(err)
	}
	lower, _ := artifact.NewWrite(sc, "k", "text/plain", []byte("x"))
	if upper.MediaType() != "text/plain" || upper.ID() != lower.ID() {
		t.Fatalf("Text/PLAIN = %s %s, want text/plain %s", upper.MediaType(), upper.ID(), lower.ID())
	}
}

func TestNewWriteRejectsEmptyContentAndZeroScope(t *testing.T) {
	if _, err := artifact.NewWrite(mustScope(t, "s"), "k", "text/plain", nil); !errors.Is(err, artifact.ErrInvalidInput) {
		t.Errorf("empty: err = %v", err)
	}
	if _, err := artifact.NewWrite(artifact.Scope{}, "k", "text/plain", []byte("x")); !errors.Is(err, artifact.ErrInvalidInput) {
		t.Errorf("zero scope: err = %v", err)
	}
}

func TestNewWriteChecksSignatures(t *testing.T) {
	riff := func(form string) string { return "RIFF\x24\x00\x00\x00" + form + "fmt " }
	for _, c := range []struct {
		mediaType string
		good, bad []string
	}{
		{"image/png", []string{"\x89PNG\r\n\x1a\n\x00"}, []string{"PNG", "\x89PNG\r\n\x1a", "GIF89a"}},
		{"image/jpeg", []string{"\xff\xd8\xff\xe0"}, []string{"\xff\xd8", "\x89PNG\r\n\x1a\n"}},
		{"image/gif", []string{"GIF87a.", "GIF89a."}, []string{"GIF88a.", "GIF8"}},
		{"image/webp", []string{riff("WEBP")}, []string{riff("WAVE"), "RIFF", "RIFF\x00\x00\x00\x00WEB"}},
		{"audio/wav", []string{riff("WAVE")}, []string{riff("WEBP"), "WAVE"}},
		{"audio/x-wav", []string{riff("WAVE")}, []string{riff("AVI ")}},
		{"audio/mpeg", []string{"ID3\x04", "\xff\xfb\x90", "\xff\xe3"}, []string{"\xff\x1b", "\xff", "ID"}},
		{"audio/ogg", []string{"OggS\x00"}, []string{"Ogg", "fLaC"}},
		{"application/pdf", []string{"%PDF-1.7\n"}, []string{"%PDF", "PDF-1.7", " %PDF-1.7"}},
		{"image/PNG", []string{"\x89PNG\r\n\x1a\n"}, []string{"not a png"}}, // checked after lower-casing
		{"text/plain", []string{"héllo", "\x00"}, []string{"\xff\xfe", "h\xe9llo"}},
		{"text/csv", []string{"a,b"}, []string{"a,\xc3"}},
		{"application/octet-stream", []string{"\xff\xfe", "anything"}, nil},
		{"image/svg+xml", []string{"<svg/>"}, nil}, // no known signature: accepted
	} {
		for _, d := range c.good {
			if _, err := artifact.NewWrite(mustScope(t, "s"), "k", c.mediaType, []byte(d)); err != nil {
				t.Errorf("%s %q: %v", c.mediaType, d, err)
			}
		}
		for _, d := range c.bad {
			if _, err := artifact.NewWrite(mustScope(t, "s"), "k", c.mediaType, []byte(d)); !errors.Is(err, artifact.ErrInvalidInput) {
				t.Errorf("%s %q: err = %v, want ErrInvalidInput", c.mediaType, d, err)
			}
		}
	}
}

func TestWriteWithName(t *testing.T) {
	w, _ := artifact.NewWrite(mustScope(t, "s"), "k", "text/plain", []byte("x"))
	for _, name := range []string{"report.pdf", "Überblick 2024.txt", strings.Repeat("n", artifact.MaxNameBytes)} {
		named, err := w.WithName(name)
		if err != nil || named.Name() != name || named.Ref(0).Name != name {
			t.Errorf("%q: %q, %v", name, named.Name(), err)
		}
	}
	if w.Name() != "" {
		t.Fatalf("WithName changed its receiver: %q", w.Name())
	}
	for _, name := range []string{"", " ", strings.Repeat("n", artifact.MaxNameBytes+1), "a\rb", "a\x00", "\xc3"} {
		if _, err := w.WithName(name); !errors.Is(err, artifact.ErrInvalidInput) {
			t.Errorf("%q: err = %v, want ErrInvalidInput", name, err)
		}
	}
}

func TestWriteWithExpiresAt(t *testing.T) {
	w, _ := artifact.NewWrite(mustScope(t, "s"), "k", "text/plain", []byte("x"))
	for _, ms := range []int64{0, 1_700_000_000_000, 1<<63 - 1} {
		e, err := w.WithExpiresAt(ms)
		if err != nil || *e.ExpiresAtUnixMS() != ms || *e.Ref(0).ExpiresAtUnixMS != ms {
			t.Errorf("%d: %v", ms, err)
		}
		*e.ExpiresAtUnixMS() = 5 // a copy: the write is unchanged
		if *e.ExpiresAtUnixMS() != ms {
			t.Errorf("the expiry changed through its accessor")
		}
	}
	if w.ExpiresAtUnixMS() != nil {
		t.Fatal("WithExpiresAt changed its receiver")
	}
	if _, err := w.WithExpiresAt(-1); !errors.Is(err, artifact.ErrInvalidInput) {
		t.Fatalf("-1: err = %v, want ErrInvalidInput", err)
	}
}

func TestWriteValidate(t *testing.T) {
	if err := (artifact.Write{}).Validate(artifact.DefaultMaxBytes); !errors.Is(err, artifact.ErrInvalidInput) {
		t.Fatalf("zero write: err = %v", err)
	}
	w, _ := artifact.NewWrite(mustScope(t, "s"), "k", "text/plain", []byte("12345"))
	if err := w.Validate(5); err != nil {
		t.Fatal(err)
	}
	if err := w.Validate(4); !errors.Is(err, artifact.ErrInvalidInput) {
		t.Fatalf("over the limit: err = %v", err)
	}
}

func FuzzNewWrite(f *testing.F) {
	f.Add("k", "text/plain", []byte("hello"))
	f.Add("k", "image/png", []byte("\x89PNG\r\n\x1a\n"))
	f.Add("k", "TEXT/Plain", []byte{0xff})
	sc := mustScope(f, "s")
	f.Fuzz(func(t *testing.T, key, mediaType string, data []byte) {
		w, err := artifact.NewWrite(sc, key, mediaType, data)
		if err != nil {
			if !errors.Is(err, artifact.ErrInvalidInput) {
				t.Fatalf("err = %v, not ErrInvalidInput", err)
			}
			return
		}
		// Every accepted write yields a reference that passes its own
		// checks and addresses exactly its media type and bytes.
		ref := w.Ref(0)
		if err := ref.Validate(); err != nil {
			t.Fatalf("ref of an accepted write: %v", err)
		}
		sum := sha256.Sum256(append(append([]byte(ref.MediaType), 0), data...))
		if ref.ID != "sha256:"+hex.EncodeToString(sum[:]) || ref.MediaType != strings.ToLower(mediaType) {
			t.Fatalf("ref = %+v for %q", ref, mediaType)
		}
	})
}
