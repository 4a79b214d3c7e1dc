package agent_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/starweaver-go/starweaver/core/agent"
	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/tool"
)

// exportWaiting runs the deploy scenario on an agent with key (none when
// nil) and exports the waiting session.
func exportWaiting(t *testing.T, key []byte) []byte {
	t.Helper()
	m := model.NewTestModel(calls(model.Call("call_deploy", "deploy", map[string]string{"env": "prod"})))
	b := agent.NewBuilder(m).Tool((&deployTool{}).tool(), addTool())
	if key != nil {
		b.StateKey(key)
	}
	s := b.MustBuild().NewSession()
	if res, err := s.Run(context.Background(), "deploy"); err != nil || res.Status != agent.StatusWaiting {
		t.Fatalf("run: %+v %v", res, err)
	}
	state, err := s.ExportState()
	if err != nil {
		t.Fatal(err)
	}
	return state
}

// restorer builds an agent with the deploy tool, key (none when nil) and
// a model that answers "done", recording the deploy arguments in d.
func restorer(d *deployTool, key []byte) *agent.Agent {
	b := agent.NewBuilder(model.NewTestModel(text("done"))).Tool(d.tool(), addTool())
	if key != nil {
		b.StateKey(key)
	}
	return b.MustBuild()
}

// forge rewrites the deploy arguments in state and gives it a fresh plain
// sha256 digest, as anyone can without a key.
func forge(t *testing.T, state []byte) []byte {
	t.Helper()
	var env struct {
		Version int             `json:"version"`
		State   json.RawMessage `json:"state"`
		Digest  string          `json:"digest"`
	}
	if err := json.Unmarshal(state, &env); err != nil {
		t.Fatal(err)
	}
	edited := bytes.ReplaceAll(env.State, []byte(`"prod"`), []byte(`"evil"`))
	if bytes.Equal(edited, env.State) {
		t.Fatalf("nothing to forge in %s", env.State)
	}
	var v any
	d := json.NewDecoder(bytes.NewReader(edited))
	d.UseNumber()
	if err := d.Decode(&v); err != nil {
		t.Fatal(err)
	}
	canon, _ := json.Marshal(v)
	sum := sha256.Sum256(canon)
	env.State, env.Digest = edited, "sha256:"+hex.EncodeToString(sum[:])
	out, err := json.Marshal(env)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func approveDeploy(t *testing.T, s *agent.Session) {
	t.Helper()
	p := s.Pending()
	if len(p) != 1 {
		t.Fatalf("pending %+v", p)
	}
	res, err := s.Resume(context.Background(), agent.Resolution{Approvals: []agent.ApprovalDecision{{ID: p[0].ID, Approved: true}}})
	if err != nil || res.Output != "done" {
		t.Fatalf("resume: %+v %v", res, err)
	}
}

func TestUnsignedStateNeedsOptIn(t *testing.T) {
	state := exportWaiting(t, nil)
	if !strings.Contains(string(state), `"digest":"sha256:`) {
		t.Fatalf("unsigned state is not marked as such: %s", state)
	}
	forged := forge(t, state)
	for _, key := range [][]byte{nil, []byte("secret")} {
		for name, data := range map[string][]byte{"exported": state, "forged": forged} {
			_, err := restorer(&deployTool{}, key).SessionFromState(data)
			if !errors.Is(err, agent.ErrUnsignedState) || !errors.Is(err, agent.ErrState) {
				t.Fatalf("key %q, %s state: err = %v", key, name, err)
			}
			for _, hint := range []string{"state_key", "allow_unsigned", "AllowUnsigned"} {
				if !strings.Contains(err.Error(), hint) {
					t.Errorf("the error does not say how to opt in (%s): %v", hint, err)
				}
			}
		}
	}

	// Opting in accepts the state, forged or not: the checksum protects
	// nothing against an edit, and the edited arguments run.
	d := &deployTool{}
	restored, err := restorer(d, nil).SessionFromState(forged, agent.AllowUnsigned())
	if err != nil {
		t.Fatal(err)
	}
	approveDeploy(t, restored)
	if got := *d.args.Load(); got != `{"env":"evil"}` {
		t.Fatalf("deploy ran with %s", got)
	}
	// A keyed agent accepts only signed state, even opting in: unsigned
	// state may be signed state whose signature was stripped.
	for name, data := range map[string][]byte{"exported": state, "forged": forged} {
		_, err := restorer(&deployTool{}, []byte("secret")).SessionFromState(data, agent.AllowUnsigned())
		if !errors.Is(err, agent.ErrUnsignedState) || !strings.Contains(err.Error(), "has a state key") {
			t.Fatalf("keyed agent, allow, %s state: err = %v", name, err)
		}
	}
	// The checksum still catches edits that did not recompute it.
	careless := strings.Replace(string(state), `"prod"`, `"evil"`, 1)
	if _, err := restorer(&deployTool{}, nil).SessionFromState([]byte(careless), agent.AllowUnsigned()); !errors.Is(err, agent.ErrState) || errors.Is(err, agent.ErrUnsignedState) {
		t.Fatalf("careless edit: err = %v", err)
	}
}

func TestSignedStateNeedsItsKey(t *testing.T) {
	key := []byte("secret")
	state := exportWaiting(t, key)
	if !strings.Contains(string(state), `"digest":"hmac-sha256:`) {
		t.Fatalf("signed state is not marked as such: %s", state)
	}
	d := &deployTool{}
	restored, err := restorer(d, key).SessionFromState(state)
	if err != nil {
		t.Fatal(err)
	}
	approveDeploy(t, restored)
	if got := *d.args.Load(); got != `{"env":"prod"}` {
		t.Fatalf("deploy ran with %s", got)
	}

	tampered := []byte(strings.Replace(string(state), `"prod"`, `"evil"`, 1))
	for name, tc := range map[string]struct {
		key  []byte
		data []byte
		opts []agent.RestoreOption
	}{
		"another key":                {[]byte("other"), state, nil},
		"another key, allow":         {[]byte("other"), state, []agent.RestoreOption{agent.AllowUnsigned()}},
		"no key":                     {nil, state, nil},
		"no key, allow":              {nil, state, []agent.RestoreOption{agent.AllowUnsigned()}},
		"tampered":                   {key, tampered, nil},
		"tampered, allow":            {key, tampered, []agent.RestoreOption{agent.AllowUnsigned()}},
		"unknown digest":             {key, []byte(strings.Replace(string(state), `"hmac-sha256:`, `"md5:`, 1)), nil},
		"downgraded to sha256":       {key, forge(t, state), nil},
		"missing digest, allow":      {key, []byte(`{"version":1,"state":{"conversation_id":"c","messages":[]}}`), []agent.RestoreOption{agent.AllowUnsigned()}},
		"nil option is not an allow": {nil, exportWaiting(t, nil), []agent.RestoreOption{nil}},
	} {
		if _, err := restorer(&deployTool{}, tc.key).SessionFromState(tc.data, tc.opts...); !errors.Is(err, agent.ErrState) {
			t.Errorf("%s: err = %v", name, err)
		}
	}
}

// A keyed agent given AllowUnsigned still refuses signed state whose
// signature was stripped (replaced with a recomputed checksum).
func TestKeyedAgentRefusesStrippedSignature(t *testing.T) {
	key := []byte("secret")
	stripped := forge(t, exportWaiting(t, key))
	d := &deployTool{}
	_, err := restorer(d, key).SessionFromState(stripped, agent.AllowUnsigned())
	if !errors.Is(err, agent.ErrUnsignedState) {
		t.Fatalf("err = %v", err)
	}
	if d.args.Load() != nil {
		t.Fatal("deploy ran")
	}
}

// An empty state key is a configuration mistake, not a request for
// unsigned state.
func TestEmptyStateKeyIsRefused(t *testing.T) {
	for _, key := range [][]byte{nil, {}} {
		_, err := agent.NewBuilder(model.TextModel("hi")).StateKey(key).Build()
		if !errors.Is(err, agent.ErrConfig) || !strings.Contains(err.Error(), "state key is empty") {
			t.Errorf("key %q: err = %v", key, err)
		}
	}
}

// State of another shape is refused with an error that says what is
// wrong with it.
func TestStateOfAnotherShapeSaysWhatIsWrong(t *testing.T) {
	a := restorer(&deployTool{}, nil)
	for data, want := range map[string]string{
		``:                                       "session state is empty",
		`   `:                                    "session state is empty",
		`[1,2]`:                                  "session state is a JSON array",
		`42`:                                     "session state is a JSON number",
		`"state"`:                                "session state is a JSON string",
		`null`:                                   "session state is JSON null",
		`{"version":1`:                           "session state is not JSON",
		`{}`:                                     `has no "version" field`,
		`{"version":1}`:                          `has no "state" field`,
		`{"version":1,"state":{}}`:               `has no "digest" field`,
		`{"version":"1","state":{},"digest":""}`: `the "version" field of session state is a JSON string, not a number`,
		`{"version":1.5,"state":{},"digest":""}`: `the "version" field of session state is not a valid number`,
		`{"version":1,"state":[],"digest":""}`:   `the "state" field of session state is a JSON array, not an object`,
		`{"version":1,"state":null,"digest":""}`: `the "state" field of session state is a JSON null`,
		`{"version":1,"state":{},"digest":7}`:    `the "digest" field of session state is a JSON number, not a string`,
	} {
		_, err := a.SessionFromState([]byte(data), agent.AllowUnsigned())
		if !errors.Is(err, agent.ErrState) || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), `"version", "state" and "digest"`) {
			t.Errorf("%q: err = %v, want %q", data, err, want)
		}
		if strings.Contains(fmt.Sprint(err), "EOF") {
			t.Errorf("%q: err = %v", data, err)
		}
	}
}

// Exported state is a value: every copy of a waiting state restores to a
// waiting session, so an old copy can be resumed again after another copy
// was. The documentation of ExportState says so; this pins it.
func TestOldCopyOfWaitingStateResumesAgain(t *testing.T) {
	key := []byte("secret")
	state := exportWaiting(t, key)
	d := &deployTool{}
	for i := 0; i < 2; i++ {
		s, err := restorer(d, key).SessionFromState(state)
		if err != nil {
			t.Fatalf("copy %d: %v", i, err)
		}
		approveDeploy(t, s)
	}
	if n := d.calls.Load(); n != 2 {
		t.Fatalf("deploy ran %d times, want 2 (once per resumed copy)", n)
	}
}

// State exported by an agent with a state key is signed and restores under
// the same key; state exported without a key needs an explicit opt-in.
func ExampleAgent_SessionFromState() {
	signing := agent.NewBuilder(model.TextModel("hi")).StateKey([]byte("secret")).MustBuild()
	state, _ := signing.NewSession().ExportState()
	_, err := signing.SessionFromState(state)
	fmt.Println("signed:", err)

	plain := agent.NewBuilder(model.TextModel("hi")).MustBuild()
	state, _ = plain.NewSession().ExportState()
	_, err = plain.SessionFromState(state)
	fmt.Println("unsigned:", errors.Is(err, agent.ErrUnsignedState))
	_, err = plain.SessionFromState(state, agent.AllowUnsigned())
	fmt.Println("unsigned, allowed:", err)
	// Output:
	// signed: <nil>
	// unsigned: true
	// unsigned, allowed: <nil>
}

// Exported state keeps what the runtime decided about each return (kind,
// flags, the agent's retry count, the paused call's request) under the
// metadata keys hosts read, and restoring it gives the typed fields back:
// a restored session exports the very same state.
func TestStateRoundTripsReturnRuntime(t *testing.T) {
	n := 0
	flaky := tool.New("flaky", "", nil, func(context.Context, *tool.Context, json.RawMessage) (tool.Result, error) {
		if n++; n == 1 {
			return tool.Result{}, tool.ModelRetry("again")
		}
		return tool.Text("ok"), nil
	})
	m := model.NewTestModel(calls(model.Call("a", "flaky", nil)),
		calls(model.Call("b", "flaky", nil), model.Call("d", "deploy", map[string]string{"env": "prod"})))
	a := agent.NewBuilder(m).Tool(flaky, (&deployTool{}).tool()).MustBuild()
	s := a.NewSession()
	res, err := s.Run(context.Background(), "go")
	if err != nil || res.Status != agent.StatusWaiting {
		t.Fatalf("run: %+v %v", res, err)
	}
	state, err := s.ExportState()
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{`"error_kind":"model_retry"`, `"retry":1`, `"runtime_retryable":true`,
		`"control_flow":"approval_required"`, `"approval":{"reason":"deploy production","risk":"high"}`,
		`"starweaver.approval_tool_arguments":{"env":"prod"}`} {
		if !strings.Contains(string(state), key) {
			t.Errorf("exported state lacks %s", key)
		}
	}
	restored, err := a.SessionFromState(state, agent.AllowUnsigned())
	if err != nil {
		t.Fatal(err)
	}
	again, err := restored.ExportState()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(again, state) {
		t.Fatalf("restored session exports other state:\n%s\nwant\n%s", again, state)
	}
	var rets []tool.Return
	for _, msg := range restored.Messages() {
		rets = append(rets, msg.Returns()...)
	}
	if len(rets) != 1 || rets[0].Runtime.ErrorKind != tool.ErrorKindModelRetry || !rets[0].Runtime.Flags.ModelRetryable ||
		rets[0].Runtime.Retry != 1 || rets[0].Runtime.MaxRetries != 3 || rets[0].Metadata["retry"] != nil {
		t.Fatalf("restored history returns %+v", rets)
	}
}
