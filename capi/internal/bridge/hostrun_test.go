package bridge

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/starweaver-go/starweaver/core/agent"
	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/tool"
)

// reader reads a run's items from its pipe the way the host does.
type reader struct {
	fd      int
	partial []byte
}

// next blocks until at least one whole item arrived and returns them all.
func (rd *reader) next(t testing.TB) []json.RawMessage {
	t.Helper()
	for {
		var set syscall.FdSet
		set.Bits[rd.fd/64] |= 1 << (uint(rd.fd) % 64)
		tv := syscall.Timeval{Sec: 10}
		n, err := syscall.Select(rd.fd+1, &set, nil, nil, &tv)
		if err == syscall.EINTR { // profiling signals interrupt select
			continue
		}
		if err != nil || n != 1 {
			t.Fatalf("select: n=%d err=%v", n, err)
		}
		var buf [1 << 16]byte
		for {
			k, err := syscall.Read(rd.fd, buf[:])
			if k > 0 {
				rd.partial = append(rd.partial, buf[:k]...)
			}
			if err != nil || k < len(buf) {
				break
			}
		}
		end := bytes.LastIndexByte(rd.partial, '\n')
		if end < 0 {
			continue
		}
		var items []json.RawMessage
		for _, line := range bytes.Split(rd.partial[:end], []byte{'\n'}) {
			items = append(items, json.RawMessage(append([]byte(nil), line...)))
		}
		rd.partial = append([]byte(nil), rd.partial[end+1:]...)
		return items
	}
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

// decodeHostItem reads an item in either of its forms (a compact call array
// or an object).
func decodeHostItem(raw json.RawMessage) (hostItem, error) {
	var it hostItem
	if len(raw) > 0 && raw[0] == '[' {
		var arr []json.RawMessage
		if err := json.Unmarshal(raw, &arr); err != nil || (len(arr) != 12 && len(arr) != 3) {
			return it, fmt.Errorf("bad compact item %s: %v", raw, err)
		}
		it.Kind, it.Arguments = "call", arr[len(arr)-1]
		if err := json.Unmarshal(arr[0], &it.Token); err != nil {
			return it, err
		}
		return it, json.Unmarshal(arr[1], &it.Tool)
	}
	return it, json.Unmarshal(raw, &it)
}

// host serves a run like the Python bridge: it reads items and answers
// each call with answer(item); it returns the done item.
func host(t testing.TB, run *hostRun, answer func(hostItem) string) hostItem {
	t.Helper()
	return serve(t, run, func(it hostItem) { run.complete(it.Token, []byte(answer(it))) })
}

// serve reads a run's items, hands each call to reply and returns the done
// item.
func serve(t testing.TB, run *hostRun, reply func(hostItem)) hostItem {
	t.Helper()
	rd := &reader{fd: run.rfd}
	for {
		for _, raw := range rd.next(t) {
			it, err := decodeHostItem(raw)
			if err != nil {
				t.Fatal(err)
			}
			switch it.Kind {
			case "call":
				reply(it)
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

// Closing a run closes all four ends of its pipes, on a goroutine of
// their own, soon after.
func TestCloseReleasesThePipes(t *testing.T) {
	a := newTestAgent(t, 1, batchOf(1), model.Response(model.TextPart("done")))
	h, run, err := startRun(a.NewSession(), runSpec{Prompt: "go"})
	if err != nil {
		t.Fatal(err)
	}
	host(t, run, func(hostItem) string { return `{"ok":true,"content":1}` })
	handles.remove(h)
	fds := []int{run.rfd, run.wfdIn, int(run.w.Fd()), int(run.in.Fd())}
	run.close()
	open := func(fd int) bool {
		_, _, errno := syscall.Syscall(syscall.SYS_FCNTL, uintptr(fd), syscall.F_GETFD, 0)
		return errno == 0
	}
	for _, fd := range fds {
		for i := 0; open(fd); i++ {
			if i == 10000 {
				t.Fatalf("fd %d never closed", fd)
			}
			time.Sleep(time.Millisecond) // no event says a file closed
		}
	}
}

// An item posted with nothing queued is in the pipe when post returns,
// written by the posting goroutine; once the host falls behind and the
// pipe fills, items queue for the writer without blocking the poster,
// and everything reaches the host in the order posted.
func TestPostWritesAtOnceAndKeepsOrder(t *testing.T) {
	run, err := newHostRun()
	if err != nil {
		t.Fatal(err)
	}
	defer run.closePipes()
	readNow := func() string {
		var buf [256]byte
		n, err := syscall.Read(run.rfd, buf[:])
		if err != nil {
			t.Fatalf("nothing in the pipe: %v", err)
		}
		return string(buf[:n])
	}
	run.post([]byte(`"first"`))
	if got := readNow(); got != "\"first\"\n" {
		t.Fatalf("read %q", got)
	}
	// Far more than a pipe holds, with nobody reading.
	const n = 5000
	pad := strings.Repeat("x", 100)
	for i := 0; i < n; i++ {
		run.post([]byte(fmt.Sprintf(`"%d %s"`, i, pad)))
	}
	rd := &reader{fd: run.rfd}
	for i := 0; i < n; {
		for _, it := range rd.next(t) {
			if want := fmt.Sprintf(`"%d %s"`, i, pad); string(it) != want {
				t.Fatalf("item %d is %.20s", i, it)
			}
			i++
		}
	}
	// Drained: the writer gives the pipe back, and items go straight
	// to it again.
	for i := 0; ; i++ {
		run.mu.Lock()
		writing := run.writing
		run.mu.Unlock()
		if !writing {
			break
		}
		if i == 10000 {
			t.Fatal("the writer kept the pipe")
		}
		time.Sleep(time.Millisecond)
	}
	run.post([]byte(`"last"`))
	if got := readNow(); got != "\"last\"\n" {
		t.Fatalf("read %q", got)
	}
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
	rd := &reader{fd: run.rfd}
	if got := rd.next(t); len(got) != 1 || string(got[0]) != `{"kind":"call"}` {
		t.Fatalf("read %s", got)
	}
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatalf("await err = %v", err)
	}
	if got := rd.next(t); len(got) != 1 || string(got[0]) != `{"kind":"cancel","token":1}` {
		t.Fatalf("read %s", got)
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
	if !errors.As(err, &te) || te.Kind != tool.ErrorKindApprovalRequired || te.Metadata["risk"] != "high" {
		t.Fatalf("err = %v", err)
	}
	_, err = decodeOutcome([]byte(`{"ok":false,"kind":"no_such_kind","message":"x"}`))
	if tool.KindOf(err) != tool.ErrorKindExecution {
		t.Fatalf("unknown kind became %v", tool.KindOf(err))
	}
	// A malformed outcome would be malformed again: a user error, not retried.
	if _, err = decodeOutcome([]byte(`not json`)); tool.KindOf(err) != tool.ErrorKindUserError {
		t.Fatalf("garbage outcome: %v", err)
	}
}

func TestCompactCompletion(t *testing.T) {
	token, outcome, ok := compactCompletion([]byte(`[42,{"ok":true,"content":[1,"]"]}]`))
	if !ok || token != 42 || string(outcome) != `{"ok":true,"content":[1,"]"]}` {
		t.Fatalf("compact line: %d %q %v", token, outcome, ok)
	}
	// Lines the general path reads, or fails, instead.
	for _, line := range []string{
		`[ 42,{"ok":true}]`, `[42,]`, `[42,{"ok":true}`, `[42,{"ok":true,"content":NaN}]`,
		`[42,{"ok":true}],[43,{}]`, `["x",{}]`, `[]`, `[1`,
	} {
		if _, _, ok := compactCompletion([]byte(line)); ok {
			t.Errorf("%q read as a compact completion", line)
		}
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

// callItem is the object form of a call item as encoding/json writes it:
// the reference appendCallItem is checked against.
type callItem struct {
	Kind      string          `json:"kind"`
	Token     int64           `json:"token"`
	Tool      int64           `json:"tool"`
	Context   wireContext     `json:"context"`
	Arguments json.RawMessage `json:"arguments"`
}

func TestAppendCallItemMatchesEncodingJSON(t *testing.T) {
	approval := &tool.Approval{Status: "approved", Metadata: map[string]any{"by": "ui"}}
	compact, err := appendCallItem(nil, 7, 9, &tool.Context{RunID: "r\"1", ConversationID: "c", RunStep: 2, ToolCallID: "é", ToolName: "add", Retry: 1, MaxRetries: 3}, json.RawMessage(`{"a":1}`), true)
	if err != nil {
		t.Fatal(err)
	}
	var arr []any
	if err := json.Unmarshal(compact, &arr); err != nil || len(arr) != 12 || arr[2] != "r\"1" || arr[4] != "é" || arr[8] != float64(3) || arr[9] != "session/c/run/r%221/turn/2/call/0" {
		t.Fatalf("compact item %s: %v", compact, err)
	}
	for _, tc := range []*tool.Context{
		{RunID: "r\"un\n\x00é<&>", ToolCallID: "\u2028", ToolName: "t\\", Approval: approval, Metadata: map[string]any{"k": []int{1}}},
		{RunID: "run_1", ConversationID: "conv", Metadata: map[string]any{"tenant": "a"}},
		// A narrowed call takes the object form and carries its authority.
		{RunID: "run_2", Profile: tool.ProfileStrict, HostCapabilities: []string{"db"}},
		{RunID: "run_3", Profile: tool.ProfileFiltered, ContextCapabilities: []string{"starweaver.context.tasks"}, ShellEnv: map[string]string{"A": "b"}},
		{RunID: "run_4", Profile: tool.ProfileLegacy, ShellEnv: map[string]string{}},
		{RunID: "run_5", Metadata: map[string]any{"k": 1}, Runtime: tool.RuntimeSnapshot{Limits: tool.RunLimits{RequestLimit: 3}, MaxRetries: 2, TimeoutMS: 50,
			ShellEnvironment: map[string]string{"A": "b"}}},
	} {
		args := json.RawMessage(`{"a": [1, 2]}`)
		got, err := appendCallItem(nil, 7, 9, tc, args, true)
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

// The runtime snapshot is written by hand; it must read as encoding/json
// writes it.
func TestAppendRuntimeMatchesEncodingJSON(t *testing.T) {
	for _, rs := range []tool.RuntimeSnapshot{
		{},
		{Limits: tool.RunLimits{RequestLimit: 50}, MaxRetries: 3},
		{Limits: tool.RunLimits{ToolCallsLimit: 2, InputTokensLimit: 3, OutputTokensLimit: 4, TotalTokensLimit: 5}, TimeoutMS: 1500,
			ShellEnvironment: map[string]string{"A": "b\n<é>", "Z": ""}},
	} {
		got, err := appendRuntime(nil, &rs)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := json.Marshal(rs)
		if string(got) != string(want) {
			t.Fatalf("got  %s\nwant %s", got, want)
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

func TestCallItemsStayOnOneLine(t *testing.T) {
	item, err := appendCallItem(nil, 1, 2, &tool.Context{RunID: "r"}, json.RawMessage("{\n  \"a\": [1,\r\n 2]\n}"), true)
	if err != nil || bytes.ContainsAny(item, "\r\n") {
		t.Fatalf("%q %v", item, err)
	}
	var arr []any
	if err := json.Unmarshal(item, &arr); err != nil || fmt.Sprint(arr[11]) != "map[a:[1 2]]" {
		t.Fatalf("%s: %v", item, err)
	}
}

func TestCompletionsThroughThePipe(t *testing.T) {
	a := newTestAgent(t, 2, batchOf(2), model.Response(model.TextPart("done")))
	h, run, err := startRun(a.NewSession(), runSpec{Prompt: "go"})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { handles.remove(h); run.close() }()
	rd := &reader{fd: run.rfd}
	var lines []byte
	for got := 0; got < 2; {
		for _, raw := range rd.next(t) {
			it, err := decodeHostItem(raw)
			if err != nil {
				t.Fatal(err)
			}
			if it.Kind == "call" {
				lines = append(lines, fmt.Sprintf(`[%d,{"ok":true,"content":%d}]`, it.Token, it.Tool)...)
				lines = append(lines, '\n')
				got++
			}
		}
	}
	// One write holding both completions.
	if _, err := syscall.Write(run.wfdIn, lines); err != nil {
		t.Fatal(err)
	}
	for {
		for _, raw := range rd.next(t) {
			it, _ := decodeHostItem(raw)
			if it.Kind == "done" {
				if it.Result == nil || it.Result.Output != "done" {
					t.Fatalf("done %+v", it)
				}
				return
			}
		}
	}
}

func TestContextFreeCallItems(t *testing.T) {
	item, err := appendCallItem(nil, 3, 4, &tool.Context{RunID: "r", ToolName: "t"}, json.RawMessage(`{"x":1}`), false)
	if err != nil || string(item) != `[3,4,{"x":1}]` {
		t.Fatalf("%s %v", item, err)
	}
	// Approval or metadata always travel, whatever the tool reads.
	item, err = appendCallItem(nil, 3, 4, &tool.Context{Metadata: map[string]any{"k": 1}}, nil, false)
	if err != nil || !bytes.HasPrefix(item, []byte(`{"kind":"call"`)) {
		t.Fatalf("%s %v", item, err)
	}
}

// hostByPipe serves a run like the Python bridge, writing each completion
// line that answer returns to the completions pipe; it returns the done item.
func hostByPipe(t *testing.T, run *hostRun, answer func(hostItem) string) hostItem {
	t.Helper()
	return serve(t, run, func(it hostItem) {
		if _, err := syscall.Write(run.wfdIn, []byte(answer(it)+"\n")); err != nil {
			t.Fatal(err)
		}
	})
}

func TestMalformedCompletionLineFailsItsCall(t *testing.T) {
	a := newTestAgent(t, 1, batchOf(1), model.Response(model.TextPart("done")))
	sess := a.NewSession()
	h, run, err := startRun(sess, runSpec{Prompt: "go"})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { handles.remove(h); run.close() }()
	// NaN is what a lax JSON encoder writes for a float("nan") outcome.
	done := hostByPipe(t, run, func(it hostItem) string { return fmt.Sprintf(`[%d,{"ok":true,"content":NaN}]`, it.Token) })
	if done.Error != nil || done.Result == nil || done.Result.Status != "completed" {
		t.Fatalf("done %+v", done)
	}
	rets := sess.Messages()[2].Returns()
	if len(rets) != 1 || rets[0].ErrorKind() != tool.ErrorKindUserError || !bytes.Contains(mustMarshal(t, rets[0].Content), []byte("malformed outcome")) {
		t.Fatalf("returns %+v", rets)
	}
}

func TestUnreadableCompletionLineFailsTheRun(t *testing.T) {
	a := newTestAgent(t, 1, batchOf(1), model.Response(model.TextPart("done")))
	h, run, err := startRun(a.NewSession(), runSpec{Prompt: "go"})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { handles.remove(h); run.close() }()
	done := hostByPipe(t, run, func(hostItem) string { return `{"no token here"` })
	if done.Error == nil || done.Error.Type != "bridge" || !bytes.Contains([]byte(done.Error.Message), []byte("unreadable completion line")) {
		t.Fatalf("done %+v", done)
	}
}

func mustMarshal(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
