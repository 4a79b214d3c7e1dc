package catalog

// Options configures a Search or a Proxy. The zero value means the
// defaults.
type Options struct {
	// MaxResults is how many index entries a search keeps (a matched
	// namespace then brings all its tools); 0 or less means
	// DefaultMaxResults.
	MaxResults int
	// NamespaceDescriptions describes namespaces (toolset ids) for search
	// and for the proxy's instructions; an undescribed one is
	// "Toolset: {id}". The constructors copy the map.
	NamespaceDescriptions map[string]string
	// ID is the catalogue toolset's stable id ("" means its name).
	ID string
}

// apply sets o's fields over c's defaults.
func (o Options) apply(c *catalogue) {
	if o.MaxResults > 0 {
		c.maxResults = o.MaxResults
	}
	if o.NamespaceDescriptions != nil {
		c.descriptions = make(map[string]string, len(o.NamespaceDescriptions))
		for k, v := range o.NamespaceDescriptions {
			c.descriptions[k] = v
		}
	}
	if o.ID != "" {
		c.id = o.ID
	}
}
