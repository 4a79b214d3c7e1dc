package bridge

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"runtime"
	"strings"
	"syscall"
	"testing"

	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/tool"
)

// TestHookItemEncoding pins the hook item's wire shape (starweaver.h).
func TestHookItemEncoding(t *testing.T) {
	b, err := encodeItem(hookItem{Kind: "hook", Token: 7, Hook: 3, Phase: phaseBefore,
		Context: wireContext{RunID: "r", ToolName: "t"}, Arguments: json.RawMessage(`{"a":1}`)})
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if got["kind"] != "hook" || got["token"] != 7.0 || got["hook"] != 3.0 || got["phase"] != "before" {
		t.Fatalf("item = %s", b)
	}
	if _, ok := got["outcome"]; ok {
		t.Fatalf("a before item carries no outcome: %s", b)
	}
	if got["context"].(map[string]any)["tool_name"] != "t" || !reflect.DeepEqual(got["arguments"], map[string]any{"a": 1.0}) {
		t.Fatalf("item = %s", b)
	}
}

// TestEncodeOutcomeRoundTrip: what an after hook observes decodes back to
// the same result or error, so an unchanged outcome survives the host.
func TestEncodeOutcomeRoundTrip(t *testing.T) {
	res, err := decodeOutcome(encodeOutcome(tool.Outcome{Result: tool.Result{Content: map[string]any{"x": 1}, Metadata: map[string]any{"m": "v"}}}))
	if err != nil {
		t.Fatal(err)
	}
	if string(res.Content.(json.RawMessage)) != `{"x":1}` || res.Metadata["m"] != "v" {
		t.Fatalf("result = %+v", res)
	}
	_, err = decodeOutcome(encodeOutcome(tool.Outcome{Err: tool.ModelRetry("again")}))
	if te := tool.AsError(err); te.Kind != tool.ErrorKindModelRetry || te.Message != "again" {
		t.Fatalf("err = %v", err)
	}
}

func TestHookSpecNeedsAPhase(t *testing.T) {
	if _, err := (hookSpec{ID: 1}).build(); err == nil {
		t.Fatal("a hook without phases was accepted")
	}
	h, err := (hookSpec{ID: 1, After: true}).build()
	if err != nil || h.StartBefore != nil || h.StartAfter == nil || h.Before != nil || h.After != nil {
		t.Fatalf("hook = %+v, %v", h, err)
	}
}

// TestToolSpecHooksThenValidators: a tool's validators run after its own
// before-hooks, where core/tool runs validators.
func TestToolSpecHooksThenValidators(t *testing.T) {
	built, err := toolSpec{ID: 9, Definition: tool.Definition{Name: "t"},
		Hooks: []hookSpec{{ID: 1, Name: "audit", Before: true, After: true}}, Validators: []int64{2, 3}}.build()
	if err != nil {
		t.Fatal(err)
	}
	hooks := tool.ConfigOf(built).Hooks
	var names []string
	for _, h := range hooks {
		names = append(names, h.Name)
	}
	if want := []string{"audit", "argument_validator", "argument_validator"}; !reflect.DeepEqual(names, want) {
		t.Fatalf("hooks = %v, want %v", names, want)
	}
	if hooks[1].StartAfter != nil || hooks[1].StartBefore == nil {
		t.Fatal("a validator has a before phase only")
	}
	if _, err := (toolSpec{ID: 9, Definition: tool.Definition{Name: "t"}, Hooks: []hookSpec{{ID: 1}}}).build(); err == nil {
		t.Fatal("a hook without phases was accepted")
	}
}

// TestHostHooksOnAParallelBatch: a batch of host calls with a global and
// a tool host hook runs every phase through the run's pipes, in order
// around each call, and holds no goroutine per call while the host runs
// the hooks or the tools (with one each, 200 calls would hold 200).
func TestHostHooksOnAParallelBatch(t *testing.T) {
	const n = 200
	const global, own = 1000, 2000
	mh, err := buildModel(modelSpec{Kind: "test", Responses: []model.Message{batchOf(n), model.Response(model.TextPart("done"))}})
	if err != nil {
		t.Fatal(err)
	}
	mhandle := handles.add(mh)
	t.Cleanup(func() { handles.remove(mhandle) })
	spec := agentSpec{Model: mhandle, Hooks: []hookSpec{{ID: global, Name: "g", Before: true, After: true}}}
	for i := 0; i < n; i++ {
		spec.Tools = append(spec.Tools, toolSpec{ID: int64(i), Definition: tool.Definition{Name: fmt.Sprintf("t%d", i)},
			Hooks: []hookSpec{{ID: own, Name: "t", Before: true, After: true}}})
	}
	a, err := buildAgent(spec)
	if err != nil {
		t.Fatal(err)
	}
	sess := a.NewSession()
	h, run, err := startRun(sess, runSpec{Prompt: "go"})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { handles.remove(h); run.close() }()
	before := runtime.NumGoroutine()

	answer := func(lines []string) {
		t.Helper()
		if _, err := syscall.Write(run.wfdIn, []byte(strings.Join(lines, "\n")+"\n")); err != nil {
			t.Fatal(err)
		}
	}
	ran := map[string][]string{}
	var heldHooks, heldCalls []string
	most := 0
	rd := &reader{fd: run.rfd}
	for finished := false; !finished; {
		for _, raw := range rd.next(t) {
			if bytes.HasPrefix(raw, []byte(`{"kind":"hook"`)) {
				var it hookItem
				if err := json.Unmarshal(raw, &it); err != nil {
					t.Fatal(err)
				}
				name := it.Context.ToolName
				ran[name] = append(ran[name], fmt.Sprintf("%s:%d", it.Phase, it.Hook))
				switch {
				case it.Phase == phaseBefore:
					var args map[string]any
					if err := json.Unmarshal(it.Arguments, &args); err != nil {
						t.Fatal(err)
					}
					args[fmt.Sprint(it.Hook)] = true
					b, _ := json.Marshal(args)
					line := fmt.Sprintf(`[%d,{"ok":true,"arguments":%s}]`, it.Token, b)
					if it.Hook != global {
						answer([]string{line})
						continue
					}
					// The global before-hooks are held until every call
					// asked for one.
					if heldHooks = append(heldHooks, line); len(heldHooks) == n {
						most = max(most, runtime.NumGoroutine()-before)
						answer(heldHooks)
					}
				case it.Hook == own:
					var out struct {
						Content json.RawMessage `json:"content"`
					}
					if err := json.Unmarshal(it.Outcome, &out); err != nil {
						t.Fatal(err)
					}
					answer([]string{fmt.Sprintf(`[%d,{"ok":true,"outcome":{"ok":true,"content":{"wrapped":%s}}}]`, it.Token, out.Content)})
				default:
					answer([]string{fmt.Sprintf(`[%d,{"ok":true,"keep":true}]`, it.Token)})
				}
				continue
			}
			it, err := decodeHostItem(raw)
			if err != nil {
				t.Fatal(err)
			}
			switch it.Kind {
			case "call":
				name := fmt.Sprintf("t%d", it.Tool)
				ran[name] = append(ran[name], "call")
				if heldCalls = append(heldCalls, fmt.Sprintf(`[%d,{"ok":true,"content":%s}]`, it.Token, it.Arguments)); len(heldCalls) == n {
					most = max(most, runtime.NumGoroutine()-before)
					answer(heldCalls)
				}
			case "done":
				if it.Error != nil || it.Result == nil || it.Result.Output != "done" {
					t.Fatalf("done %+v", it)
				}
				finished = true
			}
		}
	}
	if most > n/4 {
		t.Fatalf("%d goroutines more while %d hooked host calls were held", most, n)
	}
	want := []string{"before:1000", "before:2000", "call", "after:2000", "after:1000"}
	rets := sess.Messages()[2].Returns()
	for i := 0; i < n; i++ {
		name := fmt.Sprintf("t%d", i)
		if !reflect.DeepEqual(ran[name], want) {
			t.Fatalf("%s ran %v, want %v", name, ran[name], want)
		}
		got := mustMarshal(t, rets[i].Content)
		if wantContent := fmt.Sprintf(`{"wrapped":{"1000":true,"2000":true,"i":%d}}`, i); rets[i].IsError || string(got) != wantContent {
			t.Fatalf("return %d: %s, want %s", i, got, wantContent)
		}
	}
}
