package bridge

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/starweaver-go/starweaver/core/intent"
	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/tool"
)

// intentSpec is an agent over the store handle st's intent journal with
// the host tool "queue" (id 1), answering with responses.
func intentSpec(t *testing.T, st int64, responses ...model.Message) agentSpec {
	t.Helper()
	h := handles.add(&modelHandle{m: model.NewTestModel(responses...)})
	t.Cleanup(func() { handles.remove(h) })
	return agentSpec{Model: h, IntentJournal: st, Tools: []toolSpec{{ID: 1, Definition: tool.Definition{Name: "queue"}}}}
}

func TestIntentJournalRealisesAHostToolsIntents(t *testing.T) {
	noLeaks(t)
	settleDatabases(t)
	st := openStoreHandle(t, sqliteSpec(":memory:"))
	a, err := buildAgent(intentSpec(t, st, model.CallsResponse(model.Call("c1", "queue", map[string]any{})), model.Response(model.TextPart("queued"))))
	if err != nil {
		t.Fatal(err)
	}
	s := a.NewSession()
	done := runSession(t, s, runSpec{Prompt: "queue"}, func(hostItem) string {
		// The intent names no session: the call's is given to it.
		return `{"ok":true,"content":"queued","intents":{"protocol_version":1,"intents":[` +
			`{"kind":"start_process","intent":{"request":{"id":"x","originator":"report"}}}]}}`
	})
	if done.Error != nil || done.Result.Output != "queued" {
		t.Fatalf("run: %+v %+v", done.Result, done.Error)
	}
	var ret *tool.Return
	for _, m := range s.Messages() {
		for _, r := range m.Returns() {
			if r.ToolCallID == "c1" {
				ret = &r
			}
		}
	}
	if ret == nil {
		t.Fatal("no return of c1")
	}
	outs, _ := json.Marshal(ret.Metadata[tool.MetaIntents])
	if !strings.Contains(string(outs), `"status":"executed"`) || !strings.Contains(string(outs), `"kind":"start_process"`) {
		t.Fatalf("starweaver_intents: %s", outs)
	}
	if c, _ := ret.Content.(string); !strings.Contains(c, "queued\n[tool intent start_process #0 executed: ") {
		t.Fatalf("content %q", c)
	}
}

func TestIntentPausedHostToolIsAUserError(t *testing.T) {
	noLeaks(t)
	settleDatabases(t)
	st := openStoreHandle(t, sqliteSpec(":memory:"))
	a, err := buildAgent(intentSpec(t, st, model.CallsResponse(model.Call("c1", "queue", map[string]any{})), model.Response(model.TextPart("ok"))))
	if err != nil {
		t.Fatal(err)
	}
	s := a.NewSession()
	done := runSession(t, s, runSpec{Prompt: "queue"}, func(hostItem) string {
		return fmt.Sprintf(`{"ok":false,"kind":"call_deferred","message":"later","intents":{"protocol_version":1,"intents":[`+
			`{"kind":"cancel_process","intent":{"session_id":%q,"process_id":"p"}}]}}`, s.ID())
	})
	if done.Error != nil {
		t.Fatalf("run: %+v", done.Error)
	}
	for _, m := range s.Messages() {
		for _, r := range m.Returns() {
			if r.ToolCallID == "c1" && r.ErrorKind() != tool.ErrorKindUserError {
				t.Fatalf("a deferral with intents returned %q", r.ErrorKind())
			}
		}
	}
}

func TestIntentIngressThroughTheABI(t *testing.T) {
	noLeaks(t)
	settleDatabases(t)
	ctx := context.Background()
	st := openStoreHandle(t, sqliteSpec(":memory:"))
	a, err := buildAgent(intentSpec(t, st))
	if err != nil {
		t.Fatal(err)
	}
	key, err := toolIntentKey([]byte(`{"session_id":"session-fig1292","scope":{"kind":"turn","id":"turn-7"},"call_id":"call-3","index":2}`))
	if err != nil || !strings.Contains(string(key), `"replay_key":"tool-intent:v1:sha256:8cd893b79abe66a4a894753ab43053964c7bc4253a841916235b90aeedf50719"`) {
		t.Fatalf("golden key: %s %v", key, err)
	}
	req := `{"session_id":"s1","scope":{"kind":"process","id":"host"},"call_id":"spawn","index":0,` +
		`"intent":{"kind":"start_process","intent":{"session_id":"s1","request":{"id":"x"},"on_parent_end":"abandon"}}}`
	first, err := toolIntentsSubmit(ctx, a, []byte(req))
	if err != nil || !strings.HasPrefix(string(first), `{"replayed":false,`) {
		t.Fatalf("first submit: %s %v", first, err)
	}
	again, err := toolIntentsSubmit(ctx, a, []byte(req))
	if err != nil || string(again) != strings.Replace(string(first), `"replayed":false`, `"replayed":true`, 1) {
		t.Fatalf("second submit:\n%s\n%s %v", first, again, err)
	}
	other := strings.Replace(req, `"abandon"`, `"cancel"`, 1)
	if _, err := toolIntentsSubmit(ctx, a, []byte(other)); toABIError(err).Type != "intent_identity_bound_to_different_intent" {
		t.Fatalf("rebinding a key: %v", err)
	}
	foreign := strings.Replace(req, `"intent":{"session_id":"s1"`, `"intent":{"session_id":"s2"`, 1)
	if _, err := toolIntentsSubmit(ctx, a, []byte(foreign)); toABIError(err).Type != "intent_session_mismatch" {
		t.Fatalf("a foreign intent: %v", err)
	}
	big := strings.Replace(req, `"request":{"id":"x"}`, `"request":{"id":"x","input":{"pad":"`+strings.Repeat("x", 70*1024)+`"}}`, 1)
	big = strings.Replace(big, `"call_id":"spawn"`, `"call_id":"big"`, 1)
	if _, err := toolIntentsSubmit(ctx, a, []byte(big)); toABIError(err).Type != "intent_refused" || toABIError(err).Code != "canonical_byte_budget_exceeded" {
		t.Fatalf("an oversized intent: %+v", toABIError(err))
	}
	settled, err := toolIntentsSettle(ctx, a, []byte(`{"session_id":"s1","scope":{"kind":"process","id":"host"}}`))
	if err != nil || !strings.Contains(string(settled), `"result":"abandoned"`) {
		t.Fatalf("settle: %s %v", settled, err)
	}
	plain, err := buildAgent(agentSpec{Model: intentSpec(t, st).Model})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := toolIntentsSubmit(ctx, plain, []byte(req)); toABIError(err).Type != "config" {
		t.Fatalf("an agent without an intent journal: %v", err)
	}
}

func TestIntentSlugsAreExported(t *testing.T) {
	for _, s := range intent.ErrorSlugs() {
		if !slices.Contains(abiErrorTypes, s) {
			t.Errorf("slug %q is not in the exported list", s)
		}
	}
}
