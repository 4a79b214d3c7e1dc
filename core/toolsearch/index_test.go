package toolsearch_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/starweaver-go/starweaver/core/toolsearch"
)

func TestTokens(t *testing.T) {
	for in, want := range map[string][]string{
		"github_create_pull_request": {"github", "create", "pull", "request"},
		"slackPostMessage":           {"slack", "post", "message"},
		"HTTPServerStatus":           {"http", "server", "status"},
		"s3ListBuckets":              {"s", "3", "list", "bucket"},
		"kebab-case names, entries":  {"kebab", "case", "name", "entry"},
		"  ":                         nil,
		"class address":              {"class", "address"},
	} {
		if got := toolsearch.Tokens(in); !slices.Equal(got, want) {
			t.Errorf("Tokens(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestCorpusRanking(t *testing.T) {
	entries := corpus(1)
	if len(entries) < 500 {
		t.Fatalf("corpus has %d entries, want 500+", len(entries))
	}
	ix := toolsearch.New(entries)
	for _, tc := range []struct {
		query string
		top   string // the expected first result
		check func(h []toolsearch.Hit) bool
	}{
		{query: "create pull request", top: "github_create_pull_request"},
		{query: "create_pull_request", top: "github_create_pull_request"},
		{query: "slack post message", top: "slackPostMessage"},
		{query: "postMessage", top: "slackPostMessage"},
		{query: "delete kubernetes pod", top: "k8s_delete_pod"},
		{query: "list s3 buckets", top: "s3ListBucket"},
		{query: "refund", top: "stripe_create_refund"}, // all refund tools tie on score; the name breaks the tie
		{query: "issue refunds", top: "stripe_create_refund"},
		{query: "stripe", top: "stripe"}, // the namespace entry outranks each of its tools
		{query: "weather forecast city", top: "weather_forecast0"},
		{query: "cron schedule", top: "k8s_create_cron_job"}, // a parameter name decides between cron_job tools
		{query: "jira issue", check: func(h []toolsearch.Hit) bool {
			// The namespace beats GitHub's issues.
			for _, x := range h[:5] {
				if x.Namespace != "jira" {
					return false
				}
			}
			return true
		}},
		{query: "list", check: func(h []toolsearch.Hit) bool {
			// Whole words beat prefixes: "listen" comes after every list tool.
			for _, x := range h[:20] {
				if strings.Contains(x.Name, "listen") {
					return false
				}
			}
			return true
		}},
		{query: "deploy", check: func(h []toolsearch.Hit) bool {
			// A prefix still matches.
			return strings.HasSuffix(h[0].Name, "_deployment")
		}},
		{query: "the", check: func(h []toolsearch.Hit) bool { return len(h) > 0 }}, // only stop words: searched as they are
	} {
		hits := ix.Search(tc.query, 0)
		if len(hits) == 0 {
			t.Errorf("%q: no hits", tc.query)
			continue
		}
		if tc.top != "" && hits[0].Name != tc.top {
			t.Errorf("%q: top %q, want %q (then %v)", tc.query, hits[0].Name, tc.top, names(hits[:min(5, len(hits))]))
		}
		if tc.check != nil && !tc.check(hits) {
			t.Errorf("%q: unexpected ranking %v", tc.query, names(hits[:min(10, len(hits))]))
		}
	}
}

func TestSearchLimitAndDeterminism(t *testing.T) {
	ix := toolsearch.New(corpus(1))
	all := ix.Search("list comment", 0)
	top := ix.Search("list comment", 7)
	if len(top) != 7 || !slices.Equal(names(top), names(all[:7])) {
		t.Fatalf("limited %v, want the first 7 of %v", names(top), names(all[:10]))
	}
	for range 3 {
		if again := ix.Search("list comment", 7); !slices.Equal(names(again), names(top)) {
			t.Fatalf("not deterministic: %v then %v", names(top), names(again))
		}
	}
	if got := ix.Search("zzzzqqq", 5); len(got) != 0 {
		t.Fatalf("no match returned %v", names(got))
	}
	if got := ix.Search("  ", 5); got != nil {
		t.Fatalf("blank query returned %v", names(got))
	}
	var empty *toolsearch.Index
	if got := empty.Search("x", 1); got != nil {
		t.Fatalf("nil index returned %v", got)
	}
}

func names(h []toolsearch.Hit) []string {
	out := make([]string, len(h))
	for i, x := range h {
		out[i] = x.Name
	}
	return out
}

// referenceTop is the first result of the reference implementation's
// ranking (tool_proxy score_entry): per whitespace term, substring matches add name +3,
// description +2, namespace +2, parameters +1; ties go to the name.
func referenceTop(entries []toolsearch.Entry, query string) string {
	best, bestName := 0, ""
	for _, e := range entries {
		params, _ := json.Marshal(e.Parameters)
		score := 0
		for _, term := range strings.Fields(strings.ToLower(query)) {
			if strings.Contains(strings.ToLower(e.Name), term) {
				score += 3
			}
			if strings.Contains(strings.ToLower(e.Description), term) {
				score += 2
			}
			if strings.Contains(strings.ToLower(e.Namespace), term) {
				score += 2
			}
			if strings.Contains(strings.ToLower(string(params)), term) {
				score++
			}
		}
		if score > best || score == best && score > 0 && e.Name < bestName {
			best, bestName = score, e.Name
		}
	}
	return bestName
}

// TestRankingFixesTheReferenceScore pins queries the reference's
// substring score answers wrongly: a prefix ("listen" for "list") tying
// with whole words, and a plural missing its singular.
func TestRankingFixesTheReferenceScore(t *testing.T) {
	entries := corpus(1)
	ix := toolsearch.New(entries)
	for query, want := range map[string]string{
		"list":          "calendar_list_attendee", // whole words first, then by name
		"issue refunds": "stripe_create_refund",
	} {
		if ref := referenceTop(entries, query); ref == want {
			t.Errorf("%q: the reference already answers %q; pick a query it gets wrong", query, ref)
		}
		if got := ix.Search(query, 1); len(got) == 0 || got[0].Name != want {
			t.Errorf("%q: top %v, want %q", query, names(got), want)
		}
	}
}

func TestConcurrentSearchesAgree(t *testing.T) {
	ix := toolsearch.New(corpus(1))
	want := names(ix.Search("create pull request", 5))
	done := make(chan []string)
	for range 8 {
		go func() {
			var got []string
			for range 50 {
				got = names(ix.Search("create pull request", 5))
				ix.Search("list s3 buckets", 3)
			}
			done <- got
		}()
	}
	for range 8 {
		if got := <-done; !slices.Equal(got, want) {
			t.Fatalf("concurrent search %v, want %v", got, want)
		}
	}
}
