package catalog

// Option configures a Search or a Proxy.
type Option func(*catalogue)

// WithMaxResults sets how many index entries a search keeps (a matched
// namespace then brings all its tools); n <= 0 means DefaultMaxResults.
func WithMaxResults(n int) Option {
	return func(c *catalogue) {
		if n > 0 {
			c.maxResults = n
		}
	}
}

// WithNamespaceDescriptions describes namespaces (toolset ids) for search
// and for the proxy's instructions; an undescribed one is "Toolset: {id}".
func WithNamespaceDescriptions(d map[string]string) Option {
	return func(c *catalogue) {
		c.descriptions = make(map[string]string, len(d))
		for k, v := range d {
			c.descriptions[k] = v
		}
	}
}

// WithID sets the catalogue toolset's stable id (by default its name).
func WithID(id string) Option { return func(c *catalogue) { c.id = id } }
