package effect_test

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/starweaver-go/starweaver/core/effect"
)

func TestStatusJSON(t *testing.T) {
	for _, tc := range []struct {
		s    effect.Status
		want string
	}{
		{effect.Status{State: effect.StatePrepared}, `{"state":"prepared"}`},
		{effect.Status{State: effect.StateStarted}, `{"state":"started"}`},
		{effect.Status{State: effect.StateCompleted, Output: json.RawMessage(`{"a":1}`)}, `{"state":"completed","output":{"a":1}}`},
		{effect.Status{State: effect.StateCompleted, Output: json.RawMessage(`null`)}, `{"state":"completed","output":null}`},
		{effect.Status{State: effect.StateFailed, Error: &effect.Failure{Message: "refused"}}, `{"state":"failed","error":{"message":"refused"}}`},
	} {
		b, err := json.Marshal(tc.s)
		if err != nil || string(b) != tc.want {
			t.Fatalf("marshal = %s, %v; want %s", b, err, tc.want)
		}
		var back effect.Status
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatalf("unmarshal %s: %v", b, err)
		}
		if b2, _ := json.Marshal(back); string(b2) != tc.want {
			t.Fatalf("round trip = %s, want %s", b2, tc.want)
		}
	}
}

func TestStatusJSONRejectsMalformed(t *testing.T) {
	for _, in := range []string{
		`{"state":"paused"}`,
		`{}`,
		`{"state":"completed"}`,
		`{"state":"failed"}`,
		`{"state":"prepared","output":1}`,
		`{"state":"started","error":{"message":"x"}}`,
		`{"state":"completed","output":1,"error":{"message":"x"}}`,
		`[]`,
	} {
		var s effect.Status
		if err := json.Unmarshal([]byte(in), &s); !errors.Is(err, effect.ErrInvalid) {
			t.Errorf("%s: error = %v, want ErrInvalid", in, err)
		}
	}
}

func TestRecordJSONRoundTrip(t *testing.T) {
	rec := effect.Record{
		Revision: 2,
		Request: effect.Request{ID: "e1", Key: effect.Key("s", "r", 1, 0), Tool: "send",
			Class: effect.ClassNonIdempotentWrite, Input: json.RawMessage(`{"to":"ada"}`)},
		Status: effect.Status{State: effect.StateCompleted, Output: json.RawMessage(`"ok"`)},
	}
	b, err := json.Marshal(rec)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"revision":2,"request":{"id":"e1","key":"session/s/run/r/turn/1/call/0","tool":"send","class":"non_idempotent_write","input":{"to":"ada"}},"status":{"state":"completed","output":"ok"}}`
	if string(b) != want {
		t.Fatalf("record JSON = %s\nwant %s", b, want)
	}
	var back effect.Record
	if err := json.Unmarshal(b, &back); err != nil || back.Validate() != nil {
		t.Fatalf("unmarshal: %v, %v", err, back.Validate())
	}
}

func TestCheckSwap(t *testing.T) {
	req := effect.Request{ID: "e", Tool: "t", Input: json.RawMessage(`{}`)}
	rec := func(rev uint64) effect.Record {
		return effect.Record{Revision: rev, Request: req, Status: effect.Status{State: effect.StateStarted}}
	}
	for _, tc := range []struct {
		rec      effect.Record
		expected uint64
		ok       bool
	}{
		{rec(0), effect.CreateOnly, true},
		{rec(1), effect.CreateOnly, false},
		{rec(1), 0, true},
		{rec(6), 5, true},
		{rec(5), 5, false},
		{rec(7), 5, false},
		{rec(0), 0, false},
	} {
		err := effect.CheckSwap(tc.rec, tc.expected)
		if (err == nil) != tc.ok || (err != nil && !errors.Is(err, effect.ErrInvalid)) {
			t.Errorf("CheckSwap(rev %d, expected %d) = %v", tc.rec.Revision, tc.expected, err)
		}
	}
}

func TestCanonical(t *testing.T) {
	for in, want := range map[string]string{
		` { "b" : [1, 2.50, 1e3], "a" : {"y":null,"x":true} } `: `{"a":{"x":true,"y":null},"b":[1,2.50,1e3]}`,
		`12345678901234567890123`:                               `12345678901234567890123`,
		`"<a&b>"`:                                               `"<a&b>"`,
	} {
		got, err := effect.Canonical([]byte(in))
		if err != nil || string(got) != want {
			t.Errorf("Canonical(%s) = %s, %v; want %s", in, got, err, want)
		}
	}
	for _, in := range []string{``, `{`, `1 2`, `{"a":1}x`} {
		if _, err := effect.Canonical([]byte(in)); !errors.Is(err, effect.ErrInvalid) {
			t.Errorf("Canonical(%q) error = %v, want ErrInvalid", in, err)
		}
	}
}
