package artifact_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/starweaver-go/starweaver/core/artifact"
)

func sampleRef(t *testing.T) artifact.Ref {
	t.Helper()
	w, err := artifact.NewWrite(mustScope(t, "tenant.acme"), "k", "text/plain", []byte("hello"))
	if err == nil {
		w, err = w.WithName("hello.txt")
	}
	if err == nil {
		w, err = w.WithExpiresAt(1_700_000_060_000)
	}
	if err != nil {
		t.Fatal(err)
	}
	return w.Ref(1_700_000_000_000)
}

func TestRefJSON(t *testing.T) {
	ref := sampleRef(t)
	b, err := json.Marshal(ref)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"scope":"tenant.acme",` +
		`"artifact_id":"sha256:97ef98f924d843749ab0e7f56c8362af9c86e7d214492543f8dbfb6cdf679037",` +
		`"media_type":"text/plain","size_bytes":5,` +
		`"sha256":"2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824",` +
		`"name":"hello.txt","created_at_unix_ms":1700000000000,"expires_at_unix_ms":1700000060000}`
	if string(b) != want {
		t.Fatalf("json =\n%s\nwant\n%s", b, want)
	}
	var got artifact.Ref
	if err := json.Unmarshal(b, &got); err != nil || !got.Equal(ref) {
		t.Fatalf("round trip = %+v, %v", got, err)
	}

	// No name and no expiry: both fields are left out.
	ref.Name, ref.ExpiresAtUnixMS = "", nil
	b, _ = json.Marshal(ref)
	if strings.Contains(string(b), `"name"`) || strings.Contains(string(b), `"expires_at_unix_ms"`) {
		t.Fatalf("json = %s, want no name and no expiry", b)
	}
	if err := json.Unmarshal(b, &got); err != nil || !got.Equal(ref) {
		t.Fatalf("round trip = %+v, %v", got, err)
	}
}

func TestRefJSONRejectsMalformed(t *testing.T) {
	good, _ := json.Marshal(sampleRef(t))
	for what, edit := range map[string]func(m map[string]any){
		"scope ../tenant":   func(m map[string]any) { m["scope"] = "../tenant" },
		"no scope":          func(m map[string]any) { delete(m, "scope") },
		"no id":             func(m map[string]any) { delete(m, "artifact_id") },
		"id without prefix": func(m map[string]any) { m["artifact_id"] = m["sha256"] },
		"id upper case":     func(m map[string]any) { m["artifact_id"] = strings.ToUpper(m["artifact_id"].(string)) },
		"id other hash":     func(m map[string]any) { m["artifact_id"] = "md5:" + m["sha256"].(string)[:32] },
		"media type upper":  func(m map[string]any) { m["media_type"] = "Text/Plain" },
		"media type params": func(m map[string]any) { m["media_type"] = "text/plain;charset=utf-8" },
		"no media type":     func(m map[string]any) { delete(m, "media_type") },
		"size zero":         func(m map[string]any) { m["size_bytes"] = 0 },
		"size negative":     func(m map[string]any) { m["size_bytes"] = -5 },
		"size a string":     func(m map[string]any) { m["size_bytes"] = "5" },
		"sha256 short":      func(m map[string]any) { m["sha256"] = "abc" },
		"sha256 not hex":    func(m map[string]any) { m["sha256"] = strings.Repeat("g", 64) },
		"name blank":        func(m map[string]any) { m["name"] = " " },
		"name control":      func(m map[string]any) { m["name"] = "a\u0007" },
		"created negative":  func(m map[string]any) { m["created_at_unix_ms"] = -1 },
		"expires negative":  func(m map[string]any) { m["expires_at_unix_ms"] = -1 },
	} {
		var m map[string]any
		_ = json.Unmarshal(good, &m)
		edit(m)
		b, _ := json.Marshal(m)
		var ref artifact.Ref
		if err := json.Unmarshal(b, &ref); !errors.Is(err, artifact.ErrInvalidInput) {
			t.Errorf("%s: err = %v, want ErrInvalidInput", what, err)
		}
	}
	var ref artifact.Ref
	for _, in := range []string{`{}`, `[]`, `"x"`} {
		if err := json.Unmarshal([]byte(in), &ref); !errors.Is(err, artifact.ErrInvalidInput) {
			t.Errorf("%s: err = %v, want ErrInvalidInput", in, err)
		}
	}
}

func TestRefEqual(t *testing.T) {
	a, b := sampleRef(t), sampleRef(t)
	if a.ExpiresAtUnixMS == b.ExpiresAtUnixMS || !a.Equal(b) {
		t.Fatal("equal refs with distinct expiry pointers must be Equal")
	}
	b.ExpiresAtUnixMS = nil
	if a.Equal(b) || b.Equal(a) {
		t.Fatal("an expiry and none are not Equal")
	}
	b = sampleRef(t)
	b.CreatedAtUnixMS++
	if a.Equal(b) {
		t.Fatal("refs created at other times are not Equal")
	}
}

func TestValidateID(t *testing.T) {
	id := sampleRef(t).ID
	if err := artifact.ValidateID(id); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"", "sha256:", id[:len(id)-1], id + "0", "SHA256:" + id[7:], strings.ToUpper(id), "../" + id} {
		if err := artifact.ValidateID(bad); !errors.Is(err, artifact.ErrInvalidInput) {
			t.Errorf("%q: err = %v, want ErrInvalidInput", bad, err)
		}
	}
}
