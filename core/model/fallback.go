package model

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// The failure kinds a [Fallback] can pass on (see [FallbackOn]).
const (
	// FallbackServerError is an HTTP 5xx (Anthropic's 529 overloaded
	// included).
	FallbackServerError = "server_error"
	// FallbackRateLimit is an HTTP 429.
	FallbackRateLimit = "rate_limit"
	// FallbackTimeout is a bound of [HTTPBounds] that passed (connect,
	// first byte, idle), an HTTP 408, or a request's own deadline (a
	// timeout of the model or of Settings.TimeoutMS) while the caller's
	// context is still live.
	FallbackTimeout = "timeout"
	// FallbackConnection is a failed connection: the server could not be
	// reached, or it dropped the connection before the response was
	// complete.
	FallbackConnection = "connection"
)

// DefaultFallbackKinds returns the failures a Fallback passes on unless
// told otherwise: what a retry of the same server could also fix, and what
// another provider likely does not share.
func DefaultFallbackKinds() []string {
	return []string{FallbackServerError, FallbackRateLimit, FallbackTimeout, FallbackConnection}
}

// FallbackOptions configure a [Fallback]. The zero value passes on the
// [DefaultFallbackKinds].
type FallbackOptions struct {
	// On decides whether a model's failure passes the request to the
	// next model (nil: [FallbackOn] of [DefaultFallbackKinds]). The
	// caller's own cancellation never does.
	On func(error) bool
}

// FallbackOn returns the decision of FallbackOptions.On passing on the
// failures of kinds: the Fallback* kinds, or an HTTP status written as
// digits ("404", "503"). An unknown kind is an error.
func FallbackOn(kinds ...string) (func(error) bool, error) {
	want := map[string]bool{}
	status := map[int]bool{}
	for _, k := range kinds {
		switch k {
		case FallbackServerError, FallbackRateLimit, FallbackTimeout, FallbackConnection:
			want[k] = true
		default:
			n, err := strconv.Atoi(k)
			if err != nil || n < 100 || n > 599 {
				return nil, fmt.Errorf("model: unknown fallback kind %q (known: %s, or an HTTP status such as \"503\")", k, strings.Join(DefaultFallbackKinds(), ", "))
			}
			status[n] = true
		}
	}
	return func(err error) bool {
		var pe *ProviderError
		if errors.As(err, &pe) && pe.StatusCode != 0 && status[pe.StatusCode] {
			return true
		}
		return want[failureKind(err)]
	}, nil
}

// failureKind is the Fallback* kind of err, "" for none.
func failureKind(err error) string {
	var pe *ProviderError
	if errors.As(err, &pe) {
		switch {
		case pe.StatusCode == http.StatusTooManyRequests:
			return FallbackRateLimit
		case pe.StatusCode == http.StatusRequestTimeout:
			return FallbackTimeout
		case pe.StatusCode >= 500:
			return FallbackServerError
		case pe.StatusCode != 0:
			return ""
		}
		switch pe.Code {
		case "connect_timeout", "first_byte_timeout", "idle_timeout":
			return FallbackTimeout
		case "connection_error", "stream_incomplete":
			return FallbackConnection
		}
		return ""
	}
	var te *TimeoutError
	if errors.As(err, &te) || errors.Is(err, context.DeadlineExceeded) {
		return FallbackTimeout
	}
	var ne net.Error
	if errors.As(err, &ne) {
		return FallbackConnection
	}
	return ""
}

// Attempt is a request a model of a [Fallback] failed, before the next
// model was asked.
type Attempt struct {
	// Model is the model's name where it says one (a Name method), and
	// Provider the provider of its error.
	Model    string `json:"model,omitempty"`
	Provider string `json:"provider,omitempty"`
	// StatusCode and Code are those of its *ProviderError; Error is the
	// error's text (redacted, as every provider error is).
	StatusCode int    `json:"status_code,omitempty"`
	Code       string `json:"code,omitempty"`
	Error      string `json:"error"`
	// Sent: the request reached the server (it answered with a status, or
	// timed out waiting for an answer), so it counts as a request in the
	// usage; a failed connection does not.
	Sent bool `json:"sent,omitempty"`
	// Start and End time the attempt.
	Start time.Time `json:"start,omitzero"`
	End   time.Time `json:"end,omitzero"`
}

// FallbackError is the failure of a [Fallback]: every attempt, in order,
// with the last one's error (the one that did not pass on, or the last
// model's). errors.Is and errors.As see every attempt's error, so
// errors.Is(err, ErrModel) holds.
type FallbackError struct {
	Attempts []Attempt
	errs     []error
}

func (e *FallbackError) Error() string {
	var b strings.Builder
	b.WriteString("model: ")
	if len(e.Attempts) > 1 {
		fmt.Fprintf(&b, "all %d models failed", len(e.Attempts))
	} else {
		b.WriteString("the model failed")
	}
	for i, a := range e.Attempts {
		name := a.Model
		if name == "" {
			name = a.Provider
		}
		fmt.Fprintf(&b, "; %d. %s: %s", i+1, name, a.Error)
	}
	return b.String()
}

// Unwrap returns the attempts' errors.
func (e *FallbackError) Unwrap() []error { return e.errs }

// Fallback is a Model that asks its models in order: when one fails with
// a failure its options pass on (FallbackOptions.On), the next one is
// asked the same request; any other failure, and the last model's, ends
// the request. The response says which model answered (ModelName,
// Provider) and lists the failed attempts before it (Message.Attempts;
// the agent reports each as a model_fallback event and a failed child
// span of the chat span, as it fails: see [AttemptReporter]). Failing attempts that reached their server count
// as requests in the response's Usage (without tokens, which a failure
// does not report), so request limits see them; connections that failed
// do not. When the request ends failing, the error is a *FallbackError
// listing every attempt.
//
// Fallback is a Streamer. A model that fails after it reported a delta
// is not replaced: its text may be shown and its calls started already,
// so another model's answer would contradict what went out; the error
// ends the request. A model that is not a Streamer answers whole, its
// calls reported done at the end (see StreamOrRequest).
//
// A Fallback is safe for concurrent use when its models are.
type Fallback struct {
	models []Model
	on     func(error) bool
}

var _ Streamer = (*Fallback)(nil)

// NewFallback returns a Fallback over models, asked in order. It needs
// at least one model, none of them nil.
func NewFallback(models []Model, o FallbackOptions) (*Fallback, error) {
	if len(models) == 0 {
		return nil, errors.New("model: a fallback needs at least one model")
	}
	for i, m := range models {
		if m == nil {
			return nil, fmt.Errorf("model: fallback model %d is nil", i)
		}
	}
	on := o.On
	if on == nil {
		on, _ = FallbackOn(DefaultFallbackKinds()...)
	}
	return &Fallback{models: append([]Model(nil), models...), on: on}, nil
}

// Models returns the models, in the order they are asked.
func (f *Fallback) Models() []Model { return append([]Model(nil), f.models...) }

// Streaming reports whether every model streams by default (see
// StreamsByDefault): a run without deltas then streams for eager
// dispatch; otherwise each model is asked as it is configured.
func (f *Fallback) Streaming() bool {
	for _, m := range f.models {
		if !StreamsByDefault(m) {
			return false
		}
	}
	return true
}

// Request asks the models in order (see Fallback).
func (f *Fallback) Request(ctx context.Context, messages []Message, params Params) (Message, error) {
	return f.ask(ctx, func(ctx context.Context, m Model) (Message, error) { return m.Request(ctx, messages, params) }, nil)
}

// Stream asks the models in order, streaming from each (see Fallback for
// a failure after deltas). With a nil deltas it is Request.
func (f *Fallback) Stream(ctx context.Context, messages []Message, params Params, deltas DeltaHandler) (Message, error) {
	if deltas == nil {
		return f.Request(ctx, messages, params)
	}
	var reported bool
	relay := func(d Delta) {
		reported = true
		deltas(d)
	}
	return f.ask(ctx, func(ctx context.Context, m Model) (Message, error) {
		return StreamOrRequest(ctx, m, messages, params, relay)
	}, func() bool { return reported })
}

// ask runs one request per model until one answers or a failure ends it;
// committed, when not nil, reports whether deltas went out. do asks a
// model with the ctx it is given.
func (f *Fallback) ask(ctx context.Context, do func(context.Context, Model) (Message, error), committed func() bool) (Message, error) {
	report := attemptReporter(ctx)
	if report != nil {
		// A fallback among the models reports to this one, which reports
		// its failure as one attempt: the reports are the attempts this
		// Fallback lists.
		ctx = WithAttemptReporter(ctx, nil)
	}
	var attempts []Attempt
	var errs []error
	for i, m := range f.models {
		start := time.Now()
		msg, err := do(ctx, m)
		if err == nil {
			return answered(msg, attempts), nil
		}
		attempts = append(attempts, attemptOf(m, err, start))
		errs = append(errs, err)
		last := i == len(f.models)-1
		if last || ctx.Err() != nil || (committed != nil && committed()) || !f.on(err) {
			break
		}
		if report != nil {
			// Before the next model is asked, so before its deltas.
			report.ReportAttempt(attempts[i])
		}
	}
	if len(attempts) == 1 {
		// One model asked: its own error, unchanged (no attempt listed,
		// none reported).
		return Message{}, errs[0]
	}
	if report != nil {
		report.ReportAttempt(attempts[len(attempts)-1])
	}
	return Message{}, &FallbackError{Attempts: attempts, errs: errs}
}

// AttemptReporter hears of the attempts of a [Fallback] as they fail,
// where Message.Attempts and FallbackError tell of them only once the
// request ends: the agent reports each as an event while the request
// runs. It is called once per listed attempt, in order, from the
// goroutine that called the Fallback: for a failure that passes on,
// before the next model is asked; for the last attempt of a request that
// fails with a *FallbackError, before it returns. A failure of the only
// model asked is not an attempt and is not reported.
type AttemptReporter interface {
	ReportAttempt(Attempt)
}

type attemptReporterKey struct{}

// WithAttemptReporter returns ctx with r, which the Fallbacks the ctx is
// given to report their failed attempts to (a nil r: none).
func WithAttemptReporter(ctx context.Context, r AttemptReporter) context.Context {
	return context.WithValue(ctx, attemptReporterKey{}, r)
}

func attemptReporter(ctx context.Context) AttemptReporter {
	r, _ := ctx.Value(attemptReporterKey{}).(AttemptReporter)
	return r
}

// NewFallbackError rebuilds the failure of a Fallback from its attempts
// and their errors (one per attempt, in order; fewer leave errors.Is and
// errors.As without the missing ones): for a failure that crossed a
// boundary as data, such as a durable run's activity.
func NewFallbackError(attempts []Attempt, errs []error) *FallbackError {
	return &FallbackError{Attempts: attempts, errs: errs}
}

// answered is msg with the failed attempts before it, which count as
// requests where they were sent.
func answered(msg Message, attempts []Attempt) Message {
	if len(attempts) == 0 {
		return msg
	}
	msg.Attempts = attempts
	u := Usage{Requests: 1}
	if msg.Usage != nil {
		u = *msg.Usage
	}
	for _, a := range attempts {
		if a.Sent {
			u.Requests++
		}
	}
	msg.Usage = &u
	return msg
}

func attemptOf(m Model, err error, start time.Time) Attempt {
	a := Attempt{Error: err.Error(), Start: start, End: time.Now()}
	if n, ok := m.(interface{ Name() string }); ok {
		a.Model = n.Name()
	}
	var pe *ProviderError
	if errors.As(err, &pe) {
		a.Provider, a.StatusCode, a.Code = pe.Provider, pe.StatusCode, pe.Code
	}
	// A status, or a timeout past the connection, means the server had
	// the request.
	a.Sent = a.StatusCode != 0 || a.Code == "first_byte_timeout" || a.Code == "idle_timeout" || a.Code == "stream_incomplete" ||
		(pe == nil && errors.Is(err, context.DeadlineExceeded))
	return a
}
