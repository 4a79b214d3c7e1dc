package tool

import "strings"

// Reserved metadata keys. They are plain JSON inside Definition.Metadata so
// that hosts in any language can read them.
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

// MetadataKind reads the tool kind from definition metadata. It reports false
// when the key is absent or holds an unknown value.
func MetadataKind(md map[string]any) (Kind, bool) {
	s, _ := md[MetaKind].(string)
	switch k := Kind(s); k {
	case KindFunction, KindOutput, KindExternal, KindUnapproved, KindDeferred:
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
