// Package artifacttest is the conformance suite every [artifact.Store]
// passes: the memory store, store/sqlite and store/postgres run the same
// tests, so a rule (content addressing, idempotency, integrity, scopes,
// paging, expiry) holds the same way on every backend.
//
// It is related to [testing/fstest.TestFS]: a backend's test calls [Run]
// with a constructor, and the suite exercises the Store interface only,
// except through [Tamperer] to corrupt stored data.
package artifacttest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/starweaver-go/starweaver/core/artifact"
	"github.com/starweaver-go/starweaver/core/internal/storeerr"
)

// NewStore returns an empty store configured by cfg, private to t (the
// suite passes a clock and, in one test, a size limit). The store must
// also implement [Tamperer].
type NewStore func(t *testing.T, cfg artifact.Config) artifact.Store

// Tamperer corrupts a store behind its back, so that the suite can check
// that Get notices. Backends implement it in their tests only (an
// export_test.go method or a test wrapper over the database).
type Tamperer interface {
	// Tamper overwrites the stored artifact stored.ID of stored.Scope with
	// every other field of stored and with data, checking nothing.
	Tamper(ctx context.Context, stored artifact.Ref, data []byte) error
}

// Run runs the conformance suite against the stores newStore returns.
func Run(t *testing.T, newStore NewStore) {
	for _, tc := range []struct {
		name string
		run  func(*testing.T, *env)
	}{
		{"PutReturnsContentAddressedRef", testPutRef},
		{"AddressIncludesMediaType", testAddressIncludesMediaType},
		{"ReplayReturnsStoredRef", testReplay},
		{"KeyReuseWithOtherContentConflicts", testKeyOtherContent},
		{"KeyReuseWithOtherMetadataConflicts", testKeyOtherMetadata},
		{"NewKeyForStoredContentAliases", testAlias},
		{"NewKeyWithOtherMetadataConflicts", testMetadataConflict},
		{"GetRequiresTheStoredRef", testGetComparesRef},
		{"GetDetectsTamperedData", testTamper},
		{"GetNotFound", testNotFound},
		{"InvalidArguments", testInvalidArguments},
		{"ScopesAreIsolated", testScopes},
		{"ListPages", testList},
		{"GetExpired", testExpired},
		{"PurgeExpired", testPurge},
		{"Delete", testDelete},
		{"MaxBytes", testMaxBytes},
		{"ConcurrentPuts", func(t *testing.T, e *env) { testConcurrentPuts(t, e, []artifact.Store{e.s}) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := &env{t: t, ctx: context.Background(), clock: &clock{ms: startMS}}
			e.newStore = func(cfg artifact.Config) artifact.Store {
				cfg.Now = e.clock.now
				return newStore(t, cfg)
			}
			e.s = e.newStore(artifact.Config{})
			tc.run(t, e)
		})
	}
}

// startMS is the suite clock's first reading (2023-11-14), far from 0 so
// that expiries before and after it are both positive.
const startMS = 1_700_000_000_000

type clock struct {
	mu sync.Mutex
	ms int64
}

func (c *clock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return time.UnixMilli(c.ms)
}

func (c *clock) set(ms int64) {
	c.mu.Lock()
	c.ms = ms
	c.mu.Unlock()
}

type env struct {
	t        *testing.T
	ctx      context.Context
	clock    *clock
	s        artifact.Store
	newStore func(cfg artifact.Config) artifact.Store
}

// Test data: a PNG (its signature and a payload) and texts.
var png = []byte("\x89PNG\r\n\x1a\nchart pixels")

func text(i int) []byte { return fmt.Appendf(nil, "document %d", i) }

func scope(t testing.TB, s string) artifact.Scope {
	t.Helper()
	sc, err := artifact.ParseScope(s)
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// meta is the optional metadata of a write.
type meta struct {
	name    string
	expires *int64
}

func at(ms int64) *int64 { return &ms }

func (e *env) write(sc artifact.Scope, key, mediaType string, data []byte, m meta) artifact.Write {
	e.t.Helper()
	w, err := artifact.NewWrite(sc, key, mediaType, data)
	if err == nil && m.name != "" {
		w, err = w.WithName(m.name)
	}
	if err == nil && m.expires != nil {
		w, err = w.WithExpiresAt(*m.expires)
	}
	if err != nil {
		e.t.Fatal(err)
	}
	return w
}

func (e *env) put(sc artifact.Scope, key, mediaType string, data []byte, m meta) (artifact.Ref, error) {
	e.t.Helper()
	return e.s.Put(e.ctx, e.write(sc, key, mediaType, data, m))
}

func (e *env) mustPut(sc artifact.Scope, key, mediaType string, data []byte, m meta) artifact.Ref {
	e.t.Helper()
	ref, err := e.put(sc, key, mediaType, data, m)
	if err != nil {
		e.t.Fatalf("put %s: %v", key, err)
	}
	return ref
}

func (e *env) mustGet(ref artifact.Ref) artifact.Artifact {
	e.t.Helper()
	a, err := e.s.Get(e.ctx, ref)
	if err != nil {
		e.t.Fatalf("get %s: %v", ref.ID, err)
	}
	if !a.Ref.Equal(ref) {
		e.t.Fatalf("get returned %+v, want %+v", a.Ref, ref)
	}
	return a
}

func (e *env) ids(sc artifact.Scope) []string {
	e.t.Helper()
	p, err := e.s.List(e.ctx, sc, "", artifact.MaxPageSize)
	if err != nil {
		e.t.Fatal(err)
	}
	if p.Next != "" {
		e.t.Fatalf("more than %d artifacts", artifact.MaxPageSize)
	}
	var ids []string
	for _, r := range p.Items {
		ids = append(ids, r.ID)
	}
	return ids
}

func (e *env) wantIDs(sc artifact.Scope, want ...string) {
	e.t.Helper()
	if got := e.ids(sc); !slices.Equal(got, want) {
		e.t.Fatalf("%s holds %v, want %v", sc, got, want)
	}
}

// wantErr checks that err matches target and has kind.
func wantErr(t *testing.T, err, target error, kind artifact.ErrorKind) {
	t.Helper()
	if !errors.Is(err, target) {
		t.Fatalf("err = %v, want %v", err, target)
	}
	if got := artifact.KindOf(err); got != kind {
		t.Fatalf("KindOf(%v) = %q, want %q", err, got, kind)
	}
}

// contentID is the content address, computed here independently of the
// package under test.
func contentID(mediaType string, data []byte) string {
	sum := sha256.Sum256(append(append([]byte(mediaType), 0), data...))
	return "sha256:" + hex.EncodeToString(sum[:])
}

func digest(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

func testPutRef(t *testing.T, e *env) {
	sc := scope(t, "tenant.acme")
	data := slices.Clone(png)
	ref := e.mustPut(sc, "chart-1", "image/png", data, meta{name: "chart.png", expires: at(startMS + 3_600_000)})
	want := artifact.Ref{
		Scope: sc, ID: contentID("image/png", png), MediaType: "image/png", Size: int64(len(png)),
		SHA256: digest(png), Name: "chart.png", CreatedAtUnixMS: startMS, ExpiresAtUnixMS: at(startMS + 3_600_000),
	}
	if !ref.Equal(want) {
		t.Fatalf("ref = %+v, want %+v", ref, want)
	}
	data[9] = 'X' // the caller reuses its buffer
	a := e.mustGet(ref)
	if string(a.Bytes) != string(png) {
		t.Fatalf("bytes = %q, want %q", a.Bytes, png)
	}
	a.Bytes[9] = 'Y' // the caller modifies what it got
	if b := e.mustGet(ref).Bytes; string(b) != string(png) {
		t.Fatalf("stored bytes changed through a returned slice: %q", b)
	}
	// A reference without name or expiry.
	ref = e.mustPut(sc, "doc", "text/plain", text(1), meta{})
	if ref.Name != "" || ref.ExpiresAtUnixMS != nil {
		t.Fatalf("ref = %+v, want no name and no expiry", ref)
	}
	e.mustGet(ref)
}

func testAddressIncludesMediaType(t *testing.T, e *env) {
	sc := scope(t, "s")
	a := e.mustPut(sc, "k1", "text/plain", text(1), meta{})
	b := e.mustPut(sc, "k2", "application/octet-stream", text(1), meta{})
	if a.ID == b.ID || a.SHA256 != b.SHA256 {
		t.Fatalf("ids %s, %s (want different), sha256 %s, %s (want equal)", a.ID, b.ID, a.SHA256, b.SHA256)
	}
	if a.ID != contentID("text/plain", text(1)) || b.ID != contentID("application/octet-stream", text(1)) {
		t.Fatalf("ids %s, %s are not sha256(media type, 0, bytes)", a.ID, b.ID)
	}
	e.mustGet(a)
	e.mustGet(b)
	if got := e.ids(sc); len(got) != 2 {
		t.Fatalf("ids = %v, want two artifacts", got)
	}
}

func testReplay(t *testing.T, e *env) {
	sc := scope(t, "s")
	m := meta{name: "n", expires: at(startMS + 10_000)}
	first := e.mustPut(sc, "k", "image/png", png, m)
	e.clock.set(startMS + 5_000)
	again := e.mustPut(sc, "k", "image/png", png, m)
	if !again.Equal(first) {
		t.Fatalf("replay = %+v, want the stored %+v", again, first)
	}
	e.wantIDs(sc, first.ID)
}

func testKeyOtherContent(t *testing.T, e *env) {
	sc := scope(t, "s")
	first := e.mustPut(sc, "k", "text/plain", text(1), meta{})
	for _, c := range []struct {
		mediaType string
		data      []byte
	}{{"text/plain", text(2)}, {"text/markdown", text(1)}} {
		_, err := e.put(sc, "k", c.mediaType, c.data, meta{})
		wantErr(t, err, artifact.ErrIdempotencyConflict, artifact.KindConflict)
		if !errors.Is(err, storeerr.ErrConflict) {
			t.Fatalf("%v does not match storeerr.ErrConflict", err)
		}
	}
	e.wantIDs(sc, first.ID) // nothing stored by the failed puts
	e.mustGet(first)
}

func testKeyOtherMetadata(t *testing.T, e *env) {
	sc := scope(t, "s")
	m := meta{name: "a.txt", expires: at(startMS + 1_000)}
	first := e.mustPut(sc, "k", "text/plain", text(1), m)
	for _, other := range []meta{
		{name: "b.txt", expires: m.expires},
		{expires: m.expires},
		{name: m.name, expires: at(startMS + 2_000)},
		{name: m.name},
	} {
		_, err := e.put(sc, "k", "text/plain", text(1), other)
		wantErr(t, err, artifact.ErrIdempotencyConflict, artifact.KindConflict)
	}
	e.mustGet(first) // unchanged
}

func testAlias(t *testing.T, e *env) {
	sc := scope(t, "s")
	m := meta{name: "n", expires: at(startMS + 10_000)}
	first := e.mustPut(sc, "k1", "image/png", png, m)
	e.clock.set(startMS + 1)
	alias := e.mustPut(sc, "k2", "image/png", png, m)
	if !alias.Equal(first) {
		t.Fatalf("alias = %+v, want the stored %+v", alias, first)
	}
	e.wantIDs(sc, first.ID)
	// k2 now names the artifact: other content under it conflicts.
	_, err := e.put(sc, "k2", "text/plain", text(1), meta{})
	wantErr(t, err, artifact.ErrIdempotencyConflict, artifact.KindConflict)
	// Deleting the artifact frees both keys.
	if ok, err := e.s.Delete(e.ctx, sc, first.ID); !ok || err != nil {
		t.Fatalf("delete = %v, %v", ok, err)
	}
	e.mustPut(sc, "k1", "text/plain", text(1), meta{})
	e.mustPut(sc, "k2", "text/plain", text(2), meta{})
}

func testMetadataConflict(t *testing.T, e *env) {
	sc := scope(t, "s")
	first := e.mustPut(sc, "k1", "text/plain", text(1), meta{name: "a"})
	for _, other := range []meta{{name: "b"}, {}, {name: "a", expires: at(startMS)}} {
		_, err := e.put(sc, "k2", "text/plain", text(1), other)
		wantErr(t, err, artifact.ErrMetadataConflict, artifact.KindConflict)
		if !errors.Is(err, storeerr.ErrConflict) {
			t.Fatalf("%v does not match storeerr.ErrConflict", err)
		}
	}
	e.mustGet(first) // unchanged
	// The failed puts did not map k2: it takes other content.
	other := e.mustPut(sc, "k2", "text/plain", text(2), meta{})
	e.wantIDs(sc, sortedIDs(first.ID, other.ID)...)
}

func sortedIDs(ids ...string) []string {
	slices.Sort(ids)
	return ids
}

func testGetComparesRef(t *testing.T, e *env) {
	sc := scope(t, "s")
	ref := e.mustPut(sc, "k", "image/png", png, meta{name: "n", expires: at(startMS + 10_000)})
	for what, change := range map[string]func(r *artifact.Ref){
		"name":       func(r *artifact.Ref) { r.Name = "other" },
		"no name":    func(r *artifact.Ref) { r.Name = "" },
		"created at": func(r *artifact.Ref) { r.CreatedAtUnixMS++ },
		"expiry":     func(r *artifact.Ref) { r.ExpiresAtUnixMS = at(startMS + 20_000) },
		"no expiry":  func(r *artifact.Ref) { r.ExpiresAtUnixMS = nil },
		"size":       func(r *artifact.Ref) { r.Size++ },
		"sha256":     func(r *artifact.Ref) { r.SHA256 = digest(text(1)) },
		"media type": func(r *artifact.Ref) { r.MediaType = "image/gif" },
	} {
		forged := ref
		change(&forged)
		_, err := e.s.Get(e.ctx, forged)
		if !errors.Is(err, artifact.ErrIntegrity) {
			t.Fatalf("%s changed: err = %v, want ErrIntegrity", what, err)
		}
		wantErr(t, err, artifact.ErrIntegrity, artifact.KindIntegrity)
	}
	e.mustGet(ref)
}

func testTamper(t *testing.T, e *env) {
	tamperer, ok := e.s.(Tamperer)
	if !ok {
		t.Fatalf("%T does not implement artifacttest.Tamperer", e.s)
	}
	sc := scope(t, "s")
	flipped := slices.Clone(png)
	flipped[len(flipped)-1] ^= 1
	for what, c := range map[string]struct {
		change func(r *artifact.Ref) // the stored (and presented) reference
		data   []byte
	}{
		// Each case leaves one check alone to notice.
		"bytes":      {func(*artifact.Ref) {}, flipped},
		"size":       {func(r *artifact.Ref) { r.Size++ }, png},
		"sha256":     {func(r *artifact.Ref) { r.SHA256 = digest(flipped) }, png},
		"media type": {func(r *artifact.Ref) { r.MediaType = "application/octet-stream" }, png},
	} {
		ref := e.mustPut(sc, what, "image/png", png, meta{})
		tampered := ref
		c.change(&tampered)
		if err := tamperer.Tamper(e.ctx, tampered, c.data); err != nil {
			t.Fatal(err)
		}
		_, err := e.s.Get(e.ctx, tampered)
		if !errors.Is(err, artifact.ErrIntegrity) {
			t.Fatalf("%s tampered: err = %v, want ErrIntegrity", what, err)
		}
		wantErr(t, err, artifact.ErrIntegrity, artifact.KindIntegrity)
		if ok, err := e.s.Delete(e.ctx, sc, ref.ID); !ok || err != nil {
			t.Fatalf("delete = %v, %v", ok, err)
		}
	}
}

func testNotFound(t *testing.T, e *env) {
	sc := scope(t, "s")
	w := e.write(sc, "k", "text/plain", text(1), meta{})
	_, err := e.s.Get(e.ctx, w.Ref(startMS))
	wantErr(t, err, artifact.ErrNotFound, artifact.KindNotFound)
	if !errors.Is(err, storeerr.ErrNotFound) {
		t.Fatalf("%v does not match storeerr.ErrNotFound", err)
	}
}

func testInvalidArguments(t *testing.T, e *env) {
	sc := scope(t, "s")
	id := contentID("text/plain", text(1))
	calls := map[string]func() error{
		"put zero write": func() error { _, err := e.s.Put(e.ctx, artifact.Write{}); return err },
		"get zero ref":   func() error { _, err := e.s.Get(e.ctx, artifact.Ref{}); return err },
		"get bad id": func() error {
			ref := e.write(sc, "k", "text/plain", text(1), meta{}).Ref(startMS)
			ref.ID = "sha256:xyz"
			_, err := e.s.Get(e.ctx, ref)
			return err
		},
		"list zero scope":   func() error { _, err := e.s.List(e.ctx, artifact.Scope{}, "", 1); return err },
		"delete zero scope": func() error { _, err := e.s.Delete(e.ctx, artifact.Scope{}, id); return err },
		"delete bad id":     func() error { _, err := e.s.Delete(e.ctx, sc, "../x"); return err },
		"purge zero scope":  func() error { _, err := e.s.PurgeExpired(e.ctx, artifact.Scope{}, startMS, 1); return err },
	}
	for what, call := range calls {
		if err := call(); !errors.Is(err, artifact.ErrInvalidInput) || artifact.KindOf(err) != artifact.KindInvalid {
			t.Errorf("%s: err = %v, want ErrInvalidInput", what, err)
		}
	}
}

func testScopes(t *testing.T, e *env) {
	a, b := scope(t, "tenant:a"), scope(t, "tenant:b")
	ref := e.mustPut(a, "k", "text/plain", text(1), meta{name: "n", expires: at(startMS - 1)})
	other := ref
	other.Scope = b
	if _, err := e.s.Get(e.ctx, other); !errors.Is(err, artifact.ErrNotFound) {
		t.Fatalf("get from another scope: err = %v, want ErrNotFound", err)
	}
	e.wantIDs(b)
	if ok, err := e.s.Delete(e.ctx, b, ref.ID); ok || err != nil {
		t.Fatalf("delete from another scope = %v, %v; want false, nil", ok, err)
	}
	if n, err := e.s.PurgeExpired(e.ctx, b, startMS, 10); n != 0 || err != nil {
		t.Fatalf("purge of another scope = %d, %v; want 0, nil", n, err)
	}
	e.wantIDs(a, ref.ID)
	// Keys and content addresses are per scope: b may reuse a's key for
	// other content, and store a's content with other metadata.
	e.mustPut(b, "k", "text/plain", text(2), meta{})
	e.clock.set(startMS + 1)
	own := e.mustPut(b, "k2", "text/plain", text(1), meta{name: "other"})
	if own.Scope != b || own.CreatedAtUnixMS != startMS+1 {
		t.Fatalf("b's copy = %+v, want its own scope and creation time", own)
	}
	e.wantIDs(a, ref.ID)
	if n, err := e.s.PurgeExpired(e.ctx, a, startMS, 10); n != 1 || err != nil {
		t.Fatalf("purge of a = %d, %v; want 1, nil", n, err)
	}
	e.wantIDs(b, sortedIDs(own.ID, contentID("text/plain", text(2)))...)
}

func testList(t *testing.T, e *env) {
	sc := scope(t, "s")
	var all []string
	for i := range 7 {
		all = append(all, e.mustPut(sc, fmt.Sprint("k", i), "text/plain", text(i), meta{}).ID)
	}
	e.mustPut(scope(t, "other"), "k", "text/plain", text(100), meta{})
	slices.Sort(all)

	var got []string
	pages := 0
	for after := ""; ; {
		pages++
		p, err := e.s.List(e.ctx, sc, after, 3)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range p.Items {
			if r.Scope != sc {
				t.Fatalf("listed %+v from another scope", r)
			}
			got = append(got, r.ID)
		}
		if p.Next == "" {
			break
		}
		if p.Next != p.Items[len(p.Items)-1].ID {
			t.Fatalf("next = %s, want the page's last id", p.Next)
		}
		after = p.Next
	}
	if !slices.Equal(got, all) || pages != 3 {
		t.Fatalf("pages of 3 listed %v in %d pages, want %v in 3", got, pages, all)
	}

	for _, c := range []struct {
		after string
		limit int
		want  []string
		next  string
	}{
		{"", 7, all, ""},                                 // an exact fit has no next page
		{"", 6, all[:6], all[5]},                         //
		{all[2], 2, all[3:5], all[4]},                    // the cursor is exclusive
		{all[6], 5, []string{}, ""},                      // after the last
		{idBetween(all[0], all[1]), 1, all[1:2], all[1]}, // a cursor need not exist
	} {
		p, err := e.s.List(e.ctx, sc, c.after, c.limit)
		if err != nil {
			t.Fatal(err)
		}
		ids := []string{}
		for _, r := range p.Items {
			ids = append(ids, r.ID)
		}
		if p.Items == nil || !slices.Equal(ids, c.want) || p.Next != c.next {
			t.Fatalf("list(after %s, %d) = %v next %q, want %v next %q", c.after, c.limit, ids, p.Next, c.want, c.next)
		}
	}
	if p, err := e.s.List(e.ctx, sc, "", artifact.MaxPageSize); err != nil || len(p.Items) != 7 {
		t.Fatalf("list(%d) = %d items, %v", artifact.MaxPageSize, len(p.Items), err)
	}
	for _, c := range []struct {
		after string
		limit int
	}{{"", 0}, {"", -1}, {"", artifact.MaxPageSize + 1}, {"x", 1}, {"sha256:ABC", 1}} {
		_, err := e.s.List(e.ctx, sc, c.after, c.limit)
		wantErr(t, err, artifact.ErrInvalidInput, artifact.KindInvalid)
	}
}

// idBetween returns an id ordered after a and before b (a < b), for a
// cursor naming no artifact.
func idBetween(a, b string) string {
	for i := len(a) - 1; i >= 0; i-- {
		if a[i] < 'f' && a[i] != '9' {
			c := a[:i] + string(a[i]+1) + a[i+1:]
			if c < b {
				return c
			}
		}
	}
	panic("artifacttest: no id between " + a + " and " + b)
}

func testExpired(t *testing.T, e *env) {
	sc := scope(t, "s")
	ref := e.mustPut(sc, "k", "text/plain", text(1), meta{expires: at(startMS + 1_000)})
	e.mustGet(ref)
	e.clock.set(startMS + 999)
	e.mustGet(ref)
	e.clock.set(startMS + 1_000) // expiry ≤ now: expired
	_, err := e.s.Get(e.ctx, ref)
	wantErr(t, err, artifact.ErrExpired, artifact.KindExpired)
	e.wantIDs(sc, ref.ID) // listed until purged

	past := e.mustPut(sc, "k2", "text/plain", text(2), meta{expires: at(startMS)})
	_, err = e.s.Get(e.ctx, past)
	wantErr(t, err, artifact.ErrExpired, artifact.KindExpired)
}

func testPurge(t *testing.T, e *env) {
	sc := scope(t, "s")
	// Four artifacts expire at 100, stored in descending id order so that
	// a store breaking the tie by anything but the id shows it.
	var tiedData [][]byte
	for i := range 4 {
		tiedData = append(tiedData, text(i))
	}
	id := func(d []byte) string { return contentID("text/plain", d) }
	slices.SortFunc(tiedData, func(a, b []byte) int { return strings.Compare(id(b), id(a)) })
	// Two later ones (200, 300) have smaller ids than all of them, so that
	// a store ordering by id alone shows it too.
	smaller := func(d []byte) bool { return id(d) < id(tiedData[len(tiedData)-1]) }
	var laterData [][]byte
	for i := 100; len(laterData) < 2; i++ {
		if smaller(text(i)) {
			laterData = append(laterData, text(i))
		}
	}
	refs := map[string]artifact.Ref{}
	put := func(key string, d []byte, exp *int64) {
		refs[key] = e.mustPut(sc, key, "text/plain", d, meta{expires: exp})
	}
	put("at300", laterData[0], at(300))
	put("at200", laterData[1], at(200))
	put("never", text(50), nil)
	put("later", text(51), at(startMS))
	var tied []string
	for i, d := range tiedData {
		key := fmt.Sprint("tied", i)
		put(key, d, at(100))
		tied = append(tied, refs[key].ID)
	}
	slices.Sort(tied)
	ids := func(keys ...string) []string {
		var ids []string
		for _, k := range keys {
			ids = append(ids, refs[k].ID)
		}
		return sortedIDs(ids...)
	}
	purge := func(now int64, limit, want int) {
		t.Helper()
		n, err := e.s.PurgeExpired(e.ctx, sc, now, limit)
		if err != nil || n != want {
			t.Fatalf("purge(%d, %d) = %d, %v; want %d", now, limit, n, err, want)
		}
	}
	rest := ids("at300", "at200", "never", "later")
	for i := range tied {
		purge(300, 1, 1) // the earliest expiry, the smallest id of the tie
		e.wantIDs(sc, sortedIDs(append(slices.Clone(rest), tied[i+1:]...)...)...)
	}
	purge(299, 10, 1) // 200; 300 is not due yet
	e.wantIDs(sc, ids("at300", "never", "later")...)
	purge(300, 10, 1) // expiry ≤ now
	e.wantIDs(sc, ids("never", "later")...)
	purge(300, 10, 0)
	// A purged artifact's keys are free again.
	e.mustPut(sc, "tied0", "text/plain", text(60), meta{})

	for _, c := range []struct {
		now   int64
		limit int
	}{{300, 0}, {300, artifact.MaxPageSize + 1}, {-1, 1}} {
		_, err := e.s.PurgeExpired(e.ctx, sc, c.now, c.limit)
		wantErr(t, err, artifact.ErrInvalidInput, artifact.KindInvalid)
	}
	purge(startMS, artifact.MaxPageSize, 1)
	e.wantIDs(sc, sortedIDs(refs["never"].ID, id(text(60)))...)
}

func testDelete(t *testing.T, e *env) {
	sc := scope(t, "s")
	ref := e.mustPut(sc, "k", "text/plain", text(1), meta{})
	keep := e.mustPut(sc, "k2", "text/plain", text(2), meta{})
	if ok, err := e.s.Delete(e.ctx, sc, ref.ID); !ok || err != nil {
		t.Fatalf("delete = %v, %v; want true, nil", ok, err)
	}
	_, err := e.s.Get(e.ctx, ref)
	wantErr(t, err, artifact.ErrNotFound, artifact.KindNotFound)
	if ok, err := e.s.Delete(e.ctx, sc, ref.ID); ok || err != nil {
		t.Fatalf("delete again = %v, %v; want false, nil", ok, err)
	}
	e.wantIDs(sc, keep.ID)
	// The key is free again, for other content.
	e.mustPut(sc, "k", "text/plain", text(3), meta{})
	e.mustGet(keep)
}

func testMaxBytes(t *testing.T, e *env) {
	s := e.newStore(artifact.Config{MaxBytes: 16})
	sc := scope(t, "s")
	if _, err := s.Put(e.ctx, e.write(sc, "k", "text/plain", []byte("0123456789abcdef"), meta{})); err != nil {
		t.Fatalf("16 bytes: %v", err)
	}
	_, err := s.Put(e.ctx, e.write(sc, "k2", "text/plain", []byte("0123456789abcdefg"), meta{}))
	wantErr(t, err, artifact.ErrInvalidInput, artifact.KindInvalid)
	// The default limit is 16 MiB.
	big := make([]byte, artifact.DefaultMaxBytes+1)
	_, err = e.s.Put(e.ctx, e.write(sc, "big", "application/octet-stream", big, meta{}))
	wantErr(t, err, artifact.ErrInvalidInput, artifact.KindInvalid)
}

// RunConcurrent runs the suite's race tests with the puts spread over
// stores: handles on one empty database, as separate worker processes
// would open them (two pools, two connections to one file).
func RunConcurrent(t *testing.T, stores ...artifact.Store) {
	if len(stores) == 0 {
		panic("artifacttest: RunConcurrent needs a store")
	}
	testConcurrentPuts(t, &env{t: t, ctx: context.Background(), s: stores[0]}, stores)
}

// testConcurrentPuts starts many puts at once, spread over stores;
// whatever the interleaving, they settle on one artifact, and each racer
// gets its reference or the conflict its write deserves.
func testConcurrentPuts(t *testing.T, e *env, stores []artifact.Store) {
	const n = 16
	race := func(write func(i int) artifact.Write) ([]artifact.Ref, []error) {
		refs, errs := make([]artifact.Ref, n), make([]error, n)
		start := make(chan struct{})
		var wg sync.WaitGroup
		for i := range n {
			w := write(i)
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				refs[i], errs[i] = stores[i%len(stores)].Put(e.ctx, w)
			}()
		}
		close(start)
		wg.Wait()
		return refs, errs
	}
	sameRef := func(refs []artifact.Ref, errs []error) {
		t.Helper()
		for i := range n {
			if errs[i] != nil {
				t.Fatalf("put %d: %v", i, errs[i])
			}
			if !refs[i].Equal(refs[0]) {
				t.Fatalf("put %d = %+v, put 0 = %+v", i, refs[i], refs[0])
			}
		}
	}
	oneWinner := func(refs []artifact.Ref, errs []error, conflict error) artifact.Ref {
		t.Helper()
		var won []artifact.Ref
		for i, err := range errs {
			switch {
			case err == nil:
				won = append(won, refs[i])
			case !errors.Is(err, conflict):
				t.Fatalf("put %d: %v, want success or %v", i, err, conflict)
			}
		}
		if len(won) != 1 {
			t.Fatalf("%d puts succeeded, want 1", len(won))
		}
		return won[0]
	}

	for round := range 3 {
		sc := scope(t, fmt.Sprint("same-key-", round))
		refs, errs := race(func(int) artifact.Write { return e.write(sc, "k", "image/png", png, meta{name: "n"}) })
		sameRef(refs, errs)
		e.wantIDs(sc, refs[0].ID)
		e.mustGet(refs[0])

		sc = scope(t, fmt.Sprint("same-content-", round))
		refs, errs = race(func(i int) artifact.Write { return e.write(sc, fmt.Sprint("k", i), "image/png", png, meta{}) })
		sameRef(refs, errs)
		e.wantIDs(sc, refs[0].ID)

		sc = scope(t, fmt.Sprint("key-other-content-", round))
		refs, errs = race(func(i int) artifact.Write { return e.write(sc, "k", "text/plain", text(i), meta{}) })
		e.wantIDs(sc, oneWinner(refs, errs, artifact.ErrIdempotencyConflict).ID)

		sc = scope(t, fmt.Sprint("content-other-names-", round))
		refs, errs = race(func(i int) artifact.Write {
			return e.write(sc, fmt.Sprint("k", i), "text/plain", text(0), meta{name: fmt.Sprint("n", i)})
		})
		e.wantIDs(sc, oneWinner(refs, errs, artifact.ErrMetadataConflict).ID)
	}
}
