package tool_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/starweaver-go/starweaver/core/artifact"
	"github.com/starweaver-go/starweaver/core/tool"
)

var pngBytes = []byte("\x89PNG\r\n\x1a\nrest-of-image")

// testRef stores a small PNG in a memory store and returns its reference.
func testRef(t testing.TB, st artifact.Store, scope string) artifact.Ref {
	t.Helper()
	sc, err := artifact.ParseScope(scope)
	if err != nil {
		t.Fatal(err)
	}
	w, err := artifact.NewWrite(sc, "k-"+scope, "image/png", pngBytes)
	if err != nil {
		t.Fatal(err)
	}
	ref, err := st.Put(context.Background(), w)
	if err != nil {
		t.Fatal(err)
	}
	return ref
}

func TestOutputConstructors(t *testing.T) {
	v := map[string]any{"celsius": 21}
	mv := tool.ModelVisible(v)
	if !jsonEqual(t, mv.Content, v) || !jsonEqual(t, mv.StructuredContent, v) || mv.Parts != nil || mv.IsError || mv.HostOnly {
		t.Fatalf("ModelVisible = %+v", mv)
	}
	parts := []tool.Part{tool.TextPart("chart"), tool.ImagePart(tool.URLSource("https://x.test/a.png", "image/png"))}
	if r := tool.Rich(parts...); len(r.Parts) != 2 || r.IsError || r.HostOnly || r.Content != nil {
		t.Fatalf("Rich = %+v", r)
	}
	if r := tool.ModelError(tool.TextPart("no such city")); !r.IsError || r.HostOnly || len(r.Parts) != 1 {
		t.Fatalf("ModelError = %+v", r)
	}
	if r := tool.HostOnly(tool.TextPart("secret")); !r.HostOnly || r.IsError {
		t.Fatalf("HostOnly = %+v", r)
	}
	// An empty list stays a list, so that CheckOutput refuses it.
	if r := tool.Rich(); r.Parts == nil || len(r.Parts) != 0 {
		t.Fatalf("Rich() parts = %#v", r.Parts)
	}

	base := tool.Rich(tool.TextPart("x")).WithMetadata("app.a", 1)
	other := base.WithMetadata("app.b", 2).WithStructuredContent([]int{1})
	if len(base.Metadata) != 1 || len(other.Metadata) != 2 || base.StructuredContent != nil {
		t.Fatalf("WithMetadata shares its map or With changed the receiver: %v %v", base.Metadata, other.Metadata)
	}
	if !jsonEqual(t, other.StructuredContent, []int{1}) {
		t.Fatalf("structured = %v", other.StructuredContent)
	}
}

func TestPartJSONShapes(t *testing.T) {
	st := artifact.NewMemoryStore(artifact.Config{})
	ref := testRef(t, st, "tenant.acme")
	size := int64(42)
	cases := []struct {
		part tool.Part
		want string
	}{
		{tool.TextPart("hi"), `{"kind":"text","text":"hi"}`},
		{tool.TextPart(""), `{"kind":"text","text":""}`},
		{tool.ImagePart(tool.URLSource("https://x.test/a.png", "")), `{"kind":"image","source":{"kind":"url","url":"https://x.test/a.png"}}`},
		{tool.AudioPart(tool.Base64Source("audio/wav", []byte("RIFF"))), `{"kind":"audio","source":{"kind":"base64","media_type":"audio/wav","data":"UklGRg=="}}`},
		{tool.DocumentPart(tool.Base64Source("application/pdf", []byte("%PDF-1.7")), "report.pdf"),
			`{"kind":"document","source":{"kind":"base64","media_type":"application/pdf","data":"JVBERi0xLjc="},"name":"report.pdf"}`},
		{tool.DocumentPart(tool.URLSource("https://x.test/r.pdf", "application/pdf"), ""),
			`{"kind":"document","source":{"kind":"url","url":"https://x.test/r.pdf","media_type":"application/pdf"}}`},
		{tool.ResourceLinkPart(tool.ResourceLink{URI: "file:///r.txt", Name: "r.txt", Title: "R", Description: "d", MediaType: "text/plain", Size: &size}),
			`{"kind":"resource_link","name":"r.txt","uri":"file:///r.txt","title":"R","description":"d","media_type":"text/plain","size":42}`},
		{tool.ImagePart(tool.ArtifactSource(ref)), `{"kind":"image","source":{"kind":"artifact","reference":` + mustJSON(t, ref) + `}}`},
	}
	for _, c := range cases {
		got := mustJSON(t, c.part)
		if !jsonEqual(t, json.RawMessage(got), json.RawMessage(c.want)) {
			t.Errorf("%v:\n got %s\nwant %s", c.part, got, c.want)
		}
		var back tool.Part
		if err := json.Unmarshal([]byte(got), &back); err != nil {
			t.Fatalf("decode %s: %v", got, err)
		}
		if again := mustJSON(t, back); again != got {
			t.Errorf("round trip changed %s into %s", got, again)
		}
	}
}

func TestPartDecodeRefusesWhatItDoesNotKnow(t *testing.T) {
	bad := []string{
		`{"kind":"video","source":{"kind":"url","url":"https://x.test/v"}}`,
		`{"kind":"image","source":{"kind":"file","path":"/etc/passwd"}}`,
		`{"kind":"text","text":"a","extra":1}`,
		`{"kind":"text"}`,
		`{"kind":"text","text":"a","source":{"kind":"url","url":"https://x.test"}}`,
		`{"kind":"image","name":"x","source":{"kind":"url","url":"https://x.test"}}`,
		`{"kind":"image"}`,
		`{"kind":"image","source":{"kind":"url","url":"file:///etc/passwd"}}`,
		`{"kind":"image","source":{"kind":"base64","media_type":"image/png","data":"not base64!"}}`,
		`{"kind":"image","source":{"kind":"base64","data":"AAAA"}}`,
		`{"kind":"image","source":{"kind":"base64","media_type":"application/pdf","data":"AAAA"}}`,
		`{"kind":"audio","source":{"kind":"url","url":"https://x.test/a","media_type":"image/png"}}`,
		`{"kind":"image","source":{"kind":"artifact","reference":{"scope":"../t"}}}`,
		`{"kind":"image","source":{"kind":"artifact"}}`,
		`{"kind":"resource_link","uri":"file:///x"}`,
		`{"kind":"resource_link","uri":"file:///x","name":"x","size":-1}`,
	}
	for _, b := range bad {
		var p tool.Part
		if err := json.Unmarshal([]byte(b), &p); err == nil {
			t.Errorf("decoded %s as %+v", b, p)
		}
	}
	if _, err := json.Marshal(tool.Part{Kind: "video"}); !errors.Is(err, tool.ErrInvalidPart) {
		t.Fatalf("marshal of an unknown kind: %v", err)
	}
}

func TestReturnCarriesPartsThroughJSON(t *testing.T) {
	res := tool.Rich(tool.TextPart("hi"), tool.ImagePart(tool.URLSource("https://x.test/a.png", "image/png"))).
		WithStructuredContent(map[string]any{"n": 1})
	ret := tool.SuccessReturn(call("c1", "t", `{}`), res)
	b := mustJSON(t, ret)
	want := `{"tool_call_id":"c1","name":"t","content":null,"is_error":false,
		"parts":[{"kind":"text","text":"hi"},{"kind":"image","source":{"kind":"url","url":"https://x.test/a.png","media_type":"image/png"}}],
		"structured_content":{"n":1}}`
	if !jsonEqual(t, json.RawMessage(b), json.RawMessage(want)) {
		t.Fatalf("return JSON:\n%s\nwant\n%s", b, want)
	}
	var back tool.Return
	if err := json.Unmarshal([]byte(b), &back); err != nil {
		t.Fatal(err)
	}
	if mustJSON(t, back) != b {
		t.Fatalf("round trip: %s != %s", mustJSON(t, back), b)
	}
	// A host-only return says so; a plain one has no new keys at all.
	if b := mustJSON(t, tool.SuccessReturn(call("c", "t", `{}`), tool.HostOnly(tool.TextPart("x")))); !strings.Contains(b, `"host_only":true`) {
		t.Fatalf("host-only return: %s", b)
	}
	if b := mustJSON(t, tool.SuccessReturn(call("c", "t", `{}`), tool.Text("x"))); strings.Contains(b, "parts") || strings.Contains(b, "host_only") || strings.Contains(b, "structured") {
		t.Fatalf("plain return grew keys: %s", b)
	}
}

func TestCheckOutput(t *testing.T) {
	ok := []tool.Result{
		tool.Text("x"),
		tool.ModelVisible(map[string]any{"a": []int{1, 2}}),
		tool.Rich(tool.TextPart("a"), tool.ImagePart(tool.Base64Source("image/png", pngBytes))),
		tool.HostOnly(tool.TextPart("a")),
		{Content: json.RawMessage(`{"a":1}`)},
	}
	for _, r := range ok {
		if err := tool.CheckOutput(r, 1<<20); err != nil {
			t.Errorf("CheckOutput(%+v) = %v", r, err)
		}
	}
	bad := map[string]tool.Result{
		"at least one content part": tool.Rich(),
		"content part 1":            tool.ModelError(tool.TextPart("a"), tool.ImagePart(tool.MediaSource{Kind: "file"})),
		"content is not JSON":       {Content: func() {}},
		"metadata is not JSON":      tool.Text("x").WithMetadata("f", make(chan int)),
	}
	for want, r := range bad {
		err := tool.CheckOutput(r, 1<<20)
		if err == nil || err.Kind != tool.ErrorKindInvalidOutput || !strings.Contains(err.Message, want) {
			t.Errorf("CheckOutput for %q = %v", want, err)
		}
	}
	// The size counts every surface but private metadata, strings as
	// escaped JSON.
	quote := strings.Repeat(`"`, 50) // 100 bytes escaped, +2 quotes
	if err := tool.CheckOutput(tool.Text(quote), 102); err != nil {
		t.Fatalf("102-byte output refused: %v", err)
	}
	if err := tool.CheckOutput(tool.Text(quote), 101); err == nil {
		t.Fatal("102-byte output accepted under a 101-byte limit")
	}
	withApp := tool.Result{Content: "a", AppValue: strings.Repeat("b", 100)}
	if err := tool.CheckOutput(withApp, 100); err == nil {
		t.Fatal("the app value is not counted")
	}
	private := tool.Result{Content: "a", PrivateMetadata: map[string]any{"trace": strings.Repeat("b", 1000)}}
	if err := tool.CheckOutput(private, 100); err != nil {
		t.Fatalf("private metadata counted: %v", err)
	}
}

// The registry applies the output rules after the hooks, to every tool:
// oversized or malformed outputs end as invalid_output, without retries.
func TestRegistryRefusesInvalidOutputs(t *testing.T) {
	calls := 0
	big := tool.New("big", "", nil, func(context.Context, *tool.Context, json.RawMessage) (tool.Result, error) {
		calls++
		return tool.Text(strings.Repeat("x", 2000)), nil
	})
	bad := tool.New("bad", "", nil, func(context.Context, *tool.Context, json.RawMessage) (tool.Result, error) {
		return tool.Rich(tool.ImagePart(tool.Base64Source("image/png", nil))), nil
	})
	r := mustRegistry(t, big, bad)
	if got := r.MaxOutputBytes(); got != 8<<20 {
		t.Fatalf("default limit = %d", got)
	}
	wantSuccess(t, r.Execute(context.Background(), nil, call("1", "big", `{}`)))

	r.SetMaxOutputBytes(1000)
	ret := r.Execute(context.Background(), nil, call("2", "big", `{}`))
	wantKind(t, ret, tool.ErrorKindInvalidOutput)
	if !ret.IsError || calls != 2 {
		t.Fatalf("is_error %v, calls %d (an invalid output is not re-executed)", ret.IsError, calls)
	}
	if msg := content(t, ret)["message"].(string); !strings.Contains(msg, "more than 1000 bytes") {
		t.Fatalf("message %q", msg)
	}
	// Clones and selections keep the limit.
	wantKind(t, r.Clone().Execute(context.Background(), nil, call("3", "big", `{}`)), tool.ErrorKindInvalidOutput)
	wantKind(t, r.Select([]string{"big"}).Execute(context.Background(), nil, call("4", "big", `{}`)), tool.ErrorKindInvalidOutput)

	ret = r.Execute(context.Background(), nil, call("5", "bad", `{}`))
	wantKind(t, ret, tool.ErrorKindInvalidOutput)
	if msg := content(t, ret)["message"].(string); !strings.Contains(msg, "content part 0") {
		t.Fatalf("message %q", msg)
	}
}

// After-hooks see the output as the tool returned it; the rules apply to
// what they leave.
func TestOutputRulesApplyAfterHooks(t *testing.T) {
	f := tool.New("t", "", nil, func(context.Context, *tool.Context, json.RawMessage) (tool.Result, error) {
		return tool.Text(strings.Repeat("x", 5000)), nil
	})
	r := mustRegistry(t, f)
	r.SetMaxOutputBytes(100)
	var seen int
	r.AddHook(tool.Hook{Name: "shrink", After: func(_ context.Context, _ *tool.Context, out *tool.Outcome) error {
		seen = len(out.Result.Content.(string))
		out.Result = tool.Text("short")
		return nil
	}})
	ret := r.Execute(context.Background(), nil, call("1", "t", `{}`))
	wantSuccess(t, ret)
	if seen != 5000 || ret.Content != "short" {
		t.Fatalf("hook saw %d bytes, content %v", seen, ret.Content)
	}
}

func TestArtifactsBindTheScope(t *testing.T) {
	ctx := context.Background()
	st := artifact.NewMemoryStore(artifact.Config{})
	acme, _ := artifact.ParseScope("tenant.acme")
	other := testRef(t, st, "tenant.other")
	if _, err := tool.NewArtifacts(nil, acme); !errors.Is(err, artifact.ErrInvalidInput) {
		t.Fatalf("nil store: %v", err)
	}
	if _, err := tool.NewArtifacts(st, artifact.Scope{}); !errors.Is(err, artifact.ErrInvalidInput) {
		t.Fatalf("zero scope: %v", err)
	}
	a, err := tool.NewArtifacts(st, acme)
	if err != nil {
		t.Fatal(err)
	}
	w, err := a.NewWrite("chart-1", "image/png", pngBytes)
	if err != nil {
		t.Fatal(err)
	}
	ref, err := a.Put(ctx, w)
	if err != nil || ref.Scope != acme {
		t.Fatalf("Put = %+v, %v", ref, err)
	}
	got, err := a.Get(ctx, ref)
	if err != nil || string(got) != string(pngBytes) {
		t.Fatalf("Get = %q, %v", got, err)
	}
	if _, err := a.Get(ctx, other); !errors.Is(err, artifact.ErrInvalidInput) {
		t.Fatalf("read of another scope: %v", err)
	}
	otherScope, _ := artifact.ParseScope("tenant.other")
	foreign, _ := artifact.NewWrite(otherScope, "k", "text/plain", []byte("x"))
	if _, err := a.Put(ctx, foreign); !errors.Is(err, artifact.ErrInvalidInput) {
		t.Fatalf("write into another scope: %v", err)
	}

	var none *tool.Artifacts
	if _, err := none.Get(ctx, ref); !errors.Is(err, tool.ErrNoArtifacts) {
		t.Fatalf("nil Artifacts: %v", err)
	}
	if _, err := none.NewWrite("k", "text/plain", []byte("x")); !errors.Is(err, tool.ErrNoArtifacts) {
		t.Fatalf("nil Artifacts: %v", err)
	}
	if !none.Scope().IsZero() || none.Store() != nil {
		t.Fatal("nil Artifacts has a scope or a store")
	}
}
