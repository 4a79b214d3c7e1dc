package tool

import (
	"context"
	"testing"
)

// LookupArgs mirrors the seed's typed tool: its field's doc comment becomes
// the argument's description.
type LookupArgs struct {
	// Search query to look up.
	Query string `json:"query"`
}

// Types declared in the package's own (internal) test files are found with
// the package's import path and the directory ".": invopop parses every .go
// file of the directory, _test.go files included.
func TestGoCommentsFromInternalTestFiles(t *testing.T) {
	f := Typed("lookup", "Lookup a value", func(_ context.Context, _ *Context, args LookupArgs) (Result, error) {
		return JSON(map[string]any{"value": args.Query}), nil
	}, WithGoComments("github.com/starweaver-go/starweaver/core/tool", "."))
	if f.Err() != nil {
		t.Fatal(f.Err())
	}
	props := f.Definition().Parameters["properties"].(map[string]any)
	if got := props["query"].(map[string]any)["description"]; got != "Search query to look up." {
		t.Fatalf("query description = %v", got)
	}
}
