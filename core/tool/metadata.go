package tool

import (
	"slices"
	"strings"
)

// Reserved metadata keys: every key the runtime gives a meaning to, in
// tool definitions (Definition.Metadata) and in tool returns (the
// "metadata" of a serialised Return). They are plain JSON so that hosts in
// any language can read them; a tool's own metadata should not use them.
//
// New reserved keys take the prefix "starweaver_" (as MetaKind and
// MetaDependencies, which the published documentation shows). Keys that
// were written before that rule keep their spelling, because hosts already
// read them: the bare keys (error_kind, retry, approval, control_flow ...)
// appear in docs/ and the spec, and the two "starweaver." keys of paused
// calls have always been on the wire.

// Reserved keys of definition metadata.
const (
	MetaKind             = "starweaver_tool_kind"
	MetaTags             = "tags"
	MetaHiddenByTags     = "hidden_by_tags"
	MetaDependencies     = "starweaver_tool_dependencies"
	MetaMaxRetries       = "max_retries"
	MetaTimeoutMS        = "timeout_ms"
	MetaApprovalRequired = "approval_required"
	MetaDeferredCall     = "deferred_call"
	MetaBundle           = "bundle"
	MetaOriginalName     = "original_tool_name"
	MetaSelfManagedHITL  = "starweaver_self_managed_hitl"
	MetaResultIsError    = "starweaver_tool_result_is_error"
	// MetaEffect holds the tool's declared effect class.
	MetaEffect = "starweaver_effect"
)

// Reserved keys of return metadata that the runtime decides. In memory
// they are Return.Runtime, never Metadata entries: Return.MarshalJSON
// writes them and Return.UnmarshalJSON reads them back (see Return). The
// agent's retry count uses "retry" and MetaMaxRetries ("max_retries").
const (
	MetaErrorKind        = "error_kind"                     // Runtime.ErrorKind
	MetaRetryable        = "retryable"                      // Runtime.Flags.Retryable
	MetaCorrectedInput   = "retry_requires_corrected_input" // Runtime.Flags.CorrectedInput
	MetaRuntimeRetryable = "runtime_retryable"              // Runtime.Flags.ModelRetryable
	MetaModelRetryable   = "model_retryable"                // Runtime.Flags.ModelRetryable, for hosts
	MetaUnexpected       = "unexpected"                     // Runtime.Flags.Unexpected
	MetaRetry            = "retry"                          // Runtime.Retry, with MetaMaxRetries
	// MetaControlFlow names the kind of a paused call (approval_required
	// or call_deferred).
	MetaControlFlow = "control_flow"
	// MetaApproval and MetaDeferred hold Runtime.Request; the argument
	// keys hold Runtime.Arguments.
	MetaApproval          = "approval"
	MetaDeferred          = "deferred"
	MetaApprovalArguments = "starweaver.approval_tool_arguments"
	MetaDeferredArguments = "starweaver.deferred_tool_arguments"
)

// Reserved keys of a pending attempt's deferral request (see Pending):
// MetaPending holds its PendingCompletion, MetaCompletionKey the
// completion key reserved for the call (Context.CompletionKey).
const (
	MetaPending       = "starweaver_pending"
	MetaCompletionKey = "starweaver_completion_key"
)

// Reserved keys of return metadata written when a call's intents are
// realised (see IntentRealiser).
const (
	// MetaIntents holds the outcomes of the intents the call declared, in
	// source order, as the intent journal recorded them (each an
	// intent.Outcome's JSON: executed, refused or protocol_refused).
	MetaIntents = "starweaver_intents"
	// MetaIntentsError holds why the realisation of the call's committed
	// intents stopped before its end (a redrive resumes it).
	MetaIntentsError = "starweaver_intents_error"
)

// MetaAmbiguous marks (in a return's metadata and error content) a call of
// a tool that fails closed whose failure leaves open whether it took
// effect; it was not re-run.
const MetaAmbiguous = "starweaver_ambiguous"

// Reserved keys of return metadata that describe an error or the
// resolution of a paused call. They are ordinary Metadata entries, written
// when the return is built; MetaTimeoutMS ("timeout_ms") is one too, and so
// is MetaMaxRetries on an exhausted execution failure, with MetaToolRetry.
const (
	MetaTool      = "tool"
	MetaMessage   = "message"
	MetaHowToFix  = "how_to_fix"
	MetaToolRetry = "tool_retry"
	// Written when a paused call is resolved (core/agent's resume).
	MetaHITLState        = "hitl_state"
	MetaApprovalState    = "approval_state"
	MetaApprovalID       = "approval_id"
	MetaDecidedBy        = "decided_by"
	MetaApprovalMetadata = "approval_metadata"
	MetaDeferredID       = "deferred_id"
	MetaDeferredStatus   = "deferred_status"
	MetaDeferredMetadata = "deferred_metadata"
)

// Kind tells hosts and UIs what sort of tool a definition describes.
type Kind string

// The tool kinds stored under MetaKind.
const (
	KindFunction   Kind = "function"
	KindOutput     Kind = "output"
	KindExternal   Kind = "external"
	KindUnapproved Kind = "unapproved"
	KindDeferred   Kind = "deferred"
)

// Kinds returns every tool kind, in a fixed order: the values MetadataKind
// accepts (hosts check their own list against it).
func Kinds() []Kind {
	return []Kind{KindFunction, KindOutput, KindExternal, KindUnapproved, KindDeferred}
}

// MetadataKind reads the tool kind from definition metadata. It reports false
// when the key is absent or holds an unknown value.
func MetadataKind(md map[string]any) (Kind, bool) {
	s, _ := md[MetaKind].(string)
	if k := Kind(s); slices.Contains(Kinds(), k) {
		return k, true
	}
	return "", false
}

// MetadataTags returns the normalised capability tags of a definition.
func MetadataTags(md map[string]any) []string { return normalizeTags(md[MetaTags]) }

// MetadataHiddenByTags returns the normalised tags that hide a definition.
func MetadataHiddenByTags(md map[string]any) []string { return normalizeTags(md[MetaHiddenByTags]) }

// HiddenByActiveTags reports whether any of the active capability tags covers
// the tool, that is, appears in its hidden_by_tags.
func HiddenByActiveTags(md map[string]any, active []string) bool {
	if len(active) == 0 {
		return false
	}
	for _, h := range MetadataHiddenByTags(md) {
		for _, a := range active {
			if strings.TrimSpace(a) == h {
				return true
			}
		}
	}
	return false
}

// normalizeTags trims entries, drops blanks and non-strings and removes
// duplicates keeping the first occurrence.
func normalizeTags(v any) []string {
	var raw []string
	switch t := v.(type) {
	case []string:
		raw = t
	case []any:
		for _, e := range t {
			if s, ok := e.(string); ok {
				raw = append(raw, s)
			}
		}
	}
	out := make([]string, 0, len(raw))
	seen := make(map[string]bool, len(raw))
	for _, s := range raw {
		s = strings.TrimSpace(s)
		if s == "" || seen[s] {
			continue
		}
		seen[s] = true
		out = append(out, s)
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// setTags stores normalised tags under key, removing the key when empty.
func setTags(md map[string]any, key string, tags []string) {
	n := normalizeTags(tags)
	if len(n) == 0 {
		delete(md, key)
		return
	}
	md[key] = n
}
