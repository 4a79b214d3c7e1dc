package model

import "maps"

// Settings tune a model request. A zero field is unset: the provider's
// default applies. Agents hold defaults and runs override them (Merge).
type Settings struct {
	Temperature *float64 `json:"temperature,omitempty"`
	TopP        *float64 `json:"top_p,omitempty"`
	// MaxTokens bounds the tokens of one response.
	MaxTokens *int     `json:"max_tokens,omitempty"`
	Stop      []string `json:"stop,omitempty"`
	Seed      *int64   `json:"seed,omitempty"`
	// ParallelToolCalls lets the model ask for several calls at once.
	ParallelToolCalls *bool `json:"parallel_tool_calls,omitempty"`
	// ToolChoice is "auto", "none", "required", or the name of one tool.
	ToolChoice string `json:"tool_choice,omitempty"`
	// TimeoutMS bounds one request (each retry of it included).
	TimeoutMS int64 `json:"timeout_ms,omitempty"`
	// ExtraHeaders are added to the HTTP request; ExtraBody's keys are
	// merged into the request body (for provider options without a field).
	ExtraHeaders map[string]string `json:"extra_headers,omitempty"`
	ExtraBody    map[string]any    `json:"extra_body,omitempty"`
}

// Merge returns s with every field set in over replacing s's; the header
// and body maps are merged key by key, over's keys winning. Neither s nor
// over is modified.
func (s Settings) Merge(over Settings) Settings {
	out := s
	if over.Temperature != nil {
		out.Temperature = over.Temperature
	}
	if over.TopP != nil {
		out.TopP = over.TopP
	}
	if over.MaxTokens != nil {
		out.MaxTokens = over.MaxTokens
	}
	if over.Stop != nil {
		out.Stop = over.Stop
	}
	if over.Seed != nil {
		out.Seed = over.Seed
	}
	if over.ParallelToolCalls != nil {
		out.ParallelToolCalls = over.ParallelToolCalls
	}
	if over.ToolChoice != "" {
		out.ToolChoice = over.ToolChoice
	}
	if over.TimeoutMS != 0 {
		out.TimeoutMS = over.TimeoutMS
	}
	out.ExtraHeaders = mergeMaps(s.ExtraHeaders, over.ExtraHeaders)
	out.ExtraBody = mergeMaps(s.ExtraBody, over.ExtraBody)
	return out
}

func mergeMaps[V any](a, b map[string]V) map[string]V {
	if len(b) == 0 {
		return a
	}
	if len(a) == 0 {
		return b
	}
	out := maps.Clone(a)
	maps.Copy(out, b)
	return out
}
