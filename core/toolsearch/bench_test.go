package toolsearch_test

import (
	"testing"

	"github.com/starweaver-go/starweaver/core/toolsearch"
)

// BenchmarkSearch queries a catalogue of about 2 000 tools (the corpus
// times 3.3: 2 010 tools and namespaces). Target: under 1 ms a query.
func BenchmarkSearch(b *testing.B) {
	entries := corpus(4)[:2010]
	ix := toolsearch.New(entries)
	queries := []string{"create pull request", "list s3 buckets", "delete kubernetes pod", "refund", "deploy"}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		ix.Search(queries[i%len(queries)], 5)
	}
}
