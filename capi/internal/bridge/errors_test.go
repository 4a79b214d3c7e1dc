package bridge

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/starweaver-go/starweaver/core/tool"
)

// Every slug written anywhere in capi/ (this package included) is in abiErrorTypes, the list
// sw_error_kinds exports, so the host's exception map can be checked
// against it.
func TestABIErrorTypesListed(t *testing.T) {
	var files []string
	for _, pattern := range []string{"*.go", "../../*.go"} {
		matched, err := filepath.Glob(pattern)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, matched...)
	}
	files = append(files, "../../forkguard.c")
	re := regexp.MustCompile(`Type(?::\s*|\s*=\s*|,.*=\s*)"([a-z_]+)"|\\"type\\":\\"([a-z_]+)\\"`)
	seen := map[string]bool{}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range re.FindAllStringSubmatch(string(src), -1) {
			slug := m[1] + m[2]
			seen[slug] = true
			if !slices.Contains(abiErrorTypes, slug) {
				t.Errorf("%s writes error type %q, which abiErrorTypes does not list", f, slug)
			}
		}
	}
	for _, want := range []string{"internal", "bad_handle", "invalid_spec", "retry_limit", "forked"} {
		if !seen[want] {
			t.Errorf("the scan found no %q: the pattern no longer matches how slugs are written", want)
		}
	}
	if len(slices.Compact(slices.Sorted(slices.Values(abiErrorTypes)))) != len(abiErrorTypes) {
		t.Errorf("abiErrorTypes repeats a slug: %v", abiErrorTypes)
	}
}

func TestErrorKindsJSON(t *testing.T) {
	var got struct {
		ErrorKinds []string `json:"error_kinds"`
		ErrorTypes []string `json:"error_types"`
	}
	if err := json.Unmarshal(errorKindsJSON(), &got); err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, k := range tool.ErrorKinds() {
		kinds = append(kinds, string(k))
	}
	if !slices.Equal(got.ErrorKinds, kinds) || !slices.Equal(got.ErrorTypes, abiErrorTypes) {
		t.Fatalf("errorKindsJSON = %+v", got)
	}
}
