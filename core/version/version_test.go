package version

import (
	"regexp"
	"testing"
)

func TestStringIsASemanticVersion(t *testing.T) {
	if !regexp.MustCompile(`^\d+\.\d+\.\d+([.-]?(a|b|rc|dev)\d+)?$`).MatchString(String()) {
		t.Fatalf("version %q is not MAJOR.MINOR.PATCH", String())
	}
}
