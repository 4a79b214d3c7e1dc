package bridge

import (
	"github.com/starweaver-go/starweaver/core/agent"
)

// subagentSpec is agent.Subagent as a host gives it: the route's agent by
// its handle.
type subagentSpec struct {
	Agent       int64    `json:"agent"`
	Name        string   `json:"name"`
	Description string   `json:"description"`
	Grants      []string `json:"grants"`
	Deps        []string `json:"deps"`
}

// buildSubagents builds the child-agent routes of an agent spec.
func buildSubagents(specs []subagentSpec) ([]agent.Subagent, error) {
	out := make([]agent.Subagent, 0, len(specs))
	for _, s := range specs {
		a, err := lookup[*agent.Agent](s.Agent)
		if err != nil {
			return nil, specError("subagent %q: %v", s.Name, err)
		}
		out = append(out, agent.Subagent{Name: s.Name, Agent: a, Description: s.Description, Grants: s.Grants, Deps: s.Deps})
	}
	return out, nil
}
