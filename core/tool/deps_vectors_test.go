package tool_test

import (
	"encoding/json"
	"os"
	"reflect"
	"testing"

	"github.com/starweaver-go/starweaver/core/tool"
)

// TestDependencyProfileVectors checks ParseDependencies against the vectors
// the Python package is tested with too (python/tests/test_deps.py), so the
// two readers of the profile metadata cannot drift apart.
func TestDependencyProfileVectors(t *testing.T) {
	b, err := os.ReadFile("testdata/dependency_profiles.json")
	if err != nil {
		t.Fatal(err)
	}
	var vectors struct {
		Cases []struct {
			Name     string         `json:"name"`
			Metadata map[string]any `json:"metadata"`
			Want     struct {
				Profile          string   `json:"profile"`
				HostCapabilities []string `json:"host_capabilities"`
				ShellEnvironment bool     `json:"shell_environment"`
			} `json:"want"`
		} `json:"cases"`
	}
	if err := json.Unmarshal(b, &vectors); err != nil {
		t.Fatal(err)
	}
	for _, c := range vectors.Cases {
		got := tool.ParseDependencies(c.Metadata)
		names := got.HostCapabilities
		if names == nil {
			names = []string{}
		}
		if string(got.Profile) != c.Want.Profile || !reflect.DeepEqual(names, c.Want.HostCapabilities) || got.ShellEnvironment != c.Want.ShellEnvironment {
			t.Errorf("%s: got %+v, want %+v", c.Name, got, c.Want)
		}
	}
}
