package bridge

import (
	"encoding/json"

	"github.com/starweaver-go/starweaver/core/agent"
	"github.com/starweaver-go/starweaver/core/agentctx"
	"github.com/starweaver-go/starweaver/core/catalog"
	"github.com/starweaver-go/starweaver/core/tool"
)

// catalogSpec is a toolset spec's "catalog": the toolset is a catalogue
// over the spec's "combined" members instead of their union.
type catalogSpec struct {
	// Kind is "tool_search" or "tool_proxy".
	Kind                  string            `json:"kind"`
	MaxResults            int               `json:"max_results"`
	Prefix                string            `json:"prefix"`
	NamespaceDescriptions map[string]string `json:"namespace_descriptions"`
}

// catalogToolset builds the catalogue a toolset spec describes
// (catalog.New decides the kinds and what each takes).
func catalogToolset(s toolsetSpec) (catalog.Catalogue, error) {
	c := s.Catalog
	members, err := buildToolsets(s.Combined)
	if err != nil {
		return nil, err
	}
	opts := catalog.Options{MaxResults: c.MaxResults, NamespaceDescriptions: c.NamespaceDescriptions, ID: s.ID}
	cat, err := catalog.New(catalog.Kind(c.Kind), s.Name, members, c.Prefix, opts)
	if err != nil {
		return nil, optionError(err)
	}
	return cat, nil
}

// catalogRequest is the JSON given to sw_catalog_host: a catalogue
// toolset spec and one host operation on it.
type catalogRequest struct {
	Toolset   toolsetSpec            `json:"toolset"`
	Op        string                 `json:"op"`
	Namespace string                 `json:"namespace"`
	Reason    string                 `json:"reason"`
	Binding   catalog.RefreshBinding `json:"binding"`
	NowMS     int64                  `json:"now_ms"`
	Version   int64                  `json:"version"`
}

// catalogHostCall runs one host operation of a catalogue on a session's
// agent context (nil for the reports, which need none).
func catalogHostCall(s *agent.Session, data []byte) ([]byte, error) {
	var req catalogRequest
	if err := decodeStrict(data, &req); err != nil {
		return nil, err
	}
	if req.Toolset.Catalog == nil {
		return nil, specError("sw_catalog_host needs a toolset spec with a \"catalog\"")
	}
	c, err := catalogToolset(req.Toolset)
	if err != nil {
		return nil, err
	}
	var actx *agentctx.Context
	if s != nil {
		actx = s.Context()
	}
	needSession := func() error {
		if actx == nil {
			return &abiError{Type: "invalid_argument", Message: "catalog operation " + req.Op + " needs a session"}
		}
		return nil
	}
	switch req.Op {
	case "initialization_report":
		return json.Marshal(c.InitializationReport())
	case "refresh_report":
		return json.Marshal(c.RefreshReport(&tool.RunContext{Agent: actx}))
	case "publish_initialization_report", "publish_refresh_report":
		if err := needSession(); err != nil {
			return nil, err
		}
		if req.Op == "publish_initialization_report" {
			return json.Marshal(c.PublishInitializationReport(actx))
		}
		return json.Marshal(c.PublishRefreshReport(actx))
	case "preload_namespace":
		if err := needSession(); err != nil {
			return nil, err
		}
		res, err := c.PreloadNamespace(actx, req.Namespace)
		if err != nil {
			return nil, &abiError{Type: "invalid_argument", Message: err.Error()}
		}
		return json.Marshal(res)
	case "refresh":
		if err := needSession(); err != nil {
			return nil, err
		}
		return json.Marshal(c.RefreshLoadedState(actx))
	case "invalidate":
		if err := needSession(); err != nil {
			return nil, err
		}
		return json.Marshal(c.InvalidateLoadedState(actx, req.Reason))
	case "inventory_changed":
		return json.Marshal(req.Binding.InventoryChanged(req.Version, req.NowMS))
	case "refresh_if_due":
		if err := needSession(); err != nil {
			return nil, err
		}
		res, b, ran := c.RefreshLoadedStateIfDue(actx, req.Binding, req.NowMS)
		out := map[string]any{"refreshed": ran, "binding": b, "result": nil}
		if ran {
			out["result"] = res
		}
		return json.Marshal(out)
	default:
		return nil, specError("unknown catalog operation %q", req.Op)
	}
}
