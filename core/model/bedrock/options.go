package bedrock

import (
	"errors"
	"fmt"

	"github.com/starweaver-go/starweaver/core/model"
)

// ProviderName is the default name a Model reports in Message.Provider and
// in ProviderError.Provider, and the name its thinking parts carry.
const ProviderName = "bedrock"

// Options configures a Model. The zero value is the defaults: no
// streaming, no maxTokens unless the settings set one (Bedrock fills in
// the model's own default), [ProviderName], model.HTTPBounds' defaults and
// (for [NewFromConfig]) the zero Config.
type Options struct {
	// Config says how to reach Bedrock. Only NewFromConfig reads it: New
	// takes a client the caller configured and rejects a Config that is
	// not zero.
	Config
	// Streaming makes Request use ConverseStream (the binary AWS event
	// stream) and assemble the response. Stream streams whether or not
	// this is set.
	Streaming bool
	// MaxTokens is the inferenceConfig.maxTokens sent when
	// Settings.MaxTokens is unset (0: not sent; negative is an error).
	MaxTokens int
	// ProviderName is the name reported in Message.Provider and in
	// ProviderError.Provider ("" means [ProviderName]). Thinking parts
	// keep "bedrock", since only Bedrock can verify their signatures.
	ProviderName string
	// HTTPBounds sets the connect, first-byte and idle-stream timeouts and
	// the longest Retry-After waited out (see model.HTTPBounds).
	HTTPBounds model.HTTPBounds
	// Secrets are values every error of the model masks, besides the
	// secret access key and session token of the credentials, the
	// credential headers of Config.Headers and model.Redactor's shape
	// rules.
	Secrets []string
}

// check reports the first invalid setting of name and o; config says
// whether o.Config may be set.
func (o *Options) check(name string, config bool) error {
	switch {
	case name == "":
		return errors.New("bedrock: the model id must not be empty")
	case !config && !o.Config.isZero():
		return errors.New("bedrock: Options.Config is for NewFromConfig; New uses the client as it is configured")
	case o.MaxTokens < 0:
		return fmt.Errorf("bedrock: Options.MaxTokens must be >= 0, got %d", o.MaxTokens)
	case o.MaxRetries != nil && *o.MaxRetries < 0:
		return fmt.Errorf("bedrock: Config.MaxRetries must be >= 0, got %d", *o.MaxRetries)
	case o.Timeout < 0:
		return fmt.Errorf("bedrock: Config.Timeout must be >= 0, got %v", o.Timeout)
	case (o.AccessKeyID == "") != (o.SecretAccessKey == ""):
		return errors.New("bedrock: Config.AccessKeyID and Config.SecretAccessKey go together")
	case o.SessionToken != "" && o.AccessKeyID == "":
		return errors.New("bedrock: Config.SessionToken needs Config.AccessKeyID and Config.SecretAccessKey")
	}
	return nil
}
