// Package anthropic provides a [model.Model] that talks to Anthropic's
// Messages API through the official Go SDK
// (github.com/anthropics/anthropic-sdk-go/v2).
//
// Both constructors take one [Options] struct (its zero value is the
// defaults) and return an error for an invalid setting. [New] wraps a
// client the caller built (the caller owns auth and HTTP);
// [NewFromConfig] builds one from Options.Config, reading
// ANTHROPIC_API_KEY and ANTHROPIC_BASE_URL when the config leaves them
// empty. With no key at all and the default base URL, every request fails
// with [ErrMissingAPIKey], which names ANTHROPIC_API_KEY; the model can
// still be built, so a missing key surfaces at the first request and not
// at construction.
//
// # Mapping
//
// A history becomes one Messages request:
//
//   - system_prompt and instruction parts, then the Instructions of the last
//     request message, become the top-level system blocks, in that order;
//   - user_prompt parts become user text blocks (content other than text is
//     rejected, never dropped);
//   - tool_return parts become tool_result blocks in the next user message
//     (string content as is, any other content as its JSON text; is_error
//     set for error returns); consecutive requests merge into one user
//     message, tool results first, as the API requires. The content parts
//     of a rich return (see [model.ReturnParts]) become text, image (JPEG,
//     PNG, GIF, WebP, inline or by URL) and document (PDF inline or by URL,
//     plain text) blocks; resource links their text; audio and other media
//     fail the request;
//   - retry_prompt parts become a tool_result with is_error for their call,
//     or user text when they name no call;
//   - earlier responses go back as assistant messages, their text, tool_use,
//     thinking (with its signature) and redacted_thinking blocks in order;
//     thinking parts are sent back only when they were produced by Anthropic
//     (Thinking.Provider "anthropic") and carry a signature or redacted data;
//     refusal parts are not sent back.
//
// A response maps back to text, tool_call and thinking parts (a
// redacted_thinking block is a thinking part with Thinking.Encrypted set);
// a refusal stop reason adds a refusal part and sets FinishContentFilter.
// Stop reasons end_turn, stop_sequence and pause_turn finish with
// FinishStop, max_tokens and model_context_window_exceeded with
// FinishLength, tool_use with FinishToolCalls. Usage counts input_tokens
// plus the cache read and cache creation tokens as InputTokens, reporting
// the latter two also as CacheReadTokens and CacheWriteTokens, and the
// thinking tokens, when the API reports them, as ReasoningTokens. Any other
// content block type, or a response without content blocks, fails the
// request.
//
// # Streaming
//
// A Model is a [model.Streamer]: Stream always streams the response and
// reports it as it arrives (text_delta and thinking_delta as text and
// thinking fragments, a tool_use block as a call start, its
// input_json_delta events as argument fragments, and its
// content_block_stop as the call done, before the response ends). It
// returns the message Request returns for the same response. Request
// streams only with Options.Streaming, reporting nothing.
//
// # Settings
//
// Temperature, TopP, MaxTokens, Stop (stop_sequences), ToolChoice ("auto",
// "none", "required" as "any", or one tool's name), ParallelToolCalls
// (false sets disable_parallel_tool_use), TimeoutMS, ExtraHeaders and
// ExtraBody map onto the request (ExtraBody's keys are top-level keys and
// replace the fields the model sets). Anthropic requires max_tokens: when
// Settings.MaxTokens is unset the model sends [DefaultMaxTokens] (4096),
// or Options.MaxTokens. Seed is not supported by Anthropic and is
// ignored. Tools marked strict are sent with strict: true. A structured
// output in tool mode needs nothing special (the output tool is among the
// tools); native mode is sent as output_config.format with the JSON schema.
//
// # Failures
//
// Every request goes through [model.HTTPPolicy], the policy every
// provider shares: connect, first-byte and idle-stream timeouts
// (Options.HTTPBounds; ping events and keep-alive comments are not progress)
// and, for a model built by [NewFromConfig], the retries of connection
// failures, 408, 409, 429 and 5xx responses (529 overloaded included) with
// exponential backoff and jitter, honouring Retry-After up to
// HTTPBounds.MaxRetryAfter (a longer one fails at once), up to
// Config.MaxRetries times (2 by default). The whole request, retries
// included, is bounded by the context, Config.Timeout and
// Settings.TimeoutMS. Every error's text is redacted by [model.Redactor]. What fails after the retries, and what no retry can
// fix (400, 401, 403, 404, a prompt too long), is returned as a
// *[model.ProviderError] with the HTTP status, the API's error type as Code
// and its message; it never carries the API key. A connection that fails
// after the retries is a ProviderError with Code "connection_error"; a
// stream that breaks or ends before message_stop, one with Code
// "stream_error" (an error event in the stream carries its type, and the
// status the API reference gives that type). A cancelled or expired
// context returns an error that wraps the context's error.
//
// # Cost
//
// The SDK's client sends every request (auth, headers, retries, errors,
// event streams), but the body is encoded and a non-streamed response
// decoded by this package (see wire.go): the SDK's typed params and
// responses cost about 100 µs of CPU per request. BenchmarkMessagesRequest
// measures the provider against a raw POST of the same request.
//
// # Concurrency
//
// A Model is immutable once built (but for a locked cache of encoded tool
// schemas) and safe for concurrent use.
package anthropic
