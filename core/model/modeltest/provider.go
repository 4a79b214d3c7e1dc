package modeltest

import (
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/starweaver-go/starweaver/core/model"
)

// Turn is one scripted answer of a fake server: a response (Status 0) or
// an error.
type Turn struct {
	// Thinking, Text and Calls are the response's parts, in that order;
	// each may be empty.
	Thinking string
	Text     string
	Calls    []Call
	// Usage is what the response reports (Requests is ignored). A fake
	// sends every count its wire format has a field for.
	Usage model.Usage
	// Finish is the response's finish reason (a model.Finish* constant);
	// "" lets the fake send the one its parts imply (tool_calls when there
	// are calls, stop otherwise).
	Finish string
	// Cut drops the connection halfway through the answer (a stream
	// breaking before its end, a body shorter than it said). NewHTTPFake
	// does it for every Wire.
	Cut bool
	// Hold answers nothing, not even a status, until the client gives the
	// request up (a server that never starts its answer): for the
	// first-byte timeout, cancellation and request timeout scenarios.
	Hold bool
	// Stall starts the answer (its status and headers) and then sends
	// nothing but keep-alives until the client gives up: an event stream
	// sends SSE comments (and the Wire's own keep-alive, see [KeepAliver])
	// every few milliseconds, any other body nothing. For the idle timeout
	// scenario.
	Stall bool

	// Status, when not 0, answers with that HTTP status and the provider's
	// error body carrying Code (its error type or code) and Message.
	Status  int
	Code    string
	Message string
	// RetryAfter, when positive, is sent as a Retry-After header (whole
	// seconds, rounded up) and as Retry-After-Ms (milliseconds), which
	// model.HTTPPolicy reads first: the suite asks for short waits so that
	// its retry scenarios stay fast.
	RetryAfter time.Duration
	// Echo appends the request's headers ("name: value", sorted) to the
	// error's Message, as a gateway quoting the request it rejects does:
	// the credentials among them must come back masked.
	Echo bool
}

// Call is a tool call of a scripted response, or one a request carried in
// its history.
type Call struct {
	ID        string
	Name      string
	Arguments json.RawMessage
}

// Seen is what a fake decoded from one request it received.
type Seen struct {
	// Model is the model name the request named (in its body or its path).
	Model string
	// Stream: the request asked for a streamed response.
	Stream bool
	// Tools are the names of the tools the request offered, in order.
	Tools []string
	// NativeOutput: the request asked for structured output through the
	// API's own schema (response_format, responseSchema...), not a tool.
	NativeOutput bool
	// Calls are the tool calls of the history's model turns, in order: a
	// model must send every call back with its id, name and arguments.
	Calls []Call
	// Results are the tool results of the request, in order.
	Results []Result
	// Thinking are the texts of the thinking the history's model turns
	// sent back, in order (filled by fakes of providers that set
	// Provider.ThinkingSentBack).
	Thinking []string
	// Header is the request's HTTP header.
	Header http.Header
	// At is when the request arrived and Body what it held, undecoded
	// (set by NewHTTPFake).
	At   time.Time
	Body []byte
}

// Result is a tool result as a request carried it.
type Result struct {
	// CallID is the id of the call it answers; Name the tool's name where
	// the wire format carries one ("" otherwise).
	CallID string
	Name   string
	// Kinds are the result's content blocks as the wire format sent them,
	// in order, each one of the Kind* constants.
	Kinds []string
	// Text is the text blocks joined (a JSON block's JSON text included).
	Text string
	// IsError: the result was flagged as an error, natively or (where the
	// API has no flag) by a text starting with "Error: ".
	IsError bool
}

// The content kinds a tool result can carry natively.
const (
	KindText     = "text"
	KindJSON     = "json"
	KindImage    = "image"
	KindDocument = "document"
	KindAudio    = "audio"
)

// Fake is a provider's fake server: it answers the scripted turns in
// order (a request past the script fails the test) and records what each
// request held. It must be safe for concurrent use.
type Fake interface {
	// URL is the base URL a model reaches the fake at.
	URL() string
	// Script queues turns.
	Script(turns ...Turn)
	// Seen returns what the requests received so far held, in order.
	Seen() []Seen
}

// Options are what [Run] asks of a model it builds.
type Options struct {
	// APIKey is the key the model sends (the suite's own unless a
	// scenario sets another); error scenarios check that it is masked
	// wherever a server quotes it.
	APIKey string
	// Streaming makes Request stream its responses.
	Streaming bool
	// MaxRetries bounds the retries of retryable failures.
	MaxRetries int
	// Timeout bounds every request of the model (the provider's
	// Config.Timeout; zero: none).
	Timeout time.Duration
	// Headers are extra HTTP headers the model sends with every request
	// (the provider's Config.Headers).
	Headers map[string]string
	// HTTPBounds are the model's connect, first-byte and idle bounds
	// (model.HTTPBounds; zero: the defaults).
	HTTPBounds model.HTTPBounds
}

// Provider is a provider under test.
type Provider struct {
	// Name is what the model's responses say in Message.Provider and its
	// errors in ProviderError.Provider.
	Name string
	// NewFake starts a fake server for one scenario (closed with t).
	NewFake func(t *testing.T) Fake
	// NewModel builds the model under test, reaching url.
	NewModel func(t *testing.T, url string, o Options) model.Model
	// NativeOutput: the model sends an Output of mode native as the API's
	// own structured output (else such a request must fail clearly).
	NativeOutput bool
	// Carries says, for each content kind of a tool result (the tool.Part
	// kinds: text, image, document, audio, resource_link), whether the
	// provider sends it natively; a kind it does not carry must fail the
	// request with an error naming the kind, never be dropped or
	// flattened into text silently. Text is always carried; a resource
	// link is carried as text (model.ResourceLinkText), so true for it
	// means that text block.
	Carries map[string]bool
	// NoURL lists the carried kinds whose URL sources the provider cannot
	// send (it takes their bytes inline only): such a part must fail the
	// request naming the kind. nil: every carried kind takes URLs too.
	NoURL map[string]bool
	// Usage lists the counts of model.Usage the wire format reports (the
	// Usage* constants), which the suite checks are mapped exactly; nil
	// means input and output tokens only.
	Usage []string
	// Thinking: the wire format carries the model's thinking (a scripted
	// Turn.Thinking comes back as a thinking part and thinking deltas).
	Thinking bool
	// ThinkingSentBack: the model sends its own thinking back with the
	// history (as APIs that check it with tool use require), and the fake
	// records it in Seen.Thinking.
	ThinkingSentBack bool
}

// The counts of model.Usage a wire format may report (Provider.Usage).
const (
	UsageInput      = "input"
	UsageOutput     = "output"
	UsageCacheRead  = "cache_read"
	UsageCacheWrite = "cache_write"
	UsageReasoning  = "reasoning"
)
