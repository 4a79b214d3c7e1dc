package anthropic

import "github.com/starweaver-go/starweaver/core/model"

// DefaultMaxTokens is the max_tokens sent when neither Settings.MaxTokens
// nor [WithMaxTokens] sets it: Anthropic requires the field.
const DefaultMaxTokens = 4096

// ProviderName is the default name a Model reports in Message.Provider and
// in ProviderError.Provider, and the name thinking parts carry.
const ProviderName = "anthropic"

// Option tunes a Model when it is built.
type Option func(*Model)

// WithStreaming makes the model stream each response (server-sent events)
// and assemble it: text and thinking deltas, signature deltas, tool-call
// arguments split across input_json_delta events, and the usage of
// message_start and message_delta. A stream that ends before message_stop
// fails the request. Stream streams whether or not this is set.
func WithStreaming(on bool) Option { return func(m *Model) { m.streaming = on } }

// WithMaxTokens sets the max_tokens sent when Settings.MaxTokens is unset
// (default [DefaultMaxTokens]). n <= 0 keeps the default.
func WithMaxTokens(n int) Option {
	return func(m *Model) {
		if n > 0 {
			m.maxTokens = n
		}
	}
}

// WithThinking enables extended thinking with the given budget of tokens.
// The API requires the budget to be at least 1024 and below max_tokens;
// budgetTokens <= 0 disables thinking.
func WithThinking(budgetTokens int) Option { return func(m *Model) { m.thinkingBudget = budgetTokens } }

// WithProviderName sets the name reported in Message.Provider and in
// ProviderError.Provider (default [ProviderName]), for example when the
// Messages API is served by a gateway. Thinking parts keep "anthropic",
// since only Anthropic's API can verify them.
func WithProviderName(name string) Option {
	return func(m *Model) {
		if name != "" {
			m.provider = name
		}
	}
}

// WithHTTPBounds sets the connect, first-byte and idle-stream timeouts and
// the longest Retry-After waited out (see model.HTTPBounds: zero fields
// keep the defaults, negative ones remove the bound).
func WithHTTPBounds(b model.HTTPBounds) Option { return func(m *Model) { m.bounds = b } }

// WithSecrets adds values (credentials the caller's client sends) that
// every error of the model masks, besides the key of a Config and the
// shape rules of model.Redactor.
func WithSecrets(values ...string) Option {
	return func(m *Model) { m.secrets = append(m.secrets, values...) }
}
