package catalog_test

import (
	"errors"
	"testing"

	"github.com/starweaver-go/starweaver/core/catalog"
	"github.com/starweaver-go/starweaver/core/tool"
)

func TestOptionsValidate(t *testing.T) {
	for _, n := range []int{0, 1, 50} {
		if err := (catalog.Options{MaxResults: n}).Validate("c"); err != nil {
			t.Errorf("MaxResults %d: %v", n, err)
		}
	}
	err := catalog.Options{MaxResults: -1}.Validate("c")
	if err == nil || err.Error() != `toolset "c": max_results must not be negative` || !errors.Is(err, tool.ErrInvalidOption) {
		t.Fatalf("MaxResults -1: %v", err)
	}
}
