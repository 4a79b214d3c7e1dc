package anthropic

import (
	"errors"
	"fmt"

	"github.com/starweaver-go/starweaver/core/model"
)

// DefaultMaxTokens is the max_tokens sent when neither Settings.MaxTokens
// nor Options.MaxTokens sets it: Anthropic requires the field.
const DefaultMaxTokens = 4096

// ProviderName is the default name a Model reports in Message.Provider and
// in ProviderError.Provider, and the name thinking parts carry.
const ProviderName = "anthropic"

// Options configures a Model. The zero value is the defaults: no
// streaming, [DefaultMaxTokens], no extended thinking, [ProviderName],
// model.HTTPBounds' defaults and (for [NewFromConfig]) the zero Config.
type Options struct {
	// Config says how to reach the Messages API. Only NewFromConfig reads
	// it: New takes a client the caller configured and rejects a Config
	// that is not zero.
	Config
	// Streaming makes the model stream each response (server-sent events)
	// and assemble it: text and thinking deltas, signature deltas,
	// tool-call arguments split across input_json_delta events, and the
	// usage of message_start and message_delta. A stream that ends before
	// message_stop fails the request. Stream streams whether or not this
	// is set.
	Streaming bool
	// MaxTokens is the max_tokens sent when Settings.MaxTokens is unset
	// (0 means [DefaultMaxTokens]; negative is an error).
	MaxTokens int
	// ThinkingBudget enables extended thinking with this budget of tokens
	// (0: no thinking; negative is an error). The API requires the budget
	// to be at least 1024 and below max_tokens.
	ThinkingBudget int
	// ProviderName is the name reported in Message.Provider and in
	// ProviderError.Provider ("" means [ProviderName]), for example when
	// the Messages API is served by a gateway. Thinking parts keep
	// "anthropic", since only Anthropic's API can verify them.
	ProviderName string
	// HTTPBounds sets the connect, first-byte and idle-stream timeouts and
	// the longest Retry-After waited out (see model.HTTPBounds: zero
	// fields keep the defaults, negative ones remove the bound).
	HTTPBounds model.HTTPBounds
	// Secrets are values (credentials the caller's client sends) that
	// every error of the model masks, besides Config.APIKey, the
	// credential headers of Config.Headers and the shape rules of
	// model.Redactor.
	Secrets []string
}

// check reports the first invalid setting of name and o; config says
// whether o.Config may be set.
func (o *Options) check(name string, config bool) error {
	switch {
	case name == "":
		return errors.New("anthropic: the model name must not be empty")
	case !config && !o.Config.isZero():
		return errors.New("anthropic: Options.Config is for NewFromConfig; New uses the client as it is configured")
	case o.MaxTokens < 0:
		return fmt.Errorf("anthropic: Options.MaxTokens must be >= 0, got %d", o.MaxTokens)
	case o.ThinkingBudget < 0:
		return fmt.Errorf("anthropic: Options.ThinkingBudget must be >= 0, got %d", o.ThinkingBudget)
	case o.MaxRetries != nil && *o.MaxRetries < 0:
		return fmt.Errorf("anthropic: Config.MaxRetries must be >= 0, got %d", *o.MaxRetries)
	case o.Timeout < 0:
		return fmt.Errorf("anthropic: Config.Timeout must be >= 0, got %v", o.Timeout)
	}
	return nil
}

func (c *Config) isZero() bool {
	return c.APIKey == "" && c.BaseURL == "" && c.Headers == nil && c.MaxRetries == nil && c.Timeout == 0 && c.HTTPClient == nil
}
