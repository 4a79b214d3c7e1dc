package bridge

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/starweaver-go/starweaver/core/agent"
	"github.com/starweaver-go/starweaver/core/artifact"
	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/tool"
)

var pngBytes = []byte("\x89PNG\r\n\x1a\nchart")

// newArtifactStore creates a memory store through the C ABI, released when
// the test ends.
func newArtifactStore(t *testing.T) int64 {
	t.Helper()
	s := abi.ArtifactStoreNew([]byte(`{"kind":"memory"}`), none)
	if s.RC != 0 || s.Handle == 0 {
		t.Fatalf("sw_artifact_store_new: %+v", s)
	}
	t.Cleanup(func() { abi.Release(s.Handle, none) })
	return s.Handle
}

func TestABIArtifactStore(t *testing.T) {
	noLeaks(t)
	st := newArtifactStore(t)
	put := abi.ArtifactPut(st, []byte(`{"scope":"tenant.acme","idempotency_key":"chart-1","media_type":"image/png","name":"chart.png"}`), pngBytes, none)
	if put.RC != 0 {
		t.Fatalf("sw_artifact_put: %+v", put)
	}
	var ref artifact.Ref
	if err := json.Unmarshal([]byte(put.Out), &ref); err != nil || ref.Scope.String() != "tenant.acme" || ref.Size != int64(len(pngBytes)) || ref.Name != "chart.png" {
		t.Fatalf("reference %s: %v", put.Out, err)
	}
	// The same content under the same key is the same reference.
	if again := abi.ArtifactPut(st, []byte(`{"scope":"tenant.acme","idempotency_key":"chart-1","media_type":"image/png","name":"chart.png"}`), pngBytes, none); again.Out != put.Out {
		t.Fatalf("replay: %s != %s", again.Out, put.Out)
	}
	byRef := func(scope string) []byte {
		if scope == "" {
			return []byte(`{"reference":` + put.Out + `}`)
		}
		return []byte(`{"reference":` + put.Out + `,"scope":"` + scope + `"}`)
	}
	for _, scope := range []string{"", "tenant.acme"} {
		if get := abi.ArtifactGet(st, byRef(scope), none); get.RC != 0 || get.Out != string(pngBytes) {
			t.Fatalf("sw_artifact_get (scope %q): %+v", scope, get)
		}
	}
	wantError(t, abi.ArtifactGet(st, byRef("tenant.other"), none), "artifact_invalid", "another scope")
	wantError(t, abi.ArtifactGet(st, byRef("../x"), none), "artifact_invalid", "scope")

	wantError(t, abi.ArtifactStoreNew([]byte(`{"kind":"sqlite3"}`), none), "invalid_spec", "unknown artifact store kind")
	wantError(t, abi.ArtifactStoreNew([]byte(`{"kind":"memory","max_bytes":-1}`), none), "invalid_spec", "max_bytes")
	wantError(t, abi.ArtifactStoreNew([]byte(`{"kind":"memory"}`), nullOut), "invalid_argument", "out must not be NULL")
	wantError(t, abi.ArtifactPut(st, []byte(`{"scope":"../x","idempotency_key":"k","media_type":"image/png"}`), pngBytes, none), "artifact_invalid", "scope")
	wantError(t, abi.ArtifactPut(st, []byte(`{"scope":"t","idempotency_key":"k","media_type":"image/png"}`), []byte("not a png"), none), "artifact_invalid", "")
	wantError(t, abi.ArtifactPut(st, []byte(`{"scope":"t","idempotency_key":"k","media_type":"image/png","bogus":1}`), pngBytes, none), "invalid_spec", "bogus")
	wantError(t, abi.ArtifactPut(st, nil, pngBytes, none), "invalid_spec", "")
	wantError(t, abi.ArtifactPut(st, []byte(`{"scope":"tenant.acme","idempotency_key":"chart-1","media_type":"image/png"}`), pngBytes, none), "artifact_conflict", "")
	wantError(t, abi.ArtifactGet(st, []byte(`{"reference":{"scope":"tenant.acme"}}`), none), "artifact_invalid", "")
	wantError(t, abi.ArtifactGet(st, []byte(`{"reference":null}`), none), "artifact_invalid", "")
	wantError(t, abi.ArtifactGet(st, []byte(`{"ref":{}}`), none), "invalid_spec", "ref")
	wantError(t, abi.ArtifactGet(st, nil, none), "invalid_spec", "")
	other := newArtifactStore(t)
	wantError(t, abi.ArtifactGet(other, byRef(""), none), "artifact_not_found", "")
	wantError(t, abi.ArtifactGet(newModel(t), byRef(""), none), "bad_handle", "")
	wantError(t, abi.ArtifactPut(999999, []byte(`{"scope":"t","idempotency_key":"k","media_type":"text/plain"}`), []byte("x"), none), "bad_handle", "")
	// NULL out and err: the call still works, or still fails by its code.
	if s := abi.ArtifactGet(st, byRef(""), nullOut); s.RC != 0 || s.Out != "" {
		t.Fatalf("NULL out: %+v", s)
	}
	if s := abi.ArtifactGet(st, nil, nullErr); s.RC != -1 || s.Err != "" {
		t.Fatalf("NULL err: %+v", s)
	}
}

func TestArtifactAndVisibilityErrorSlugs(t *testing.T) {
	for _, k := range artifact.ErrorKinds() {
		if !slices.Contains(abiErrorTypes, string(k)) {
			t.Errorf("artifact kind %q is not an ABI error type", k)
		}
	}
	ae := toABIError(fmt.Errorf("run: %w", &agent.ToolOutputNotVisibleError{Tool: "vault", ToolCallID: "c1"}))
	if ae.Type != "tool_output_not_visible" || ae.Tool != "vault" || ae.ToolCallID != "c1" {
		t.Fatalf("%+v", ae)
	}
	if b, _ := json.Marshal(ae); !strings.Contains(string(b), `"tool_call_id":"c1"`) {
		t.Fatalf("%s", b)
	}
	for err, want := range map[error]string{
		fmt.Errorf("%w: %w", agent.ErrArtifacts, artifact.ErrInvalidInput):   "artifact_invalid",
		fmt.Errorf("%w: %w", agent.ErrArtifacts, artifact.ErrExpired):        "artifact_expired",
		fmt.Errorf("%w: %w", agent.ErrArtifacts, errors.New("disk on fire")): "store_unavailable",
		// An artifact sentinel outside a run's artifact boundary is not
		// classified as one here (a store of sessions may share it).
		artifact.ErrNotFound: "internal",
	} {
		if got := toABIError(err).Type; got != want {
			t.Errorf("%v: %q, want %q", err, got, want)
		}
	}
}

func TestDecodeRichOutcome(t *testing.T) {
	res, err := decodeOutcome([]byte(`{"ok":true,"parts":[{"kind":"text","text":"hi"},{"kind":"image","source":{"kind":"url","url":"https://x.test/a.png"}}],` +
		`"structured_content":{"n":1},"is_error":true,"metadata":{"app.k":1}}`))
	if err != nil || len(res.Parts) != 2 || res.Parts[1].Source.URL != "https://x.test/a.png" || !res.IsError || res.HostOnly ||
		string(res.StructuredContent.(json.RawMessage)) != `{"n":1}` {
		t.Fatalf("%+v %v", res, err)
	}
	res, err = decodeOutcome([]byte(`{"ok":true,"parts":[{"kind":"text","text":"s"}],"host_only":true}`))
	if err != nil || !res.HostOnly {
		t.Fatalf("host only: %+v %v", res, err)
	}
	for _, bad := range []string{
		`{"ok":true,"parts":[{"kind":"video"}]}`,
		`{"ok":true,"parts":[{"kind":"image","source":{"kind":"base64","media_type":"image/png","data":"%%%"}}]}`,
		`{"ok":true,"parts":{"kind":"text"}}`,
	} {
		if _, err := decodeOutcome([]byte(bad)); tool.KindOf(err) != tool.ErrorKindInvalidOutput {
			t.Errorf("%s: %v", bad, err)
		}
	}
	// An empty list is kept as one, for the registry to refuse.
	if res, err := decodeOutcome([]byte(`{"ok":true,"parts":[]}`)); err != nil || res.Parts == nil {
		t.Fatalf("empty parts: %+v %v", res, err)
	}
	// After-hooks see the parts in the host's own shape.
	enc := encodeOutcome(tool.Outcome{Result: tool.HostOnly(tool.TextPart("s")).WithStructuredContent(1)})
	if string(enc) != `{"content":null,"host_only":true,"is_error":false,"ok":true,"parts":[{"kind":"text","text":"s"}],"structured_content":1}` {
		t.Fatalf("encoded %s", enc)
	}
}

// runWithHost runs an agent built from spec (the model handle and the host
// tool "chart", id 1, are added) and answers its calls with answer.
func runWithHost(t *testing.T, spec agentSpec, m *model.TestModel, answer func(hostItem) string) (hostItem, *agent.Session) {
	t.Helper()
	h := handles.add(&modelHandle{m: m})
	t.Cleanup(func() { handles.remove(h) })
	spec.Model = h
	spec.Tools = append(spec.Tools, toolSpec{ID: 1, Definition: tool.Definition{Name: "chart"}})
	a, err := buildAgent(spec)
	if err != nil {
		t.Fatal(err)
	}
	s := a.NewSession()
	rh, run, err := startRun(s, runSpec{Prompt: "draw"})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		handles.remove(rh)
		run.close()
	}()
	return host(t, run, answer), s
}

// A host tool's rich output reaches the model through the agent's store:
// the reference stays in history, the model receives the bytes.
func TestHostRichOutputThroughAnArtifactStore(t *testing.T) {
	st := newArtifactStore(t)
	put := abi.ArtifactPut(st, []byte(`{"scope":"tenant.acme","idempotency_key":"k","media_type":"image/png"}`), pngBytes, none)
	if put.RC != 0 {
		t.Fatal(put)
	}
	m := model.NewTestModel(model.CallsResponse(model.Call("c1", "chart", map[string]any{})), model.Response(model.TextPart("nice")))
	spec := agentSpec{Artifacts: &artifactsSpec{Store: st, Scope: "tenant.acme"}}
	done, s := runWithHost(t, spec, m, func(hostItem) string {
		return `{"ok":true,"parts":[{"kind":"text","text":"chart:"},{"kind":"image","source":{"kind":"artifact","reference":` + put.Out + `}}]}`
	})
	if done.Error != nil || done.Result.Output != "nice" {
		t.Fatalf("done %+v %+v", done.Result, done.Error)
	}
	sent := m.Requests()[1].Messages[2].Returns()[0].Parts[1].Source
	if sent.Kind != tool.SourceBase64 || sent.Data != base64.StdEncoding.EncodeToString(pngBytes) {
		t.Fatalf("the model received %+v", sent)
	}
	history, _ := json.Marshal(s.Messages())
	if !strings.Contains(string(history), `"kind":"artifact"`) || strings.Contains(string(history), sent.Data) {
		t.Fatalf("history %s", history)
	}
}

func TestHostOnlyOutcomeFailsTheRun(t *testing.T) {
	m := model.NewTestModel(model.CallsResponse(model.Call("c1", "chart", map[string]any{})), model.Response(model.TextPart("nice")))
	done, _ := runWithHost(t, agentSpec{}, m, func(hostItem) string {
		return `{"ok":true,"parts":[{"kind":"text","text":"secret"}],"host_only":true}`
	})
	if done.Error == nil || done.Error.Type != "tool_output_not_visible" || done.Error.Tool != "chart" || done.Error.ToolCallID != "c1" {
		t.Fatalf("done error %+v", done.Error)
	}
	if len(m.Requests()) != 1 {
		t.Fatal("the model was asked again")
	}
}

func TestAgentSpecArtifactKeys(t *testing.T) {
	st := newArtifactStore(t)
	prefix := `{"model":` + fmt.Sprint(testModelHandle(t, model.Response(model.TextPart("x"))))
	for spec, want := range map[string]string{
		`,"artifacts":{"store":` + fmt.Sprint(st) + `,"scope":"../x"}}`:                 "invalid_spec",
		`,"artifacts":{"store":424242,"scope":"t"}}`:                                    "bad_handle",
		`,"artifacts":{"store":` + fmt.Sprint(st) + `,"scope":"t","resolve_limit":-1}}`: "config",
		`,"max_tool_output_bytes":0}`:                                                   "config",
		`,"output_budget":{"max_bytes":10,"head_bytes":20}}`:                            "config",
		`,"output_budget":{"max_byte":10}}`:                                             "invalid_spec",
	} {
		if _, err := agentFromJSON(t, prefix+spec); toABIError(err).Type != want {
			t.Errorf("%s: %v, want %s", spec, err, want)
		}
	}
	if _, err := agentFromJSON(t, prefix+`,"artifacts":{"store":`+fmt.Sprint(st)+`,"scope":"tenant.acme","resolve_limit":1000},"max_tool_output_bytes":100,"output_budget":{"max_bytes":50,"head_bytes":10}}`); err != nil {
		t.Fatal(err)
	}
}
