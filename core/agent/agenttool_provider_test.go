package agent_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/starweaver-go/starweaver/core/agent"
	"github.com/starweaver-go/starweaver/core/model/anthropic"
	"github.com/starweaver-go/starweaver/core/model/openai"
)

// replayServer answers each POST with the next of bodies (JSON, status
// 200) and records the requests' bodies.
type replayServer struct {
	*httptest.Server
	mu       sync.Mutex
	bodies   []string
	requests []map[string]any
}

func newReplayServer(t *testing.T, bodies ...string) *replayServer {
	s := &replayServer{bodies: bodies}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req map[string]any
		_ = json.NewDecoder(r.Body).Decode(&req)
		s.mu.Lock()
		defer s.mu.Unlock()
		s.requests = append(s.requests, req)
		if len(s.bodies) == 0 {
			http.Error(w, "no reply left", http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(s.bodies[0]))
		s.bodies = s.bodies[1:]
	}))
	t.Cleanup(s.Close)
	return s
}

// Shapes as in OpenAI's and Anthropic's published API references.
const (
	chatCallCashier = `{"id":"c1","object":"chat.completion","created":1,"model":"gpt-4.1","choices":[{"index":0,"message":{"role":"assistant","content":null,"tool_calls":[{"id":"call_cashier","type":"function","function":{"name":"cashier","arguments":"{\"prompt\":\"Pay 5.\"}"}}]},"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":10,"completion_tokens":2,"total_tokens":12}}`
	chatDone        = `{"id":"c2","object":"chat.completion","created":1,"model":"gpt-4.1","choices":[{"index":0,"message":{"role":"assistant","content":"The cashier paid."},"finish_reason":"stop"}],"usage":{"prompt_tokens":20,"completion_tokens":3,"total_tokens":23}}`
	claudePay       = `{"id":"m1","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"tool_use","id":"toolu_pay","name":"pay","input":{"amount":5}}],"stop_reason":"tool_use","stop_sequence":null,"usage":{"input_tokens":7,"output_tokens":3}}`
	claudePaid      = `{"id":"m2","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"text","text":"Paid 5."}],"stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":9,"output_tokens":2}}`
)

// Through real providers against local servers: an OpenAI parent calls an
// Anthropic child as a tool; the child needs an approval, so the parent
// waits; approved, the child pays and answers, and the parent's model
// reads the child's answer as the call's result.
func TestAgentToolThroughProviders(t *testing.T) {
	parentSrv := newReplayServer(t, chatCallCashier, chatDone)
	childSrv := newReplayServer(t, claudePay, claudePaid)
	pm, err := openai.NewChatFromConfig("gpt-4.1", openai.Options{Config: openai.Config{BaseURL: parentSrv.URL, APIKey: "sk-test"}})
	if err != nil {
		t.Fatal(err)
	}
	cm, err := anthropic.NewFromConfig("claude-sonnet-4-5", anthropic.Options{Config: anthropic.Config{BaseURL: childSrv.URL, APIKey: "ant-test"}})
	if err != nil {
		t.Fatal(err)
	}
	var ran atomic.Int32
	child := agent.NewBuilder(cm).Name("cashier").Tool(payTool(&ran)).ApprovalRequiredTools("pay").MustBuild()
	parent := agent.NewBuilder(pm).Tool(mustAsTool(t, child, agent.AsToolOptions{Description: "Pays bills."})).MustBuild()
	s := parent.NewSession()
	res, err := s.Run(context.Background(), "Pay my bill.")
	if err != nil || res.Status != agent.StatusWaiting || len(res.Pending) != 1 {
		t.Fatalf("run: %+v %v", res, err)
	}
	p := res.Pending[0]
	if p.ToolCallID != "toolu_pay" || p.ParentToolCallID != "call_cashier" || !slices.Equal(p.Path, []string{"cashier"}) {
		t.Fatalf("pending %+v", p)
	}
	res, err = s.Resume(context.Background(), approveIDs(p.ID))
	if err != nil || res.Status != agent.StatusCompleted || res.Output != "The cashier paid." || ran.Load() != 1 {
		t.Fatalf("resume: %+v %v (pay ran %d times)", res, err, ran.Load())
	}
	msgs, _ := parentSrv.requests[1]["messages"].([]any)
	last, _ := msgs[len(msgs)-1].(map[string]any)
	if last["role"] != "tool" || last["tool_call_id"] != "call_cashier" || last["content"] != "Paid 5." {
		t.Fatalf("the parent's model read %v", last)
	}
	if res.Usage.InputTokens != 10+20+7+9 || res.UsageByAgent["cashier"].InputTokens != 16 {
		t.Fatalf("usage %+v by agent %+v", res.Usage, res.UsageByAgent)
	}
}
