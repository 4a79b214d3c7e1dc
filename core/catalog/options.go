package catalog

import (
	"github.com/starweaver-go/starweaver/core/internal/optionerr"
	"github.com/starweaver-go/starweaver/core/tool"
)

// Options configures a Search or a Proxy. The zero value means the
// defaults.
type Options struct {
	// MaxResults is how many index entries a search keeps (a matched
	// namespace then brings all its tools); 0 means DefaultMaxResults. It
	// must not be negative (see Validate; the constructors take a
	// negative one as 0).
	MaxResults int
	// NamespaceDescriptions describes namespaces (toolset ids) for search
	// and for the proxy's instructions; an undescribed one is
	// "Toolset: {id}". The constructors copy the map.
	NamespaceDescriptions map[string]string
	// ID is the catalogue toolset's stable id ("" means its name).
	ID string
}

// Validate reports an option out of its range: a negative MaxResults
// fails with an error naming the catalogue toolset (`toolset "tools":
// max_results must not be negative`) that matches [tool.ErrInvalidOption].
func (o Options) Validate(toolset string) error {
	if o.MaxResults < 0 {
		return optionerr.New(tool.ErrInvalidOption, "toolset %q: max_results must not be negative", toolset)
	}
	return nil
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
