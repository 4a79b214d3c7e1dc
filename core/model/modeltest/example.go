package modeltest

import (
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
)

// The helpers of a provider's examples, which have no *testing.T.

// ServeFile starts a server (the caller closes it) answering every
// request with the file at path: as an event stream when its name ends
// in .sse, as JSON otherwise. It stands in for the API in an example; it
// panics if the file cannot be read.
func ServeFile(path string) *httptest.Server {
	body, err := os.ReadFile(path)
	if err != nil {
		panic(err)
	}
	ctype := "application/json"
	if strings.HasSuffix(path, ".sse") {
		ctype = "text/event-stream"
	}
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", ctype)
		_, _ = w.Write(body)
	}))
}

// RestoreEnv returns a func that sets the environment variables names
// back to what they are now (unset if they are): an example's
// t.Setenv.
func RestoreEnv(names ...string) func() {
	saved := map[string]*string{}
	for _, n := range names {
		if v, ok := os.LookupEnv(n); ok {
			saved[n] = &v
		} else {
			saved[n] = nil
		}
	}
	return func() {
		for n, v := range saved {
			if v == nil {
				_ = os.Unsetenv(n)
			} else {
				_ = os.Setenv(n, *v)
			}
		}
	}
}
