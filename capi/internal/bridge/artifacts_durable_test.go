package bridge

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/starweaver-go/starweaver/core/artifact"
	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/store/postgres/pgtest"
	"github.com/starweaver-go/starweaver/core/tool"
)

// artifactStoreOver creates an artifact store of kind over the store
// handle st through the C ABI, released when the test ends.
func artifactStoreOver(t *testing.T, kind string, st int64) int64 {
	t.Helper()
	s := abi.ArtifactStoreNew(fmt.Appendf(nil, `{"kind":%q,"store":%d}`, kind, st), none)
	if s.RC != 0 || s.Handle == 0 {
		t.Fatalf("sw_artifact_store_new(%s over %d): %+v", kind, st, s)
	}
	t.Cleanup(func() { abi.Release(s.Handle, none) })
	return s.Handle
}

// artifactBackends make an empty artifact store of each kind (PostgreSQL
// skips without a server, see pgtest).
var artifactBackends = []struct {
	name string
	new  func(t *testing.T) int64
}{
	{"memory", newArtifactStore},
	{"sqlite", func(t *testing.T) int64 {
		return artifactStoreOver(t, "sqlite", openStoreHandle(t, sqliteSpec(filepath.Join(t.TempDir(), "a.db"))))
	}},
	{"postgres", func(t *testing.T) int64 {
		b, _ := json.Marshal(storeSpec{Kind: "postgres", DSN: pgtest.DSN(t)})
		return artifactStoreOver(t, "postgres", openStoreHandle(t, string(b)))
	}},
}

// putText stores text under key in scope (expiring at expires unless 0)
// and returns its reference.
func putText(t *testing.T, st int64, scope, key, text string, expires int64) artifact.Ref {
	t.Helper()
	spec := fmt.Sprintf(`{"scope":%q,"idempotency_key":%q,"media_type":"text/plain"`, scope, key)
	if expires != 0 {
		spec += fmt.Sprintf(`,"expires_at_unix_ms":%d`, expires)
	}
	s := abi.ArtifactPut(st, []byte(spec+"}"), []byte(text), none)
	if s.RC != 0 {
		t.Fatalf("sw_artifact_put(%s): %+v", key, s)
	}
	var ref artifact.Ref
	if err := json.Unmarshal([]byte(s.Out), &ref); err != nil {
		t.Fatal(err)
	}
	return ref
}

// listPage calls sw_artifact_list and decodes the page.
func listPage(t *testing.T, st int64, spec string) artifact.Page {
	t.Helper()
	s := abi.ArtifactList(st, []byte(spec), none)
	if s.RC != 0 {
		t.Fatalf("sw_artifact_list(%s): %+v", spec, s)
	}
	var p artifact.Page
	if err := json.Unmarshal([]byte(s.Out), &p); err != nil || p.Items == nil {
		t.Fatalf("page %s: %v", s.Out, err)
	}
	return p
}

func ids(refs []artifact.Ref) []string {
	out := make([]string, len(refs))
	for i, r := range refs {
		out[i] = r.ID
	}
	return out
}

// List, delete and purge behave alike over every kind of store.
func TestABIArtifactListDeletePurge(t *testing.T) {
	for _, b := range artifactBackends {
		t.Run(b.name, func(t *testing.T) {
			closesItsDatabases(t)
			noLeaks(t)
			st := b.new(t)
			far := time.Now().Add(time.Hour).UnixMilli()
			refs := []artifact.Ref{
				putText(t, st, "tenant.acme", "a", "alpha", 0),
				putText(t, st, "tenant.acme", "b", "beta", far),
				putText(t, st, "tenant.acme", "c", "gamma", 1000), // long expired
			}
			putText(t, st, "tenant.other", "a", "alpha", 0)
			want := ids(refs)
			slices.Sort(want)

			// Two pages of two, in id order; the cursor is exclusive.
			first := listPage(t, st, `{"scope":"tenant.acme","limit":2}`)
			if got := ids(first.Items); !slices.Equal(got, want[:2]) || first.Next != want[1] {
				t.Fatalf("first page %v next %q, want %v next %q", got, first.Next, want[:2], want[1])
			}
			second := listPage(t, st, fmt.Sprintf(`{"scope":"tenant.acme","after":%q,"limit":2}`, first.Next))
			if got := ids(second.Items); !slices.Equal(got, want[2:]) || second.Next != "" {
				t.Fatalf("second page %v next %q, want %v and no cursor", got, second.Next, want[2:])
			}
			// A page that holds the rest is the last: no cursor to an empty one.
			if p := listPage(t, st, `{"scope":"tenant.acme","limit":3}`); !slices.Equal(ids(p.Items), want) || p.Next != "" {
				t.Fatalf("one page of all: %+v", p)
			}
			if p := listPage(t, st, `{"scope":"tenant.none","limit":5}`); len(p.Items) != 0 || p.Next != "" {
				t.Fatalf("empty scope: %+v", p)
			}
			// The items are whole references: get takes them as they are.
			for _, r := range first.Items {
				if r.ID == refs[0].ID && !r.Equal(refs[0]) {
					t.Fatalf("listed %+v, stored %+v", r, refs[0])
				}
			}

			// The expired artifact is refused until purged, then gone.
			get := func(r artifact.Ref) abiStatus {
				b, _ := json.Marshal(r)
				return abi.ArtifactGet(st, []byte(`{"reference":`+string(b)+`}`), none)
			}
			wantError(t, get(refs[2]), "artifact_expired", "")
			if s := abi.ArtifactPurgeExpired(st, []byte(`{"scope":"tenant.acme","now_unix_ms":999,"limit":10}`), none); s.RC != 0 || s.Out != `{"purged":0}` {
				t.Fatalf("purge before the expiry: %+v", s)
			}
			if s := abi.ArtifactPurgeExpired(st, []byte(`{"scope":"tenant.acme","limit":10}`), none); s.RC != 0 || s.Out != `{"purged":1}` {
				t.Fatalf("purge now: %+v", s)
			}
			if s := abi.ArtifactPurgeExpired(st, []byte(`{"scope":"tenant.acme","limit":10}`), none); s.RC != 0 || s.Out != `{"purged":0}` {
				t.Fatalf("purge again: %+v", s)
			}
			wantError(t, get(refs[2]), "artifact_not_found", "")
			// The unexpired one is purged when now passes its expiry.
			if s := abi.ArtifactPurgeExpired(st, fmt.Appendf(nil, `{"scope":"tenant.acme","now_unix_ms":%d,"limit":1}`, far), none); s.RC != 0 || s.Out != `{"purged":1}` {
				t.Fatalf("purge at the expiry: %+v", s)
			}

			// Delete reports whether there was an artifact, and frees its key.
			del := fmt.Appendf(nil, `{"scope":"tenant.acme","artifact_id":%q}`, refs[0].ID)
			if s := abi.ArtifactDelete(st, del, none); s.RC != 0 || s.Out != `{"deleted":true}` {
				t.Fatalf("delete: %+v", s)
			}
			if s := abi.ArtifactDelete(st, del, none); s.RC != 0 || s.Out != `{"deleted":false}` {
				t.Fatalf("delete again: %+v", s)
			}
			wantError(t, get(refs[0]), "artifact_not_found", "")
			if again := putText(t, st, "tenant.acme", "a", "another alpha", 0); again.ID == refs[0].ID {
				t.Fatal("the freed key still names the deleted artifact")
			}
			// Another scope is untouched by all of it.
			if p := listPage(t, st, `{"scope":"tenant.other","limit":5}`); len(p.Items) != 1 || p.Items[0].ID != refs[0].ID {
				t.Fatalf("the other scope: %+v", p)
			}

			// Arguments core refuses, and specs the ABI refuses.
			for _, spec := range []string{
				`{"scope":"tenant.acme","limit":0}`, `{"scope":"tenant.acme"}`, `{"scope":"tenant.acme","limit":1001}`,
				`{"scope":"tenant.acme","after":"sha256:zz","limit":5}`, `{"scope":"../x","limit":5}`, `{"limit":5}`,
			} {
				wantError(t, abi.ArtifactList(st, []byte(spec), none), "artifact_invalid", "")
			}
			for _, spec := range []string{`{"scope":"tenant.acme","now_unix_ms":-1,"limit":5}`, `{"scope":"tenant.acme"}`, `{"scope":"","limit":5}`} {
				wantError(t, abi.ArtifactPurgeExpired(st, []byte(spec), none), "artifact_invalid", "")
			}
			for _, spec := range []string{`{"scope":"tenant.acme","artifact_id":"x"}`, `{"scope":"tenant.acme"}`, fmt.Sprintf(`{"artifact_id":%q}`, refs[0].ID)} {
				wantError(t, abi.ArtifactDelete(st, []byte(spec), none), "artifact_invalid", "")
			}
			wantError(t, abi.ArtifactList(st, []byte(`{"scope":"t","limit":5,"cursor":"x"}`), none), "invalid_spec", "cursor")
			wantError(t, abi.ArtifactDelete(st, []byte(`{"scope":"t","id":"x"}`), none), "invalid_spec", "id")
			wantError(t, abi.ArtifactPurgeExpired(st, []byte(`{"scope":"t","now":1,"limit":1}`), none), "invalid_spec", "now")
			wantError(t, abi.ArtifactList(st, []byte(`{"scope":"t","limit":"5"}`), none), "invalid_spec", "")
			for _, call := range []func(int64, []byte, abiOpts) abiStatus{abi.ArtifactList, abi.ArtifactDelete, abi.ArtifactPurgeExpired} {
				wantError(t, call(st, nil, none), "invalid_spec", "")
				// NULL err: the failure is still reported by the return code.
				if s := call(st, nil, nullErr); s.RC != -1 || s.Err != "" {
					t.Fatalf("NULL err: %+v", s)
				}
			}
			// NULL out: the call still works and writes nothing.
			if s := abi.ArtifactList(st, []byte(`{"scope":"tenant.acme","limit":5}`), nullOut); s.RC != 0 || s.Out != "" {
				t.Fatalf("NULL out: %+v", s)
			}
		})
	}
}

func TestABIArtifactAdminBadHandles(t *testing.T) {
	closesItsDatabases(t)
	noLeaks(t)
	calls := map[string]func(int64, []byte, abiOpts) abiStatus{
		"sw_artifact_list":          abi.ArtifactList,
		"sw_artifact_delete":        abi.ArtifactDelete,
		"sw_artifact_purge_expired": abi.ArtifactPurgeExpired,
	}
	spec := []byte(`{"scope":"t","limit":1}`)
	del := []byte(`{"scope":"t","artifact_id":"sha256:` + fmt.Sprintf("%064d", 0) + `"}`)
	st := openStoreHandle(t, sqliteSpec(":memory:"))
	released := abi.ArtifactStoreNew([]byte(`{"kind":"memory"}`), none)
	release(t, released.Handle)
	const unknown = 1 << 60
	for name, call := range calls {
		arg := spec
		if name == "sw_artifact_delete" {
			arg = del
		}
		for _, h := range []int64{0, -1, unknown, released.Handle} {
			wantError(t, call(h, arg, none), "bad_handle", "unknown handle")
			if s := call(h, arg, nullErr); s.RC != -1 || s.Err != "" {
				t.Fatalf("%s(%d) with NULL err = %+v", name, h, s)
			}
		}
		// Handles of other kinds, a store handle included.
		wantError(t, call(newModel(t), arg, none), "bad_handle", "not a")
		wantError(t, call(st, arg, none), "bad_handle", "not a")
	}
	// The store handle is still a store handle.
	artifactStoreOver(t, "sqlite", st)
}

func TestABIDurableArtifactStoreSpecs(t *testing.T) {
	closesItsDatabases(t)
	noLeaks(t)
	st := openStoreHandle(t, sqliteSpec(":memory:"))
	db := func() *database {
		h, err := lookup[*storeHandle](st)
		if err != nil {
			t.Fatal(err)
		}
		return h.db
	}()
	refs := func() int {
		databases.mu.Lock()
		defer databases.mu.Unlock()
		return db.refs
	}
	mem := newArtifactStore(t)
	for spec, msg := range map[string]string{
		`{"kind":"sqlite"}`:                                            `needs a "store"`,
		`{"kind":"postgres","max_bytes":5}`:                            `needs a "store"`,
		fmt.Sprintf(`{"kind":"postgres","store":%d}`, st):              `not a "postgres" store`,
		fmt.Sprintf(`{"kind":"memory","store":%d}`, st):                `takes no "store"`,
		fmt.Sprintf(`{"kind":"sqlite","store":%d,"max_bytes":-1}`, st): "max_bytes",
		`{"kind":"sqlite","path":"a.db"}`:                              `unknown field "path"`,
		`{"kind":"redis","store":1}`:                                   "known: memory, sqlite, postgres",
	} {
		wantError(t, abi.ArtifactStoreNew([]byte(spec), none), "invalid_spec", msg)
	}
	wantError(t, abi.ArtifactStoreNew(fmt.Appendf(nil, `{"kind":"sqlite","store":%d}`, int64(1<<60)), none), "bad_handle", "unknown handle")
	wantError(t, abi.ArtifactStoreNew(fmt.Appendf(nil, `{"kind":"sqlite","store":%d}`, mem), none), "bad_handle", "not a")
	wantError(t, abi.ArtifactStoreNew(fmt.Appendf(nil, `{"kind":"sqlite","store":%d}`, st), nullOut), "invalid_argument", "out must not be NULL")

	// max_bytes holds over a database as in memory.
	small := abi.ArtifactStoreNew(fmt.Appendf(nil, `{"kind":"sqlite","store":%d,"max_bytes":4}`, st), none)
	if small.RC != 0 {
		t.Fatalf("sw_artifact_store_new: %+v", small)
	}
	defer release(t, small.Handle)
	wantError(t, abi.ArtifactPut(small.Handle, []byte(`{"scope":"t","idempotency_key":"k","media_type":"text/plain"}`), []byte("12345"), none), "artifact_invalid", "limit of 4")
	putText(t, small.Handle, "t", "k", "1234", 0)
	// The store handle and the one artifact store built: the failures took
	// no reference.
	if got := refs(); got != 2 {
		t.Fatalf("the database has %d references, want 2", got)
	}
}

// databaseKeys returns the keys of the open databases.
func databaseKeys() map[string]bool {
	databases.mu.Lock()
	defer databases.mu.Unlock()
	keys := make(map[string]bool, len(databases.m))
	for k := range databases.m {
		keys[k] = true
	}
	return keys
}

// sqliteOpen reports whether the database of the SQLite file path is open.
func sqliteOpen(path string) bool { return databaseKeys()["sqlite:"+path] }

// waitFor collects garbage until done holds, for at most ten seconds: a
// database held by an artifact store closes only when the store is
// collected.
func waitFor(t *testing.T, what string, done func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !done() {
		if time.Now().After(deadline) {
			t.Errorf("still waiting, after ten seconds, for %s", what)
			return
		}
		runtime.GC()
		time.Sleep(10 * time.Millisecond) // cleanups run on their own goroutine after a GC
	}
}

// closesItsDatabases makes t wait, when it ends, until every database it
// opened is closed again, so that the tests after it count open databases
// from a settled state. Call it first: it must run after the cleanups
// that release the test's handles.
func closesItsDatabases(t *testing.T) {
	t.Helper()
	before := databaseKeys()
	t.Cleanup(func() {
		waitFor(t, "the test's databases to close", func() bool {
			for k := range databaseKeys() {
				if !before[k] {
					return false
				}
			}
			return true
		})
	})
}

// Artifacts in SQLite outlive the handles that stored them: a new store
// over the same file reads them, replays their keys and refuses conflicts.
func TestSQLiteArtifactsOutliveTheirStore(t *testing.T) {
	closesItsDatabases(t)
	noLeaks(t)
	path := filepath.Join(t.TempDir(), "a.db")
	st := abi.StoreOpen([]byte(sqliteSpec(path)), none)
	as := abi.ArtifactStoreNew(fmt.Appendf(nil, `{"kind":"sqlite","store":%d}`, st.Handle), none)
	if st.RC != 0 || as.RC != 0 {
		t.Fatalf("open: %+v %+v", st, as)
	}
	// The artifact store keeps the database open without the store handle.
	release(t, st.Handle)
	ref := putText(t, as.Handle, "tenant.acme", "report", "quarterly numbers", 0)
	if !sqliteOpen(path) {
		t.Fatal("the database closed under its artifact store")
	}
	release(t, as.Handle)
	waitFor(t, "the database to close with its artifact store", func() bool { return !sqliteOpen(path) })

	again := artifactStoreOver(t, "sqlite", openStoreHandle(t, sqliteSpec(path)))
	b, _ := json.Marshal(ref)
	if s := abi.ArtifactGet(again, []byte(`{"reference":`+string(b)+`,"scope":"tenant.acme"}`), none); s.RC != 0 || s.Out != "quarterly numbers" {
		t.Fatalf("get from a new store: %+v", s)
	}
	if replay := putText(t, again, "tenant.acme", "report", "quarterly numbers", 0); !replay.Equal(ref) {
		t.Fatalf("replay %+v, first put %+v", replay, ref)
	}
	wantError(t, abi.ArtifactPut(again, []byte(`{"scope":"tenant.acme","idempotency_key":"report","media_type":"text/plain"}`), []byte("other numbers"), none), "artifact_conflict", "")
	wantError(t, abi.ArtifactPut(again, []byte(`{"scope":"tenant.acme","idempotency_key":"new key","media_type":"text/plain","name":"renamed"}`), []byte("quarterly numbers"), none), "artifact_conflict", "")
	if p := listPage(t, again, `{"scope":"tenant.acme","limit":10}`); len(p.Items) != 1 || !p.Items[0].Equal(ref) {
		t.Fatalf("list: %+v", p)
	}
}

// An agent keeps its artifact store's database open after both handles
// are released: its model still receives the bytes of a reference.
func TestAgentKeepsItsArtifactDatabaseOpen(t *testing.T) {
	closesItsDatabases(t)
	noLeaks(t)
	path := filepath.Join(t.TempDir(), "a.db")
	st := abi.StoreOpen([]byte(sqliteSpec(path)), none)
	as := abi.ArtifactStoreNew(fmt.Appendf(nil, `{"kind":"sqlite","store":%d}`, st.Handle), none)
	if st.RC != 0 || as.RC != 0 {
		t.Fatalf("open: %+v %+v", st, as)
	}
	put := abi.ArtifactPut(as.Handle, []byte(`{"scope":"tenant.acme","idempotency_key":"k","media_type":"image/png"}`), pngBytes, none)
	if put.RC != 0 {
		t.Fatal(put)
	}
	m := model.NewTestModel(model.CallsResponse(model.Call("c1", "chart", map[string]any{})), model.Response(model.TextPart("nice")))
	spec := agentSpec{Artifacts: &artifactsSpec{Store: as.Handle, Scope: "tenant.acme"}}
	done, _ := runWithHost(t, spec, m, func(hostItem) string {
		// The agent is built: give up both handles before the model needs the bytes.
		release(t, as.Handle)
		release(t, st.Handle)
		runtime.GC()
		runtime.GC()
		if !sqliteOpen(path) {
			t.Error("the database closed while the agent lives")
		}
		return `{"ok":true,"parts":[{"kind":"image","source":{"kind":"artifact","reference":` + put.Out + `}}]}`
	})
	if done.Error != nil || done.Result.Output != "nice" {
		t.Fatalf("done %+v %+v", done.Result, done.Error)
	}
	sent := m.Requests()[1].Messages[2].Returns()[0].Parts[0].Source
	if sent.Kind != tool.SourceBase64 || sent.Data != base64.StdEncoding.EncodeToString(pngBytes) {
		t.Fatalf("the model received %+v", sent)
	}
	waitFor(t, "the database to close with its agent", func() bool { return !sqliteOpen(path) })
}
