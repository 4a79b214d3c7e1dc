package skills_test

import (
	"context"
	"fmt"
	"slices"

	"github.com/starweaver-go/starweaver/core/agent"
	"github.com/starweaver-go/starweaver/core/agentctx"
	"github.com/starweaver-go/starweaver/core/env"
	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/skills"
)

// Scan reads the summaries of the skills; Activate reads one with its
// body when a workflow chooses it.
func Example() {
	ctx := context.Background()
	p := env.NewVirtual("skills").WithFile("skills/research/SKILL.md", `---
name: research
description: Gather and cite sources
---
Prefer primary sources and cite evidence.
`)
	registry, err := skills.Scan(ctx, p, []skills.SourceScope{skills.NewScope("")})
	if err != nil {
		panic(err)
	}
	active, err := skills.Activate(ctx, p, "skills/research/SKILL.md")
	if err != nil {
		panic(err)
	}
	research, _ := registry.Get("research")
	fmt.Println(research.Description)
	fmt.Println(*active.Body)
	// Output:
	// Gather and cite sources
	// Prefer primary sources and cite evidence.
}

// ScanWithReport goes past duplicate and malformed skill files and says
// what it did; the report's toolset publishes it as skills_scanned when a
// run starts.
func ExampleScanWithReport() {
	ctx := context.Background()
	p := env.NewVirtual("skills").
		WithFile(".agents/skills/research/SKILL.md", "---\nname: research\ndescription: Shared research\n---\nShared instructions.\n").
		WithFile("skills/research/SKILL.md", "---\nname: research\ndescription: Tool-specific research\n---\nTool instructions.\n")

	report, err := skills.ScanWithReport(ctx, p, []skills.SourceScope{skills.NewScope("")})
	if err != nil {
		panic(err)
	}
	research, _ := report.Registry.Get("research")
	fmt.Println(research.Description)
	fmt.Println(report.Diagnostics[0].Kind)

	a := agent.NewBuilder(model.TextModel("ok")).Toolset(report.Toolset()).MustBuild()
	var kinds []string
	_, err = a.NewSession().Run(ctx, "hello", agent.WithEvents(func(ev agent.Event) {
		if ev.Kind == agent.EventCustom {
			kinds = append(kinds, ev.Custom.Kind)
		}
	}))
	if err != nil {
		panic(err)
	}
	fmt.Println(slices.Contains(kinds, skills.EventScanned))
	// Output:
	// Tool-specific research
	// duplicate_overridden
	// true
}

// Reload compares a new scan with the registry and publishes the changes
// as skills_reloaded, without the skills' bodies.
func ExampleRegistry_Reload() {
	ctx := context.Background()
	p := env.NewVirtual("skills").WithFile("skills/research/SKILL.md", "---\nname: research\ndescription: Gather sources\n---\nPrefer primary sources.\n")
	scopes := []skills.SourceScope{skills.NewScope("")}
	registry, err := skills.Scan(ctx, p, scopes)
	if err != nil {
		panic(err)
	}
	err = p.WriteFile(ctx, "skills/research/SKILL.md",
		[]byte("---\nname: research\ndescription: Gather sources with citations\n---\nPrefer primary sources.\n"), env.WriteOptions{})
	if err != nil {
		panic(err)
	}
	actx := agentctx.New()
	report, err := registry.Reload(ctx, p, scopes, actx)
	if err != nil {
		panic(err)
	}
	fmt.Println(report.Changes[0].Kind, report.Changes[0].Name)
	fmt.Println(actx.TakeEvents()[0].Kind)
	// Output:
	// modified research
	// skills_reloaded
}

// A host that watches skill directories records inventory versions in a
// ReloadBinding and reloads when it is due.
func ExampleRegistry_ReloadIfDue() {
	ctx := context.Background()
	p := env.NewVirtual("skills").WithFile("skills/a/SKILL.md", "---\nname: a\ndescription: A\n---\n")
	scopes := []skills.SourceScope{skills.NewScope("")}
	registry, _ := skills.Scan(ctx, p, scopes)
	actx := agentctx.New()

	binding := skills.ReloadBinding{DebounceMS: 250}
	binding = binding.InventoryChanged(1, 1000) // the watcher saw a change at t=1000ms
	report, binding, _ := registry.ReloadIfDue(ctx, p, scopes, actx, binding, 1100)
	fmt.Println(report != nil)
	report, _, _ = registry.ReloadIfDue(ctx, p, scopes, actx, binding, 1250)
	fmt.Println(report != nil, actx.TakeEvents()[0].Payload["reload_reason"])
	// Output:
	// false
	// true inventory_changed
}

// The skills toolset has no tools: one instruction lists the skills for
// the model, which reads a matching SKILL.md with the filesystem tools.
func ExampleToolset() {
	ts := skills.Toolset([]skills.Package{{Name: "research", Description: "Gather sources", Path: "skills/research/SKILL.md"}})
	fmt.Println(ts.Name(), len(ts.Instructions(nil)))
	fmt.Println(skills.Toolset(nil).Instructions(nil)[0].Content)
	// Output:
	// skills 1
	// No fileops-loaded skills are currently available.
}
