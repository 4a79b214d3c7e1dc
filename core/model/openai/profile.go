package openai

import (
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"strings"

	"github.com/starweaver-go/starweaver/core/tool"
)

// The names of the profiles [ProfileNamed] knows.
const (
	ProfileOpenAI           = "openai"
	ProfileOllama           = "ollama"
	ProfileVLLM             = "vllm"
	ProfileOpenAICompatible = "openai-compatible"
)

// Profile says what an OpenAI-compatible server accepts and where it is,
// so that the encoder asks the profile instead of special-casing servers.
// The zero value is OpenAI itself: every field is a departure from it.
//
// Two quirks need no field, since reading them costs OpenAI nothing: tool
// call arguments that arrive as a JSON object instead of a string holding
// one are read as that object (whole and streamed), and a response
// without usage has zero token counts (one request), never an error.
type Profile struct {
	// Name is what Message.Provider says unless Options.ProviderName
	// does ("" means [DefaultProvider]).
	Name string

	// NoStrict: the server does not enforce strict schemas. Tools and a
	// native output's schema are sent as they are, without the strict
	// conversion (which only helps a server that enforces it) and
	// without "strict" on Chat Completions (the Responses API gets
	// "strict": false, since its tools are strict unless told).
	NoStrict bool
	// NoParallelToolCalls: the server rejects or ignores
	// parallel_tool_calls; Settings.ParallelToolCalls is not sent.
	NoParallelToolCalls bool
	// NoStreamUsage: the server rejects stream_options; a streamed request
	// does not ask for usage (the response then has zero token counts).
	NoStreamUsage bool
	// NoDeveloperRole: the server has no "developer" role; the Responses
	// model sends instructions as "system" (Chat Completions always does).
	NoDeveloperRole bool

	// The rest is read only by the FromConfig constructors.

	// APIKeyEnv is the variable Config.APIKey falls back to (""
	// means OPENAI_API_KEY).
	APIKeyEnv string
	// BaseURLEnv is the variable Config.BaseURL falls back to (""
	// means OPENAI_BASE_URL), DefaultBaseURL the URL used when both are
	// empty ("" means OpenAI's API).
	BaseURLEnv     string
	DefaultBaseURL string
	// NeedsBaseURL: a model without a base URL (Config.BaseURL,
	// BaseURLEnv or DefaultBaseURL) is an error when it is built.
	NeedsBaseURL bool
	// HostPath is appended to a base URL without a path ("localhost:11434"
	// or "http://host:11434/"), the form a server's own clients take; a
	// URL without a scheme gets http://.
	HostPath string
}

// ProfileNamed returns the profile called name:
//
//   - "openai" (or ""): OpenAI, the zero Profile.
//   - "ollama": Ollama's OpenAI-compatible API at OLLAMA_BASE_URL, else
//     http://localhost:11434/v1 (a bare host gets /v1, as Ollama's own
//     clients take OLLAMA_HOST), no key needed (OLLAMA_API_KEY if set);
//     no strict schemas, no parallel_tool_calls.
//   - "vllm": a vLLM server at VLLM_BASE_URL or Config.BaseURL (one is
//     required), key from VLLM_API_KEY if the server was started with one;
//     no strict schemas.
//   - "openai-compatible": any server speaking OpenAI's wire at
//     Config.BaseURL or OPENAI_BASE_URL (one is required), key optional
//     (OPENAI_API_KEY).
func ProfileNamed(name string) (Profile, error) {
	switch name {
	case "", ProfileOpenAI:
		return Profile{}, nil
	case ProfileOllama:
		return Profile{
			Name: ProfileOllama, NoStrict: true, NoParallelToolCalls: true,
			APIKeyEnv: "OLLAMA_API_KEY", BaseURLEnv: "OLLAMA_BASE_URL",
			DefaultBaseURL: "http://localhost:11434/v1", HostPath: "/v1",
		}, nil
	case ProfileVLLM:
		return Profile{
			Name: ProfileVLLM, NoStrict: true,
			APIKeyEnv: "VLLM_API_KEY", BaseURLEnv: "VLLM_BASE_URL", NeedsBaseURL: true,
		}, nil
	case ProfileOpenAICompatible:
		return Profile{Name: ProfileOpenAICompatible, NeedsBaseURL: true}, nil
	}
	return Profile{}, fmt.Errorf("openai: unknown profile %q (known: openai, ollama, vllm, openai-compatible)", name)
}

func (p *Profile) apiKeyEnv() string {
	if p.APIKeyEnv == "" {
		return "OPENAI_API_KEY"
	}
	return p.APIKeyEnv
}

func (p *Profile) baseURLEnv() string {
	if p.BaseURLEnv == "" {
		return "OPENAI_BASE_URL"
	}
	return p.BaseURLEnv
}

// openAI reports whether the profile reads OpenAI's own variables, which
// the SDK also reads; any other profile must not send OpenAI's key to its
// server.
func (p *Profile) openAI() bool { return p.APIKeyEnv == "" }

// baseURL resolves the base URL of a model built from a Config: the
// Config's, the profile's variable, its default; "" leaves the SDK's.
func (p *Profile) baseURL(configured string) (string, error) {
	base := configured
	if base == "" {
		base = os.Getenv(p.baseURLEnv())
	}
	if base == "" {
		base = p.DefaultBaseURL
	}
	if base == "" && p.NeedsBaseURL {
		return "", fmt.Errorf("openai: the %s profile needs the server's base URL: set %s or pass base_url= (Go: Config.BaseURL)", p.Name, p.baseURLEnv())
	}
	if base != "" && p.HostPath != "" {
		base = withHostPath(base, p.HostPath)
	}
	return base, nil
}

// withHostPath completes a bare host into a base URL: http:// when it has
// no scheme, path when it has no path.
func withHostPath(base, path string) string {
	if !strings.Contains(base, "://") {
		base = "http://" + base
	}
	u, err := url.Parse(base)
	if err != nil || strings.Trim(u.Path, "/") != "" {
		return base
	}
	u.Path = path
	return u.String()
}

// tool is d as the profile sends it: without strict when the server does
// not enforce it (a copy; d's schema is shared, never changed).
func (p *Profile) tool(d tool.Definition) tool.Definition {
	if p.NoStrict && d.Strict != nil {
		d.Strict = nil
	}
	return d
}

// outputSchema is the encoded schema of a native output and whether it is
// sent strict.
func (p *Profile) outputSchema(schema map[string]any) (json.RawMessage, bool, error) {
	if p.NoStrict {
		b, err := encodeOnce(encodedKey{api: "format-plain"}, schema, func() any { return schema })
		return b, false, err
	}
	b, err := strictSchemaJSON(schema)
	return b, true, err
}
