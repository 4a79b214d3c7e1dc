package bridge

import (
	"encoding/json"
	"testing"

	"github.com/starweaver-go/starweaver/core/model"
)

// A conversation that only grows keeps its transcript id, so the host
// fetches each message once; a history that is not an extension gets a
// new id; what an id held never changes.
func TestTranscriptsGrowAndNeverChange(t *testing.T) {
	var ts transcripts
	history := []model.Message{model.Request(model.TextPart("hi"))}
	a := ts.acquire(clip(history))
	ts.release(a)
	history = append(history, model.Response(model.TextPart("hello")), model.Request(model.TextPart("again")))
	b := ts.acquire(clip(history))
	ts.release(b)
	if a.id != b.id || len(b.msgs) != 3 {
		t.Fatalf("a growing conversation changed transcript: %d then %d", a.id, b.id)
	}
	// The same first message with another second one: a new transcript.
	other := append(clip(history[:1]), model.Response(model.TextPart("other")))
	c := ts.acquire(other)
	ts.release(c)
	if c.id == b.id {
		t.Fatal("a diverging history extended the transcript")
	}
	// Equal content is not identity: a decoded copy is another transcript.
	var copied []model.Message
	raw, _ := json.Marshal(history)
	if err := json.Unmarshal(raw, &copied); err != nil {
		t.Fatal(err)
	}
	d := ts.acquire(copied)
	ts.release(d)
	if d.id == b.id || d.id == c.id {
		t.Fatal("a copy extended another transcript")
	}
	got, err := ts.messages(b.id, 1, 3)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := json.Marshal(history[1:3])
	if string(got) != string(want) {
		t.Fatalf("messages 1..3 = %s, want %s", got, want)
	}
	for _, r := range [][2]int{{-1, 1}, {2, 1}, {0, 4}} {
		if _, err := ts.messages(b.id, r[0], r[1]); err == nil {
			t.Errorf("range %v accepted", r)
		}
	}
	if _, err := ts.messages(999, 0, 0); err == nil {
		t.Error("an unknown transcript was accepted")
	}
}

// At most maxTranscripts are kept once no request uses them; one in use
// is never dropped, and one-off transcripts (no first message to find
// them by) go with their request.
func TestTranscriptsAreBounded(t *testing.T) {
	var ts transcripts
	pinned := ts.acquire([]model.Message{model.Request(model.TextPart("kept while in use"))})
	for i := 0; i < 10*maxTranscripts; i++ {
		tr := ts.acquire([]model.Message{model.Request(model.TextPart("x"))})
		ts.release(tr)
	}
	if n := len(ts.byID); n > maxTranscripts {
		t.Fatalf("%d transcripts kept", n)
	}
	if _, err := ts.messages(pinned.id, 0, 1); err != nil {
		t.Fatalf("the transcript of a request in flight was dropped: %v", err)
	}
	ts.release(pinned)
	empty := ts.acquire(nil)
	ts.release(empty)
	if _, ok := ts.byID[empty.id]; ok {
		t.Fatal("a one-off transcript outlived its request")
	}
}

// clip cuts ms's capacity to its length, as the agent hands histories to
// models.
func clip(ms []model.Message) []model.Message { return ms[:len(ms):len(ms)] }
