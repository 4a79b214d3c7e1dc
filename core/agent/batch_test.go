package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"testing"

	"github.com/starweaver-go/starweaver/core/agent"
	"github.com/starweaver-go/starweaver/core/batch"
	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/tool"
)

func named(name string) tool.Tool {
	return tool.New(name, "", map[string]any{"type": "object"}, func(context.Context, *tool.Context, json.RawMessage) (tool.Result, error) {
		return tool.Text("ok"), nil
	})
}

func offered(t *testing.T, b *agent.Builder, m *model.TestModel) []string {
	t.Helper()
	if _, err := b.MustBuild().NewSession().Run(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, d := range m.Requests()[0].Params.Tools {
		names = append(names, d.Name)
	}
	return names
}

func TestBatchToolIsOptIn(t *testing.T) {
	m := model.TextModel("ok")
	if names := offered(t, agent.NewBuilder(m).Tool(named("echo")), m); len(names) != 1 || names[0] != "echo" {
		t.Fatalf("default offers %v", names)
	}
	m = model.TextModel("ok")
	if names := offered(t, agent.NewBuilder(m).Tool(named("echo")).BatchTool(true), m); !slices.Equal(names, []string{batch.Name, "echo"}) {
		t.Fatalf("with the batch tool offers %v", names)
	}
	m = model.TextModel("ok")
	if names := offered(t, agent.NewBuilder(m).BatchTool(true).BatchTool(false), m); len(names) != 0 {
		t.Fatalf("turned off offers %v", names)
	}
}

func TestBatchToolNameClashFailsBuild(t *testing.T) {
	_, err := agent.NewBuilder(model.TextModel("ok")).Tool(named(batch.Name)).BatchTool(true).Build()
	if err == nil || !errors.Is(err, tool.ErrDuplicateTool) {
		t.Fatalf("err %v", err)
	}
}
