package model

import (
	"errors"
	"regexp"
	"strings"
)

// Redacted replaces a credential in provider text.
const Redacted = "[REDACTED]"

// MinSecretLen is the shortest configured secret a Redactor masks by its
// value: a shorter one ("x", "none", a local server's placeholder) would
// mask ordinary words. The shape rules of [Redactor.String] apply anyway.
const MinSecretLen = 8

// Redactor masks credentials in the text a provider returns (error bodies,
// stream errors, transport errors), so that a server echoing the key (a
// gateway's 401 often does) does not carry it into errors, events, spans,
// logs or exported state. It is the one rule every provider applies to
// every error it returns. The zero value masks by shape only; a nil
// *Redactor does too. It is immutable and safe for concurrent use.
type Redactor struct {
	secrets []string
}

// NewRedactor returns a Redactor masking each secret (the configured API
// key, the values of credential headers) besides the shape rules. Secrets
// shorter than [MinSecretLen] are ignored.
func NewRedactor(secrets ...string) *Redactor {
	r := &Redactor{}
	return r.With(secrets...)
}

// With returns a Redactor masking secrets besides r's; r is unchanged.
func (r *Redactor) With(secrets ...string) *Redactor {
	out := &Redactor{}
	if r != nil {
		out.secrets = append(out.secrets, r.secrets...)
	}
	for _, s := range secrets {
		s = strings.TrimSpace(s)
		if len(s) >= MinSecretLen && !containsString(out.secrets, s) {
			out.secrets = append(out.secrets, s)
		}
		// "Bearer <token>": the token alone is the secret too.
		if _, tok, ok := strings.Cut(s, " "); ok {
			tok = strings.TrimSpace(tok)
			if len(tok) >= MinSecretLen && !containsString(out.secrets, tok) {
				out.secrets = append(out.secrets, tok)
			}
		}
	}
	return out
}

func containsString(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

var (
	// headerValue matches a credential header with its value, as a
	// server may quote it: "Authorization: Bearer x", "x-api-key=x",
	// `"api-key": "x"`.
	headerValue = regexp.MustCompile(`(?i)((?:proxy-)?authorization|x-api-key|api-key|x-goog-api-key)(["']?\s*[:=]\s*["']?)((?:bearer|basic|token)\s+)?([^\s"',;}\]]+)`)
	// bearer matches a bearer token wherever it appears: 16 characters or
	// more with a digit, so that prose ("Missing bearer authentication")
	// stays readable.
	bearer = regexp.MustCompile(`(?i)(\bbearer\s+)([A-Za-z0-9._~+/=\-]{16,})`)
	// secretShape matches the keys of OpenAI ("sk-", "sk-proj-") and
	// Anthropic ("sk-ant-"), in full or as the partial echo OpenAI's 401
	// gives ("sk-abc***wxyz").
	secretShape = regexp.MustCompile(`\bsk-[A-Za-z0-9_\-*]{3,}`)
)

// String returns s with every credential masked by [Redacted]:
//   - every configured secret, wherever it appears;
//   - every run of key characters at least MinSecretLen long that is part
//     of a configured secret (a prefix or suffix echoed alone);
//   - the values of Authorization, Proxy-Authorization, x-api-key and
//     api-key headers quoted in the text, and any "Bearer <token>";
//   - anything shaped like an OpenAI or Anthropic key ("sk-...").
func (r *Redactor) String(s string) string {
	if s == "" {
		return s
	}
	if r != nil {
		for _, sec := range r.secrets {
			s = strings.ReplaceAll(s, sec, Redacted)
		}
		s = r.fragments(s)
	}
	s = headerValue.ReplaceAllStringFunc(s, func(m string) string {
		g := headerValue.FindStringSubmatch(m)
		if g[4] == Redacted || strings.HasPrefix(g[4], "[REDACTED") {
			return m
		}
		return g[1] + g[2] + g[3] + Redacted
	})
	s = bearer.ReplaceAllStringFunc(s, func(m string) string {
		g := bearer.FindStringSubmatch(m)
		if !strings.ContainsAny(g[2], "0123456789") {
			return m
		}
		return g[1] + Redacted
	})
	s = secretShape.ReplaceAllString(s, Redacted)
	return s
}

// fragments masks runs of key characters that are a part, MinSecretLen
// long or more, of a configured secret.
func (r *Redactor) fragments(s string) string {
	if len(r.secrets) == 0 {
		return s
	}
	var b strings.Builder
	last := 0
	for i := 0; i < len(s); {
		if !isKeyByte(s[i]) {
			i++
			continue
		}
		j := i
		for j < len(s) && isKeyByte(s[j]) {
			j++
		}
		if run := s[i:j]; len(run) >= MinSecretLen && r.partOfSecret(run) {
			b.WriteString(s[last:i])
			b.WriteString(Redacted)
			last = j
		}
		i = j
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

func (r *Redactor) partOfSecret(run string) bool {
	for _, sec := range r.secrets {
		if strings.Contains(sec, run) {
			return true
		}
	}
	return false
}

// isKeyByte reports whether c may be part of an API key as servers quote
// them ('*' and '.' end a run: "sk-abc***xyz" shows two fragments).
func isKeyByte(c byte) bool {
	return c == '-' || c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// Error returns err with its text redacted by [Redactor.String]. A
// *ProviderError comes back as a redacted copy; any other error whose text
// holds a credential comes back as an error with the redacted text for
// which errors.Is still holds for what err matched (context.Canceled,
// ErrModel...), and errors.As still finds a *ProviderError, redacted. An
// error with nothing to mask comes back as it is.
func (r *Redactor) Error(err error) error {
	if err == nil {
		return nil
	}
	if pe, ok := err.(*ProviderError); ok {
		return r.providerError(pe)
	}
	text := err.Error()
	red := r.String(text)
	var pe *ProviderError
	if red == text && !errors.As(err, &pe) {
		return err
	}
	return &redactedError{msg: red, err: err, r: r}
}

func (r *Redactor) providerError(pe *ProviderError) *ProviderError {
	cp := *pe
	cp.Message = r.String(pe.Message)
	cp.Code = r.String(pe.Code)
	return &cp
}

// redactedError is an error whose text was redacted. It does not unwrap:
// the original's text (and whatever it wraps, an SDK error holding the
// request) stays out of reach; Is and As answer for it.
type redactedError struct {
	msg string
	err error
	r   *Redactor
}

func (e *redactedError) Error() string { return e.msg }

func (e *redactedError) Is(target error) bool { return errors.Is(e.err, target) }

func (e *redactedError) As(target any) bool {
	switch t := target.(type) {
	case **ProviderError:
		var pe *ProviderError
		if errors.As(e.err, &pe) {
			*t = e.r.providerError(pe)
			return true
		}
	case **TimeoutError:
		return errors.As(e.err, t)
	}
	return false
}

// CredentialHeaderValues returns the values of the headers of h that carry
// credentials (Authorization, Proxy-Authorization, x-api-key, api-key, and
// any header whose name holds "key", "token", "secret" or "cookie"), for
// a Redactor to mask.
func CredentialHeaderValues(h map[string]string) []string {
	var out []string
	for k, v := range h {
		name := strings.ToLower(k)
		switch {
		case name == "authorization", name == "proxy-authorization",
			strings.Contains(name, "key"), strings.Contains(name, "token"),
			strings.Contains(name, "secret"), strings.Contains(name, "cookie"):
			out = append(out, v)
		}
	}
	return out
}
