package anthropic

import "encoding/json"

// The Messages API's JSON, as this package sends and reads it.
//
// Requests go through the SDK's client (auth, base URL, headers, retries,
// errors, event streams) but are encoded from these structs rather than
// from the SDK's MessageNewParams, and non-streamed responses are decoded
// into wireResponse rather than sdk.Message: the SDK's param and response
// types encode and decode through a reflective field-by-field codec that
// cost about 100 µs of CPU per typical agent step, twice the budget of the
// whole provider. encode.go and decode.go read and write these structs
// without reflection, checked against encoding/json on the same structs.
// The field names follow the SDK's types and the tests pin the bytes on
// the wire. Event streams are read by the SDK's SSE decoder, their events
// decoded and assembled into the same structs (streamdecode.go).

type wireRequest struct {
	Model         string            `json:"model"`
	MaxTokens     int               `json:"max_tokens"`
	System        []textBlock       `json:"system,omitempty"`
	Messages      []wireMessage     `json:"messages"`
	Tools         []wireTool        `json:"tools,omitempty"`
	ToolChoice    *wireToolChoice   `json:"tool_choice,omitempty"`
	Temperature   *float64          `json:"temperature,omitempty"`
	TopP          *float64          `json:"top_p,omitempty"`
	StopSequences []string          `json:"stop_sequences,omitempty"`
	Thinking      *wireThinking     `json:"thinking,omitempty"`
	OutputConfig  *wireOutputConfig `json:"output_config,omitempty"`
	Stream        bool              `json:"stream,omitempty"`
}

type wireMessage struct {
	Role    string `json:"role"`
	Content []any  `json:"content"`
}

type textBlock struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

type toolUseBlock struct {
	Type  string          `json:"type"`
	ID    string          `json:"id"`
	Name  string          `json:"name"`
	Input json.RawMessage `json:"input"`
}

// toolResultBlock answers a tool_use; its Content holds textBlock,
// imageBlock and documentBlock values.
type toolResultBlock struct {
	Type      string `json:"type"`
	ToolUseID string `json:"tool_use_id"`
	Content   []any  `json:"content,omitempty"`
	IsError   bool   `json:"is_error,omitempty"`
}

type imageBlock struct {
	Type   string      `json:"type"`
	Source mediaSource `json:"source"`
}

type documentBlock struct {
	Type   string      `json:"type"`
	Source mediaSource `json:"source"`
	Title  string      `json:"title,omitempty"`
}

// mediaSource is where an image's or a document's bytes are: inline
// ("base64", or "text" for a plain-text document) or at a "url".
type mediaSource struct {
	Type      string `json:"type"`
	MediaType string `json:"media_type,omitempty"`
	Data      string `json:"data,omitempty"`
	URL       string `json:"url,omitempty"`
}

type thinkingBlock struct {
	Type      string `json:"type"`
	Thinking  string `json:"thinking"`
	Signature string `json:"signature"`
}

type redactedThinkingBlock struct {
	Type string `json:"type"`
	Data string `json:"data"`
}

type wireTool struct {
	Name        string         `json:"name"`
	Description string         `json:"description,omitempty"`
	InputSchema map[string]any `json:"input_schema"`
	Strict      bool           `json:"strict,omitempty"`
}

type wireToolChoice struct {
	Type                   string `json:"type"`
	Name                   string `json:"name,omitempty"`
	DisableParallelToolUse bool   `json:"disable_parallel_tool_use,omitempty"`
}

type wireThinking struct {
	Type         string `json:"type"`
	BudgetTokens int    `json:"budget_tokens"`
}

type wireOutputConfig struct {
	Format wireOutputFormat `json:"format"`
}

type wireOutputFormat struct {
	Type   string         `json:"type"`
	Schema map[string]any `json:"schema"`
}

// wireResponse is the part of a Message response this package reads.
type wireResponse struct {
	ID          string        `json:"id"`
	Model       string        `json:"model"`
	Content     []wireContent `json:"content"`
	StopReason  string        `json:"stop_reason"`
	StopDetails struct {
		Explanation string `json:"explanation"`
	} `json:"stop_details"`
	Usage wireUsage `json:"usage"`
}

type wireContent struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	Thinking  string          `json:"thinking"`
	Signature string          `json:"signature"`
	Data      string          `json:"data"`
}

type wireUsage struct {
	InputTokens              int `json:"input_tokens"`
	OutputTokens             int `json:"output_tokens"`
	CacheCreationInputTokens int `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     int `json:"cache_read_input_tokens"`
	OutputTokensDetails      struct {
		ThinkingTokens int `json:"thinking_tokens"`
	} `json:"output_tokens_details"`
}
