package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/starweaver-go/starweaver/core/mcp"
	"github.com/starweaver-go/starweaver/core/tool"
	"github.com/starweaver-go/starweaver/core/toolset"
)

// open returns a toolset closed when t ends.
func open(t *testing.T, id string, tr mcp.Transport, opts mcp.Options) *mcp.Toolset {
	t.Helper()
	ts := mcp.New(id, tr, opts)
	if err := ts.Err(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ts.Close() })
	return ts
}

// registry registers the toolsets' tools the way a run does.
func registry(t *testing.T, sets ...toolset.Toolset) *tool.Registry {
	t.Helper()
	r := &tool.Registry{}
	if err := toolset.Register(r, nil, sets...); err != nil {
		t.Fatal(err)
	}
	return r
}

func call(t *testing.T, r *tool.Registry, name, args string) tool.Return {
	t.Helper()
	return r.Execute(context.Background(), nil, tool.Call{ID: "c1", Name: name, Arguments: json.RawMessage(args)})
}

func definition(t *testing.T, tools []tool.Tool, name string) tool.Definition {
	t.Helper()
	for _, tl := range tools {
		if d := tl.Definition(); d.Name == name {
			return d
		}
	}
	t.Fatalf("no tool %q", name)
	return tool.Definition{}
}

func TestEverythingToolsArePrefixedAndCarryMetadata(t *testing.T) {
	ts := open(t, "everything", everything(t), mcp.Options{ToolPrefix: "ev"})
	tools, err := ts.Tools(nil)
	if err != nil {
		t.Fatal(err)
	}
	d := definition(t, tools, "ev_echo")
	want := map[string]any{mcp.MetaServerID: "everything", mcp.MetaTransport: "stdio", mcp.MetaToolName: "echo", mcp.MetaTask: false}
	for k, v := range want {
		if d.Metadata[k] != v {
			t.Errorf("metadata %s = %v, want %v", k, d.Metadata[k], v)
		}
	}
	if !strings.Contains(d.Description, "Echo") {
		t.Errorf("description %q", d.Description)
	}
	props, _ := d.Parameters["properties"].(map[string]any)
	if _, ok := props["message"]; !ok {
		t.Errorf("parameters %v", d.Parameters)
	}
	again, err := ts.Tools(nil)
	if err != nil || len(again) != len(tools) || again[0] != tools[0] {
		t.Errorf("the second listing is not the cached one: %v", err)
	}
}

func TestEverythingEchoAndSum(t *testing.T) {
	ts := open(t, "everything", everything(t), mcp.Options{})
	r := registry(t, ts)
	if ret := call(t, r, "echo", `{"message":"hi"}`); ret.IsError || ret.Content != "Echo: hi" {
		t.Errorf("echo: %+v", ret)
	}
	ret := call(t, r, "get-sum", `{"a":2,"b":3}`)
	if s, _ := ret.Content.(string); ret.IsError || !strings.Contains(s, "5") {
		t.Errorf("get-sum: %+v", ret)
	}
	// The registry validates against the server's schema before any call.
	ret = call(t, r, "echo", `{"message":3}`)
	if ret.ErrorKind() != tool.ErrorKindInvalidArguments {
		t.Errorf("echo with a number: %+v", ret)
	}
}

func TestEverythingImageAndResources(t *testing.T) {
	ts := open(t, "everything", everything(t), mcp.Options{})
	r := registry(t, ts)
	ret := call(t, r, "get-tiny-image", `{}`)
	var image *tool.Part
	for i := range ret.Parts {
		if ret.Parts[i].Kind == tool.PartImage {
			image = &ret.Parts[i]
		}
	}
	if ret.IsError || image == nil || image.Source.Kind != tool.SourceBase64 || image.Source.MediaType != "image/png" {
		t.Fatalf("get-tiny-image: %+v", ret)
	}
	ret = call(t, r, "get-resource-links", `{"count":2}`)
	links := 0
	for _, p := range ret.Parts {
		if p.Kind == tool.PartResourceLink && p.Link.URI != "" {
			links++
		}
	}
	if ret.IsError || links != 2 {
		t.Errorf("get-resource-links: %+v", ret)
	}
	// An embedded blob resource (here gzip-compressed data) is a document.
	ret = call(t, r, "gzip-file-as-resource", `{"data":"data:text/plain;base64,SGVsbG8=","name":"hello.gz","outputType":"resource"}`)
	var doc *tool.Part
	for i := range ret.Parts {
		if ret.Parts[i].Kind == tool.PartDocument {
			doc = &ret.Parts[i]
		}
	}
	if ret.IsError || doc == nil || doc.Source.MediaType != "application/gzip" || !strings.HasSuffix(doc.Name, "hello.gz") {
		t.Errorf("gzip-file-as-resource: %+v", ret)
	}
	ret = call(t, r, "get-resource-reference", `{"resourceId":1}`)
	if s, _ := ret.Content.(string); ret.IsError || !strings.Contains(s, "Resource 1") {
		t.Errorf("get-resource-reference: %+v", ret)
	}
}

func TestTimeServer(t *testing.T) {
	ts := open(t, "time", timeServer(t), mcp.Options{})
	r := registry(t, ts)
	ret := call(t, r, "get_current_time", `{"timezone":"Europe/Paris"}`)
	if s, _ := ret.Content.(string); ret.IsError || !strings.Contains(s, "Europe/Paris") {
		t.Fatalf("get_current_time: %+v", ret)
	}
	sc, _ := ret.StructuredContent.(map[string]any)
	if sc["timezone"] != "Europe/Paris" {
		t.Errorf("structured content %v", ret.StructuredContent)
	}
	ret = call(t, r, "get_current_time", `{}`)
	if ret.ErrorKind() != tool.ErrorKindInvalidArguments {
		t.Errorf("without a timezone: %+v", ret)
	}
}

func TestHTTPServer(t *testing.T) {
	url := httpServer(t)
	ts := open(t, "fixture", mcp.StreamableHTTP(url, map[string]string{"X-Starweaver-Test": "secret-token"}),
		mcp.Options{ToolPrefix: "fx", IncludeInstructions: true})
	tools, err := ts.Tools(nil)
	if err != nil {
		t.Fatal(err)
	}
	if d := definition(t, tools, "fx_greet"); d.Metadata[mcp.MetaTransport] != "streamable_http" {
		t.Errorf("metadata %v", d.Metadata)
	}
	if ins := ts.Instructions(nil); len(ins) != 1 || !strings.Contains(ins[0].Content, "Test tools") {
		t.Errorf("instructions %v", ins)
	}
	r := registry(t, ts)
	if ret := call(t, r, "fx_greet", `{"name":"Ada"}`); ret.Content != "Hello, Ada!" {
		t.Errorf("greet: %+v", ret)
	}
	if ret := call(t, r, "fx_header", `{"name":"X-Starweaver-Test"}`); ret.Content != "secret-token" {
		t.Errorf("header: %+v", ret)
	}
	// isError: a completed call the model reads as an error, not a failure.
	ret := call(t, r, "fx_fail", `{"message":"no such order"}`)
	if !ret.IsError || ret.ErrorKind() != "" || !strings.Contains(ret.Content.(string), "no such order") {
		t.Errorf("fail: %+v %+v", ret, ret.Runtime)
	}
	ret = call(t, r, "fx_pixel", `{}`)
	if len(ret.Parts) != 1 || ret.Parts[0].Kind != tool.PartImage {
		t.Errorf("pixel: %+v", ret)
	}
	if ret := call(t, r, "fx_document", `{}`); ret.Content != "Remember the milk." {
		t.Errorf("document: %+v", ret)
	}
}

func TestCallTimeoutCancelsOnServer(t *testing.T) {
	url := httpServer(t)
	ts := open(t, "fixture", mcp.StreamableHTTP(url, nil), mcp.Options{Defaults: toolset.Defaults{Timeout: 300 * time.Millisecond}})
	r := registry(t, ts)
	start := time.Now()
	ret := call(t, r, "slow", `{"seconds":30}`)
	if ret.ErrorKind() != tool.ErrorKindTimeout || time.Since(start) > 10*time.Second {
		t.Fatalf("slow: %+v after %s", ret, time.Since(start))
	}
	// notifications/cancelled reached the server, which cancelled the work.
	deadline := time.Now().Add(10 * time.Second)
	for {
		ret := call(t, r, "cancelled_calls", `{}`)
		if ret.Content == "1" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the server saw no cancellation: %+v", ret)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func TestListChangedRefreshesTheCache(t *testing.T) {
	url := httpServer(t)
	ts := open(t, "fixture", mcp.StreamableHTTP(url, nil), mcp.Options{})
	tools, err := ts.Tools(nil)
	if err != nil {
		t.Fatal(err)
	}
	n := len(tools)
	r := registry(t, ts)
	if ret := call(t, r, "add_tool", `{"name":"late"}`); ret.IsError {
		t.Fatalf("add_tool: %+v", ret)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		tools, err = ts.Tools(nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(tools) == n+1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("still %d tools after list_changed", len(tools))
		}
		time.Sleep(50 * time.Millisecond)
	}
	if ret := call(t, registry(t, ts), "late", `{}`); ret.Content != "added" {
		t.Errorf("late: %+v", ret)
	}
}

func TestServerThatCannotStart(t *testing.T) {
	cases := map[string]mcp.Transport{
		"missing command": mcp.Stdio("/nonexistent/mcp-server"),
		"exits at once":   mcp.Stdio("sh", "-c", "echo boom: no config >&2; exit 3"),
		"never answers":   mcp.Stdio("sleep", "60"),
		"nothing listens": mcp.StreamableHTTP("http://127.0.0.1:9/mcp", nil),
	}
	for name, tr := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ts := open(t, "broken", tr, mcp.Options{InitTimeout: time.Second})
			start := time.Now()
			_, err := ts.Tools(nil)
			if !errors.Is(err, mcp.ErrUnavailable) || !strings.Contains(err.Error(), `toolset "broken"`) {
				t.Fatalf("err = %v", err)
			}
			if name == "exits at once" && !strings.Contains(err.Error(), "boom: no config") {
				t.Errorf("the error does not show the server's stderr: %v", err)
			}
			if d := time.Since(start); d > 10*time.Second {
				t.Errorf("took %s", d)
			}
		})
	}
}

func TestConfigErrors(t *testing.T) {
	for _, ts := range []*mcp.Toolset{
		mcp.New("", mcp.Stdio("x"), mcp.Options{}),
		mcp.New("a", mcp.Transport{}, mcp.Options{}),
		mcp.New("a", mcp.StreamableHTTP("ftp://x", nil), mcp.Options{}),
		mcp.New("a", mcp.Stdio("x"), mcp.Options{InitTimeout: -1}),
	} {
		if _, err := ts.Tools(nil); !errors.Is(err, mcp.ErrConfig) {
			t.Errorf("err = %v", err)
		}
	}
}

func TestStdioCallTimesOutAndTheServerStaysUsable(t *testing.T) {
	ts := open(t, "everything", everything(t), mcp.Options{Defaults: toolset.Defaults{Timeout: 500 * time.Millisecond}})
	r := registry(t, ts)
	start := time.Now()
	ret := call(t, r, "trigger-long-running-operation", `{"duration":30,"steps":3}`)
	if ret.ErrorKind() != tool.ErrorKindTimeout || time.Since(start) > 10*time.Second {
		t.Fatalf("long-running operation: %+v after %s", ret, time.Since(start))
	}
	t.Logf("timed out after %s", time.Since(start))
	if ret := call(t, r, "echo", `{"message":"still here"}`); ret.Content != "Echo: still here" {
		t.Fatalf("echo after the timeout: %+v", ret)
	}
}
