// Package bedrock provides a [model.Model] and [model.Streamer] over
// Amazon Bedrock's Converse and ConverseStream APIs, through the official
// AWS SDK (github.com/aws/aws-sdk-go-v2/service/bedrockruntime).
//
// Both constructors take one [Options] struct (its zero value is the
// defaults) and return an error for an invalid setting. [New] wraps a
// *bedrockruntime.Client the caller built (the caller owns its region,
// credentials, endpoint and retries); [NewFromConfig] builds one with
// config.LoadDefaultConfig, the standard AWS chain: the region from
// Config.Region, AWS_REGION, AWS_DEFAULT_REGION or the profile;
// credentials from Config's static keys, else AWS_ACCESS_KEY_ID /
// AWS_SECRET_ACCESS_KEY / AWS_SESSION_TOKEN, the shared files of
// Config.Profile or AWS_PROFILE, SSO, a web identity or the instance
// role; the endpoint from Config.EndpointURL, else
// AWS_ENDPOINT_URL_BEDROCK_RUNTIME or AWS_ENDPOINT_URL (which the SDK
// reads), else the region's. With no region at all every request fails
// with [ErrMissingRegion]; with no credentials, with a ProviderError of
// Code "credentials_error" naming the variables. The model id is the
// name: a base model ("anthropic.claude-sonnet-4-5-20250929-v1:0"), an
// inference profile ("us.anthropic.claude-...") or an ARN.
//
// # Mapping
//
// A history becomes one Converse request:
//
//   - system_prompt and instruction parts, then the Instructions of the
//     last request message, become the system text blocks, in order;
//   - user_prompt parts become user text blocks (other content is
//     rejected, never dropped);
//   - tool_return parts become toolResult blocks leading the next user
//     message (consecutive requests merge into one user message), with
//     status "error" for error returns: a string as a text block, a JSON
//     object as a json block (numbers keep their digits), any other JSON
//     value as its text. The parts of a rich return (see
//     [model.ReturnParts]) become text blocks, image blocks (PNG, JPEG,
//     GIF, WebP) and document blocks (PDF, CSV, DOC, DOCX, XLS, XLSX,
//     HTML, plain text, Markdown, named after the part's name reduced to
//     the characters Converse accepts, or "document N"), both with their
//     bytes; resource links become their text. Converse reads media bytes
//     (or S3 locations), never a URL: an image or document by URL fails the
//     request naming it, as do audio and unread media types;
//   - retry_prompt parts become an error toolResult for their call, or
//     user text when they name no call;
//   - earlier responses go back as assistant messages: text, toolUse
//     (arguments that are not a JSON object as {}) and reasoningContent
//     blocks (reasoningText with its signature, or redactedContent). Only
//     thinking parts of Bedrock (Thinking.Provider "bedrock") carrying a
//     signature or redacted data are sent back; refusals are not.
//
// A response maps back to text, tool_call and thinking parts (a
// redactedContent block is a thinking part with Thinking.Encrypted, its
// bytes base64-encoded). Stop reasons end_turn and stop_sequence finish
// with FinishStop, max_tokens and model_context_window_exceeded with
// FinishLength, tool_use with FinishToolCalls, guardrail_intervened and
// content_filtered with FinishContentFilter, malformed_model_output and
// malformed_tool_use with FinishError. Usage counts inputTokens plus
// cacheReadInputTokens and cacheWriteInputTokens as InputTokens (Bedrock
// counts them apart), reporting the latter two as CacheReadTokens and
// CacheWriteTokens. The x-amzn-RequestId of the response is its
// ResponseID. Any other content block type, or a response without content
// (but for max_tokens), fails the request.
//
// # Streaming
//
// Stream always uses ConverseStream, whose response is the binary AWS
// event stream (application/vnd.amazon.eventstream), decoded by this
// package into the SDK's event types (see Cost; CRCs are checked, events
// the package does not know are skipped, exception and error messages map
// to the API's errors): text
// and reasoningContent text deltas are reported as text and thinking
// fragments, a contentBlockStart with toolUse as a call start, its toolUse
// deltas as argument fragments, and its contentBlockStop as the call done,
// before the response ends (eager dispatch). The metadata event after
// messageStop carries the usage. It returns the message Request returns
// for the same response. Request streams only with Options.Streaming.
//
// # Settings
//
// MaxTokens (or Options.MaxTokens), Temperature, TopP and Stop go in
// inferenceConfig; ToolChoice "auto" is the default, "required" is sent as
// any, a tool's name as tool, and "none" sends no tools (Converse has no
// such choice), which fails once the history holds tool calls, since the
// API then requires the tools. Tools go in toolConfig as toolSpec with
// their JSON schema as inputSchema.json, strict when the tool asks.
// ExtraBody's keys go in additionalModelRequestFields (the model-specific
// parameters: Claude's "thinking" budget, "top_k"...); ExtraHeaders are
// added to the request and signed with it. TimeoutMS bounds the request.
// Seed and ParallelToolCalls have no Converse field and are ignored.
//
// Structured output: tool mode needs nothing (the output tool is among the
// tools); native mode is sent as outputConfig.textFormat, a json_schema
// with the schema as JSON text, its name and description. Models without
// structured outputs on Bedrock answer it with a ValidationException,
// returned as a ProviderError; use tool mode for them.
//
// # Failures
//
// Every HTTP request goes through [model.HTTPPolicy], below SigV4
// signing: connect, first-byte and idle timeouts (the idle bound counts
// any bytes of the binary event stream as progress) and, for a model built
// by [NewFromConfig], the retries of connection failures, 408, 409, 429
// and 5xx with backoff, honouring Retry-After up to
// HTTPBounds.MaxRetryAfter, up to Config.MaxRetries times (2 by default);
// the SDK's own retryer is aws.NopRetryer. A retry resends the signed
// request, valid for five minutes, longer than any wait the policy allows.
// What fails after the retries is a *[model.ProviderError] with the HTTP
// status, the exception name as Code (ThrottlingException,
// ValidationException, AccessDeniedException...) and the API's message;
// an exception event inside a stream carries the status the API reference
// gives that exception. A connection failure is Code "connection_error",
// a stream that breaks or ends before messageStop "stream_error". Every
// error passes [model.Redactor] masking the secret access key and session
// token the request was signed with (whatever part of the chain gave
// them), Options.Secrets and the credential headers of Config.Headers and
// ExtraHeaders. A cancelled or expired context returns an error wrapping
// the context's error.
//
// # Cost
//
// The SDK encodes and signs requests and decodes whole responses. It
// would decode a stream too, on two goroutines with a schema-driven
// deserializer per event (about 12 µs of CPU an event, a streamed response
// costing 1.6 to 1.8 times a whole one); eventstream.go decodes the frames
// instead (a middleware under the SDK's takes the body once the status is
// checked) into the SDK's own types, bringing it to about 1.3 times.
// BenchmarkConverse measures a whole response and a streamed one against a
// bare HTTP exchange of the same bytes.
//
// # Concurrency
//
// A Model is immutable once built and safe for concurrent use.
package bedrock
