package openai

import (
	"encoding/json"
)

// The request and response bodies, as OpenAI's API reference documents
// them, reduced to the fields this package sends and reads. They travel
// through the SDK's client (client.Post: its authentication, base URL,
// headers, retries with backoff and Retry-After, error decoding into
// sdk.Error, and its SSE decoder for streams), but are encoded and decoded
// with encoding/json rather than through the SDK's generated parameter and
// response types: those cost about 200 µs of CPU per request (measured by
// BenchmarkChatRequest), four times the budget of the whole provider.

// Chat Completions (POST /chat/completions).

// chatRequest is the body of a Chat Completions request; its tools, encoded
// once per definition, are appended by encodeBody.
type chatRequest struct {
	Model               string          `json:"model"`
	Messages            []chatMessage   `json:"messages"`
	Temperature         *float64        `json:"temperature,omitempty"`
	TopP                *float64        `json:"top_p,omitempty"`
	MaxCompletionTokens *int            `json:"max_completion_tokens,omitempty"`
	Stop                []string        `json:"stop,omitempty"`
	Seed                *int64          `json:"seed,omitempty"`
	ParallelToolCalls   *bool           `json:"parallel_tool_calls,omitempty"`
	ToolChoice          any             `json:"tool_choice,omitempty"`
	ResponseFormat      *responseFormat `json:"response_format,omitempty"`
	Stream              bool            `json:"stream,omitempty"`
	StreamOptions       *streamOptions  `json:"stream_options,omitempty"`
}

type streamOptions struct {
	IncludeUsage bool `json:"include_usage"`
}

// chatMessage is one message of any role; Content is a string or a list of
// text parts, and is left nil where the role omits it.
type chatMessage struct {
	Role       string         `json:"role"`
	Content    any            `json:"content,omitempty"`
	Refusal    string         `json:"refusal,omitempty"`
	ToolCalls  []chatToolCall `json:"tool_calls,omitempty"`
	ToolCallID string         `json:"tool_call_id,omitempty"`
}

type textPart struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

type chatToolCall struct {
	ID       string       `json:"id"`
	Type     string       `json:"type"`
	Function chatFunction `json:"function"`
}

type chatFunction struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

type chatTool struct {
	Type     string       `json:"type"`
	Function functionSpec `json:"function"`
}

type functionSpec struct {
	Name        string         `json:"name"`
	Description string         `json:"description,omitempty"`
	Parameters  map[string]any `json:"parameters"`
	Strict      *bool          `json:"strict,omitempty"`
}

type namedChoice struct {
	Type     string `json:"type"`
	Function struct {
		Name string `json:"name"`
	} `json:"function"`
}

type responseFormat struct {
	Type       string     `json:"type"`
	JSONSchema jsonSchema `json:"json_schema"`
}

type jsonSchema struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Schema      json.RawMessage `json:"schema"`
	// Strict is left out for a server that does not enforce it.
	Strict bool `json:"strict,omitempty"`
}

// chatCompletion is a response, or one chunk of a streamed one (whose
// choices carry a delta instead of a message). It is decoded by
// decodeChat.
type chatCompletion struct {
	ID      string
	Model   string
	Choices []chatChoice
	Usage   *chatUsage
}

type chatChoice struct {
	Index        int
	Message      chatAnswer // or, in a chunk, the delta
	FinishReason string
}

type chatAnswer struct {
	Content string
	Refusal string
	// Reasoning is what OpenAI-compatible servers add (vLLM, DeepSeek and
	// llama.cpp send reasoning_content; Ollama and OpenRouter send
	// reasoning); OpenAI sends neither.
	Reasoning string
	ToolCalls []chatCallDelta
}

type chatCallDelta struct {
	Index int
	ID    string
	Type  string
	Name  string
	// Arguments is the text of the arguments (a JSON string on the wire;
	// a few compatible servers send the object itself, kept as its text).
	Arguments string
}

type chatUsage struct {
	PromptTokens, CompletionTokens int
	CachedTokens, CacheWriteTokens int
	ReasoningTokens                int
}

// Responses (POST /responses).

// responsesRequest is the body of a Responses request; its tools are
// appended by encodeBody.
type responsesRequest struct {
	Model             string         `json:"model"`
	Input             []any          `json:"input"`
	Instructions      string         `json:"instructions,omitempty"`
	Include           []string       `json:"include,omitempty"`
	Temperature       *float64       `json:"temperature,omitempty"`
	TopP              *float64       `json:"top_p,omitempty"`
	MaxOutputTokens   *int           `json:"max_output_tokens,omitempty"`
	ParallelToolCalls *bool          `json:"parallel_tool_calls,omitempty"`
	ToolChoice        any            `json:"tool_choice,omitempty"`
	Text              *responsesText `json:"text,omitempty"`
	Stream            bool           `json:"stream,omitempty"`
}

type responsesTool struct {
	Type        string         `json:"type"`
	Name        string         `json:"name"`
	Description string         `json:"description,omitempty"`
	Parameters  map[string]any `json:"parameters"`
	// Strict is always sent: the Responses API makes tools strict unless
	// told otherwise.
	Strict bool `json:"strict"`
}

type responsesText struct {
	Format textFormat `json:"format"`
}

type textFormat struct {
	Type        string          `json:"type"`
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Schema      json.RawMessage `json:"schema"`
	Strict      bool            `json:"strict"`
}

type functionChoice struct {
	Type string `json:"type"`
	Name string `json:"name"`
}

// Input items.

type inputMessage struct {
	Role    string `json:"role"`
	Content any    `json:"content"`
}

type functionCallItem struct {
	Type      string `json:"type"`
	CallID    string `json:"call_id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// functionOutputItem answers a call; Output is its text, or a list of
// responsesOutputPart for a rich return.
type functionOutputItem struct {
	Type   string `json:"type"`
	CallID string `json:"call_id"`
	Output any    `json:"output"`
}

type reasoningItem struct {
	Type             string     `json:"type"`
	ID               string     `json:"id"`
	Summary          []textPart `json:"summary"`
	EncryptedContent string     `json:"encrypted_content,omitempty"`
}

// responsesResponse is a response of the Responses API, decoded by
// decodeResponse.
type responsesResponse struct {
	ID, Model, Status string
	ErrorCode         string
	ErrorMessage      string
	IncompleteReason  string
	Output            []outputItem
	Usage             *responsesUsage
}

type responsesUsage struct {
	InputTokens, OutputTokens      int
	CachedTokens, CacheWriteTokens int
	ReasoningTokens                int
}

type outputItem struct {
	Type, ID, CallID, Name string
	Arguments              string
	EncryptedContent       string
	Summary                []string
	Content                []outputContent
}

type outputContent struct {
	Type, Text, Refusal string
}

// streamEvent is one event of a streamed response.
type streamEvent struct {
	Type     string
	Item     outputItem
	Response responsesResponse
	Code     string
	Message  string
	// Delta is a text, reasoning or arguments fragment; Arguments a
	// call's whole arguments (function_call_arguments.done).
	Delta, Arguments string
	// OutputIndex is the position of the event's item in the output;
	// SummaryIndex that of a reasoning summary part in its item.
	OutputIndex, SummaryIndex int
}

// encodeBody encodes body with the already-encoded tools appended as its
// "tools" member. Passing them through json.Marshal as json.RawMessage
// would validate and compact every schema again on each request.
func encodeBody(body any, tools []json.RawMessage) ([]byte, error) {
	b, err := json.Marshal(body)
	if err != nil || len(tools) == 0 {
		return b, err
	}
	n := len(b) + 12
	for _, t := range tools {
		n += len(t) + 1
	}
	out := make([]byte, 0, n)
	out = append(out, b[:len(b)-1]...) // without the closing brace
	out = append(out, `,"tools":[`...)
	for i, t := range tools {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, t...)
	}
	return append(out, "]}"...), nil
}
