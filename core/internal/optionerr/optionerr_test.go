package optionerr_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/starweaver-go/starweaver/core/internal/optionerr"
)

func TestErrorKeepsTheMessageAndMatchesTheSentinel(t *testing.T) {
	sentinel := errors.New("pkg: invalid option")
	err := optionerr.New(sentinel, "x: %s must be positive, got %d", "n", 0)
	if got := err.Error(); got != "x: n must be positive, got 0" {
		t.Fatalf("message %q", got)
	}
	if !errors.Is(err, sentinel) {
		t.Fatal("the error does not match its sentinel")
	}
	if errors.Is(err, errors.New("pkg: invalid option")) {
		t.Fatal("the error matches another sentinel with the same text")
	}
	var oe *optionerr.Error
	if !errors.As(err, &oe) {
		t.Fatal("errors.As does not find *optionerr.Error")
	}
}

func TestSetPositiveChecksAllBeforeSettingAny(t *testing.T) {
	a, b, c := 1, 2, 3
	good, zero := 5, 0
	fields := []optionerr.Positive[int]{{"a", &good, &a}, {"b", nil, &b}, {"c", &zero, &c}}
	var named string
	err := optionerr.SetPositive(fields, func(name string, v int) error { named = name; return fmt.Errorf("%s=%d", name, v) })
	if err == nil || named != "c" || a != 1 || b != 2 || c != 3 {
		t.Fatalf("err %v, named %q, values %d %d %d: want c refused and nothing set", err, named, a, b, c)
	}
	fields[2].Value = nil
	if err := optionerr.SetPositive(fields, func(string, int) error { return errors.New("refused") }); err != nil || a != 5 || b != 2 || c != 3 {
		t.Fatalf("err %v, values %d %d %d: want a set, b and c kept", err, a, b, c)
	}
}
