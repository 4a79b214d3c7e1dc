package catalog_test

import (
	"errors"
	"testing"

	"github.com/starweaver-go/starweaver/core/catalog"
	"github.com/starweaver-go/starweaver/core/tool"
	"github.com/starweaver-go/starweaver/core/toolset"
)

func TestNewByKind(t *testing.T) {
	members := []toolset.Toolset{toolset.New("m")}
	c, err := catalog.New(catalog.KindSearch, "c", members, "", catalog.Options{})
	if _, ok := c.(*catalog.Search); !ok || err != nil {
		t.Fatalf("search: %T %v", c, err)
	}
	c, err = catalog.New(catalog.KindProxy, "c", members, "work", catalog.Options{NamespaceDescriptions: map[string]string{"m": "M"}})
	if _, ok := c.(*catalog.Proxy); !ok || err != nil {
		t.Fatalf("proxy: %T %v", c, err)
	}
	for _, tc := range []struct {
		kind   catalog.Kind
		prefix string
		opts   catalog.Options
		is     error
		want   string
	}{
		{"index", "", catalog.Options{}, catalog.ErrInvalid, `toolset "c": unknown catalog kind "index"`},
		{"index", "", catalog.Options{MaxResults: -1}, tool.ErrInvalidOption, `toolset "c": max_results must not be negative`},
		{catalog.KindSearch, "x", catalog.Options{}, catalog.ErrInvalid, `toolset "c": a tool_search catalog takes no prefix or namespace_descriptions`},
		{catalog.KindSearch, "", catalog.Options{NamespaceDescriptions: map[string]string{}}, catalog.ErrInvalid, `toolset "c": a tool_search catalog takes no prefix or namespace_descriptions`},
		{catalog.KindProxy, "9x", catalog.Options{}, catalog.ErrPrefix, `toolset "c": catalog: invalid tool proxy name prefix "9x": it must start with an ASCII letter and contain only ASCII letters, digits and underscores`},
	} {
		_, err := catalog.New(tc.kind, "c", members, tc.prefix, tc.opts)
		if err == nil || err.Error() != tc.want || !errors.Is(err, tc.is) {
			t.Errorf("%s %q %+v: %v, want %q matching %v", tc.kind, tc.prefix, tc.opts, err, tc.want, tc.is)
		}
	}
}
