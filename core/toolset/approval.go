package toolset

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"sync"

	"github.com/starweaver-go/starweaver/core/tool"
)

// ApprovalReason is the reason recorded on approval requests made by
// [ApprovalRequired].
const ApprovalReason = "configured tool approval policy"

// Metadata keys written by ApprovalRequired (the reserved keys of
// core/tool, under the names this package has always given them).
const (
	// MetaApprovalState is set to "approved" on results of approved calls.
	MetaApprovalState = tool.MetaApprovalState
	// MetaApprovalMetadata holds the approval's metadata on those results.
	MetaApprovalMetadata = tool.MetaApprovalMetadata
)

// ApprovalRequired gates the selected tools of ts behind a human approval.
// A tool is selected when a selector is "*", the tool's name, the id or
// name of ts, or the tool's metadata "bundle"; with no selectors every tool
// is. Tools whose metadata sets starweaver_self_managed_hitl to true manage
// their own approval flow and are never gated.
//
// A gated definition gets metadata approval_required=true and
// starweaver_tool_kind="unapproved". Calling it without an approval (or
// with one whose status is not "approved") returns a
// [tool.ApprovalRequired] error without running the tool; its request
// metadata holds "arguments", "reason", "toolset", the tool's own metadata
// as "tool_metadata" and, for a denial, the decision's metadata as
// "metadata" (a string "reason" in it replaces the default reason).
//
// Once approved, the approval's OverrideArguments, when present, replace
// the arguments: they pass the tool's argument validators and JSON Schema
// first (a failure is a user_error, since a person, not the model, wrote
// them), then the tool runs and its result metadata gets
// approval_state="approved" and, when the approval has metadata,
// approval_metadata. The tool keeps its configuration.
//
// The toolset is named "{name}_approval_required", with id
// "{id}.approval_required" (no id stays no id). ApprovalRequired panics if
// ts is nil.
func ApprovalRequired(ts Toolset, selectors ...string) Toolset {
	mustToolset(ts, "ApprovalRequired")
	sel := newSelector(selectors)
	d := &derived{inner: ts, name: ts.Name() + "_approval_required", id: suffixID(ts.ID(), ".approval_required")}
	d.tools = func(_ *tool.RunContext, tools []tool.Tool) ([]tool.Tool, error) {
		out := make([]tool.Tool, len(tools))
		for i, t := range tools {
			def := t.Definition()
			if selfManaged(def) || !sel.match(ts, def) {
				out[i] = t
				continue
			}
			out[i] = gate(t, def, ts.Name())
		}
		return out, nil
	}
	return d
}

func selfManaged(d tool.Definition) bool {
	b, _ := d.Metadata[tool.MetaSelfManagedHITL].(bool)
	return b
}

// gate wraps t so that it runs only with an approval.
func gate(t tool.Tool, def tool.Definition, toolset string) tool.Tool {
	w := wrap(t, withMetadata(def, map[string]any{
		tool.MetaApprovalRequired: true,
		tool.MetaKind:             string(tool.KindUnapproved),
	}))
	g := &approvalGate{inner: t, def: def, toolset: toolset}
	w.call = g.call
	return w
}

type approvalGate struct {
	inner   tool.Tool
	def     tool.Definition // the inner definition, before gating
	toolset string

	once   sync.Once
	schema *tool.Schema
	err    error
}

func (g *approvalGate) call(ctx context.Context, tc *tool.Context, args json.RawMessage) (tool.Result, error) {
	var a *tool.Approval
	if tc != nil {
		a = tc.Approval
	}
	if a == nil || a.Status != "approved" {
		return tool.Result{}, g.request(a, args)
	}
	if len(a.OverrideArguments) > 0 {
		override, err := g.checkOverride(tc, a.OverrideArguments)
		if err != nil {
			return tool.Result{}, err
		}
		args = override
	}
	res, err := g.inner.Call(ctx, tc, args)
	if err != nil {
		return res, err
	}
	md := make(map[string]any, len(res.Metadata)+2)
	maps.Copy(md, res.Metadata)
	md[MetaApprovalState] = "approved"
	if len(a.Metadata) > 0 {
		md[MetaApprovalMetadata] = maps.Clone(a.Metadata)
	}
	res.Metadata = md
	return res, nil
}

// request builds the approval request for a call without an approval (a
// is nil) or with a denied one.
func (g *approvalGate) request(a *tool.Approval, args json.RawMessage) error {
	md := map[string]any{
		"arguments": decodeArguments(args),
		"toolset":   g.toolset,
	}
	if len(g.def.Metadata) > 0 {
		md["tool_metadata"] = maps.Clone(g.def.Metadata)
	}
	reason := ApprovalReason
	if a != nil {
		if r, ok := a.Metadata["reason"].(string); ok && r != "" {
			reason = r
		}
		if len(a.Metadata) > 0 {
			md["metadata"] = maps.Clone(a.Metadata)
		}
	}
	return tool.ApprovalRequired(reason, md)
}

// checkOverride validates replacement arguments as the registry validates
// the model's: the tool's validators, then its JSON Schema.
func (g *approvalGate) checkOverride(tc *tool.Context, raw json.RawMessage) (json.RawMessage, error) {
	v, err := decodeJSON(raw)
	if err != nil {
		return nil, tool.UserError("approval override arguments are not valid JSON: %v", err)
	}
	args, ok := v.(map[string]any)
	if !ok {
		return nil, tool.UserError("approval override arguments must be a JSON object")
	}
	for _, validate := range tool.ConfigOf(g.inner).Validators {
		if err := validate(tc, args); err != nil {
			return nil, tool.UserError("approval override arguments rejected: %s", message(err))
		}
	}
	g.once.Do(func() {
		var params map[string]any
		if params, g.err = tool.NormalizeSchema(g.def.Parameters); g.err == nil {
			g.schema, g.err = tool.CompileSchema(params)
		}
	})
	if g.err != nil {
		return nil, tool.UserError("approval override arguments cannot be checked: %v", g.err)
	}
	if err := g.schema.Validate(args); err != nil {
		return nil, tool.UserError("approval override arguments rejected: %s", message(err))
	}
	b, err := json.Marshal(args)
	if err != nil {
		return nil, tool.UserError("approval override arguments are not JSON after validation: %v", err)
	}
	return b, nil
}

// message returns the message of a typed tool error, or err's text.
func message(err error) string {
	var te *tool.Error
	if errors.As(err, &te) && te.Message != "" {
		return te.Message
	}
	return fmt.Sprint(err)
}
