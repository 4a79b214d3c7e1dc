package bridge

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/tool"
)

// dynamicHost serves a run's toolset items with answer (and its calls
// with "ok"), recording each item as "kind:step" ("refresh:step" for a
// refreshing prepare), and returns the done item.
func dynamicHost(t *testing.T, run *hostRun, answer func(it toolsetItem) string) (hostItem, []string) {
	t.Helper()
	rd := &reader{fd: run.rfd}
	var seen []string
	for {
		for _, raw := range rd.next(t) {
			if raw[0] == '[' {
				it, err := decodeHostItem(raw)
				if err != nil {
					t.Fatal(err)
				}
				run.complete(it.Token, []byte(`{"ok":true,"content":"ok"}`))
				continue
			}
			var it toolsetItem
			if err := json.Unmarshal(raw, &it); err != nil {
				t.Fatalf("%s: %v", raw, err)
			}
			switch it.Kind {
			case itemToolsetEnter, itemToolsetExit, itemToolsetPrepare:
				phase := strings.TrimPrefix(it.Kind, "toolset_")
				if it.Refresh {
					phase = "refresh"
				}
				seen = append(seen, fmt.Sprintf("%s:%d", phase, it.Context.RunStep))
				if a := answer(it); a != "" {
					run.complete(it.Token, []byte(a))
				}
			case "cancel", "event":
			case "done":
				var done hostItem
				if err := json.Unmarshal(raw, &done); err != nil {
					t.Fatal(err)
				}
				return done, seen
			default:
				t.Fatalf("unexpected item %s", raw)
			}
		}
	}
}

func dynamicRun(t *testing.T, spec string, responses ...model.Message) (*hostRun, *model.TestModel) {
	t.Helper()
	tm := model.NewTestModel(responses...)
	h := handles.add(&modelHandle{m: tm})
	t.Cleanup(func() { handles.remove(h) })
	var s agentSpec
	if err := decodeStrict([]byte(strings.ReplaceAll(spec, "MODEL", jsonInt(h))), &s); err != nil {
		t.Fatal(err)
	}
	a, err := buildAgent(s)
	if err != nil {
		t.Fatal(err)
	}
	rh, run, err := startRun(a.NewSession(), runSpec{Prompt: "go"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { handles.remove(rh); run.close() })
	return run, tm
}

func TestHostDynamicToolsetPhases(t *testing.T) {
	run, tm := dynamicRun(t, `{"model":MODEL,"toolsets":[{"name":"docs","id":"d","dynamic":{"callback":5,"per_step":true},
		"layers":[{"kind":"prefixed","prefix":"ws"}]}]}`,
		model.CallsResponse(model.Call("c1", "ws_lookup_0", map[string]any{})), model.Response(model.TextPart("done")))
	done, seen := dynamicHost(t, run, func(it toolsetItem) string {
		if it.Callback != 5 || it.Toolset != "docs" || it.Context.RunID == "" {
			t.Errorf("item %+v", it)
		}
		if it.Kind != itemToolsetPrepare {
			return `{"ok":true}`
		}
		return fmt.Sprintf(`{"ok":true,"tools":[{"id":9,"definition":{"name":"lookup_%d"}}],"instructions":["Step %d."],
			"toolsets":[{"name":"more","tools":[{"id":10,"definition":{"name":"more_%d"}}]}]}`,
			it.Context.RunStep, it.Context.RunStep, it.Context.RunStep)
	})
	if done.Error != nil || done.Result == nil || done.Result.Output != "done" {
		t.Fatalf("done %+v %+v", done, done.Error)
	}
	if got := strings.Join(seen, ","); got != "enter:0,prepare:0,prepare:1,exit:2" {
		t.Fatalf("phases %s", got)
	}
	reqs := tm.Requests()
	var names []string
	for _, d := range reqs[1].Params.Tools {
		names = append(names, d.Name)
	}
	if strings.Join(names, ",") != "ws_lookup_1,ws_more_1" {
		t.Fatalf("tools at step 1: %v", names)
	}
	if ins := reqs[1].Messages[len(reqs[1].Messages)-1].Instructions; !strings.Contains(ins, `name="ws_docs">Step 1.`) {
		t.Fatalf("instructions %q", ins)
	}
}

func TestHostDynamicToolsetFailuresAndTimeouts(t *testing.T) {
	cases := []struct {
		name, lifecycle string
		answer          func(it toolsetItem) string
		want, phases    string
	}{
		{"a failing prepare ends the run", `{}`, func(it toolsetItem) string {
			if it.Kind == itemToolsetPrepare {
				return `{"ok":false,"message":"prepare() raised ValueError: boom"}`
			}
			return `{"ok":true}`
		}, `toolset "docs": read: prepare() raised ValueError: boom`, "enter:0,prepare:0,exit:0"},
		{"a slow prepare times out", `{"read_timeout_ms":30}`, func(it toolsetItem) string {
			if it.Kind == itemToolsetPrepare {
				return "" // never answered
			}
			return `{"ok":true}`
		}, `toolset "docs": read timed out after 30ms`, "enter:0,prepare:0,exit:0"},
		{"a failing enter fails the run when asked", `{"fail_on_unavailable":true,"exit_after_run":false}`, func(it toolsetItem) string {
			return `{"ok":false,"message":"enter() raised OSError: down"}`
		}, `toolset "docs": enter: enter() raised OSError: down`, "enter:0"},
		{"a malformed outcome fails the phase", `{"enter_before_prepare":false}`, func(it toolsetItem) string {
			return `{"tools":[]}`
		}, `malformed toolset_prepare outcome`, "prepare:0,exit:0"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			run, _ := dynamicRun(t, `{"model":MODEL,"toolsets":[{"name":"docs","dynamic":{"callback":5},"lifecycle":`+c.lifecycle+`}]}`,
				model.Response(model.TextPart("done")))
			start := time.Now()
			done, seen := dynamicHost(t, run, c.answer)
			if done.Error == nil || done.Error.Type != "config" || !strings.Contains(done.Error.Message, c.want) {
				t.Fatalf("done %+v", done.Error)
			}
			if got := strings.Join(seen, ","); got != c.phases {
				t.Fatalf("phases %s, want %s", got, c.phases)
			}
			if time.Since(start) > 2*time.Second {
				t.Fatalf("took %v", time.Since(start))
			}
		})
	}
}

func TestHostDynamicToolsetSpecErrors(t *testing.T) {
	for spec, want := range map[string]string{
		`{"name":"d","dynamic":{"callback":0}}`:                                   "needs a host callback",
		`{"name":"d","dynamic":{"callback":1},"lifecycle":{"read_timeout_ms":0}}`: "read_timeout_ms must be positive",
		`{"name":"d","dynamic":{"callback":1},"max_retries":-1}`:                  "",
	} {
		var s toolsetSpec
		if err := json.Unmarshal([]byte(spec), &s); err != nil {
			t.Fatal(err)
		}
		_, err := buildToolsets([]toolsetSpec{s})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("%s: %v", spec, err)
		}
	}
}

func TestHostDynamicToolsetOutsideARunHasNoTools(t *testing.T) {
	h, err := newHostDynamic(toolsetSpec{Name: "d", Dynamic: &dynamicSpec{Callback: 1}})
	if err != nil {
		t.Fatal(err)
	}
	rc := &tool.RunContext{Ctx: context.Background()}
	if tools, err := h.Tools(rc); err != nil || tools != nil || h.Instructions(rc) != nil {
		t.Fatalf("%v %v", tools, err)
	}
	if err := h.Enter(context.Background(), rc); err != nil {
		t.Fatal(err)
	}
	if _, err := h.ask(context.Background(), rc, "toolset_other", false); err == nil || !strings.Contains(err.Error(), "unknown toolset item kind") {
		t.Fatalf("err %v", err)
	}
}

// TestToolsetItemEncoding pins the wire form of a toolset item.
func TestToolsetItemEncoding(t *testing.T) {
	b, err := encodeItem(toolsetItem{Kind: itemToolsetPrepare, Token: 3, Callback: 5, Toolset: "docs", Refresh: true,
		Context: prepareContext{RunID: "r", ConversationID: "c", RunStep: 1, Metadata: map[string]any{"k": "v"}, ActiveTags: []string{"a"}}})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"kind":"toolset_prepare","token":3,"callback":5,"toolset":"docs","refresh":true,` +
		`"context":{"run_id":"r","conversation_id":"c","run_step":1,"metadata":{"k":"v"},"active_tags":["a"]}}`
	if string(b) != want {
		t.Fatalf("got  %s\nwant %s", b, want)
	}
}
