package agent_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/starweaver-go/starweaver/core/agent"
	"github.com/starweaver-go/starweaver/core/batch"
	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/tool"
	"github.com/starweaver-go/starweaver/core/toolset"
)

// A host opting in explicitly gets the batch tool that the BatchTool
// shorthand installs, and its calls run the children.
func TestStandardBatchPluginRunsBatches(t *testing.T) {
	m := model.NewTestModel(
		calls(model.Call("b1", batch.Name, map[string]any{"tool_calls": []map[string]any{
			{"tool": "add", "parameters": map[string]int{"left": 1, "right": 2}},
			{"tool": "add", "parameters": map[string]int{"left": 3, "right": 4}},
		}})),
		text("done"),
	)
	a := agent.NewBuilder(m).Tool(addTool()).Plugin(agent.StandardBatchPlugin()).MustBuild()
	res, err := a.NewSession().Run(context.Background(), "add twice")
	if err != nil || res.Output != "done" {
		t.Fatalf("run: %v %v", res, err)
	}
	ret := lastReturn(t, lastRequest(m), "b1")
	out, _ := ret.Content.(batch.Output)
	if ret.IsError || len(out.Results) != 2 || !out.Results[0].Success || !out.Results[1].Success {
		t.Fatalf("batch return %+v", ret)
	}
}

// The shorthand and the explicit plugin install one batch tool, not two.
func TestBatchToolShorthandAndPluginInstallOnce(t *testing.T) {
	m := model.TextModel("ok")
	names := offered(t, agent.NewBuilder(m).Tool(named("echo")).Plugin(agent.StandardBatchPlugin()).BatchTool(true), m)
	if !slices.Equal(names, []string{batch.Name, "echo"}) {
		t.Fatalf("offers %v", names)
	}
}

// A host's own plugin over the standard orchestrating tool receives the
// agent's scheduling policy; a second copy of the tool under another id
// clashes by name like any duplicate tool.
func TestCustomPluginOverStandardBatch(t *testing.T) {
	var got agent.PluginContext
	spy := agent.OrchestratingToolFunc(func(pc agent.PluginContext) toolset.Toolset {
		got = pc
		return agent.StandardBatchOrchestratingTool().Toolset(pc)
	})
	mine := agent.NewStaticPluginFactory("my-driver-native-batch", agent.NewPluginSpec().WithOrchestratingTool(spy))
	m := model.TextModel("ok")
	names := offered(t, agent.NewBuilder(m).Tool(named("echo")).Sequential(true).MaxConcurrency(3).Plugin(mine), m)
	if !slices.Equal(names, []string{batch.Name, "echo"}) {
		t.Fatalf("offers %v", names)
	}
	if !got.Sequential || got.MaxConcurrency != 3 || got.DrainChildren != nil {
		t.Fatalf("plugin context %+v", got)
	}
	_, err := agent.NewBuilder(model.TextModel("ok")).Plugin(mine).BatchTool(true).Build()
	if !errors.Is(err, tool.ErrDuplicateTool) {
		t.Fatalf("err %v", err)
	}
}

func TestPluginsAreChecked(t *testing.T) {
	empty := agent.NewStaticPluginFactory("", agent.NewPluginSpec())
	twice := agent.NewStaticPluginFactory("p", agent.NewPluginSpec())
	for name, b := range map[string]*agent.Builder{
		"nil":   agent.NewBuilder(model.TextModel("ok")).Plugin(nil),
		"no id": agent.NewBuilder(model.TextModel("ok")).Plugin(empty),
		"twice": agent.NewBuilder(model.TextModel("ok")).Plugin(twice).Plugin(twice),
	} {
		if _, err := b.Build(); !errors.Is(err, agent.ErrConfig) {
			t.Errorf("%s: err %v", name, err)
		}
	}
	if ps, err := agent.BuiltinPlugins([]string{agent.StandardBatchPluginID}); err != nil || len(ps) != 1 || ps[0].PluginID() != agent.StandardBatchPluginID {
		t.Fatalf("builtin %v %v", ps, err)
	}
	if _, err := agent.BuiltinPlugins([]string{"nope"}); !errors.Is(err, agent.ErrConfig) {
		t.Fatalf("err %v", err)
	}
}
