package artifact_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/starweaver-go/starweaver/core/artifact"
)

func TestParseScope(t *testing.T) {
	for _, s := range []string{"a", "tenant.acme", "user:42", "A-b_c.d:e", "..", strings.Repeat("x", artifact.MaxScopeBytes)} {
		sc, err := artifact.ParseScope(s)
		if err != nil || sc.String() != s || sc.IsZero() || sc.Validate() != nil {
			t.Errorf("ParseScope(%q) = %q, %v", s, sc, err)
		}
	}
	for _, s := range []string{"", strings.Repeat("x", artifact.MaxScopeBytes+1), "../tenant", "a/b", `a\b`, "a b", "tenant\x00", "é", `"q"`} {
		if _, err := artifact.ParseScope(s); !errors.Is(err, artifact.ErrInvalidInput) {
			t.Errorf("ParseScope(%q): err = %v, want ErrInvalidInput", s, err)
		}
	}
}

func TestZeroScopeIsInvalid(t *testing.T) {
	var sc artifact.Scope
	if !sc.IsZero() || !errors.Is(sc.Validate(), artifact.ErrInvalidInput) {
		t.Fatalf("zero scope: IsZero %v, Validate %v", sc.IsZero(), sc.Validate())
	}
}

func TestScopeJSON(t *testing.T) {
	sc, _ := artifact.ParseScope("tenant.acme")
	b, err := json.Marshal(sc)
	if err != nil || string(b) != `"tenant.acme"` {
		t.Fatalf("marshal = %s, %v", b, err)
	}
	var got artifact.Scope
	if err := json.Unmarshal(b, &got); err != nil || got != sc {
		t.Fatalf("unmarshal = %q, %v", got, err)
	}
	for _, in := range []string{`"../tenant"`, `""`, `42`, `null`, `{"name":"x"}`} {
		var s artifact.Scope
		if err := json.Unmarshal([]byte(in), &s); !errors.Is(err, artifact.ErrInvalidInput) {
			t.Errorf("unmarshal %s: err = %v, want ErrInvalidInput", in, err)
		}
	}
}
