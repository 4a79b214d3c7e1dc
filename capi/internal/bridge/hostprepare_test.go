package bridge

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/tool"
)

// prepareHost serves a run's prepare and instructions items with answer
// and returns the done item.
func prepareHost(t *testing.T, run *hostRun, answer func(kind string, callback int64, ctx prepareContext, defs []tool.Definition) string) hostItem {
	t.Helper()
	rd := &reader{fd: run.rfd}
	for {
		for _, raw := range rd.next(t) {
			var it struct {
				Kind        string            `json:"kind"`
				Token       int64             `json:"token"`
				Callback    int64             `json:"callback"`
				Context     prepareContext    `json:"context"`
				Definitions []tool.Definition `json:"definitions"`
			}
			if err := json.Unmarshal(raw, &it); err != nil {
				t.Fatalf("%s: %v", raw, err)
			}
			switch it.Kind {
			case "prepare", "instructions":
				run.complete(it.Token, []byte(answer(it.Kind, it.Callback, it.Context, it.Definitions)))
			case "done":
				var done hostItem
				if err := json.Unmarshal(raw, &done); err != nil {
					t.Fatal(err)
				}
				return done
			default:
				t.Fatalf("unexpected item %s", raw)
			}
		}
	}
}

func preparedAgentRun(t *testing.T, spec string) (*hostRun, *model.TestModel) {
	t.Helper()
	tm := model.NewTestModel(model.Response(model.TextPart("done")))
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
	rh, run, err := startRun(a.NewSession(), runSpec{Prompt: "go", ActiveTags: []string{"beta"}, Metadata: map[string]any{"tenant": "acme"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { handles.remove(rh); run.close() })
	return run, tm
}

func jsonInt(n int64) string { b, _ := json.Marshal(n); return string(b) }

func TestHostPreparationsShapeTheRequest(t *testing.T) {
	run, tm := preparedAgentRun(t, `{"model":MODEL,
		"tools":[{"id":1,"definition":{"name":"hidden"},"prepare":7},{"id":2,"definition":{"name":"kept","description":"old"},"prepare":8}],
		"toolsets":[{"name":"ops","tools":[{"id":3,"definition":{"name":"a"}},{"id":4,"definition":{"name":"b"}}],
			"instructions":["static"],"instructions_callback":10,"layers":[{"kind":"prepared","callback":9},{"kind":"prefixed","prefix":"x"}]}]}`)
	var contexts []prepareContext
	done := prepareHost(t, run, func(kind string, cb int64, ctx prepareContext, defs []tool.Definition) string {
		contexts = append(contexts, ctx)
		switch cb {
		case 7:
			return `{"ok":true,"definitions":[]}`
		case 8:
			return `{"ok":true,"definitions":[{"name":"ignored","description":"new"}]}`
		case 9:
			if len(defs) != 2 {
				t.Errorf("toolset definitions %+v", defs)
			}
			return `{"ok":true,"definitions":[{"name":"b","description":"only b"}]}`
		case 10:
			return `{"ok":true,"instructions":"dynamic"}`
		}
		t.Errorf("unknown callback %d (%s)", cb, kind)
		return `{"ok":false,"message":"unknown"}`
	})
	if done.Error != nil || done.Result.Status != "completed" {
		t.Fatalf("done %+v", done)
	}
	req := tm.Requests()[0]
	var got []string
	for _, d := range req.Params.Tools {
		got = append(got, d.Name+":"+d.Description)
	}
	if strings.Join(got, ",") != "kept:new,x_b:only b" {
		t.Fatalf("tools %v", got)
	}
	if ins := req.Messages[len(req.Messages)-1].Instructions; !strings.Contains(ins, "static\n\ndynamic") {
		t.Fatalf("instructions %q", ins)
	}
	for _, c := range contexts {
		if c.RunID == "" || c.Metadata["tenant"] != "acme" || len(c.ActiveTags) != 1 || c.ActiveTags[0] != "beta" {
			t.Fatalf("context %+v", c)
		}
	}
}

func TestFailingHostPreparationEndsTheRun(t *testing.T) {
	run, tm := preparedAgentRun(t, `{"model":MODEL,"tools":[{"id":1,"definition":{"name":"t"},"prepare":7}]}`)
	done := prepareHost(t, run, func(string, int64, prepareContext, []tool.Definition) string {
		return `{"ok":false,"message":"the available callback of tool 't' raised ValueError: boom"}`
	})
	if done.Error == nil || done.Error.Type != "config" || !strings.Contains(done.Error.Message, "raised ValueError: boom") {
		t.Fatalf("done %+v", done)
	}
	if len(tm.Requests()) != 0 {
		t.Fatal("the model was asked")
	}
}

func TestHostPreparationsOutsideARunKeepDefinitions(t *testing.T) {
	d := tool.Definition{Name: "t", Description: "kept"}
	if got, ok := hostToolPrepare(1)(&tool.RunContext{}, d); !ok || got.Description != "kept" {
		t.Fatalf("got %+v %v", got, ok)
	}
	if out := hostPrepare(nil, 1, []tool.Definition{d}); out != nil {
		t.Fatalf("out %+v", out)
	}
}
