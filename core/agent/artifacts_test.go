package agent_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/starweaver-go/starweaver/core/agent"
	"github.com/starweaver-go/starweaver/core/artifact"
	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/tool"
)

const secret = "s3cr3t-host-only"

var chartPNG = []byte("\x89PNG\r\n\x1a\nchart-pixels")

// vault returns host-only output; ran counts its calls.
func vault(ran *atomic.Int32, res func() tool.Result) *tool.Function {
	return tool.New("vault", "Read the vault", nil, func(context.Context, *tool.Context, json.RawMessage) (tool.Result, error) {
		ran.Add(1)
		return res(), nil
	})
}

func hostOnly() tool.Result {
	return tool.HostOnly(tool.TextPart(secret)).WithMetadata("k", secret).WithStructuredContent(secret)
}

func failing() *tool.Function {
	return tool.New("flaky", "", nil, func(context.Context, *tool.Context, json.RawMessage) (tool.Result, error) {
		return tool.Result{}, errors.New("boom")
	})
}

// Host-only output never reaches a model: the run fails closed with a
// typed error, whatever the agent's error handling is set to do with tool
// failures, and the history left behind holds no trace of the output.
func TestHostOnlyOutputFailsTheRunClosed(t *testing.T) {
	callVault := calls(model.Call("c_vault", "vault", map[string]any{}))
	cases := []struct {
		name     string
		build    func(*agent.Builder)
		response model.Message
		result   func() tool.Result
		opts     []agent.RunOption
	}{
		{name: "default", response: callVault, result: hostOnly},
		{name: "no retries", build: func(b *agent.Builder) { b.MaxRetries(0) }, response: callVault, result: hostOnly},
		{name: "sequential", build: func(b *agent.Builder) { b.Sequential(true) }, response: callVault, result: hostOnly},
		{name: "host-only model error", response: callVault,
			result: func() tool.Result { r := hostOnly(); r.IsError = true; return r }},
		{name: "beside a failing call", response: calls(model.Call("c_flaky", "flaky", map[string]any{}), model.Call("c_vault", "vault", map[string]any{})),
			result: hostOnly},
		{name: "after-hook observing", build: func(b *agent.Builder) {
			b.Hook(tool.Hook{Name: "observe", After: func(context.Context, *tool.Context, *tool.Outcome) error { return nil }})
		}, response: callVault, result: hostOnly},
		{name: "after-hook turning it into an error", build: func(b *agent.Builder) {
			// An error replaces the output: nothing host-only is left, so
			// the run goes on with the error the hook chose.
			b.Hook(tool.Hook{Name: "deny", After: func(_ context.Context, _ *tool.Context, out *tool.Outcome) error {
				if out.Result.HostOnly {
					return tool.UserError("denied")
				}
				return nil
			}})
		}, response: callVault, result: hostOnly},
		{name: "eager dispatch while streaming", response: callVault, result: hostOnly, opts: []agent.RunOption{agent.WithDeltas()}},
		{name: "approved after a pause", build: func(b *agent.Builder) { b.ApprovalRequiredTools("vault") }, response: callVault, result: hostOnly},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var ran atomic.Int32
			m := model.NewTestModel(c.response, text("done"))
			b := agent.NewBuilder(m).Tool(vault(&ran, c.result), failing()).MaxRetries(1)
			if c.build != nil {
				c.build(b)
			}
			s := b.MustBuild().NewSession()
			res, err := s.Run(context.Background(), "open it", c.opts...)
			if c.name == "approved after a pause" {
				if err != nil || res.Status != agent.StatusWaiting {
					t.Fatalf("run: %v %v", res, err)
				}
				res, err = s.Resume(context.Background(), agent.Resolution{Approvals: []agent.ApprovalDecision{{ID: "c_vault", Approved: true}}})
			}
			if c.name == "after-hook turning it into an error" {
				if err != nil || res.Output != "done" {
					t.Fatalf("a hook that replaced the output with an error: %v %v", res, err)
				}
				return
			}
			var nv *agent.ToolOutputNotVisibleError
			if !errors.Is(err, agent.ErrToolOutputNotVisible) || !errors.As(err, &nv) || nv.Tool != "vault" || nv.ToolCallID != "c_vault" {
				t.Fatalf("err = %v", err)
			}
			if res == nil || res.Status != agent.StatusFailed || ran.Load() != 1 {
				t.Fatalf("result %+v, tool ran %d times", res, ran.Load())
			}
			if got := len(m.Requests()); got != 1 {
				t.Fatalf("the model was asked %d times", got)
			}
			for _, req := range m.Requests() {
				if b, _ := json.Marshal(req.Messages); strings.Contains(string(b), secret) {
					t.Fatalf("the model received the secret: %s", b)
				}
			}
			if b, _ := json.Marshal(res.Messages); strings.Contains(string(b), secret) {
				t.Fatalf("the history holds the secret: %s", b)
			}
			if c.name != "approved after a pause" { // a failed resume leaves the session waiting
				if err := agent.ValidateHistory(s.Messages()); err != nil {
					t.Fatalf("history left invalid: %v", err)
				}
			}
		})
	}
}

func TestValidateHistoryRefusesHostOnlyReturns(t *testing.T) {
	ret := tool.SuccessReturn(tool.Call{ID: "c1", Name: "vault"}, tool.HostOnly(tool.TextPart("x")))
	msgs := []model.Message{
		model.Request(model.UserPrompt("hi")),
		model.Response(model.ToolCallPart("c1", "vault", nil)),
		model.Request(model.ToolReturn(ret)),
	}
	if err := agent.ValidateHistory(msgs); !errors.Is(err, agent.ErrInvalidHistory) || !strings.Contains(err.Error(), "host-only") {
		t.Fatalf("ValidateHistory = %v", err)
	}
}

func acmeStore(t *testing.T) (artifact.Scope, *artifact.MemoryStore) {
	t.Helper()
	sc, err := artifact.ParseScope("tenant.acme")
	if err != nil {
		t.Fatal(err)
	}
	return sc, artifact.NewMemoryStore(artifact.Config{})
}

// chartTool stores a PNG through its context and returns its reference.
func chartTool() *tool.Function {
	return tool.New("chart", "Render a chart", nil, func(ctx context.Context, tc *tool.Context, _ json.RawMessage) (tool.Result, error) {
		w, err := tc.Artifacts.NewWrite("chart:"+tc.ToolCallID, "image/png", chartPNG)
		if err != nil {
			return tool.Result{}, err
		}
		ref, err := tc.Artifacts.Put(ctx, w)
		if err != nil {
			return tool.Result{}, err
		}
		return tool.Rich(tool.TextPart("the chart:"), tool.ImagePart(tool.ArtifactSource(ref))), nil
	})
}

// Conversations keep references; the model receives the bytes, read just
// before each request.
func TestArtifactsAreResolvedAtTheModelBoundary(t *testing.T) {
	scope, st := acmeStore(t)
	m := model.NewTestModel(calls(model.Call("c1", "chart", map[string]any{})), text("nice chart"))
	a := agent.NewBuilder(m).Tool(chartTool()).Artifacts(scope, st).MustBuild()
	s := a.NewSession()
	res, err := s.Run(context.Background(), "draw")
	if err != nil || res.Output != "nice chart" {
		t.Fatalf("run: %v %v", res, err)
	}
	encoded := base64.StdEncoding.EncodeToString(chartPNG)

	reqs := m.Requests()
	got := reqs[1].Messages[2].Returns()[0].Parts[1].Source
	if got.Kind != tool.SourceBase64 || got.Data != encoded || got.MediaType != "image/png" {
		t.Fatalf("the model received %+v", got)
	}
	// History, results and exported state keep the reference only.
	kept := s.Messages()[2].Returns()[0].Parts[1].Source
	if kept.Kind != tool.SourceArtifact || kept.Artifact.Scope != scope || kept.Artifact.Size != int64(len(chartPNG)) {
		t.Fatalf("history keeps %+v", kept)
	}
	state, err := s.ExportState()
	if err != nil {
		t.Fatal(err)
	}
	for name, b := range map[string][]byte{"state": state, "messages": mustJSON(t, res.Messages)} {
		if strings.Contains(string(b), encoded) || strings.Contains(string(b), "chart-pixels") {
			t.Fatalf("%s holds the bytes: %s", name, b)
		}
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestArtifactResolutionFailuresFailTheRun(t *testing.T) {
	scope, st := acmeStore(t)
	other, _ := artifact.ParseScope("tenant.other")
	w, _ := artifact.NewWrite(other, "k", "image/png", chartPNG)
	foreign, err := st.Put(context.Background(), w)
	if err != nil {
		t.Fatal(err)
	}
	smuggler := tool.New("chart", "", nil, func(context.Context, *tool.Context, json.RawMessage) (tool.Result, error) {
		return tool.Rich(tool.ImagePart(tool.ArtifactSource(foreign))), nil
	})
	run := func() (*model.TestModel, error) {
		m := model.NewTestModel(calls(model.Call("c1", "chart", map[string]any{})), text("done"))
		b := agent.NewBuilder(m).Artifacts(scope, st)
		_, err := b.Tool(smuggler).MustBuild().Run(context.Background(), "draw")
		return m, err
	}
	m, err := run()
	if !errors.Is(err, agent.ErrArtifacts) || artifact.KindOf(err) != artifact.KindInvalid || !strings.Contains(err.Error(), "another scope") {
		t.Fatalf("a reference of another scope: %v", err)
	}
	if errors.Is(err, agent.ErrModel) || len(m.Requests()) != 1 {
		t.Fatalf("the request was sent, or the failure blamed on the model: %v", err)
	}

	// Size over the limit.
	small := tool.New("chart", "", nil, func(ctx context.Context, tc *tool.Context, _ json.RawMessage) (tool.Result, error) {
		w, _ := tc.Artifacts.NewWrite("k", "image/png", chartPNG)
		ref, err := tc.Artifacts.Put(ctx, w)
		if err != nil {
			return tool.Result{}, err
		}
		return tool.Rich(tool.ImagePart(tool.ArtifactSource(ref))), nil
	})
	m = model.NewTestModel(calls(model.Call("c1", "chart", map[string]any{})), text("done"))
	_, err = agent.NewBuilder(m).Tool(small).Artifacts(scope, st).ArtifactResolveLimit(4).MustBuild().Run(context.Background(), "draw")
	if !errors.Is(err, agent.ErrArtifacts) || artifact.KindOf(err) != artifact.KindInvalid || !strings.Contains(err.Error(), "limit of 4") {
		t.Fatalf("an artifact over the limit: %v", err)
	}

	// Without a store, a reference cannot be sent: the provider boundary
	// refuses it (TestModel receives it unresolved, providers fail).
	m = model.NewTestModel(calls(model.Call("c1", "chart", map[string]any{})), text("done"))
	if _, err := agent.NewBuilder(m).Tool(smuggler).MustBuild().Run(context.Background(), "draw"); err != nil {
		t.Fatalf("without a store the reference stays a reference: %v", err)
	}
	if k := m.Requests()[1].Messages[2].Returns()[0].Parts[0].Source.Kind; k != tool.SourceArtifact {
		t.Fatalf("source kind %q", k)
	}
}

// bigText is n bytes of distinct, readable text.
func bigText(n int) string {
	var b strings.Builder
	for i := 0; b.Len() < n; i++ {
		b.WriteString("line ")
		b.WriteString(strings.Repeat(string(rune('a'+i%26)), 10))
		b.WriteString("\n")
	}
	return b.String()[:n]
}

// bigTool returns bigText(n).
func bigTool(n int) *tool.Function {
	out := bigText(n)
	return tool.New("dump", "Dump the log", nil, func(context.Context, *tool.Context, json.RawMessage) (tool.Result, error) {
		return tool.Text(out), nil
	})
}

// A 200 KiB return is spilled: the model reads its head, its size and a
// reference, and pages through the rest with read_artifact; the history
// stays small.
func TestLargeOutputsAreSpilledAndPaged(t *testing.T) {
	scope, st := acmeStore(t)
	const size = 200 << 10
	full, whole := bigTool(size), bigText(size)
	var ref string
	step := 0
	m := model.NewFunctionModel(func(_ context.Context, msgs []model.Message, p model.Params) (model.Message, error) {
		step++
		switch step {
		case 1:
			if !hasTool(p.Tools, agent.ReadArtifactToolName) {
				t.Errorf("read_artifact is not offered: %v", p.Tools)
			}
			return calls(model.Call("c_dump", "dump", map[string]any{})), nil
		case 2:
			ret := msgs[len(msgs)-1].Returns()[0]
			text := ret.Content.(string)
			if len(text) > 5<<10 || !strings.Contains(text, "204800 bytes") || !strings.Contains(text, whole[:4000]) {
				t.Errorf("the model read %d bytes: %.300s", len(text), text)
			}
			i := strings.Index(text, "sha256:")
			ref = text[i : i+71]
			return calls(model.Call("c_read", agent.ReadArtifactToolName, map[string]any{"ref": ref, "offset": 100000, "limit": 5000})), nil
		case 3:
			got := contentMap(t, msgs[len(msgs)-1].Returns()[0].Content)
			if got["text"] != whole[100000:105000] || got["next_offset"] != float64(105000) || got["more"] != true || got["size_bytes"] != float64(size) {
				t.Errorf("read_artifact returned %.200v", got)
			}
			return calls(model.Call("c_bad", agent.ReadArtifactToolName, map[string]any{"ref": "sha256:" + strings.Repeat("0", 64)})), nil
		case 4:
			ret := msgs[len(msgs)-1].Returns()[0]
			if ret.ErrorKind() != tool.ErrorKindModelRetry {
				t.Errorf("an unknown ref: %+v", ret)
			}
			return text("read it"), nil
		}
		return model.Message{}, errors.New("too many steps")
	})
	s := agent.NewBuilder(m).Tool(full).Artifacts(scope, st).MustBuild().NewSession()
	res, err := s.Run(context.Background(), "show the log")
	if err != nil || res.Output != "read it" {
		t.Fatalf("run: %v %v", res, err)
	}
	if b := mustJSON(t, s.Messages()); len(b) > 20<<10 {
		t.Fatalf("history is %d bytes", len(b))
	}
	spilled := s.Messages()[2].Returns()[0]
	var rec struct {
		Artifact  artifact.Ref `json:"artifact"`
		SizeBytes int          `json:"size_bytes"`
		HeadBytes int          `json:"head_bytes"`
	}
	if err := json.Unmarshal(mustJSON(t, spilled.Metadata[agent.MetaSpilled]), &rec); err != nil || rec.SizeBytes != size || rec.HeadBytes != agent.DefaultSpillHeadBytes || rec.Artifact.ID != ref {
		t.Fatalf("spill metadata %+v, %v", rec, err)
	}
	stored, err := st.Get(context.Background(), rec.Artifact)
	if err != nil || string(stored.Bytes) != whole || stored.Ref.MediaType != "text/plain" {
		t.Fatalf("stored %d bytes, %v", len(stored.Bytes), err)
	}

	// A session continued elsewhere still reads what was spilled.
	m2 := model.NewTestModel(calls(model.Call("c_again", agent.ReadArtifactToolName, map[string]any{"ref": ref, "limit": 10})), text("ok"))
	again, err := agent.NewBuilder(m2).Tool(full).Artifacts(scope, st).MustBuild().SessionFromMessages(s.Messages())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := again.Run(context.Background(), "the start again"); err != nil {
		t.Fatal(err)
	}
	reqs := m2.Requests()
	last := reqs[len(reqs)-1].Messages
	if got := contentMap(t, last[len(last)-1].Returns()[0].Content)["text"]; got != whole[:10] {
		t.Fatalf("read after restore: %v", got)
	}
}

func hasTool(defs []tool.Definition, name string) bool {
	for _, d := range defs {
		if d.Name == name {
			return true
		}
	}
	return false
}

func TestSpillingNeedsAStoreAndRespectsTheBudget(t *testing.T) {
	scope, st := acmeStore(t)
	// No store: returns stay whole, and no read_artifact is offered.
	m := model.NewTestModel(calls(model.Call("c1", "dump", map[string]any{})), text("ok"))
	res := mustRun(t, agent.NewBuilder(m).Tool(bigTool(40<<10)).MustBuild(), "go")
	if n := len(res.Messages[2].Returns()[0].Content.(string)); n != 40<<10 || hasTool(m.Requests()[0].Params.Tools, agent.ReadArtifactToolName) {
		t.Fatalf("without a store: %d bytes, tools %v", n, m.Requests()[0].Params.Tools)
	}
	// Disabled: whole, not offered.
	m = model.NewTestModel(calls(model.Call("c1", "dump", map[string]any{})), text("ok"))
	res = mustRun(t, agent.NewBuilder(m).Tool(bigTool(40<<10)).Artifacts(scope, st).OutputBudget(agent.OutputBudget{Disabled: true}).MustBuild(), "go")
	if n := len(res.Messages[2].Returns()[0].Content.(string)); n != 40<<10 || hasTool(m.Requests()[0].Params.Tools, agent.ReadArtifactToolName) {
		t.Fatalf("disabled: %d bytes", n)
	}
	// A custom budget: a 2 KiB output over a 1 KiB budget keeps 100 bytes.
	m = model.NewTestModel(calls(model.Call("c1", "dump", map[string]any{})), text("ok"))
	res = mustRun(t, agent.NewBuilder(m).Tool(bigTool(2048)).Artifacts(scope, st).OutputBudget(agent.OutputBudget{MaxBytes: 1024, HeadBytes: 100}).MustBuild(), "go")
	ret := res.Messages[2].Returns()[0]
	if c := ret.Content.(string); !strings.Contains(c, "2048 bytes") || !strings.HasSuffix(c, ".]\n"+bigText(100)) {
		t.Fatalf("kept %q", c)
	}
	// Errors the runtime decided are never spilled.
	m = model.NewTestModel(calls(model.Call("c1", "flaky", map[string]any{})), text("ok"))
	res = mustRun(t, agent.NewBuilder(m).Tool(failing()).Artifacts(scope, st).OutputBudget(agent.OutputBudget{MaxBytes: 10, HeadBytes: 5}).MaxRetries(0).MustBuild(), "go")
	if ret := res.Messages[2].Returns()[0]; ret.ErrorKind() != tool.ErrorKindExecution || ret.Metadata[agent.MetaSpilled] != nil {
		t.Fatalf("an error return was spilled: %+v", ret)
	}
}

// Rich outputs over the budget keep their media and spill their text.
func TestSpillKeepsMediaParts(t *testing.T) {
	scope, st := acmeStore(t)
	long := strings.Repeat("x", 3000)
	rich := tool.New("report", "", nil, func(context.Context, *tool.Context, json.RawMessage) (tool.Result, error) {
		return tool.Rich(tool.TextPart(long), tool.ImagePart(tool.URLSource("https://x.test/c.png", "image/png")), tool.TextPart("tail")).
			WithStructuredContent(map[string]any{"big": long}), nil
	})
	m := model.NewTestModel(calls(model.Call("c1", "report", map[string]any{})), text("ok"))
	res := mustRun(t, agent.NewBuilder(m).Tool(rich).Artifacts(scope, st).OutputBudget(agent.OutputBudget{MaxBytes: 1000, HeadBytes: 10}).MustBuild(), "go")
	ret := res.Messages[2].Returns()[0]
	if len(ret.Parts) != 2 || ret.Parts[0].Kind != tool.PartText || ret.Parts[1].Kind != tool.PartImage || ret.StructuredContent != nil {
		t.Fatalf("spilled rich return: %+v", ret)
	}
	if !strings.Contains(ret.Parts[0].Text, "3005 bytes") || !strings.HasSuffix(ret.Parts[0].Text, "xxxxxxxxxx") {
		t.Fatalf("kept text %q", ret.Parts[0].Text)
	}
}

func TestArtifactBuilderOptions(t *testing.T) {
	scope, st := acmeStore(t)
	m := model.TextModel("x")
	for name, b := range map[string]*agent.Builder{
		"zero scope":     agent.NewBuilder(m).Artifacts(artifact.Scope{}, st),
		"nil store":      agent.NewBuilder(m).Artifacts(scope, nil),
		"resolve limit":  agent.NewBuilder(m).ArtifactResolveLimit(0),
		"output limit":   agent.NewBuilder(m).MaxToolOutputBytes(-1),
		"head over max":  agent.NewBuilder(m).OutputBudget(agent.OutputBudget{MaxBytes: 10, HeadBytes: 11}),
		"negative":       agent.NewBuilder(m).OutputBudget(agent.OutputBudget{MaxBytes: -1}),
		"read_artifact ": agent.NewBuilder(m).Artifacts(scope, st).Tool(tool.New(agent.ReadArtifactToolName, "", nil, nil)),
	} {
		if _, err := b.Build(); !errors.Is(err, agent.ErrConfig) {
			t.Errorf("%s: %v", name, err)
		}
	}
	// A tool of that name is fine when nothing is spilled.
	if _, err := agent.NewBuilder(m).Tool(tool.New(agent.ReadArtifactToolName, "", nil, nil)).Build(); err != nil {
		t.Fatal(err)
	}

	// The agent's output limit reaches every call.
	m = model.NewTestModel(calls(model.Call("c1", "dump", map[string]any{})), text("ok"))
	res := mustRun(t, agent.NewBuilder(m).Tool(bigTool(4096)).MaxToolOutputBytes(1000).MustBuild(), "go")
	if ret := res.Messages[2].Returns()[0]; ret.ErrorKind() != tool.ErrorKindInvalidOutput {
		t.Fatalf("an output over the agent's limit: %+v", ret)
	}
}

// A host's string result arrives as raw JSON; what is spilled is its text.
func TestSpillOfARawJSONString(t *testing.T) {
	scope, st := acmeStore(t)
	whole := bigText(3000)
	raw, _ := json.Marshal(whole)
	host := tool.New("dump", "", nil, func(context.Context, *tool.Context, json.RawMessage) (tool.Result, error) {
		return tool.Result{Content: json.RawMessage(raw)}, nil
	})
	m := model.NewTestModel(calls(model.Call("c1", "dump", map[string]any{})), text("ok"))
	res := mustRun(t, agent.NewBuilder(m).Tool(host).Artifacts(scope, st).OutputBudget(agent.OutputBudget{MaxBytes: 1000, HeadBytes: 50}).MustBuild(), "go")
	ret := res.Messages[2].Returns()[0]
	if c := ret.Content.(string); !strings.Contains(c, "3000 bytes") || !strings.HasSuffix(c, ".]\n"+whole[:50]) {
		t.Fatalf("kept %q", c)
	}
}

// An output spilled in a batch that paused for approval can be read once
// the run resumes.
func TestSpillInAPausedBatchIsReadableAfterResume(t *testing.T) {
	scope, st := acmeStore(t)
	whole := bigText(3000)
	var ref string
	step := 0
	m := model.NewFunctionModel(func(_ context.Context, msgs []model.Message, _ model.Params) (model.Message, error) {
		step++
		switch step {
		case 1:
			return calls(model.Call("c_dump", "dump", map[string]any{}), model.Call("c_add", "add", map[string]int{"left": 1, "right": 2})), nil
		case 2:
			c := msgs[len(msgs)-1].Returns()[0].Content.(string)
			ref = c[strings.Index(c, "sha256:"):][:71]
			return calls(model.Call("c_read", agent.ReadArtifactToolName, map[string]any{"ref": ref, "limit": 20})), nil
		}
		return text("done"), nil
	})
	s := agent.NewBuilder(m).Tool(bigTool(3000), addTool()).ApprovalRequiredTools("add").Artifacts(scope, st).
		OutputBudget(agent.OutputBudget{MaxBytes: 1000, HeadBytes: 10}).MustBuild().NewSession()
	res, err := s.Run(context.Background(), "go")
	if err != nil || res.Status != agent.StatusWaiting {
		t.Fatalf("run: %v %v", res, err)
	}
	res, err = s.Resume(context.Background(), agent.Resolution{Approvals: []agent.ApprovalDecision{{ID: "c_add", Approved: true}}})
	if err != nil || res.Output != "done" {
		t.Fatalf("resume: %v %v", res, err)
	}
	msgs := s.Messages()
	read := msgs[len(msgs)-2].Returns()[0]
	if read.ErrorKind() != "" || contentMap(t, read.Content)["text"] != whole[:20] {
		t.Fatalf("read_artifact after resume: %+v", read)
	}
}
