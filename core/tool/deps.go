package tool

// Profile says how much of the run's authority a tool receives.
type Profile string

// The dependency profiles.
const (
	// ProfileLegacy tools receive every dependency. It is the default.
	ProfileLegacy Profile = "legacy"
	// ProfileFiltered tools receive every typed dependency but only the
	// named capabilities they declare.
	ProfileFiltered Profile = "filtered"
	// ProfileStrict tools receive only the declared named capabilities.
	ProfileStrict Profile = "strict"
)

// Dependencies are a tool's declared dependency requirements, stored under
// MetaDependencies.
type Dependencies struct {
	Profile             Profile
	HostCapabilities    []string
	ContextCapabilities []string
	ShellEnvironment    bool
}

func (d Dependencies) metadataValue() map[string]any {
	m := map[string]any{
		"profile":           string(d.Profile),
		"host_capabilities": append([]string{}, d.HostCapabilities...),
		"shell_environment": d.ShellEnvironment,
	}
	if len(d.ContextCapabilities) > 0 {
		m["context_capabilities"] = append([]string{}, d.ContextCapabilities...)
	}
	return m
}

// ParseDependencies reads the requirements from definition metadata. An
// absent key means Legacy; a malformed value fails closed to Strict with no
// authority.
func ParseDependencies(md map[string]any) Dependencies {
	raw, ok := md[MetaDependencies]
	if !ok {
		return Dependencies{Profile: ProfileLegacy}
	}
	closed := Dependencies{Profile: ProfileStrict}
	m, ok := raw.(map[string]any)
	if !ok {
		return closed
	}
	p, _ := m["profile"].(string)
	d := Dependencies{Profile: Profile(p)}
	switch d.Profile {
	case ProfileLegacy, ProfileFiltered, ProfileStrict:
	default:
		return closed
	}
	if d.HostCapabilities, ok = stringList(m["host_capabilities"]); !ok {
		return closed
	}
	if v, present := m["context_capabilities"]; present {
		if d.ContextCapabilities, ok = stringList(v); !ok {
			return closed
		}
	}
	if d.ShellEnvironment, ok = m["shell_environment"].(bool); !ok {
		return closed
	}
	return d
}

// stringList reads a list of names; an empty name is malformed.
func stringList(v any) ([]string, bool) {
	switch t := v.(type) {
	case nil:
		return nil, true
	case []string:
		for _, s := range t {
			if s == "" {
				return nil, false
			}
		}
		return t, true
	case []any:
		out := make([]string, 0, len(t))
		for _, e := range t {
			s, ok := e.(string)
			if !ok || s == "" {
				return nil, false
			}
			out = append(out, s)
		}
		return out, true
	}
	return nil, false
}
