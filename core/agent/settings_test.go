package agent_test

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/starweaver-go/starweaver/core/agent"
	"github.com/starweaver-go/starweaver/core/model"
)

func TestSettingsAreMergedRunOverAgentAndSentWithEveryRequest(t *testing.T) {
	m := model.NewTestModel(calls(model.Call("c1", "add", addArgs{1, 2})), text("3"))
	a := agent.NewBuilder(m).Tool(addTool()).Settings(model.Settings{
		Temperature: ptr(0.2), MaxTokens: ptr(100), ExtraHeaders: map[string]string{"X-A": "1", "X-B": "agent"},
	}).MustBuild()
	mustRun(t, a, "go", agent.WithSettings(model.Settings{MaxTokens: ptr(50), Stop: []string{"END"},
		ExtraHeaders: map[string]string{"X-B": "run"}}))
	want := model.Settings{Temperature: ptr(0.2), MaxTokens: ptr(50), Stop: []string{"END"},
		ExtraHeaders: map[string]string{"X-A": "1", "X-B": "run"}}
	for i, r := range m.Requests() {
		if !reflect.DeepEqual(r.Params.Settings, want) {
			t.Fatalf("request %d settings %+v", i, r.Params.Settings)
		}
	}
	// The agent's settings are unchanged by a run's.
	m2 := model.TextModel("x")
	a2 := agent.NewBuilder(m2).Settings(model.Settings{MaxTokens: ptr(100)}).MustBuild()
	mustRun(t, a2, "go")
	if got := m2.Requests()[0].Params.Settings; *got.MaxTokens != 100 || got.Stop != nil {
		t.Fatalf("settings %+v", got)
	}
}

func TestInvalidSettingsAreReportedInOneError(t *testing.T) {
	bad := model.Settings{Temperature: ptr(3.0), TopP: ptr(-0.1), MaxTokens: ptr(0), Stop: []string{""}, TimeoutMS: -1,
		ExtraHeaders: map[string]string{"bad name": "v"}}
	_, err := agent.NewBuilder(model.TextModel("x")).Settings(bad).Build()
	if !errors.Is(err, agent.ErrInvalidSettings) || !errors.Is(err, agent.ErrConfig) {
		t.Fatalf("err %v", err)
	}
	for _, want := range []string{"temperature", "top_p", "max_tokens", "stop[0]", "timeout", "bad name"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q not in %v", want, err)
		}
	}
	m := model.TextModel("x")
	_, err = agent.NewBuilder(m).MustBuild().Run(context.Background(), "go", agent.WithSettings(model.Settings{TopP: ptr(2.0)}))
	if !errors.Is(err, agent.ErrInvalidSettings) || len(m.Requests()) != 0 {
		t.Fatalf("run err %v", err)
	}
}
