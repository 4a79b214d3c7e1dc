package tool

import (
	"regexp"
	"strings"
)

// Redacted replaces a secret in text a model reads.
const Redacted = "***"

// MetaErrorMessage is the private metadata key (Return.PrivateMetadata)
// under which an error return keeps its error's full message, as the tool
// gave it, when Redact changed what the model reads: the application's
// copy. ErrorMessage reads it.
const MetaErrorMessage = "starweaver_error_message"

// Redact returns s without what a model must never read in an error: the
// credentials of URLs and DSNs (scheme://user:pass@host becomes
// scheme://***@host), bearer and basic credentials, API keys and tokens
// of well-known shapes (sk-..., AKIA..., ghp_..., xox?-..., AIza...,
// JSON Web Tokens, PEM private keys), the values of secret-named keys
// (password=..., "api_key": "...", token: ...) and stack traces: a
// Python traceback keeps only its last exception line, and a Go goroutine
// dump, a JavaScript or Java "at ..." frame list are dropped.
//
// ErrorReturn applies it to everything an error return shows the model
// (its message, error text and guidance), for every kind and every tool,
// Go or host; the full text stays in the return's private metadata
// (MetaErrorMessage) and in the error itself, for the application. Hosts
// send full text and let the runtime redact, so that the rules live here
// only.
//
// Redact recognises secrets by their shape and their names; a secret with
// neither (a bare password in prose) passes, so tools should still keep
// secrets out of their errors. It errs on the side of hiding: a value
// after "token:" is hidden even when it is an ordinary word. It is
// idempotent.
func Redact(s string) string {
	if s == "" {
		return s
	}
	s = redactTraces(s)
	lower := strings.ToLower(s)
	for _, r := range redactions {
		if !r.mayMatch(lower) {
			continue
		}
		if t := r.re.ReplaceAllString(s, r.repl); t != s {
			s, lower = t, strings.ToLower(t)
		}
	}
	return s
}

// redaction is one pattern and its replacement. Every match contains one
// of hints (lower case), which spares the pattern (Go's regexp takes time
// in proportion to the text) on text that cannot match.
type redaction struct {
	hints []string
	re    *regexp.Regexp
	repl  string
}

func (r *redaction) mayMatch(lower string) bool {
	for _, h := range r.hints {
		if strings.Contains(lower, h) {
			return true
		}
	}
	return false
}

func hints(h ...string) []string { return h }

// secretKey is a key whose value is a secret: password, secret, token,
// api key, access or private key, credentials, possibly with a prefix
// (db_password, AWS_SECRET_ACCESS_KEY). Plural and longer words
// (max_tokens, tokenizer) are not keys.
const secretKey = `[a-z0-9_.\-]*(?:passwd|password|pwd|secret|token|api[_\-]?key|apikey|access[_\-]?key|private[_\-]?key|credentials?)`

var redactions = []redaction{
	// PEM private keys, whole.
	{hints("private key"), regexp.MustCompile(`-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|$)`), "-----BEGIN PRIVATE KEY-----" + Redacted + "-----END PRIVATE KEY-----"},
	// The user information of a URL: scheme://user:password@host, and
	// scheme://token@host. The password may hold '/' and '@'; the match
	// ends at the last '@' before a space.
	{hints("://"), regexp.MustCompile(`(?i)\b([a-z][a-z0-9+.\-]*://)[^\s/?#@:]*(?::\S*)?@`), "${1}" + Redacted + "@"},
	// Go's MySQL DSNs: user:password@tcp(host)/db.
	{hints("@tcp", "@unix", "@udp"), regexp.MustCompile(`(^|[\s"'=(])[^\s"'=(:/@]+:[^\s@]*@(tcp|tcp6|unix|udp)\(`), "${1}" + Redacted + "@${2}("},
	// Authorization values, whatever the scheme.
	{hints("authorization"), regexp.MustCompile(`(?i)(\bauthorization\\?"?\s*[:=]\s*\\?"?)(?:(?:bearer|basic|token|digest|negotiate)\s+)?[^\s"',;\\)\]}>]+`), "${1}" + Redacted},
	{hints("bearer"), regexp.MustCompile(`(?i)\b(bearer\s+)[a-z0-9._~+/\-]{8,}=*`), "${1}" + Redacted},
	{hints("basic"), regexp.MustCompile(`(?i)\b(basic\s+)[a-z0-9+/]{8,}=*`), "${1}" + Redacted},
	// API keys and tokens of well-known shapes.
	{hints("sk-", "sk_", "rk-", "rk_"), regexp.MustCompile(`\b(?:sk|rk)[-_](?:live_|test_|proj-|ant-|or-)?[A-Za-z0-9_\-]{16,}`), Redacted},
	{hints("akia", "asia", "agpa", "aida", "aroa", "anpa"), regexp.MustCompile(`\b(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA)[0-9A-Z]{16}\b`), Redacted},
	{hints("gh", "glpat-"), regexp.MustCompile(`\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|glpat-[A-Za-z0-9_\-]{20,})`), Redacted},
	{hints("xox"), regexp.MustCompile(`\bxox[abposr]-[A-Za-z0-9\-]{10,}`), Redacted},
	{hints("aiza"), regexp.MustCompile(`\bAIza[0-9A-Za-z_\-]{30,}`), Redacted},
	{hints("eyj"), regexp.MustCompile(`\beyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}`), Redacted},
	// The values of secret-named keys: password=x, token: x, "api_key":
	// "x", 'secret': 'x', and JSON quoted inside a string (\"token\":
	// \"x\"). A quoted value is hidden to its closing quote, which is
	// kept. A key right after '/' is a path segment ('/password' in a
	// schema error), not a key.
	{hints("passwd", "password", "pwd", "secret", "token", "key", "credential"), regexp.MustCompile(`(?i)(^|[^a-z0-9_.\-/])(` + secretKey + `(?:\\?["'])?\s*[:=]\s*)` +
		`(?:(\\?")(?:[^"\\]|\\[^"])*(\\?")|(')[^']*(')|[^\s,;&"'{}()\[\]<>\\]+)`), "${1}${2}${3}${5}" + Redacted + "${4}${6}"},
}

const pythonTraceback = "Traceback (most recent call last):"

var (
	goroutineHeader = regexp.MustCompile(`(?:^|\s)goroutine \d+ \[[^\]]*\]:\s*$`)
	// A frame of a JavaScript or Java stack: "    at f (file.js:1:2)",
	// "\tat com.x.Y.m(Y.java:12)".
	atFrame = regexp.MustCompile(`^\s+at \S.*(?:\(.*:\d+(?::\d+)?\)|:\d+(?::\d+)?|\(Native Method\)|\(Unknown Source\))\s*$`)
)

// redactTraces removes stack traces from s (see Redact).
func redactTraces(s string) string {
	if strings.Contains(s, "goroutine ") || strings.Contains(s, "at ") {
		s = dropFrames(s)
	}
	if strings.Contains(s, pythonTraceback) {
		s = redactPython(s)
	}
	return s
}

// redactPython keeps the text before the first traceback and, of the
// tracebacks (chained exceptions print several), only the last one's
// exception line and what follows it. An exception group, whose lines are
// all indented, leaves a marker.
func redactPython(s string) string {
	first := strings.Index(s, pythonTraceback)
	last := strings.LastIndex(s, pythonTraceback)
	head := s[:first]
	// The line of the first header may start with a prefix that belongs
	// to it ("  + Exception Group "): dropped with the header.
	if i := strings.LastIndexByte(head, '\n'); strings.HasSuffix(head, "Exception Group ") || strings.TrimLeft(head[i+1:], " |+") == "" {
		head = head[:i+1]
	}
	rest := s[last+len(pythonTraceback):]
	lines := strings.Split(rest, "\n")
	tail := ""
	for i, l := range lines {
		if i == 0 || l == "" || l[0] == ' ' || l[0] == '\t' {
			continue // the frames: "  File ...", their source lines
		}
		tail = strings.Join(lines[i:], "\n")
		break
	}
	if tail == "" {
		tail = "[traceback redacted]"
	}
	return head + tail
}

// dropFrames drops goroutine dumps (a header, with the text before it on
// its line kept, and every frame line after it) and indented "at ..."
// frame lines.
func dropFrames(s string) string {
	lines := strings.Split(s, "\n")
	out := lines[:0]
	inDump, dropped := false, false
	for _, l := range lines {
		if loc := goroutineHeader.FindStringIndex(l); loc != nil {
			// A dump glued to a message ("err: goroutine 1 [running]:")
			// keeps the message.
			inDump, dropped = true, true
			if head := strings.TrimRight(l[:loc[0]], " \t:"); head != "" {
				out = append(out, head)
			}
			continue
		}
		switch {
		case inDump && isGoFrame(l):
			continue
		case strings.Contains(l, "at ") && atFrame.MatchString(l):
			dropped = true
			continue
		}
		inDump = false
		out = append(out, l)
	}
	if !dropped {
		return s
	}
	return strings.TrimRight(strings.Join(out, "\n"), "\n")
}

// isGoFrame reports whether l belongs to a goroutine's stack: a function
// line ("main.f({0x1, 0x2})", "pkg.(*T).M(...)"), its file line
// ("\t/src/x.go:12 +0x1d"), a "created by" line, an elision note or a
// blank line.
func isGoFrame(l string) bool {
	t := strings.TrimSpace(l)
	if t == "" || l[0] == '\t' || strings.HasPrefix(t, "created by ") || strings.HasPrefix(t, "...") {
		return true
	}
	i := strings.IndexByte(t, '(')
	return i > 0 && strings.HasSuffix(t, ")") && !strings.ContainsAny(t[:i], " \t")
}
