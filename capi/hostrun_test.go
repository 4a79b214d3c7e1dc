package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"syscall"
	"testing"
	"time"

	"github.com/starweaver-go/starweaver/core/agent"
	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/tool"
)

// waitReadable blocks until fd is readable (or the deadline passes).
func waitReadable(t testing.TB, fd int) {
	t.Helper()
	var set syscall.FdSet
	set.Bits[fd/64] |= 1 << (uint(fd) % 64)
	tv := syscall.Timeval{Sec: 10}
	n, err := syscall.Select(fd+1, &set, nil, nil, &tv)
	if err != nil || n != 1 {
		t.Fatalf("select: n=%d err=%v", n, err)
	}
	var buf [64]byte
	_, _ = syscall.Read(fd, buf[:])
}

type hostItem struct {
	Kind      string          `json:"kind"`
	Token     int64           `json:"token"`
	Tool      int64           `json:"tool"`
	Arguments json.RawMessage `json:"arguments"`
	Result    *struct {
		Status string `json:"status"`
		Output string `json:"output"`
	} `json:"result"`
	Error *abiError `json:"error"`
}

// host serves a run like the Python bridge: it drains items and answers
// each call with answer(item); it returns the done item.
func host(t testing.TB, run *hostRun, answer func(hostItem) string) hostItem {
	t.Helper()
	for {
		waitReadable(t, run.rfd)
		var items []hostItem
		if err := json.Unmarshal(run.drain(), &items); err != nil {
			t.Fatal(err)
		}
		for _, it := range items {
			switch it.Kind {
			case "call":
				run.complete(it.Token, []byte(answer(it)))
			case "done":
				return it
			}
		}
	}
}

func newTestAgent(t testing.TB, n int, responses ...model.Message) *agent.Agent {
	t.Helper()
	mh, err := buildModel(modelSpec{Kind: "test", Responses: responses})
	if err != nil {
		t.Fatal(err)
	}
	h := handles.add(mh)
	t.Cleanup(func() { handles.remove(h) })
	spec := agentSpec{Model: h}
	for i := 0; i < n; i++ {
		spec.Tools = append(spec.Tools, toolSpec{ID: int64(i), Definition: tool.Definition{Name: fmt.Sprintf("t%d", i)}})
	}
	a, err := buildAgent(spec)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func batchOf(n int) model.Message {
	var cs []model.ToolCall
	for i := 0; i < n; i++ {
		cs = append(cs, model.Call(fmt.Sprintf("c%d", i), fmt.Sprintf("t%d", i), map[string]int{"i": i}))
	}
	return model.CallsResponse(cs...)
}

func TestHostRunRoundTrip(t *testing.T) {
	a := newTestAgent(t, 3, batchOf(3), model.Response(model.TextPart("done")))
	h, _, err := startRun(a.NewSession(), runSpec{Prompt: "go"})
	if err != nil {
		t.Fatal(err)
	}
	run, err := lookup[*hostRun](h)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[int64]bool{}
	done := host(t, run, func(it hostItem) string {
		seen[it.Tool] = true
		return `{"ok":true,"content":` + string(it.Arguments) + `}`
	})
	if done.Error != nil || done.Result.Status != "completed" || done.Result.Output != "done" || len(seen) != 3 {
		t.Fatalf("done %+v seen %v", done, seen)
	}
	if _, err := handles.remove(h); !err {
		t.Fatal("run handle missing")
	}
	run.close()
}

func TestLateCompletionIsDropped(t *testing.T) {
	run, err := newHostRun()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	run.cancel = cancel
	defer run.close()
	errc := make(chan error, 1)
	go func() {
		_, err := run.await(ctx, func(tok int64) ([]byte, error) { return []byte(`{"kind":"call"}`), nil })
		errc <- err
	}()
	waitReadable(t, run.rfd)
	if got := string(run.drain()); got != `[{"kind":"call"}]` {
		t.Fatalf("drained %s", got)
	}
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatalf("await err = %v", err)
	}
	waitReadable(t, run.rfd)
	if got := string(run.drain()); got != `[{"kind":"cancel","token":1}]` {
		t.Fatalf("drained %s", got)
	}
	if run.complete(1, []byte(`{}`)) {
		t.Fatal("late completion delivered")
	}
}

func TestDecodeOutcome(t *testing.T) {
	res, err := decodeOutcome([]byte(`{"ok":true,"content":{"a":1},"model_content":"short","private_metadata":{"trace":"x"}}`))
	if err != nil || string(res.Content.(json.RawMessage)) != `{"a":1}` || string(res.ModelContent.(json.RawMessage)) != `"short"` || res.AppValue != nil {
		t.Fatalf("%+v %v", res, err)
	}
	_, err = decodeOutcome([]byte(`{"ok":false,"kind":"approval_required","message":"deploy","metadata":{"risk":"high"}}`))
	var te *tool.Error
	if !errors.As(err, &te) || te.Kind != tool.ErrApprovalRequired || te.Metadata["risk"] != "high" {
		t.Fatalf("err = %v", err)
	}
	_, err = decodeOutcome([]byte(`{"ok":false,"kind":"no_such_kind","message":"x"}`))
	if tool.KindOf(err) != tool.ErrExecution {
		t.Fatalf("unknown kind became %v", tool.KindOf(err))
	}
	if _, err = decodeOutcome([]byte(`not json`)); tool.KindOf(err) != tool.ErrExecution {
		t.Fatalf("garbage outcome: %v", err)
	}
}

func TestDecodeCompletions(t *testing.T) {
	got, err := decodeCompletions([]byte(`[[1,{"ok":true}],[2,{"ok":false}]]`))
	if err != nil || len(got) != 2 || got[1].Token != 2 || string(got[0].Outcome) != `{"ok":true}` {
		t.Fatalf("%+v %v", got, err)
	}
	for _, bad := range []string{`{}`, `[[1]]`, `[["x",{}]]`, ``} {
		if _, err := decodeCompletions([]byte(bad)); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// BenchmarkHostRun measures the Go side of a host-driven run whose model
// asks for n calls of distinct host tools at once, answered in-process.
func BenchmarkHostRun(b *testing.B) {
	for _, n := range []int{1, 100, 1000} {
		b.Run(fmt.Sprintf("calls=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				a := newTestAgent(b, n, batchOf(n), model.Response(model.TextPart("done")))
				b.StartTimer()
				h, _, err := startRun(a.NewSession(), runSpec{Prompt: "go"})
				if err != nil {
					b.Fatal(err)
				}
				run, _ := lookup[*hostRun](h)
				host(b, run, func(hostItem) string { return `{"ok":true,"content":1}` })
				handles.remove(h)
				run.close()
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/call")
		})
	}
	_ = time.Second
}

func TestAppendCallItemMatchesEncodingJSON(t *testing.T) {
	approval := &tool.Approval{Status: "approved", Metadata: map[string]any{"by": "ui"}}
	for _, tc := range []*tool.Context{
		{RunID: "run_1", ConversationID: "conv", RunStep: 2, ToolCallID: "c1", ToolName: "add", Retry: 1, MaxRetries: 3},
		{RunID: "r\"un\n\x00é<&>", ToolCallID: "\u2028", ToolName: "t\\", Approval: approval, Metadata: map[string]any{"k": []int{1}}},
	} {
		args := json.RawMessage(`{"a": [1, 2]}`)
		got, err := appendCallItem(nil, 7, 9, tc, args)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := json.Marshal(callItem{Kind: "call", Token: 7, Tool: 9, Arguments: args, Context: wireContextOf(tc)})
		var g, w any
		if err := json.Unmarshal(got, &g); err != nil {
			t.Fatalf("invalid JSON %s: %v", got, err)
		}
		_ = json.Unmarshal(want, &w)
		gb, _ := json.Marshal(g)
		wb, _ := json.Marshal(w)
		if string(gb) != string(wb) {
			t.Fatalf("got  %s\nwant %s", gb, wb)
		}
	}
}

func TestDecodeOutcomeFastPath(t *testing.T) {
	for _, tc := range []struct{ in, content string }{
		{`{"ok":true,"content":{"total":5}}`, `{"total":5}`},
		{`{"ok":true,"content":"a}b"}`, `"a}b"`},
		{`{"ok":true,"content":[1,2],"metadata":{"x":1}}`, `[1,2]`},
	} {
		res, err := decodeOutcome([]byte(tc.in))
		if err != nil || string(res.Content.(json.RawMessage)) != tc.content {
			t.Fatalf("%s: %+v %v", tc.in, res, err)
		}
	}
	res, err := decodeOutcome([]byte(`{"ok":true,"content":[1,2],"metadata":{"x":1}}`))
	if err != nil || res.Metadata["x"] != float64(1) {
		t.Fatalf("metadata lost: %+v %v", res, err)
	}
}
