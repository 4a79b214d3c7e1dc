// Package openai provides [model.Model] implementations for OpenAI's Chat
// Completions API ([Chat]) and Responses API ([Responses]), built on the
// official SDK, github.com/openai/openai-go/v3. Any OpenAI-compatible server
// (vLLM, llama.cpp, Ollama, LiteLLM) is reached through a base URL, and
// Options.Profile says what such a server does differently (see [Profile]
// and [ProfileNamed]: no strict schemas, no parallel_tool_calls, no
// stream_options, no developer role; where it is and which key variable it
// reads), so the encoder asks the profile instead of naming servers.
// Arguments sent as JSON objects and answers without usage are read for
// every server.
//
// Every constructor takes one [Options] struct (its zero value is the
// defaults) and returns an error for an invalid setting: [New] and
// [NewResponses] over a client the caller configured, [NewChatFromConfig]
// and [NewResponsesFromConfig] over one built from Options.Config.
//
// A model maps the model-visible history (see [model.Visible]) to the API's
// messages or input items, and the API's answer back to one response
// message: text, tool calls, refusals and reasoning become parts, the
// finish reason one of the model.Finish* constants, the token counts a
// [model.Usage]. Every part kind is mapped explicitly; an unknown one fails
// the request rather than being dropped.
//
// Tool results with content parts (see [model.ReturnParts]) go natively to
// the Responses API: text as input_text, images as input_image (a URL or a
// data: URL), documents as input_file; audio fails the request. Chat
// Completions tool messages carry text only: text parts become a list of
// text parts, and an image, audio or document fails the request with an
// error naming the Responses model, rather than being flattened. Resource
// links are sent as their text ([model.ResourceLinkText]); an error return
// starts with "Error: ", since neither API flags errors on tool results.
//
// Tools marked strict, and the schema of a native structured output, are
// sent as OpenAI strict schemas: every property required (optional ones
// made nullable), no additional properties, the keywords strict mode
// rejects moved into the description. The nulls the model then has to send
// for optional properties are removed from its answer, so the arguments
// still validate against the tool's own schema.
//
// Every request goes through [model.HTTPPolicy], the policy every
// provider shares: connect, first-byte and idle-stream timeouts
// (Options.HTTPBounds) and, for a model built from a Config, the retries of
// 408, 409, 429, 5xx and failed connections (backoff with jitter,
// Retry-After honoured up to HTTPBounds.MaxRetryAfter, Config.MaxRetries of
// them; the SDK's own retries are off). A model over a caller's client
// ([New]) keeps the client's retries, but never waits out a Retry-After
// above the cap. A failure after the retries, and every error a retry
// cannot fix (400, 401, 404, a context too long), is a
// [*model.ProviderError] carrying the provider's status, code and message,
// redacted by [model.Redactor] (the key, credential headers, key shapes). A stream that
// ends before the provider said the response was complete is one too
// (code "stream_incomplete").
//
// Both models are [model.Streamer]s: Stream always streams and reports
// text, reasoning, tool-call starts and argument fragments as they arrive,
// and each call as done as soon as its arguments are complete in the
// stream, so a caller can start it before the response ends. Request
// streams only with Options.Streaming, and reports nothing.
//
// Requests go through the SDK client (client.Post), so its authentication,
// base URL, headers, retries, error decoding and SSE decoder apply; the
// bodies themselves are encoded and decoded by this package, following the
// API reference, because the SDK's generated types cost several times the
// provider's CPU budget per request (see BenchmarkChatRequest and
// BenchmarkChatMapping).
//
// A Chat or Responses value is safe for concurrent use by several runs; its
// options are fixed when it is built.
package openai
