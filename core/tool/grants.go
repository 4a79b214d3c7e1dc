package tool

import (
	"errors"
	"fmt"
	"maps"
	"strings"
)

// GrantAll, among the names given to Grant, grants every registered tool.
const GrantAll = "*"

// ErrUnknownGrant is returned by Grant for a name the registry does not
// register: a grant can only narrow what registration allows.
var ErrUnknownGrant = errors.New("tool: grant names a tool that is not registered")

// Grant returns a registry that offers only the named tools of r, for a
// run that may call those and no others: registration says what an agent
// could call, a grant what one run may call. The other tools of r leave
// the definitions (DefinitionsFor, Names, Tool) and every lookup, so a
// model is never told of them; a call that names one anyway is refused
// before anything of the tool runs (no hook, no validator, no schema, no
// attempt, no effect) with a user_error saying it is not granted, where
// a name r never registered gets not_found. GrantAll grants every tool. A
// name r does not register is an error wrapping ErrUnknownGrant. r is not
// modified; registries derived from the result (Clone, Select) keep its
// refusals.
func (r *Registry) Grant(names ...string) (*Registry, error) {
	granted := make(map[string]bool, len(names))
	var unknown []string
	for _, n := range names {
		if n == GrantAll {
			return r.Clone(), nil
		}
		if _, ok := r.entries[n]; !ok {
			unknown = append(unknown, fmt.Sprintf("%q", n))
			continue
		}
		granted[n] = true
	}
	if len(unknown) > 0 {
		return nil, fmt.Errorf("%w: %s", ErrUnknownGrant, strings.Join(unknown, ", "))
	}
	out := r.Clone()
	out.entries = make(map[string]*entry, len(granted))
	out.names = out.names[:0]
	for _, n := range r.names {
		if granted[n] {
			out.entries[n] = r.entries[n]
			out.names = append(out.names, n)
			continue
		}
		if out.refused == nil {
			out.refused = map[string]bool{}
		}
		out.refused[n] = true
	}
	return out, nil
}

// Refused reports whether name is registered but not granted (see Grant).
func (r *Registry) Refused(name string) bool { return r.refused[name] }

// missing is the error of a call whose name r does not offer: refused
// when a grant left it out, else not found.
func (r *Registry) missing(name string) *Error {
	if r.refused[name] {
		return &Error{Kind: ErrorKindUserError, Tool: name, Message: fmt.Sprintf("tool %q is not granted to this run", name)}
	}
	return notFound(name)
}

// cloneRefused copies the refusals of a registry for one derived from it.
func (r *Registry) cloneRefused() map[string]bool { return maps.Clone(r.refused) }
