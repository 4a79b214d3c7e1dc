package model

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net/http"
	"net/http/httptrace"
	"strconv"
	"strings"
	"sync"
	"time"
)

// The default bounds of a provider request (see [HTTPBounds]).
const (
	// DefaultConnectTimeout bounds establishing a connection (dial and
	// TLS handshake).
	DefaultConnectTimeout = 10 * time.Second
	// DefaultFirstByteTimeout bounds the wait for the response headers,
	// from the start of an attempt. A request that is not streamed gets
	// its headers only once the whole response is generated, so it is
	// generous, as the providers' own SDK defaults (10 minutes) are.
	DefaultFirstByteTimeout = 10 * time.Minute
	// DefaultIdleTimeout bounds the silence between two events of a
	// streamed response (or two reads of any other body). Keep-alive
	// comments and Anthropic's ping events do not count as events.
	DefaultIdleTimeout = 5 * time.Minute
	// DefaultMaxRetryAfter is the longest Retry-After a request waits
	// out; a server asking for a longer wait fails the request at once.
	DefaultMaxRetryAfter = time.Minute
	// DefaultMaxRetries is how many times a failed attempt is retried.
	DefaultMaxRetries = 2
)

// HTTPBounds bound each request a provider makes. For each duration, zero
// means its default (DefaultConnectTimeout...) and a negative value means
// no bound (the request's context still applies).
type HTTPBounds struct {
	// ConnectTimeout bounds dialing and the TLS handshake of an attempt.
	ConnectTimeout time.Duration
	// FirstByteTimeout bounds an attempt from its start to the response
	// headers.
	FirstByteTimeout time.Duration
	// IdleTimeout bounds the silence between two events of a stream (two
	// reads of a body that is not a stream).
	IdleTimeout time.Duration
	// MaxRetryAfter is the longest Retry-After (or Retry-After-Ms) that is
	// waited out before a retry.
	MaxRetryAfter time.Duration
}

func pick(d, def time.Duration) time.Duration {
	switch {
	case d == 0:
		return def
	case d < 0:
		return 0
	}
	return d
}

// Resolved returns b with its defaults filled in and its disabled bounds
// set to zero (no bound).
func (b HTTPBounds) Resolved() HTTPBounds {
	return HTTPBounds{
		ConnectTimeout:   pick(b.ConnectTimeout, DefaultConnectTimeout),
		FirstByteTimeout: pick(b.FirstByteTimeout, DefaultFirstByteTimeout),
		IdleTimeout:      pick(b.IdleTimeout, DefaultIdleTimeout),
		MaxRetryAfter:    pick(b.MaxRetryAfter, DefaultMaxRetryAfter),
	}
}

// Timeout phases of a [TimeoutError].
const (
	PhaseConnect   = "connect"
	PhaseFirstByte = "first_byte"
	PhaseIdle      = "idle"
)

// TimeoutError is a provider request that ended because one of its
// [HTTPBounds] passed. Providers report it as a *ProviderError whose Code
// is Phase + "_timeout" ("idle_timeout"...).
type TimeoutError struct {
	Phase string
	After time.Duration
}

func (e *TimeoutError) Error() string {
	switch e.Phase {
	case PhaseConnect:
		return fmt.Sprintf("could not connect within %v (connect_timeout)", e.After)
	case PhaseFirstByte:
		return fmt.Sprintf("no response within %v (first_byte_timeout)", e.After)
	default:
		return fmt.Sprintf("the response stream sent no event for %v (idle_timeout; keep-alive comments and pings do not count)", e.After)
	}
}

// Code is the ProviderError code of e: "connect_timeout",
// "first_byte_timeout" or "idle_timeout".
func (e *TimeoutError) Code() string { return e.Phase + "_timeout" }

// ProviderTimeout returns the *ProviderError of provider for err when err
// is (or holds) a *TimeoutError, and nil otherwise.
func ProviderTimeout(provider string, err error) *ProviderError {
	var te *TimeoutError
	if !errors.As(err, &te) {
		return nil
	}
	return &ProviderError{Provider: provider, Code: te.Code(), Message: te.Error()}
}

// HTTPPolicy is the one policy every provider applies to its HTTP
// requests, as a middleware around each request of its SDK client: the
// bounds of HTTPBounds on every attempt, and retries.
//
// Retries: an attempt is retried, at most MaxRetries times, when it failed
// to connect (a connect timeout included) or was answered 408, 409, 429 or
// 5xx (a response header x-should-retry: true or false decides instead
// when present). The wait before a retry is the response's Retry-After-Ms
// or Retry-After (seconds or an HTTP date) when it has one, else an
// exponential backoff (0.5 s, 1 s, 2 s... at most 8 s, minus up to a
// quarter of jitter). A Retry-After longer than MaxRetryAfter is not
// waited out: the response is returned at once, so the request fails with
// its status (429) and the error says what the server asked for. A first
// byte or idle timeout is never retried: it is the bound the caller set.
// Waits end with the request's context.
type HTTPPolicy struct {
	Bounds HTTPBounds
	// MaxRetries is how many retries follow a failed attempt (0: none).
	MaxRetries int
}

// NewHTTPPolicy returns the policy of bounds (defaults filled in) and
// maxRetries retries.
func NewHTTPPolicy(bounds HTTPBounds, maxRetries int) *HTTPPolicy {
	return &HTTPPolicy{Bounds: bounds.Resolved(), MaxRetries: max(0, maxRetries)}
}

// Do sends req through next under the policy; its signature is the
// middleware of the providers' SDKs.
func (p *HTTPPolicy) Do(req *http.Request, next func(*http.Request) (*http.Response, error)) (*http.Response, error) {
	parent := req.Context()
	for attempt := 0; ; attempt++ {
		r := req
		if attempt > 0 {
			if req.GetBody == nil && req.Body != nil && req.Body != http.NoBody {
				return nil, errors.New("model: the request body cannot be sent again")
			}
			r = req.Clone(parent)
			if req.GetBody != nil {
				body, err := req.GetBody()
				if err != nil {
					return nil, err
				}
				r.Body = body
			}
		}
		res, err := p.attempt(r, next)
		if parent.Err() != nil {
			if res != nil {
				res.Body.Close()
			}
			return nil, parent.Err()
		}
		retry, delay := p.decide(res, err, attempt)
		if !retry {
			if res != nil && p.Describe(res.Header) != "" {
				// A client's own retries (a model over a caller's client)
				// must not wait it out either.
				res.Header.Set("x-should-retry", "false")
			}
			return res, err
		}
		if res != nil {
			_, _ = io.Copy(io.Discard, io.LimitReader(res.Body, 64<<10))
			res.Body.Close()
		}
		if err := wait(parent, delay); err != nil {
			return nil, err
		}
	}
}

// decide reports whether the outcome of attempt is retried, and after
// how long.
func (p *HTTPPolicy) decide(res *http.Response, err error, attempt int) (bool, time.Duration) {
	if attempt >= p.MaxRetries {
		return false, 0
	}
	if err != nil {
		var te *TimeoutError
		if errors.As(err, &te) && te.Phase != PhaseConnect {
			return false, 0
		}
		return true, backoff(attempt)
	}
	switch res.Header.Get("x-should-retry") {
	case "true":
	case "false":
		return false, 0
	default:
		s := res.StatusCode
		if s != http.StatusRequestTimeout && s != http.StatusConflict && s != http.StatusTooManyRequests && s < 500 {
			return false, 0
		}
	}
	if d, ok := RetryAfter(res.Header); ok {
		if p.Bounds.MaxRetryAfter > 0 && d > p.Bounds.MaxRetryAfter {
			return false, 0
		}
		return true, d
	}
	return true, backoff(attempt)
}

func backoff(attempt int) time.Duration {
	d := time.Duration(0.5 * float64(time.Second) * math.Pow(2, float64(attempt)))
	if d > 8*time.Second || d <= 0 {
		d = 8 * time.Second
	}
	if j := int64(d / 4); j > 0 {
		d -= time.Duration(rand.Int64N(j))
	}
	return d
}

func wait(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// RetryAfter reads the wait a response asks for before a retry:
// Retry-After-Ms (milliseconds), else Retry-After (seconds, or an HTTP
// date). ok is false when neither is set or readable.
func RetryAfter(h http.Header) (d time.Duration, ok bool) {
	if v := h.Get("Retry-After-Ms"); v != "" {
		if f, err := strconv.ParseFloat(v, 64); err == nil && f >= 0 && !math.IsInf(f, 0) {
			return durationOf(f, time.Millisecond), true
		}
	}
	v := h.Get("Retry-After")
	if v == "" {
		return 0, false
	}
	if f, err := strconv.ParseFloat(v, 64); err == nil {
		if f < 0 || math.IsNaN(f) {
			return 0, false
		}
		return durationOf(f, time.Second), true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(0, time.Until(t)), true
	}
	return 0, false
}

func durationOf(f float64, unit time.Duration) time.Duration {
	if f*float64(unit) >= math.MaxInt64 {
		return time.Duration(math.MaxInt64)
	}
	return time.Duration(f * float64(unit))
}

// Describe returns what to add to the message of a provider error whose
// response had header h: the wait the server asked for when it is longer
// than the policy waits out, else "".
func (p *HTTPPolicy) Describe(h http.Header) string {
	if p == nil || h == nil {
		return ""
	}
	d, ok := RetryAfter(h)
	if !ok || p.Bounds.MaxRetryAfter <= 0 || d <= p.Bounds.MaxRetryAfter {
		return ""
	}
	return fmt.Sprintf("the server asked to retry after %v, longer than the %v this model waits (max_retry_after): not retried", d.Round(time.Second), p.Bounds.MaxRetryAfter)
}

// attempt makes one attempt under the connect, first-byte and idle
// bounds. The attempt's context lives until its response body is closed.
func (p *HTTPPolicy) attempt(req *http.Request, next func(*http.Request) (*http.Response, error)) (*http.Response, error) {
	b := p.Bounds
	ctx, cancel := context.WithCancelCause(req.Context())
	var (
		mu        sync.Mutex
		connTimer *time.Timer
		fbTimer   *time.Timer
	)
	if b.ConnectTimeout > 0 {
		connTimer = time.AfterFunc(b.ConnectTimeout, func() {
			cancel(&TimeoutError{Phase: PhaseConnect, After: b.ConnectTimeout})
		})
		ctx = httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{
			GotConn: func(httptrace.GotConnInfo) {
				mu.Lock()
				defer mu.Unlock()
				connTimer.Stop()
			},
		})
	}
	if b.FirstByteTimeout > 0 {
		fbTimer = time.AfterFunc(b.FirstByteTimeout, func() {
			cancel(&TimeoutError{Phase: PhaseFirstByte, After: b.FirstByteTimeout})
		})
	}
	stop := func() {
		mu.Lock()
		defer mu.Unlock()
		if connTimer != nil {
			connTimer.Stop()
		}
		if fbTimer != nil {
			fbTimer.Stop()
		}
	}
	res, err := next(req.WithContext(ctx))
	stop()
	if err != nil {
		cause := context.Cause(ctx)
		cancel(nil)
		var te *TimeoutError
		if errors.As(cause, &te) {
			if res != nil && res.Body != nil {
				res.Body.Close()
			}
			return nil, te
		}
		return res, err
	}
	if res == nil || res.Body == nil {
		cancel(nil)
		return res, err
	}
	res.Body = newIdleBody(res.Body, ctx, cancel, b.IdleTimeout, isEventStream(res))
	return res, nil
}

func isEventStream(res *http.Response) bool {
	return strings.HasPrefix(strings.ToLower(strings.TrimSpace(res.Header.Get("Content-Type"))), "text/event-stream")
}

// idleBody is a response body whose reads must make progress within the
// idle timeout: for an event stream, an event that is not a keep-alive
// (an SSE comment, an event named ping, or data {"type":"ping"}); for any
// other body, any bytes. Its context is cancelled (ending a blocked read)
// when the timeout passes, and the read returns the *TimeoutError.
type idleBody struct {
	rc     io.ReadCloser
	ctx    context.Context
	cancel context.CancelCauseFunc
	idle   time.Duration
	timer  *time.Timer
	sse    bool
	// line holds the current, incomplete line of an event stream; ping
	// whether the current event is named ping.
	line []byte
	ping bool
}

func newIdleBody(rc io.ReadCloser, ctx context.Context, cancel context.CancelCauseFunc, idle time.Duration, sse bool) *idleBody {
	b := &idleBody{rc: rc, ctx: ctx, cancel: cancel, idle: idle, sse: sse}
	if idle > 0 {
		b.timer = time.AfterFunc(idle, func() {
			cancel(&TimeoutError{Phase: PhaseIdle, After: idle})
		})
	}
	return b
}

func (b *idleBody) Read(p []byte) (int, error) {
	n, err := b.rc.Read(p)
	if b.timer != nil && n > 0 {
		if !b.sse || b.progress(p[:n]) {
			b.timer.Reset(b.idle)
		}
	}
	if err != nil && err != io.EOF {
		var te *TimeoutError
		if errors.As(context.Cause(b.ctx), &te) {
			return n, te
		}
	}
	return n, err
}

// progress scans the lines of chunk and reports whether one of them is
// part of an event other than a keep-alive.
func (b *idleBody) progress(chunk []byte) bool {
	got := false
	for len(chunk) > 0 {
		i := bytes.IndexByte(chunk, '\n')
		if i < 0 {
			if len(b.line) < 4096 {
				b.line = append(b.line, chunk[:min(len(chunk), 4096-len(b.line))]...)
			}
			return got
		}
		line := chunk[:i]
		if len(b.line) > 0 {
			line = append(b.line, line...)
			b.line = b.line[:0]
		}
		chunk = chunk[i+1:]
		if b.eventLine(bytes.TrimRight(line, "\r")) {
			got = true
		}
	}
	return got
}

var pingData = []byte(`{"type":"ping"}`)

// eventLine reads one line of an event stream and reports whether it is
// data of an event that is not a keep-alive.
func (b *idleBody) eventLine(line []byte) bool {
	switch {
	case len(line) == 0: // the end of an event
		b.ping = false
		return false
	case line[0] == ':': // a comment
		return false
	}
	field, value, _ := bytes.Cut(line, []byte(":"))
	value = bytes.TrimPrefix(value, []byte(" "))
	switch string(field) {
	case "event":
		b.ping = string(value) == "ping"
		return false
	case "data":
		if b.ping {
			return false
		}
		compact := bytes.ReplaceAll(value, []byte(" "), nil)
		return !bytes.Equal(compact, pingData)
	}
	return false
}

func (b *idleBody) Close() error {
	if b.timer != nil {
		b.timer.Stop()
	}
	err := b.rc.Close()
	b.cancel(nil)
	return err
}
