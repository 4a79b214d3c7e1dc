package catalog

import (
	"errors"

	"github.com/starweaver-go/starweaver/core/agentctx"
	"github.com/starweaver-go/starweaver/core/internal/optionerr"
	"github.com/starweaver-go/starweaver/core/tool"
	"github.com/starweaver-go/starweaver/core/toolset"
)

// Kind names a catalogue for hosts that choose it by name: KindSearch
// (a [Search]) or KindProxy (a [Proxy]).
type Kind string

// The kinds of catalogue.
const (
	KindSearch Kind = SearchToolName
	KindProxy  Kind = ProxyName
)

// ErrInvalid is matched by the error of New for an unknown kind or an
// option the kind does not take.
var ErrInvalid = errors.New("catalog: invalid catalogue")

// Catalogue is what a Search and a Proxy both offer hosts.
type Catalogue interface {
	toolset.Toolset
	InitializationReport() Report
	RefreshReport(rc *tool.RunContext) Report
	PublishInitializationReport(actx *agentctx.Context) Report
	PublishRefreshReport(actx *agentctx.Context) Report
	PreloadNamespace(actx *agentctx.Context, namespace string) (LoadResult, error)
	RefreshLoadedState(actx *agentctx.Context) RefreshResult
	InvalidateLoadedState(actx *agentctx.Context, reason string) RefreshResult
	RefreshLoadedStateIfDue(actx *agentctx.Context, b RefreshBinding, nowMS int64) (RefreshResult, RefreshBinding, bool)
}

var (
	_ Catalogue = (*Search)(nil)
	_ Catalogue = (*Proxy)(nil)
)

// New returns the catalogue of kind over members: NewSearch for
// KindSearch, NewProxy with prefix for KindProxy. name is the toolset's
// name as its host knows it; every error names it, as in
// `toolset "tools": unknown catalog kind "index"`. It fails, checking in
// this order, with an error matching
//   - [tool.ErrInvalidOption] for options out of range ([Options.Validate]);
//   - [ErrInvalid] for a KindSearch given a prefix or
//     NamespaceDescriptions (a search has neither), or an unknown kind;
//   - [ErrPrefix] for a prefix that is not a name.
func New(kind Kind, name string, members []toolset.Toolset, prefix string, o Options) (Catalogue, error) {
	if err := o.Validate(name); err != nil {
		return nil, err
	}
	switch kind {
	case KindSearch:
		if prefix != "" || o.NamespaceDescriptions != nil {
			return nil, optionerr.New(ErrInvalid, "toolset %q: a tool_search catalog takes no prefix or namespace_descriptions", name)
		}
		return NewSearch(members, o), nil
	case KindProxy:
		p, err := NewProxy(members, prefix, o)
		if errors.Is(err, ErrPrefix) {
			return nil, optionerr.New(ErrPrefix, "toolset %q: %v", name, err)
		}
		if err != nil {
			return nil, err
		}
		return p, nil
	}
	return nil, optionerr.New(ErrInvalid, "toolset %q: unknown catalog kind %q", name, string(kind))
}
