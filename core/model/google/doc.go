// Package google provides a [model.Model] that talks to Gemini's
// generateContent API, on the Gemini API or on Vertex AI, on the official
// Go SDK (google.golang.org/genai): its client config says where and how
// requests go, its types are the wire's (see Cost).
//
// Both constructors take one [Options] struct (its zero value is the
// defaults) and return an error for an invalid setting. [New] wraps a
// client the caller built (the caller owns auth, backend and base URL);
// [NewFromConfig] builds one from Options.Config, reading GOOGLE_API_KEY,
// then GEMINI_API_KEY, and GOOGLE_GEMINI_BASE_URL when the config leaves
// them empty, or, with Config.Vertex, the project and location
// (GOOGLE_CLOUD_PROJECT, GOOGLE_CLOUD_LOCATION) and the application
// default credentials. With no key for the Gemini API, every request fails
// with [ErrMissingAPIKey], which names GOOGLE_API_KEY; the model can still
// be built, so a missing key surfaces at the first request.
//
// Responses and errors name the provider [ProviderName] ("google"), or
// [VertexProviderName] ("google-vertex") on Vertex AI, unless
// Options.ProviderName says otherwise.
//
// # Mapping
//
// A history becomes one request's contents, user and model turns
// alternating:
//
//   - system_prompt and instruction parts, then the Instructions of the last
//     request message, become the systemInstruction, in that order;
//   - user_prompt parts become user text parts (content other than text is
//     rejected, never dropped);
//   - tool_return parts become functionResponse parts leading the next user
//     turn: the tool's name, the call's id, and the content as
//     response.output (a string as is, JSON as its value), or
//     response.error for an error return. The content parts of a rich
//     return (see [model.ReturnParts]) become the output's text (resource
//     links as their JSON text) and, for images (PNG, JPEG, WebP, HEIC,
//     HEIF) and documents (PDF, plain text), inline data in
//     functionResponse.parts (Gemini's multimodal function responses; on
//     Vertex AI media by URL as fileData too); audio and other media fail
//     the request with an error naming the kind;
//   - retry_prompt parts become a functionResponse with response.error for
//     their call, or user text when they name no call of the history;
//   - earlier responses go back as model turns: text, functionCall (with
//     its id and arguments) and the thought signatures Gemini gave, only
//     when they come from Gemini (Thinking.Provider "google").
//
// Gemini may send function calls without an id: such a call gets one made
// from the response id and its position ("gemini-call-<response>-<n>"),
// the same in deltas and in the message, and it is never sent back: the
// API matches those calls and their responses by name and order.
//
// A response maps back to text, tool_call and thinking parts. A thought
// part (thought: true) is a thinking part, its thoughtSignature base64 in
// Thinking.Signature; a signature Gemini attached to a text or
// functionCall part becomes a thinking part without text just before it,
// and is sent back on that part. Finish reasons: STOP is FinishStop (or
// FinishToolCalls when the response calls tools), MAX_TOKENS FinishLength,
// SAFETY, RECITATION, BLOCKLIST, PROHIBITED_CONTENT, SPII and the other
// filters FinishContentFilter (with a refusal part when nothing else came),
// MALFORMED_FUNCTION_CALL and OTHER FinishError. A blocked prompt
// (promptFeedback.blockReason) is a refusal with FinishContentFilter.
// Usage: promptTokenCount (cached tokens included) plus
// toolUsePromptTokenCount is InputTokens, cachedContentTokenCount
// CacheReadTokens, candidatesTokenCount plus thoughtsTokenCount
// OutputTokens, thoughtsTokenCount ReasoningTokens.
//
// # Streaming
//
// A Model is a [model.Streamer]: Stream always streams
// (streamGenerateContent?alt=sse) and reports text and thought fragments
// as they arrive; Gemini sends a function call whole in one chunk, so a
// call is reported as its start, one arguments fragment and its done at
// once, before the response ends (eager dispatch). It returns the message
// Request returns for the same response. Request streams only with
// Options.Streaming, reporting nothing.
//
// # Settings
//
// Temperature, TopP, MaxTokens (maxOutputTokens), Stop (stopSequences),
// Seed, ToolChoice ("auto" AUTO, "none" NONE, "required" ANY, or one
// tool's name as ANY with allowedFunctionNames), TimeoutMS, ExtraHeaders
// and ExtraBody (merged into the body, recursively) map onto the request.
// ParallelToolCalls has no Gemini counterpart and is ignored. Tools are
// sent as functionDeclarations with parametersJsonSchema: the JSON Schema
// goes unchanged. A structured output in tool mode needs nothing special;
// native mode is sent as responseMimeType application/json with
// responseJsonSchema. Options.ThinkingBudget, NoThinking and
// IncludeThoughts set thinkingConfig.
//
// # Failures
//
// Every request goes through [model.HTTPPolicy], as the transport of the
// HTTP client the model sends with: connect, first-byte
// and idle-stream timeouts (Options.HTTPBounds) and, for a model built by
// [NewFromConfig] (or over a client whose HTTPOptions.RetryOptions ask
// for them), the retries of connection failures, 408, 409, 429 and 5xx
// responses with exponential backoff, honouring Retry-After up to
// HTTPBounds.MaxRetryAfter, up to Config.MaxRetries times (2 by default).
// The whole request is bounded by the context, Config.Timeout and
// Settings.TimeoutMS. What fails after the retries, and what no retry can
// fix, is a *[model.ProviderError] with the HTTP status, the API's error
// status ("INVALID_ARGUMENT", "RESOURCE_EXHAUSTED"...) as Code and its
// message. A connection that fails is a ProviderError with Code
// "connection_error"; a stream that breaks or ends without a finish
// reason, Code "stream_error". Every error's text is redacted by
// [model.Redactor]: the key, sent as the x-goog-api-key header, never appears
// in an error, not even in a URL a Go net error quotes. A cancelled or
// expired context returns an error that wraps the context's error.
//
// # Cost
//
// The SDK resolves where and how requests go (the backend, the environment,
// the base URL and API version, the key, Vertex AI's credentials), and its
// types (Content, Part, Tool, GenerateContentResponse) are the wire's; but
// the SDK's own request path converts every request and response through
// generic maps, which cost about 250 µs of CPU per request, so the model
// encodes the body from those types, posts it with the resolved config and
// reads the response (and the stream's events) into them itself (see
// wire.go and stream.go). BenchmarkGenerateContent measures the provider,
// whole and streamed, against a bare HTTP exchange of the same bytes.
//
// # Concurrency
//
// A Model is immutable once built and safe for concurrent use.
package google
