package tool_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/starweaver-go/starweaver/core/tool"
)

// pyTraceback is what Python's traceback.format_exception writes for a
// chained exception whose last line names a DSN.
const pyTraceback = `Traceback (most recent call last):
  File "/srv/app/tools.py", line 12, in lookup
    row = db.fetch(q)
KeyError: 'user'

During handling of the above exception, another exception occurred:

Traceback (most recent call last):
  File "/srv/app/tools.py", line 14, in lookup
    raise RuntimeError(f"cannot reach {dsn}")
          ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
RuntimeError: cannot reach postgres://app:hunter2@db.internal:5432/prod`

const goDump = `panic: boom [recovered]

goroutine 7 [running]:
main.lookup({0x10a5e40, 0xc000012345})
	/home/dev/secret-project/main.go:42 +0x1d
github.com/acme/svc.(*Server).Handle(0xc0000a4000, {0x1, 0x2})
	/home/dev/secret-project/server.go:88 +0x2b
created by main.main in goroutine 1
	/home/dev/secret-project/main.go:20 +0x65`

func TestRedact(t *testing.T) {
	cases := []struct {
		name, in, want string
	}{
		{"plain text is kept", "file not found: /tmp/report.csv", "file not found: /tmp/report.csv"},
		{"empty", "", ""},
		{"dsn", "connect postgres://app:hunter2@db:5432/prod failed", "connect postgres://***@db:5432/prod failed"},
		{"dsn password with / and @", "mysql://root:p@ss/w0rd@10.0.0.1/db", "mysql://***@10.0.0.1/db"},
		{"url token as user", "git clone https://ghs_abc@github.com/x/y", "git clone https://***@github.com/x/y"},
		{"url without credentials is kept", "GET https://api.example.com:8443/v1/items?id=3 returned 500", "GET https://api.example.com:8443/v1/items?id=3 returned 500"},
		{"empty user", "redis://:s3cr3t@cache:6379/0", "redis://***@cache:6379/0"},
		{"go mysql dsn", "dial app:hunter2@tcp(db:3306)/prod: refused", "dial ***@tcp(db:3306)/prod: refused"},
		{"bearer", "401 with header Bearer eyJhbGciOi.abc-def_123", "401 with header Bearer ***"},
		{"authorization header", `Authorization: Basic dXNlcjpwYXNz`, `Authorization: ***`},
		{"authorization in parentheses", "failed (Authorization: Bearer abcdef0123456789): refused", "failed (Authorization: ***): refused"},
		{"authorization json", `{"Authorization": "Bearer abcdef123456"}`, `{"Authorization": "***"}`},
		{"openai key", "invalid key sk-proj-AbCdEf0123456789xyzXYZ given", "invalid key *** given"},
		{"anthropic key", "sk-ant-api03-AbCdEf0123456789_xyz-XYZ", "***"},
		{"aws access key", "AKIAIOSFODNN7EXAMPLE is not authorised", "*** is not authorised"},
		{"github token", "token ghp_0123456789abcdefghijABCDEFGHIJ0123 revoked", "token *** revoked"},
		{"slack", "xoxb-123456789012-abcdefABCDEF", "***"},
		{"jwt", "jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N", "jwt ***"},
		{"password=", "login failed: user=bob password=hunter2 host=db", "login failed: user=bob password=*** host=db"},
		{"api_key json", `{"api_key": "k-123 456", "n": 2}`, `{"api_key": "***", "n": 2}`},
		{"python dict", `{'client_secret': 'abc def'}`, `{'client_secret': '***'}`},
		{"escaped json", `payload "{\"token\": \"t0ps3cret\"}" refused`, `payload "{\"token\": \"***\"}" refused`},
		{"env style", "AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "AWS_SECRET_ACCESS_KEY=***"},
		{"libpq", "host=db user=app password=hunter2 dbname=prod", "host=db user=app password=*** dbname=prod"},
		{"max_tokens is no secret", "max_tokens=100 exceeded; tokens: 5", "max_tokens=100 exceeded; tokens: 5"},
		{"schema path is no key", "at '/password': got number, want string", "at '/password': got number, want string"},
		{"pem", "key -----BEGIN RSA PRIVATE KEY-----\nMIIB\nabc\n-----END RSA PRIVATE KEY----- bad", "key -----BEGIN PRIVATE KEY-----***-----END PRIVATE KEY----- bad"},
		{"python traceback", "lookup failed:\n" + pyTraceback, "lookup failed:\nRuntimeError: cannot reach postgres://***@db.internal:5432/prod"},
		{"traceback on the line", "tool raised Traceback (most recent call last):\n  File \"x.py\", line 1, in f\nValueError: bad", "tool raised ValueError: bad"},
		{"exception group", "  + Exception Group Traceback (most recent call last):\n  |   File \"x.py\", line 1\n  | ExceptionGroup: eg (2 sub-exceptions)\n  +-+---- 1 ----\n    | ValueError: a", "[traceback redacted]"},
		{"goroutine dump", goDump, "panic: boom [recovered]"},
		{"goroutine dump then text", "failed\ngoroutine 1 [running]:\nmain.main()\n\t/src/main.go:3 +0x1\nexit status 2", "failed\nexit status 2"},
		{"node stack", "TypeError: x is undefined\n    at f (/app/index.js:10:5)\n    at Object.<anonymous> (/app/index.js:20:1)", "TypeError: x is undefined"},
		{"java stack", "java.sql.SQLException: denied\n\tat com.acme.Db.open(Db.java:42)\n\tat com.acme.Main.main(Main.java:7)", "java.sql.SQLException: denied"},
		{"at in prose is kept", "look at the file at line 3", "look at the file at line 3"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := tool.Redact(c.in)
			if got != c.want {
				t.Fatalf("Redact(%q)\n got %q\nwant %q", c.in, got, c.want)
			}
			if again := tool.Redact(got); again != got {
				t.Fatalf("Redact is not idempotent: %q -> %q", got, again)
			}
		})
	}
}

// secrets are values that must never survive Redact, whatever surrounds
// them, each with the text that gives it its meaning.
var secrets = []struct{ before, secret, after string }{
	{"postgres://app:", "hunter2pw", "@db/prod"},
	{"Bearer ", "tok3nVALUE9x", ""},
	{"password=", "Pa55w0rdXY", ""},
	{`"api_key": "`, "kv4lue-secret", `"`},
	{"", "sk-AbCdEf0123456789qrst", ""},
	{"", "AKIAABCDEFGHIJKLMNOP", ""},
	{"Traceback (most recent call last):\n  File \"/home/", "privpath", "/x.py\", line 1\nValueError: v"},
	{"goroutine 3 [running]:\nmain.f()\n\t/home/", "gosrcpath", "/m.go:1 +0x1"},
}

// FuzzRedact checks, for any text around them, that the known secrets
// never survive and that Redact is idempotent.
func FuzzRedact(f *testing.F) {
	f.Add("", "", 0)
	f.Add("error: ", " at startup", 1)
	f.Add("x\n", "\ny", 6)
	f.Add("\"", "'", 2)
	f.Add("Traceback (most recent call last):\n", "\n", 7)
	f.Fuzz(func(t *testing.T, prefix, suffix string, which int) {
		if which < 0 {
			which = -which
		}
		s := secrets[which%len(secrets)]
		// Text that glues onto the secret changes what it is (the word
		// "password=x" followed by "y" is the value "xy"); separate it.
		in := prefix + " " + s.before + s.secret + s.after + "\n" + suffix
		got := tool.Redact(in)
		if strings.Contains(got, s.secret) {
			t.Fatalf("Redact(%q) = %q keeps %q", in, got, s.secret)
		}
		if again := tool.Redact(got); again != got {
			t.Fatalf("not idempotent: %q -> %q", got, again)
		}
		// Any text at all: idempotent, and never a panic.
		raw := tool.Redact(prefix + suffix)
		if tool.Redact(raw) != raw {
			t.Fatalf("not idempotent on %q", prefix+suffix)
		}
	})
}

// TestErrorReturnRedactsWhatTheModelReads: a tool failing with a DSN, a
// bearer token and a traceback in its error gives the model (content and
// public metadata, the model-visible surfaces) none of them, while the
// private metadata and the error keep them for the application.
func TestErrorReturnRedactsWhatTheModelReads(t *testing.T) {
	msg := "query failed on postgres://app:hunter2@db:5432/prod with Authorization: Bearer s3cr3tT0ken99\n" + pyTraceback
	fail := tool.New("lookup", "", nil, func(context.Context, *tool.Context, json.RawMessage) (tool.Result, error) {
		return tool.Result{}, tool.UserError("%s", msg)
	})
	reg, err := tool.NewRegistry(fail)
	if err != nil {
		t.Fatal(err)
	}
	ret := reg.Execute(context.Background(), nil, tool.Call{ID: "c1", Name: "lookup"})
	visible, err := json.Marshal(struct {
		Content  any
		Metadata map[string]any
	}{ret.Content, ret.WireMetadata()})
	if err != nil {
		t.Fatal(err)
	}
	for _, leak := range []string{"hunter2", "s3cr3tT0ken99", "/srv/app/tools.py", "KeyError", "raise RuntimeError"} {
		if strings.Contains(string(visible), leak) {
			t.Errorf("the model reads %q: %s", leak, visible)
		}
	}
	content := ret.Content.(map[string]any)
	want := "query failed on postgres://***@db:5432/prod with Authorization: ***\nRuntimeError: cannot reach postgres://***@db.internal:5432/prod"
	if content[tool.MetaMessage] != want || ret.Metadata[tool.MetaMessage] != want {
		t.Errorf("message = %q, want %q", content[tool.MetaMessage], want)
	}
	if e := content["error"].(string); !strings.HasSuffix(e, want) {
		t.Errorf("error = %q", e)
	}
	if ret.PrivateMetadata[tool.MetaErrorMessage] != msg || tool.ErrorMessage(ret) != msg {
		t.Errorf("private message = %q, want the full one", ret.PrivateMetadata[tool.MetaErrorMessage])
	}
	if ret.ErrorKind() != tool.ErrorKindUserError {
		t.Errorf("kind = %q", ret.ErrorKind())
	}
}

// TestErrorReturnRedactsGuidance: model_retry and feedback repeat their
// message in how_to_fix; both are redacted.
func TestErrorReturnRedactsGuidance(t *testing.T) {
	for _, err := range []*tool.Error{tool.ModelRetry("retry without password=abc123"), tool.Feedback("see https://u:pw1234@h/x")} {
		ret := tool.ErrorReturn(tool.Call{ID: "c", Name: "t"}, err)
		b, _ := json.Marshal(ret.Content)
		if strings.Contains(string(b), "abc123") || strings.Contains(string(b), "pw1234") {
			t.Errorf("%s: content keeps a secret: %s", err.Kind, b)
		}
		if !errors.Is(err, err) || tool.ErrorMessage(ret) != err.Message {
			t.Errorf("%s: full message = %q", err.Kind, tool.ErrorMessage(ret))
		}
	}
}

// TestErrorReturnWithoutSecretsIsUnchanged: a message with nothing to
// redact adds no private copy.
func TestErrorReturnWithoutSecretsIsUnchanged(t *testing.T) {
	ret := tool.ErrorReturn(tool.Call{ID: "c", Name: "t"}, tool.UserError("no such file"))
	if _, ok := ret.PrivateMetadata[tool.MetaErrorMessage]; ok {
		t.Errorf("private metadata = %v", ret.PrivateMetadata)
	}
	if tool.ErrorMessage(ret) != "no such file" {
		t.Errorf("ErrorMessage = %q", tool.ErrorMessage(ret))
	}
}

// TestSchemaErrorsNeverQuoteValues: for every keyword family, the
// invalid_arguments message names the path and the rule but never the
// value that failed.
func TestSchemaErrorsNeverQuoteValues(t *testing.T) {
	const v = "V4LUE-XYZZY"
	cases := []struct {
		name   string
		schema map[string]any
		arg    any
		want   string
	}{
		{"pattern", map[string]any{"type": "string", "pattern": "^[a-z]+$"}, v, "pattern"},
		{"minLength", map[string]any{"type": "string", "minLength": 50}, v, "minLength"},
		{"maxLength", map[string]any{"type": "string", "maxLength": 2}, v, "maxLength"},
		{"enum", map[string]any{"enum": []any{"a", "b"}}, v, "one of"},
		{"const", map[string]any{"const": "a"}, v, "value must be"},
		{"type", map[string]any{"type": "integer"}, v, "want integer"},
		{"not", map[string]any{"not": map[string]any{"type": "string"}}, v, "not"},
		{"anyOf", map[string]any{"anyOf": []any{map[string]any{"type": "integer"}, map[string]any{"type": "boolean"}}}, v, "/arg"},
		{"oneOf", map[string]any{"oneOf": []any{map[string]any{"type": "string"}, map[string]any{"type": "string"}}}, v, "oneOf"},
		{"uniqueItems", map[string]any{"type": "array", "uniqueItems": true}, []any{v, v}, "equal"},
		{"contains", map[string]any{"type": "array", "contains": map[string]any{"type": "integer"}}, []any{v}, "want integer"},
		{"maxItems", map[string]any{"type": "array", "maxItems": 0}, []any{v}, "maxItems"},
		{"minimum", map[string]any{"type": "number", "minimum": 1e12}, json.Number("987654321"), ">="},
		{"multipleOf", map[string]any{"type": "number", "multipleOf": 7}, json.Number("987654321"), "multiple"},
		{"object", map[string]any{"type": "object", "properties": map[string]any{"x": map[string]any{"type": "integer"}}}, map[string]any{"x": v}, "/arg/x"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			norm, err := tool.NormalizeSchema(map[string]any{"type": "object", "properties": map[string]any{"arg": c.schema}})
			if err != nil {
				t.Fatal(err)
			}
			s, err := tool.CompileSchema(norm)
			if err != nil {
				t.Fatal(err)
			}
			err = s.Validate(map[string]any{"arg": c.arg})
			if err == nil {
				t.Fatal("the value was accepted")
			}
			msg := err.Error()
			if strings.Contains(msg, "XYZZY") || strings.Contains(msg, "987654321") {
				t.Errorf("message quotes the value: %q", msg)
			}
			if !strings.Contains(msg, "/arg") || !strings.Contains(msg, c.want) {
				t.Errorf("message %q does not name the path and %q", msg, c.want)
			}
		})
	}
}

// TestTypedDecodeErrorsNeverQuoteValues: arguments that pass the schema
// but fail a typed tool's decoding (a custom decoder's error quotes the
// value) name the field or the rule only; the decoder's text stays
// private.
func TestTypedDecodeErrorsNeverQuoteValues(t *testing.T) {
	type args struct {
		When time.Time `json:"when"`
	}
	typed := tool.Typed("at", "", func(context.Context, *tool.Context, args) (tool.Result, error) {
		return tool.Text("ran"), nil
	})
	reg, err := tool.NewRegistry(typed)
	if err != nil {
		t.Fatal(err)
	}
	ret := reg.Execute(context.Background(), nil, tool.Call{ID: "c", Name: "at", Arguments: json.RawMessage(`{"when":"S3CRET-NOT-A-TIME"}`)})
	if ret.ErrorKind() != tool.ErrorKindInvalidArguments {
		t.Fatalf("kind = %q (%v)", ret.ErrorKind(), ret.Content)
	}
	b, _ := json.Marshal(struct {
		C any
		M map[string]any
	}{ret.Content, ret.WireMetadata()})
	if strings.Contains(string(b), "S3CRET") {
		t.Errorf("the model reads the value: %s", b)
	}
	if d, _ := ret.PrivateMetadata["decode_error"].(string); !strings.Contains(d, "S3CRET") {
		t.Errorf("private decode error = %q, want the decoder's full text", d)
	}
}

// BenchmarkRedact measures the cost every error return pays: a short
// message with nothing to hide, and one with a DSN and a token.
func BenchmarkRedact(b *testing.B) {
	for _, c := range []struct{ name, msg string }{
		{"clean", "file not found: /tmp/report.csv (the tool looked in 3 places)"},
		{"secrets", "connect postgres://app:hunter2@db:5432/prod failed; Authorization: Bearer abcdefgh12345678"},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for range b.N {
				tool.Redact(c.msg)
			}
		})
	}
}
