package catalog

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"strings"

	"github.com/starweaver-go/starweaver/core/agentctx"
	"github.com/starweaver-go/starweaver/core/tool"
	"github.com/starweaver-go/starweaver/core/toolset"
)

// The proxy's names without a prefix.
const (
	ProxyName          = "tool_proxy"
	ProxySearchName    = "search_tools"
	ProxyCallName      = "call_tool"
	proxyGroup         = "tool-proxy"
	prefixedSearchName = "search_tool" // {prefix}_search_tool: singular, as the reference
)

// ErrPrefix is returned by NewProxy for a prefix that is not a name:
// after trimming spaces and underscores it must start with an ASCII
// letter and hold only ASCII letters, digits and underscores.
var ErrPrefix = errors.New("catalog: invalid tool proxy name prefix")

// Proxy is the tool_proxy toolset (see the package comment): the model
// sees exactly search_tools{query} and call_tool{name, arguments}, or
// {prefix}_search_tool and {prefix}_call_tool. Build it with NewProxy.
type Proxy struct {
	*catalogue
	callName string
	group    string
	// hidden prefixes the registered names of the tools the proxy hides
	// ("" when not prefixed; see WithPrefix). The model still names them
	// by their own names.
	hidden string
}

var (
	_ toolset.Toolset      = (*Proxy)(nil)
	_ toolset.SelfPrefixer = (*Proxy)(nil)
)

// NewProxy returns a tool proxy over members, configured by o (the zero
// Options for the defaults). prefix scopes the surface (see ErrPrefix);
// "" keeps the default names.
func NewProxy(members []toolset.Toolset, prefix string, o Options) (*Proxy, error) {
	p, err := normalisePrefix(prefix)
	if err != nil {
		return nil, err
	}
	search, call, group := ProxySearchName, ProxyCallName, proxyGroup
	if p != "" {
		search, call, group = p+"_"+prefixedSearchName, p+"_"+ProxyCallName, p+"-"+proxyGroup
	}
	c := &catalogue{name: ProxyName, id: ProxyName, searchName: search, surface: []string{search, call},
		maxResults: DefaultMaxResults, members: members}
	o.apply(c)
	return &Proxy{catalogue: c, callName: call, group: group}, nil
}

func normalisePrefix(prefix string) (string, error) {
	p := strings.Trim(strings.TrimSpace(prefix), "_")
	if p == "" {
		return "", nil
	}
	for i, r := range p {
		letter := r < 128 && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z')
		if i == 0 && !letter || !(letter || r >= '0' && r <= '9' || r == '_') {
			return "", fmt.Errorf("%w %q: it must start with an ASCII letter and contain only ASCII letters, digits and underscores", ErrPrefix, prefix)
		}
	}
	return p, nil
}

// WithPrefix returns a new proxy over the same members whose every name
// takes "{prefix}_": the toolset's name and id, its instruction group, its
// two surface tools ("{prefix}_search_tools" and "{prefix}_call_tool" for
// the default names) and the registered names of the tools it hides, so
// that proxies whose members share tool names coexist in one run. The
// model keeps naming the hidden tools by their own names (as the search
// returns them); the call tool dispatches to the prefixed registration.
// It is what [toolset.Prefixed] returns for a proxy; prefix must be a
// name (Prefixed's CheckPrefix refuses the empty one).
func (p *Proxy) WithPrefix(prefix string) toolset.Toolset {
	pp := prefix + "_"
	id := p.id
	if id != "" {
		id = pp + id
	}
	search, call := pp+p.searchName, pp+p.callName
	c := &catalogue{name: pp + p.name, id: id, searchName: search, surface: []string{search, call},
		maxResults: p.maxResults, members: p.members, descriptions: p.descriptions}
	return &Proxy{catalogue: c, callName: call, group: pp + p.group, hidden: pp + p.hidden}
}

// Name returns "tool_proxy" ("{prefix}_tool_proxy" from WithPrefix).
func (p *Proxy) Name() string { return p.name }

// ID returns the stable id ("tool_proxy" unless Options.ID).
func (p *Proxy) ID() string { return p.id }

// SearchToolName returns the name of the proxy's search tool.
func (p *Proxy) SearchToolName() string { return p.searchName }

// CallToolName returns the name of the proxy's call tool.
func (p *Proxy) CallToolName() string { return p.callName }

// Defaults gives the proxy's tools three retries, as the reference does.
func (p *Proxy) Defaults() toolset.Defaults {
	n := 3
	return toolset.Defaults{MaxRetries: &n}
}

// Instructions explain the two tools and describe the namespaces.
func (p *Proxy) Instructions(rc *tool.RunContext) []toolset.Instruction {
	inv := p.snapshotFor(rc)
	var b strings.Builder
	fmt.Fprintf(&b, "Tools are not listed directly. Use %s to discover tools by keyword, then %s with the tool's name and arguments to run it.", p.searchName, p.callName)
	if len(inv.spaces) > 0 {
		b.WriteString("\nNamespaces:")
		for _, ns := range inv.spaces {
			fmt.Fprintf(&b, "\n- %s: %s (%d tools)", ns.id, ns.description, len(ns.tools))
		}
	}
	return []toolset.Instruction{{Group: p.group, Content: b.String()}}
}

// Tools returns the two surface tools and every indexed tool unlisted
// (tool.Unlisted): registered, so call_tool can dispatch to them through
// the registry, but never shown to the model nor callable by it directly.
func (p *Proxy) Tools(rc *tool.RunContext) ([]tool.Tool, error) {
	inv := p.snapshotFor(rc)
	out := make([]tool.Tool, 0, len(inv.items)+2)
	out = append(out, p.searchTool(), p.callTool())
	for _, it := range inv.items {
		out = append(out, tool.Unlisted(p.hide(it)))
	}
	return out, nil
}

// hide returns the tool of it as the proxy registers it: under its own
// name, or under the proxy's hidden prefix.
func (p *Proxy) hide(it item) tool.Tool {
	if p.hidden == "" {
		return it.tool
	}
	m := &member{inner: it.tool, def: it.tool.Definition(), cfg: *tool.ConfigOf(it.tool)}
	m.def.Name = p.hidden + m.def.Name
	return m
}

// proxyDeps are both surface tools' requirements: the tool-search handle
// and nothing of the app's named dependencies. call_tool needs no more
// (the reference gave it Legacy, the whole context): a dispatched call
// derives its own context from the run's, with its own profile.
var proxyDeps = tool.Dependencies{Profile: tool.ProfileFiltered, ContextCapabilities: []string{agentctx.CapabilityToolSearch}}

func (p *Proxy) searchTool() tool.Tool {
	return tool.New(p.searchName, "Search the available tools by keyword. Returns their names, descriptions and parameter schemas.", searchSchema,
		func(_ context.Context, tc *tool.Context, args json.RawMessage) (tool.Result, error) {
			query := queryOf(args)
			if query == "" {
				p.failed(tc.Handles.ToolSearch, query)
				return tool.Text("<error>" + xmlText(queryRequired) + "</error>"), nil
			}
			tools, _ := p.search(tc.Handles.ToolSearch, query)
			var b strings.Builder
			fmt.Fprintf(&b, "<search-results query=\"%s\" count=\"%d\">\n", xmlAttr(query), len(tools))
			if len(tools) == 0 {
				b.WriteString("No tools found matching query. Try different keywords.\n")
			}
			for _, it := range tools {
				fmt.Fprintf(&b, "<tool name=\"%s\" toolset=\"%s\"", xmlAttr(it.def.Name), xmlAttr(it.toolset))
				if it.namespace != "" {
					fmt.Fprintf(&b, " namespace=\"%s\"", xmlAttr(it.namespace))
				}
				fmt.Fprintf(&b, ">\n<description>%s</description>\n<parameters>%s</parameters>\n</tool>\n",
					xmlText(it.def.Description), xmlText(it.parametersJSON()))
			}
			b.WriteString("</search-results>")
			return tool.Text(b.String()), nil
		}).WithDependencies(proxyDeps)
}

var callSchema = map[string]any{
	"type": "object",
	"properties": map[string]any{
		"name":      map[string]any{"type": "string", "description": "The name of a tool the search returned."},
		"arguments": map[string]any{"description": "The tool's arguments, an object matching its parameters."},
	},
	"required": []any{"name"},
}

func (p *Proxy) callTool() tool.Tool {
	return tool.New(p.callName, fmt.Sprintf("Call a tool found with %s, by name, with its arguments.", p.searchName), callSchema,
		p.call).WithDependencies(proxyDeps)
}

// call dispatches to the named tool through the run's registry. Approval
// and deferral pause the run as the tool's own would (the approved re-run
// of call_tool carries the decision to the tool); cancellation ends the
// call. Other failures come back as a successful result describing the
// error and the tool's parameters, as in the reference, so a model
// correcting its arguments spends no retry budget of call_tool.
func (p *Proxy) call(ctx context.Context, tc *tool.Context, args json.RawMessage) (tool.Result, error) {
	var in struct {
		Name      any             `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	}
	_ = json.Unmarshal(args, &in)
	name, _ := in.Name.(string)
	name = strings.TrimSpace(name)
	if name == "" {
		return tool.Text("<error>" + xmlText(nameRequired) + "</error>"), nil
	}
	it, ok := p.snapshot().item(name)
	if !ok {
		return tool.Text(fmt.Sprintf("<error>Tool %s not found. Use %s to discover available tools.</error>",
			xmlText(fmt.Sprintf("%q", name)), xmlText(p.searchName))), nil
	}
	dc := *tc
	dc.Approval = innerApproval(tc.Approval, name)
	ret := dc.Dispatch(ctx, tool.Call{ID: tc.ToolCallID, Name: p.hidden + name, Arguments: innerArguments(in.Arguments), Index: tc.CallIndex})
	switch k := ret.ErrorKind(); k {
	case "":
		if h := tc.Handles.ToolSearch; h != nil {
			if added, _ := h.Record([]string{name}, nil); len(added) > 0 {
				h.Publish(EventLoaded, map[string]any{"loaded_tools": added, "loaded_namespaces": []string{}})
			}
		}
		return resultOf(ret, name), nil
	case tool.ErrorKindApprovalRequired, tool.ErrorKindCallDeferred:
		md := maps.Clone(ret.Runtime.Request)
		if md == nil {
			md = map[string]any{}
		}
		md["proxied_tool"] = name
		return tool.Result{}, &tool.Error{Kind: k, Message: tool.ErrorMessage(ret), Metadata: md}
	case tool.ErrorKindCancelled:
		return tool.Result{}, tool.Cancelled(tool.ErrorMessage(ret))
	default:
		msg, _ := ret.Metadata[tool.MetaMessage].(string)
		if msg == "" {
			msg = string(k)
		}
		return tool.Text(fmt.Sprintf("<tool-call-error tool=\"%s\">\n<message>%s</message>\n<parameters>%s</parameters>\n</tool-call-error>",
			xmlAttr(name), xmlText(msg), xmlText(it.parametersJSON()))), nil
	}
}

// innerArguments turns call_tool's arguments into the tool's: absent or
// null is {}, and a JSON string holding an object (models sometimes
// encode arguments twice) is that object.
func innerArguments(raw json.RawMessage) json.RawMessage {
	s := strings.TrimSpace(string(raw))
	if s == "" || s == "null" {
		return json.RawMessage("{}")
	}
	if s[0] == '"' {
		var inner string
		if json.Unmarshal(raw, &inner) == nil && strings.HasPrefix(strings.TrimSpace(inner), "{") && json.Valid([]byte(inner)) {
			return json.RawMessage(inner)
		}
	}
	return raw
}

// innerApproval passes a decision on call_tool to the tool it calls,
// with call_tool's arguments unwrapped: the model's (Arguments) and a
// person's override (the agent has already made the override call_tool's
// arguments, so it has call_tool's shape, {"name", "arguments"}). An
// override naming another tool is dropped: the call runs with what
// call_tool received.
func innerApproval(a *tool.Approval, name string) *tool.Approval {
	if a == nil {
		return nil
	}
	out := *a
	out.Arguments, out.OverrideArguments = nil, nil
	if args, ok := unwrapCall(a.Arguments, name); ok {
		out.Arguments = args
	}
	if args, ok := unwrapCall(a.OverrideArguments, name); ok {
		out.OverrideArguments = args
	}
	return &out
}

// unwrapCall returns the tool arguments of call_tool arguments naming
// name.
func unwrapCall(raw json.RawMessage, name string) (json.RawMessage, bool) {
	if len(raw) == 0 {
		return nil, false
	}
	var wrapped struct {
		Name      *string         `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	}
	if json.Unmarshal(raw, &wrapped) != nil || wrapped.Name == nil || strings.TrimSpace(*wrapped.Name) != name {
		return nil, false
	}
	return innerArguments(wrapped.Arguments), true
}

// resultOf is the tool's successful return as call_tool's result; its
// metadata also names the proxied tool.
func resultOf(ret tool.Return, name string) tool.Result {
	md := maps.Clone(ret.Metadata)
	if md == nil {
		md = map[string]any{}
	}
	md["proxied_tool"] = name
	return tool.Result{
		Content: ret.Content, IsError: ret.IsError, Metadata: md, AppValue: ret.AppValue, UserContent: ret.UserContent,
		PrivateMetadata: ret.PrivateMetadata, Parts: ret.Parts, StructuredContent: ret.StructuredContent, HostOnly: ret.HostOnly,
	}
}
