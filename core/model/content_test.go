package model_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/starweaver-go/starweaver/core/artifact"
	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/tool"
)

var png = []byte("\x89PNG\r\n\x1a\nimage-bytes")

func putPNG(t *testing.T, st artifact.Store, scope, key string, data []byte) artifact.Ref {
	t.Helper()
	sc, err := artifact.ParseScope(scope)
	if err != nil {
		t.Fatal(err)
	}
	w, err := artifact.NewWrite(sc, key, "image/png", data)
	if err != nil {
		t.Fatal(err)
	}
	w, err = w.WithName("chart.png")
	if err != nil {
		t.Fatal(err)
	}
	ref, err := st.Put(context.Background(), w)
	if err != nil {
		t.Fatal(err)
	}
	return ref
}

func richReturn(id string, parts ...tool.Part) tool.Return {
	return tool.SuccessReturn(tool.Call{ID: id, Name: "chart"}, tool.Rich(parts...))
}

func TestVisibleKeepsPartsAndHidesHostOnly(t *testing.T) {
	ret := richReturn("c1", tool.TextPart("a chart"), tool.ImagePart(tool.URLSource("https://x.test/c.png", "image/png")))
	ret.StructuredContent = map[string]any{"n": 1}
	ret.AppValue = "app"
	v := model.VisibleReturn(ret)
	if len(v.Parts) != 2 || v.StructuredContent == nil || v.AppValue != nil {
		t.Fatalf("visible rich return: %+v", v)
	}

	secret := tool.SuccessReturn(tool.Call{ID: "c2", Name: "vault"}, tool.HostOnly(tool.TextPart("s3cr3t")).WithMetadata("k", "s3cr3t"))
	secret.Content = "s3cr3t"
	msg := model.Visible(model.Request(model.ToolReturn(secret)))
	b, _ := json.Marshal(msg)
	if strings.Contains(string(b), "s3cr3t") || !strings.Contains(string(b), `"host_only":true`) {
		t.Fatalf("host-only projection: %s", b)
	}
	if _, err := model.ReturnParts(msg.Parts[0].Return); !errors.Is(err, model.ErrModel) || !strings.Contains(err.Error(), "host-only") {
		t.Fatalf("ReturnParts of a host-only return: %v", err)
	}
}

func TestReturnParts(t *testing.T) {
	plain := tool.SuccessReturn(tool.Call{ID: "c", Name: "t"}, tool.Text("x"))
	if parts, err := model.ReturnParts(&plain); err != nil || parts != nil {
		t.Fatalf("plain return: %v, %v", parts, err)
	}
	rich := richReturn("c", tool.TextPart("a"))
	if parts, err := model.ReturnParts(&rich); err != nil || len(parts) != 1 {
		t.Fatalf("rich return: %v, %v", parts, err)
	}
	ref := putPNG(t, artifact.NewMemoryStore(artifact.Config{}), "tenant.acme", "k", png)
	unresolved := richReturn("c9", tool.ImagePart(tool.ArtifactSource(ref)))
	if _, err := model.ReturnParts(&unresolved); !errors.Is(err, model.ErrModel) || !strings.Contains(err.Error(), "not resolved") {
		t.Fatalf("unresolved artifact: %v", err)
	}
	size := int64(3)
	link := model.ResourceLinkText(&tool.ResourceLink{URI: "https://x.test/r", Name: "r", Size: &size})
	if link != `{"kind":"resource_link","name":"r","uri":"https://x.test/r","size":3}` {
		t.Fatalf("resource link text %s", link)
	}
}

func TestResolveArtifacts(t *testing.T) {
	ctx := context.Background()
	st := artifact.NewMemoryStore(artifact.Config{})
	ref := putPNG(t, st, "tenant.acme", "k1", png)
	acme := ref.Scope
	history := []model.Message{
		model.Request(model.UserPrompt("draw")),
		model.Response(model.ToolCallPart("c1", "chart", nil)),
		model.Request(model.ToolReturn(richReturn("c1", tool.TextPart("chart:"), tool.ImagePart(tool.ArtifactSource(ref)),
			tool.DocumentPart(tool.ArtifactSource(ref), "")))),
	}
	before, _ := json.Marshal(history)

	out, err := model.ResolveArtifacts(ctx, history, artifact.Resolver{Reader: st, Scope: acme})
	if err != nil {
		t.Fatal(err)
	}
	parts := out[2].Parts[0].Return.Parts
	if parts[0].Text != "chart:" || parts[1].Source.Kind != tool.SourceBase64 || parts[1].Source.MediaType != "image/png" {
		t.Fatalf("resolved parts: %+v", parts)
	}
	if data, _ := base64.StdEncoding.DecodeString(parts[1].Source.Data); string(data) != string(png) {
		t.Fatalf("resolved bytes %q", data)
	}
	if parts[2].Name != "chart.png" {
		t.Fatalf("a document without a name takes the artifact's: %q", parts[2].Name)
	}
	// The history is untouched; messages without references are shared.
	if after, _ := json.Marshal(history); string(after) != string(before) {
		t.Fatalf("history changed:\n%s\n%s", before, after)
	}
	if &out[0].Parts[0] != &history[0].Parts[0] {
		t.Fatal("a message without references was copied")
	}
	// Nothing to resolve: the very same slice.
	plain := history[:2]
	if same, err := model.ResolveArtifacts(ctx, plain, artifact.Resolver{Reader: st, Scope: acme}); err != nil || &same[0] != &plain[0] {
		t.Fatalf("no references: %v", err)
	}

	other, _ := artifact.ParseScope("tenant.other")
	_, err = model.ResolveArtifacts(ctx, history, artifact.Resolver{Reader: st, Scope: other})
	if !errors.Is(err, artifact.ErrInvalidInput) || !strings.Contains(err.Error(), "another scope") {
		t.Fatalf("scope mismatch: %v", err)
	}
	_, err = model.ResolveArtifacts(ctx, history, artifact.Resolver{Reader: st, Scope: acme, MaxBytes: 4})
	if !errors.Is(err, artifact.ErrInvalidInput) || !strings.Contains(err.Error(), "limit") {
		t.Fatalf("size over the limit: %v", err)
	}
	if _, err := model.ResolveArtifacts(ctx, history, artifact.Resolver{Reader: artifact.NewMemoryStore(artifact.Config{}), Scope: acme}); artifact.KindOf(err) != artifact.KindNotFound {
		t.Fatalf("missing artifact: %v", err)
	}
}
