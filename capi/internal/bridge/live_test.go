package bridge

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/starweaver-go/starweaver/core/agent"
	"github.com/starweaver-go/starweaver/core/model"
)

// liveRun starts a run of a fresh session of a from the JSON run spec and
// returns its handle, its run and the session.
func liveRun(t *testing.T, a *agent.Agent, spec string) (int64, *hostRun, *agent.Session) {
	t.Helper()
	var rs runSpec
	if err := decodeStrict([]byte(spec), &rs); err != nil {
		t.Fatal(err)
	}
	sess := a.NewSession()
	h, run, err := startRun(sess, rs)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if _, ok := handles.remove(h); ok {
			run.close()
		}
	})
	return h, run, sess
}

// serveEvents is serve that also returns the events the run posted.
func serveEvents(t *testing.T, run *hostRun, reply func(hostItem)) (hostItem, []agent.Event) {
	t.Helper()
	rd := &reader{fd: run.rfd}
	var evs []agent.Event
	for {
		for _, raw := range rd.next(t) {
			var ev eventItem
			if json.Unmarshal(raw, &ev) == nil && ev.Kind == "event" {
				evs = append(evs, ev.Event)
				continue
			}
			it, err := decodeHostItem(raw)
			if err != nil {
				t.Fatal(err)
			}
			switch it.Kind {
			case "call":
				reply(it)
			case "done":
				return it, evs
			}
		}
	}
}

func TestDeltasSpecKey(t *testing.T) {
	a := newTestAgent(t, 0, model.Response(model.TextPart("hello")))
	_, run, _ := liveRun(t, a, `{"prompt":"go","events":true,"deltas":true}`)
	done, evs := serveEvents(t, run, nil)
	if done.Error != nil {
		t.Fatal(done.Error)
	}
	var kinds []string
	for _, ev := range evs {
		kinds = append(kinds, ev.Kind)
		if ev.Kind == agent.EventTextDelta {
			b, _ := json.Marshal(ev)
			if want := `"delta":{"kind":"text","text":"hello"}}`; !strings.HasSuffix(string(b), want) {
				t.Fatalf("text_delta %s", b)
			}
		}
	}
	if got := strings.Join(kinds, " "); got != "run_start model_request text_delta model_response usage run_complete" {
		t.Fatalf("events %s", got)
	}
}

func TestEagerDispatchSpecKey(t *testing.T) {
	mh, err := buildModel(modelSpec{Kind: "test"})
	if err != nil {
		t.Fatal(err)
	}
	h := handles.add(mh)
	defer handles.remove(h)
	for _, spec := range []string{`{"model":%d,"eager_dispatch":false}`, `{"model":%d,"eager_dispatch":true}`} {
		var s agentSpec
		if err := decodeStrict([]byte(strings.Replace(spec, "%d", jsonInt(h), 1)), &s); err != nil {
			t.Fatal(err)
		}
		if _, err := buildAgent(s); err != nil {
			t.Fatal(err)
		}
	}
	var s agentSpec
	if err := decodeStrict([]byte(`{"eager_dispatch":"no"}`), &s); err == nil {
		t.Fatal("a string eager_dispatch was accepted")
	}
}

// A text steered while a call runs reaches the next request; once the run
// ended, sw_run_steer reports 1.
func TestRunSteer(t *testing.T) {
	noLeaks(t)
	a := newTestAgent(t, 1, batchOf(1), model.Response(model.TextPart("done")))
	h, run, sess := liveRun(t, a, `{"prompt":"go"}`)
	done, _ := serveEvents(t, run, func(it hostItem) {
		if s := abi.RunSteer(h, []byte("also this"), none); s.RC != 0 {
			t.Errorf("sw_run_steer = %+v", s)
		}
		run.complete(it.Token, []byte(`{"ok":true,"content":"ok"}`))
	})
	if done.Error != nil || done.Result.Status != "completed" {
		t.Fatalf("done %+v", done)
	}
	<-run.finished
	msgs := sess.Messages()
	last := msgs[len(msgs)-2] // the request before the final answer
	if p := last.Parts[len(last.Parts)-1]; p.Kind != model.KindUserPrompt || p.Content[0].Text != "also this" {
		t.Fatalf("last request %+v", last)
	}
	if s := abi.RunSteer(h, []byte("late"), none); s.RC != 1 {
		t.Fatalf("sw_run_steer after the end = %+v", s)
	}
}

// sw_run_interrupt ends the run cancelled with its reason while a call
// runs.
func TestRunInterrupt(t *testing.T) {
	noLeaks(t)
	a := newTestAgent(t, 1, batchOf(1), model.Response(model.TextPart("never")))
	h, run, _ := liveRun(t, a, `{"prompt":"go","events":true}`)
	done, evs := serveEvents(t, run, func(hostItem) {
		if s := abi.RunInterrupt(h, []byte("user pressed stop"), none); s.RC != 0 {
			t.Errorf("sw_run_interrupt = %+v", s)
		}
	})
	if done.Error == nil || done.Error.Type != "cancelled" || !strings.Contains(done.Error.Message, "user pressed stop") {
		t.Fatalf("done %+v", done)
	}
	last := evs[len(evs)-1]
	if last.Kind != agent.EventRunCancelled || !strings.Contains(last.Error, "user pressed stop") || last.Custom.Payload["reason"] != "user pressed stop" {
		t.Fatalf("last event %+v", last)
	}
}

// A traced run sends calls of context-free tools with their context, so
// the host learns each call's tool_call_id.
func TestTraceSpecKeySendsCallContext(t *testing.T) {
	for _, traced := range []bool{false, true} {
		a := newTestAgent(t, 1, batchOf(1), model.Response(model.TextPart("done")))
		spec := `{"prompt":"go"}`
		if traced {
			spec = `{"prompt":"go","trace":true}`
		}
		_, run, _ := liveRun(t, a, spec)
		rd := &reader{fd: run.rfd}
		var call []json.RawMessage
	read:
		for {
			for _, raw := range rd.next(t) {
				if json.Unmarshal(raw, &call) == nil {
					break read
				}
			}
		}
		want := 3
		if traced {
			want = 12
		}
		if len(call) != want {
			t.Fatalf("trace=%v: call item has %d fields, want %d", traced, len(call), want)
		}
		if traced && string(call[4]) != `"c0"` {
			t.Fatalf("tool_call_id field %s", call[4])
		}
		var token int64
		_ = json.Unmarshal(call[0], &token)
		run.complete(token, []byte(`{"ok":true,"content":"ok"}`))
		if done, _ := serveEvents(t, run, nil); done.Error != nil {
			t.Fatal(done.Error)
		}
	}
}
