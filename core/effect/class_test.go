package effect_test

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/starweaver-go/starweaver/core/effect"
)

func TestClassPredicates(t *testing.T) {
	type row struct{ retryKeyed, retryKeyless, parallel, failsClosed bool }
	want := map[effect.Class]row{
		effect.ClassUndeclared:         {true, true, false, false},
		effect.ClassPure:               {true, true, true, false},
		effect.ClassReadOnly:           {true, true, true, false},
		effect.ClassIdempotentWrite:    {true, false, false, false},
		effect.ClassNonIdempotentWrite: {false, false, false, true},
		effect.ClassDestructive:        {false, false, false, true},
		effect.ClassUnknown:            {false, false, false, true},
	}
	if len(want) != len(effect.Classes())+1 {
		t.Fatalf("the table misses a class: %v", effect.Classes())
	}
	for c, w := range want {
		got := row{effect.RetrySafe(c, true), effect.RetrySafe(c, false), effect.ParallelSafe(c), effect.FailsClosed(c)}
		if got != w {
			t.Errorf("%q: %+v, want %+v", c, got, w)
		}
	}
	// Unknown strings are never safe.
	if effect.RetrySafe("sideways", true) || effect.ParallelSafe("sideways") {
		t.Error("an invalid class counts as safe")
	}
}

func TestParseClass(t *testing.T) {
	for _, c := range append(effect.Classes(), effect.ClassUndeclared) {
		got, err := effect.ParseClass(string(c))
		if err != nil || got != c {
			t.Errorf("ParseClass(%q) = %q, %v", c, got, err)
		}
	}
	_, err := effect.ParseClass("Pure")
	if !errors.Is(err, effect.ErrUnknownClass) || !errors.Is(err, effect.ErrInvalid) {
		t.Fatalf("ParseClass(Pure) error = %v", err)
	}
}

func TestClassJSON(t *testing.T) {
	type doc struct {
		Class effect.Class `json:"class,omitempty"`
	}
	b, err := json.Marshal(doc{effect.ClassIdempotentWrite})
	if err != nil || string(b) != `{"class":"idempotent_write"}` {
		t.Fatalf("marshal = %s, %v", b, err)
	}
	if b, _ := json.Marshal(doc{}); string(b) != `{}` {
		t.Fatalf("undeclared = %s", b)
	}
	if _, err := json.Marshal(doc{"sideways"}); !errors.Is(err, effect.ErrUnknownClass) {
		t.Fatalf("marshalling an invalid class: %v", err)
	}
	var d doc
	if err := json.Unmarshal([]byte(`{"class":"destructive"}`), &d); err != nil || d.Class != effect.ClassDestructive {
		t.Fatalf("unmarshal = %q, %v", d.Class, err)
	}
	if err := json.Unmarshal([]byte(`{"class":"read-only"}`), &d); !errors.Is(err, effect.ErrUnknownClass) {
		t.Fatalf("unmarshal of an unknown class: %v", err)
	}
	if err := json.Unmarshal([]byte(`{"class":7}`), &d); err == nil {
		t.Fatal("unmarshal of a number succeeded")
	}
}
