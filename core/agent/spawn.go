package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/starweaver-go/starweaver/core/effect"
	"github.com/starweaver-go/starweaver/core/tool"
)

// SpawnToolName is the name of the tool with which a model starts the
// agent's subagents (see Builder.Subagents).
const SpawnToolName = "spawn_agent"

// Subagent is a child-agent route: a named agent the model may start
// with the spawn_agent tool, each call a run of its own.
type Subagent struct {
	// Name is the route's name, which the model gives as "agent"; "" uses
	// the agent's name.
	Name string
	// Agent runs the calls of the route.
	Agent *Agent
	// Description tells the model what the subagent is for.
	Description string
	// Grants, when not nil, are the only tools of Agent its runs may call:
	// authority only narrows (see AsToolOptions.Grants).
	Grants []string
	// Deps names the parent run's named dependencies the route's runs
	// receive besides the agent's own (see AsToolOptions.Deps).
	Deps []string
}

// Subagents registers child-agent routes and the spawn_agent tool that
// starts them: {"agent": <route name>, "prompt": <task>}. Each call runs
// the route's agent as AsTool does (its usage, events, limits, waits for
// people and durability are the parent's, see AsTool); the calls of one
// response run concurrently, at most SpawnConcurrency at once when set.
//
// A route's name must be unique and must not be the name of one of the
// agent's tools (nor may a tool be named spawn_agent): Build reports
// ErrConfig.
func (b *Builder) Subagents(s ...Subagent) *Builder {
	b.opts.Subagents = append(b.opts.Subagents, s...)
	return b
}

// SpawnConcurrency caps how many spawn_agent calls run at once, across
// the agent's runs; 0 (the default) sets no cap.
func (b *Builder) SpawnConcurrency(n int) *Builder {
	if err := checkSpawnConcurrency(n); err != nil {
		b.fail(err)
		return b
	}
	b.opts.SpawnConcurrency = n
	return b
}

// checkSpawnConcurrency refuses a negative cap (0 sets none).
func checkSpawnConcurrency(n int) error {
	if n < 0 {
		return fmt.Errorf("%w: spawn concurrency must not be negative, got %d", ErrConfig, n)
	}
	return nil
}

// spawnTool is the spawn_agent tool of routes: one agent tool per route,
// chosen by the call's "agent".
type spawnTool struct {
	routes map[string]*agentTool
	names  []string
}

// newSpawnTool builds the spawn_agent tool of subs, capped at concurrency
// calls at once (0: no cap).
func newSpawnTool(subs []Subagent, concurrency int) (tool.Tool, []string, error) {
	st := &spawnTool{routes: map[string]*agentTool{}}
	var lines []string
	for _, s := range subs {
		if s.Agent == nil {
			return nil, nil, fmt.Errorf("%w: subagent %q has no agent", ErrConfig, s.Name)
		}
		name := s.Name
		if name == "" {
			name = s.Agent.Name()
		}
		if name == "" {
			return nil, nil, fmt.Errorf("%w: a subagent needs a name (its agent has none)", ErrConfig)
		}
		if _, dup := st.routes[name]; dup {
			return nil, nil, fmt.Errorf("%w: two subagents are named %q", ErrConfig, name)
		}
		if s.Grants != nil {
			if err := s.Agent.checkGrants(s.Grants); err != nil {
				return nil, nil, fmt.Errorf("%w: subagent %q: %w", ErrConfig, name, err)
			}
		}
		// Events, usage and paths name the agent, as an agent tool's do.
		label := s.Agent.Name()
		if label == "" {
			label = name
		}
		st.routes[name] = &agentTool{child: s.Agent, label: label, grants: s.Grants, deps: s.Deps}
		st.names = append(st.names, name)
		line := "- " + name
		if s.Description != "" {
			line += ": " + s.Description
		}
		lines = append(lines, line)
	}
	slices.Sort(st.names)
	enum := make([]any, len(st.names))
	for i, n := range st.names {
		enum[i] = n
	}
	schema := map[string]any{
		"type": "object",
		"properties": map[string]any{
			"agent":  map[string]any{"type": "string", "enum": enum, "description": "The agent to start."},
			"prompt": map[string]any{"type": "string", "description": "The task for the agent, in full: it sees nothing else of this conversation."},
		},
		"required":             []any{"agent", "prompt"},
		"additionalProperties": false,
	}
	desc := "Start an agent on a task and return its answer. Calls in one response run at the same time. Agents:\n" + strings.Join(lines, "\n")
	f := tool.New(SpawnToolName, desc, schema, st.call)
	if st.durable() {
		// As an agent tool's: see AsTool.
		f.WithEffect(effect.ClassIdempotentWrite)
	}
	f.ToolConfig().Resource = ownResource(SpawnToolName)
	if concurrency > 0 {
		f.ToolConfig().Concurrency = tool.NewLimiter(concurrency)
	}
	if err := f.Err(); err != nil {
		return nil, nil, fmt.Errorf("spawn_agent: %w", err)
	}
	return &spawnToolFunc{Function: f, st: st}, st.names, nil
}

// durable reports whether every route keeps its runs in a session store,
// so that a call run again re-enters its child (see agentTool.reenter).
func (st *spawnTool) durable() bool {
	for _, r := range st.routes {
		if !r.durable() {
			return false
		}
	}
	return len(st.routes) > 0
}

func (st *spawnTool) call(ctx context.Context, tc *tool.Context, args json.RawMessage) (tool.Result, error) {
	var in struct {
		Agent  string `json:"agent"`
		Prompt string `json:"prompt"`
	}
	if err := json.Unmarshal(args, &in); err != nil {
		return tool.Result{}, tool.ModelRetry(`spawn_agent: arguments must be {"agent": string, "prompt": string}: %v`, err)
	}
	route, ok := st.routes[in.Agent]
	if !ok {
		return tool.Result{}, tool.ModelRetry("spawn_agent: no agent is named %q; the agents are %s", in.Agent, strings.Join(st.names, ", "))
	}
	return route.run(ctx, tc, in.Prompt)
}

// checkRoutes reports a tool of reg named like one of the agent's
// subagent routes (seed: collisions with child-agent routes are build
// errors).
func (a *Agent) checkRoutes(reg *tool.Registry) error {
	for _, name := range a.routes {
		if _, taken := reg.Tool(name); taken {
			return fmt.Errorf("%w: a tool is named %q like a subagent", ErrConfig, name)
		}
	}
	return nil
}

// ownResource keys every call of a tool to a resource of its own: each
// call runs a child in a session of its own, so calls of the tool in one
// response run in parallel (a repeated name would otherwise run them in
// order), each still ordered against nothing else.
func ownResource(name string) *tool.ResourceKey {
	var n atomic.Uint64
	return &tool.ResourceKey{Key: func(json.RawMessage) (string, bool) {
		return name + "/call/" + strconv.FormatUint(n.Add(1), 10), true
	}}
}
