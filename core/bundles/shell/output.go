package shell

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"unicode/utf8"
)

// Markers replacing the middle of a long stream.
const (
	markerUnavailable = "\n...(middle truncated; full output unavailable)...\n"
	markerFitted      = "\n...(middle truncated)...\n"
)

// bound adds stdout and stderr to res, bounded (see the package comment):
//  1. a stream over the limit keeps its head and tail around a marker,
//     its whole text spilled to scratch when there is a scratch provider;
//  2. a result whose JSON is still over max(limit, DefaultOutputLimit)
//     characters is spilled whole (output_file_path) and its streams
//     fitted, keeping both ends, with truncated and a hint;
//  3. a result that cannot fit even so is reduced to its essentials.
func (b *bundle) bound(ctx context.Context, t target, kind string, res map[string]any, stdout, stderr string) map[string]any {
	for _, s := range []struct{ name, text string }{{"stdout", stdout}, {"stderr", stderr}} {
		text := s.text
		if utf8.RuneCountInString(text) > b.limit {
			marker := markerUnavailable
			if path := spill(ctx, t, s.name+"-"+token()+".log", []byte(text)); path != "" {
				res[s.name+"_file_path"] = path
				marker = "\n...(middle truncated; full output at `" + s.name + "_file_path`)...\n"
			}
			text = middle(text, b.limit, marker)
		}
		res[s.name] = text
	}
	limit := max(b.limit, DefaultOutputLimit)
	if jsonChars(res) <= limit {
		return res
	}
	full, err := json.Marshal(res)
	hint := "The result was too large and was shortened, keeping the beginning and end of each stream"
	if err == nil {
		if path := spill(ctx, t, kind+"-"+token()+".json", full); path != "" {
			res["output_file_path"] = path
			hint += "; the whole result is at output_file_path"
		}
	}
	res["truncated"], res["hint"] = true, hint+". Narrow the command's output (filter it, or redirect it to a file and read parts)."
	out, errText := res["stdout"].(string), res["stderr"].(string)
	res["stdout"], res["stderr"] = "", ""
	room := limit - jsonChars(res)
	for room > 0 {
		a := room / 2
		if n := utf8.RuneCountInString(out); n < a {
			a = n
		}
		res["stdout"], res["stderr"] = middle(out, a, markerFitted), middle(errText, room-a, markerFitted)
		if jsonChars(res) <= limit {
			return res
		}
		room = room * 3 / 4 // JSON escaping took more than the characters counted
	}
	minimal := map[string]any{"truncated": true, "hint": res["hint"]}
	for _, k := range []string{"command", "process_id", "status", "return_code", "output_file_path"} {
		if v, ok := res[k]; ok {
			minimal[k] = v
		}
	}
	return minimal
}

// middle keeps at most n characters of s: its head and tail around
// marker (which is not counted), or s itself when it is short enough.
func middle(s string, n int, marker string) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	if n <= 0 {
		return marker
	}
	r := []rune(s)
	head := (n + 1) / 2
	tail := n / 2
	return string(r[:head]) + marker + string(r[len(r)-tail:])
}

// jsonChars is the length in characters of v's JSON.
func jsonChars(v any) int {
	b, err := json.Marshal(v)
	if err != nil {
		return 0
	}
	return utf8.RuneCount(b)
}

// spill writes data to the scratch provider, returning its path, or ""
// when there is none or the write failed (the marker then says so).
func spill(ctx context.Context, t target, name string, data []byte) string {
	if t.scratch == nil {
		return ""
	}
	p, err := t.scratch.WriteScratch(ctx, name, data)
	if err != nil {
		return ""
	}
	return p
}

// token is a random name part for scratch files.
func token() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
