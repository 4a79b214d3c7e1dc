package agent

import (
	"fmt"
	"strings"

	"github.com/starweaver-go/starweaver/core/model"
)

// Settings sets the model settings of every request of the agent's runs;
// run options (WithSettings) are merged over them with model.Settings.Merge.
// Build reports settings out of range as ErrInvalidSettings.
func (b *Builder) Settings(s model.Settings) *Builder {
	if err := checkSettings(s); err != nil {
		b.fail(err)
	}
	b.opts.Settings = b.opts.Settings.Merge(s)
	return b
}

// WithSettings merges s over the agent's model settings for this run. Out
// of range settings make the run fail with ErrInvalidSettings before it
// starts.
func WithSettings(s model.Settings) RunOption {
	return func(o *runOptions) { o.settings = o.settings.Merge(s) }
}

// checkSettings reports every setting out of range in one error:
// temperature in [0, 2], top_p in [0, 1], a positive token limit and
// timeout, non-empty stop sequences and tool choice names, header names
// without spaces.
func checkSettings(s model.Settings) error {
	var bad []string
	if t := s.Temperature; t != nil && (*t < 0 || *t > 2) {
		bad = append(bad, fmt.Sprintf("temperature must be between 0 and 2, got %v", *t))
	}
	if p := s.TopP; p != nil && (*p < 0 || *p > 1) {
		bad = append(bad, fmt.Sprintf("top_p must be between 0 and 1, got %v", *p))
	}
	if m := s.MaxTokens; m != nil && *m <= 0 {
		bad = append(bad, fmt.Sprintf("max_tokens must be positive, got %d", *m))
	}
	for i, stop := range s.Stop {
		if stop == "" {
			bad = append(bad, fmt.Sprintf("stop[%d] must not be empty", i))
		}
	}
	if s.TimeoutMS < 0 {
		bad = append(bad, "timeout must be positive")
	}
	if c := s.ToolChoice; c != "" && strings.TrimSpace(c) != c {
		bad = append(bad, fmt.Sprintf("tool_choice must be \"auto\", \"none\", \"required\" or a tool name, got %q", c))
	}
	for k := range s.ExtraHeaders {
		if k == "" || strings.ContainsAny(k, " \t\r\n:") {
			bad = append(bad, fmt.Sprintf("extra_headers has an invalid header name %q", k))
		}
	}
	if len(bad) == 0 {
		return nil
	}
	return fmt.Errorf("%w: %s", ErrInvalidSettings, strings.Join(bad, "; "))
}
