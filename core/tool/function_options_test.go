package tool_test

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/starweaver-go/starweaver/core/tool"
)

// NewFunction builds the tool the With chain builds from the same
// settings: the same definition and the same runtime configuration.
func TestNewFunctionMatchesTheChain(t *testing.T) {
	params := map[string]any{"type": "object", "properties": map[string]any{"value": map[string]any{"type": "string"}}}
	ret := map[string]any{"type": "object"}
	retries, strict, seq := 2, true, false
	deps := tool.Dependencies{Profile: tool.ProfileStrict, HostCapabilities: []string{"fs"}}
	available := func(*tool.RunContext) bool { return true }
	prepare := func(_ *tool.RunContext, d tool.Definition) (tool.Definition, bool) { return d, true }
	validate := func(*tool.Context, map[string]any) error { return nil }
	preprocess := func(context.Context, *tool.Context, json.RawMessage) (tool.PreprocessResult, error) {
		return tool.PreprocessResult{}, nil
	}
	hook := tool.Hook{Name: "audit"}

	chain := tool.New("echo", "Echo a value", params, echoHandler).
		WithMetadata(map[string]any{"owner": "team-a"}).
		WithKind(tool.KindFunction).
		WithTags("Search", "web").
		WithHiddenByTags("offline").
		WithDependencies(deps).
		WithReturnSchema(ret).
		WithStrict(strict).
		WithSequential(seq).
		WithMaxRetries(retries).
		WithTimeout(3 * time.Second).
		WithEffect(tool.EffectClass("read_only")).
		WithAvailability(available).
		WithPrepareDefinition(prepare).
		WithArgumentValidator(validate).
		WithUserInputPreprocessor(preprocess).
		WithHook(hook)
	if err := chain.Err(); err != nil {
		t.Fatal(err)
	}
	built, err := tool.NewFunction("echo", echoHandler, tool.FunctionOptions{
		Description:           "Echo a value",
		Parameters:            params,
		Metadata:              map[string]any{"owner": "team-a"},
		Kind:                  tool.KindFunction,
		Tags:                  []string{"Search", "web"},
		HiddenByTags:          []string{"offline"},
		Dependencies:          &deps,
		ReturnSchema:          ret,
		Strict:                &strict,
		Sequential:            &seq,
		MaxRetries:            &retries,
		Timeout:               3 * time.Second,
		Effect:                tool.EffectClass("read_only"),
		Availability:          available,
		PrepareDefinition:     prepare,
		ArgumentValidators:    []tool.ArgumentValidator{validate},
		UserInputPreprocessor: preprocess,
		Hooks:                 []tool.Hook{hook},
	})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := built.Definition(), chain.Definition(); !reflect.DeepEqual(got, want) {
		t.Fatalf("definition\n got %#v\nwant %#v", got, want)
	}
	got, want := built.ToolConfig(), chain.ToolConfig()
	if *got.MaxRetries != *want.MaxRetries || got.Timeout != want.Timeout || got.Effect != want.Effect ||
		len(got.Validators) != 1 || len(got.Hooks) != 1 || got.Hooks[0].Name != "audit" ||
		got.Available == nil || got.Prepare == nil || got.PreprocessUserInput == nil {
		t.Fatalf("config\n got %+v\nwant %+v", got, want)
	}
}

// The zero FunctionOptions is New with no description and no arguments.
func TestNewFunctionZeroOptions(t *testing.T) {
	f, err := tool.NewFunction("ping", echoHandler, tool.FunctionOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := f.Definition(), tool.New("ping", "", nil, echoHandler).Definition(); !reflect.DeepEqual(got, want) {
		t.Fatalf("got %#v, want %#v", got, want)
	}
	if c := f.ToolConfig(); c.MaxRetries != nil || c.Timeout != 0 || c.Effect != "" {
		t.Fatalf("config %+v", c)
	}
}

// An invalid setting is returned by NewFunction, with the message the
// chain's Err reports.
func TestNewFunctionReturnsInvalidSettings(t *testing.T) {
	neg := -1
	for name, c := range map[string]struct {
		o     tool.FunctionOptions
		chain *tool.Function
	}{
		"retries": {tool.FunctionOptions{MaxRetries: &neg}, tool.New("f", "", nil, echoHandler).WithMaxRetries(-1)},
		"timeout": {tool.FunctionOptions{Timeout: -time.Second}, tool.New("f", "", nil, echoHandler).WithTimeout(-time.Second)},
		"effect":  {tool.FunctionOptions{Effect: "sometimes"}, tool.New("f", "", nil, echoHandler).WithEffect("sometimes")},
	} {
		f, err := tool.NewFunction("f", echoHandler, c.o)
		if f != nil || err == nil || c.chain.Err() == nil || err.Error() != c.chain.Err().Error() {
			t.Errorf("%s: %v, %v (chain: %v)", name, f, err, c.chain.Err())
		}
	}
}
