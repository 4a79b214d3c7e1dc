package toolset

import "github.com/starweaver-go/starweaver/core/tool"

// selector decides which tools a policy combinator (ApprovalRequired,
// Deferred) applies to.
type selector struct {
	all bool
	set map[string]bool
}

// newSelector builds a selector. No selectors at all means "*"; blank
// selectors are ignored.
func newSelector(selectors []string) selector {
	if len(selectors) == 0 {
		return selector{all: true}
	}
	s := selector{set: map[string]bool{}}
	for _, v := range selectors {
		switch v {
		case "":
		case "*":
			s.all = true
		default:
			s.set[v] = true
		}
	}
	return s
}

// match reports whether a tool of ts with definition d is selected: a
// selector is "*", the tool's name, the toolset's id or name, or the
// tool's metadata "bundle". The runtime reference matches the id and falls
// back to the name only without one; the Python SDK matches either. Either
// is accepted here, since selecting too much errs on the safe side of an
// approval policy.
func (s selector) match(ts Toolset, d tool.Definition) bool {
	if s.all {
		return true
	}
	if s.set[d.Name] || s.set[ts.Name()] {
		return true
	}
	if id := ts.ID(); id != "" && s.set[id] {
		return true
	}
	b, _ := d.Metadata[tool.MetaBundle].(string)
	return b != "" && s.set[b]
}

// decodeArguments returns args as a JSON value for request metadata; text
// that is not JSON is kept as a string.
func decodeArguments(args []byte) any {
	v, err := decodeJSON(args)
	if err != nil {
		return string(args)
	}
	return v
}
