package effect_test

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/starweaver-go/starweaver/core/effect"
)

// A record survives the stores' split form byte for byte, and a stored
// record that does not decode or validate is ErrInvalid.
func TestStoredFormRoundTrip(t *testing.T) {
	rec := effect.Record{
		Revision: 2,
		Request:  effect.Request{ID: "e1", Key: "k", Tool: "send", Class: effect.ClassNonIdempotentWrite, Input: json.RawMessage(`{"to": 1e3}`)},
		Status:   effect.Status{State: effect.StateCompleted, Output: json.RawMessage(`{"sent" : true}`)},
	}
	env, err := effect.EncodeEnvelope(rec)
	if err != nil {
		t.Fatal(err)
	}
	got, err := effect.DecodeStored(2, env, rec.Request.Input, rec.Status.Output)
	if err != nil {
		t.Fatal(err)
	}
	if string(got.Request.Input) != `{"to": 1e3}` || string(got.Status.Output) != `{"sent" : true}` ||
		got.Request.Key != "k" || got.Request.Class != rec.Request.Class || got.Status.State != effect.StateCompleted || got.Revision != 2 {
		t.Fatalf("round trip: %+v", got)
	}
	if _, err := effect.DecodeStored(1, []byte(`{`), nil, nil); !errors.Is(err, effect.ErrInvalid) {
		t.Fatalf("malformed envelope: %v", err)
	}
	if _, err := effect.DecodeStored(1, []byte(`{"id":"e1","tool":"send","state":"nonsense"}`), nil, nil); err == nil {
		t.Fatal("an invalid record was accepted")
	}
}
