package modeltest

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/starweaver-go/starweaver/core/model"
)

// bound is the first-byte and idle bound of the bounds scenarios: long
// enough for a loaded machine to send a request, short enough to keep the
// suite fast.
const bound = 100 * time.Millisecond

// testBounds: model.HTTPPolicy's bounds as every provider applies them to
// its requests, and a caller's cancellation.
func testBounds(t *testing.T, p Provider) {
	t.Run("FirstByteTimeout", func(t *testing.T) {
		// A server that never starts its answer: the first-byte bound
		// fails the request, and it is not retried (the bound is the
		// caller's).
		e := newEnv(t, p)
		e.fake.Script(Turn{Hold: true})
		m := e.model(Options{MaxRetries: 2, HTTPBounds: model.HTTPBounds{FirstByteTimeout: bound}})
		_, err := m.Request(ctx(t), []model.Message{prompt("hi")}, model.Params{})
		if pe := wantProviderError(t, p, err); pe.Code != "first_byte_timeout" {
			t.Errorf("ProviderError = %+v, want code first_byte_timeout", pe)
		}
		e.seen(1)
	})
	t.Run("IdleTimeout", func(t *testing.T) {
		// A stream that sends only keep-alives makes no progress: the
		// idle bound fails it, naming the bound, not retried.
		e := newEnv(t, p)
		e.fake.Script(Turn{Text: "never sent", Stall: true})
		m := e.model(Options{Streaming: true, MaxRetries: 2, HTTPBounds: model.HTTPBounds{IdleTimeout: bound}})
		_, err := m.Request(ctx(t), []model.Message{prompt("hi")}, model.Params{})
		pe := wantProviderError(t, p, err)
		if pe.Code != "idle_timeout" || !strings.Contains(pe.Message, bound.String()) {
			t.Errorf("ProviderError = %+v, want code idle_timeout and a message naming %v", pe, bound)
		}
		e.seen(1)
	})
	for _, streaming := range []bool{false, true} {
		name := "Cancel"
		if streaming {
			name = "CancelStreaming"
		}
		t.Run(name, func(t *testing.T) {
			// The caller cancels while the server holds the request: the
			// request ends with context.Canceled (and model.ErrModel),
			// not retried.
			e := newEnv(t, p)
			e.fake.Script(Turn{Hold: true})
			m := e.model(Options{Streaming: streaming, MaxRetries: 2})
			c, cancel := context.WithCancel(ctx(t))
			defer cancel()
			errc := make(chan error, 1)
			go func() {
				_, err := m.Request(c, []model.Message{prompt("hi")}, model.Params{})
				errc <- err
			}()
			waitFor(t, timeout, "the request to reach the fake", func() bool { return len(e.fake.Seen()) > 0 })
			cancel()
			var err error
			select {
			case err = <-errc:
			case <-time.After(timeout):
				t.Fatal("the cancelled request did not return")
			}
			if !errors.Is(err, context.Canceled) || !errors.Is(err, model.ErrModel) {
				t.Errorf("err = %v, want context.Canceled and model.ErrModel", err)
			}
			e.seen(1)
		})
	}
	t.Run("TimeoutSetting", func(t *testing.T) {
		// Settings.TimeoutMS bounds the whole request.
		e := newEnv(t, p)
		e.fake.Script(Turn{Hold: true})
		_, err := e.model(Options{MaxRetries: 2}).Request(ctx(t), []model.Message{prompt("hi")},
			model.Params{Settings: model.Settings{TimeoutMS: 50}})
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("err = %v, want context.DeadlineExceeded", err)
		}
		e.seen(1)
	})
	t.Run("ConfigTimeout", func(t *testing.T) {
		// Options.Timeout (Config.Timeout) bounds every request of the
		// model, as Settings.TimeoutMS does one.
		e := newEnv(t, p)
		e.fake.Script(Turn{Hold: true})
		_, err := e.model(Options{Timeout: 50 * time.Millisecond}).Request(ctx(t), []model.Message{prompt("hi")}, model.Params{})
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("err = %v, want context.DeadlineExceeded", err)
		}
		e.seen(1)
	})
	t.Run("ConnectionFailure", func(t *testing.T) {
		// Nothing listens at the URL: a provider error of code
		// connection_error and no status, retried or not, whose text (a
		// net error quoting the URL) shows no key.
		dead := httptest.NewServer(http.NotFoundHandler())
		url := dead.URL
		dead.Close()
		m := p.NewModel(t, url, Options{APIKey: testKey, MaxRetries: 1})
		_, err := m.Request(ctx(t), []model.Message{prompt("hi")}, model.Params{})
		pe := wantProviderError(t, p, err)
		if pe.Code != "connection_error" || pe.StatusCode != 0 {
			t.Errorf("ProviderError = %+v, want code connection_error and no status", pe)
		}
		if strings.Contains(err.Error(), testKey) {
			t.Errorf("the error shows the key: %v", err)
		}
	})
}
