package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"maps"
	"slices"
	"testing"

	"github.com/starweaver-go/starweaver/core/agent"
	"github.com/starweaver-go/starweaver/core/catalog"
	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/tool"
	"github.com/starweaver-go/starweaver/core/toolset"
)

func noop(context.Context, *tool.Context, json.RawMessage) (tool.Result, error) {
	return tool.Text("ok"), nil
}

// previewAgent registers one tool per reason a tool can be left out, a
// plain one, and a tool search over a docs toolset.
func previewAgent(m model.Model) *agent.Agent {
	gated := tool.New("gated", "", nil, noop).WithAvailability(func(rc *tool.RunContext) bool {
		on, _ := rc.Metadata["enable_gated_tool"].(bool)
		return on
	})
	tenant := tool.New("tenant_lookup", "Lookup tenant data", nil, noop).WithPrepareDefinition(
		func(rc *tool.RunContext, d tool.Definition) (tool.Definition, bool) {
			t, ok := rc.Metadata["tenant"].(string)
			d.Description = "Lookup data for tenant " + t
			return d, ok
		})
	remote := tool.New("search_files", "", nil, noop).WithHiddenByTags("remote-search")
	docs := toolset.New("docs", tool.New("lookup_docs", "Look up docs", nil, noop)).WithID("docs_ns")
	return agent.NewBuilder(m).Tool(gated, tenant, remote, tool.New("plain", "", nil, noop)).
		Toolset(catalog.NewSearch([]toolset.Toolset{docs}, catalog.Options{})).MustBuild()
}

// The report offers what the first request of the same run offers, and
// says why each other tool is not offered.
func TestAvailabilityReportMatchesTheRunAndGivesReasons(t *testing.T) {
	m := model.NewTestModel(text("done"))
	a := previewAgent(m)
	opts := []agent.RunOption{agent.WithMetadata(map[string]any{"tenant": "acme"}), agent.WithActiveTags("remote-search"),
		agent.WithGrants("gated", "tenant_lookup", "search_files", "tool_search", "lookup_docs")}
	rep, err := a.AvailabilityReport(context.Background(), opts...)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"tenant_lookup", "tool_search"}; !slices.Equal(rep.Available, want) {
		t.Fatalf("available = %v, want %v", rep.Available, want)
	}
	if want := []string{"gated", "search_files"}; !slices.Equal(rep.Unavailable, want) {
		t.Fatalf("unavailable = %v, want %v", rep.Unavailable, want)
	}
	want := map[string]tool.Reason{"gated": tool.ReasonUnavailable, "search_files": tool.ReasonHiddenByTags,
		"lookup_docs": tool.ReasonNotLoaded, "plain": tool.ReasonNotGranted}
	if !maps.Equal(rep.Reasons, want) {
		t.Fatalf("reasons = %v, want %v", rep.Reasons, want)
	}
	if rep.Definitions[0].Description != "Lookup data for tenant acme" {
		t.Fatalf("the prepared definition is not the one reported: %+v", rep.Definitions[0])
	}
	if rep.Instructions == "" {
		t.Fatal("the tool search's instructions are not reported")
	}
	if _, err := a.Run(context.Background(), "go", opts...); err != nil {
		t.Fatal(err)
	}
	if got := sentTools(m.Requests()[0]); !slices.Equal(got, rep.Available) {
		t.Fatalf("the run offered %v, the report %v", got, rep.Available)
	}
}

// The report reads the session's agent context (tool search's loaded
// state), prepare hides tools with its own reason, and the session's
// history stays as it was.
func TestAvailabilityReportReadsTheSessionContext(t *testing.T) {
	s := previewAgent(model.NewTestModel()).NewSession()
	s.Context().RecordToolSearchLoaded([]string{"lookup_docs"}, nil)
	rep, err := s.AvailabilityReport(context.Background(), agent.WithMetadata(map[string]any{"enable_gated_tool": true}))
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"gated", "lookup_docs", "plain", "search_files", "tool_search"}; !slices.Equal(rep.Available, want) {
		t.Fatalf("available = %v, want %v", rep.Available, want)
	}
	if rep.Reasons["tenant_lookup"] != tool.ReasonPrepareHidden || len(rep.Reasons) != 1 {
		t.Fatalf("reasons = %v", rep.Reasons)
	}
	if len(s.Messages()) != 0 {
		t.Fatalf("the preview wrote history: %v", s.Messages())
	}
}

// A grant naming no tool fails the report as it fails the run.
func TestAvailabilityReportRefusesWhatTheRunRefuses(t *testing.T) {
	_, err := previewAgent(model.NewTestModel()).AvailabilityReport(context.Background(), agent.WithGrants("nope"))
	if !errors.Is(err, agent.ErrConfig) {
		t.Fatalf("err = %v, want ErrConfig", err)
	}
}
