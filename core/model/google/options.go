package google

import (
	"errors"
	"fmt"
	"strings"

	"github.com/starweaver-go/starweaver/core/model"
)

// ProviderName is the default name a Model of the Gemini API reports in
// Message.Provider and in ProviderError.Provider, and the name the thinking
// parts of every Model carry (both backends verify Gemini's signatures);
// VertexProviderName is the default name of a Model on Vertex AI.
const (
	ProviderName       = "google"
	VertexProviderName = "google-vertex"
)

// Options configures a Model. The zero value is the defaults: no
// streaming, no thinking configuration (the model's own default),
// [ProviderName], model.HTTPBounds' defaults and (for [NewFromConfig]) the
// zero Config.
type Options struct {
	// Config says how to reach the API. Only NewFromConfig reads it: New
	// takes a client the caller configured and rejects a Config that is
	// not zero.
	Config
	// Streaming makes Request stream each response
	// (streamGenerateContent?alt=sse) and assemble it. Stream streams
	// whether or not this is set.
	Streaming bool
	// ThinkingBudget, when not 0, sets thinkingConfig.thinkingBudget
	// (-1: the model decides; 0 would disable thinking, so use
	// NoThinking for that). IncludeThoughts asks for the thought summaries
	// as thinking parts.
	ThinkingBudget  int
	NoThinking      bool
	IncludeThoughts bool
	// ProviderName is the name reported in Message.Provider and in
	// ProviderError.Provider ("" means [ProviderName], or
	// [VertexProviderName] on Vertex AI). Thinking parts keep
	// "google": thought signatures are verified by Google's API only.
	ProviderName string
	// HTTPBounds sets the connect, first-byte and idle-stream timeouts and
	// the longest Retry-After waited out (see model.HTTPBounds).
	HTTPBounds model.HTTPBounds
	// Secrets are values every error of the model masks, besides
	// Config.APIKey, the credential headers of Config.Headers and the
	// shape rules of model.Redactor.
	Secrets []string
}

// check reports the first invalid setting of name and o; config says
// whether o.Config may be set.
func (o *Options) check(name string, config bool) error {
	switch {
	case name == "":
		return errors.New("google: the model name must not be empty")
	case strings.ContainsAny(name, "?&") || strings.Contains(name, ".."):
		return fmt.Errorf("google: invalid model name %q", name)
	case !config && !o.Config.isZero():
		return errors.New("google: Options.Config is for NewFromConfig; New uses the client as it is configured")
	case o.ThinkingBudget < -1:
		return fmt.Errorf("google: Options.ThinkingBudget must be >= -1, got %d", o.ThinkingBudget)
	case o.NoThinking && o.ThinkingBudget != 0:
		return errors.New("google: Options.NoThinking and Options.ThinkingBudget are exclusive")
	case o.MaxRetries != nil && *o.MaxRetries < 0:
		return fmt.Errorf("google: Config.MaxRetries must be >= 0, got %d", *o.MaxRetries)
	case o.Timeout < 0:
		return fmt.Errorf("google: Config.Timeout must be >= 0, got %v", o.Timeout)
	case o.Vertex && o.APIKey != "" && (o.Project != "" || o.Location != ""):
		return errors.New("google: Vertex AI takes an API key (express mode) or a project and location, not both")
	case !o.Vertex && (o.Project != "" || o.Location != ""):
		return errors.New("google: Config.Project and Config.Location are for Vertex AI (set Config.Vertex)")
	}
	return nil
}
