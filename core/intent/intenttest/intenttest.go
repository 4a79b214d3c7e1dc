// Package intenttest checks that an intent.Journal keeps its contract:
// entries written once (the first write wins), stream positions unique,
// bodies kept byte for byte, and, through an intent.Realiser, intents
// realised exactly once across a redrive. Every journal runs the same
// suite:
//
//	func TestIntentJournalConformance(t *testing.T) {
//		intenttest.Run(t, func(t *testing.T) intent.Journal { return newJournal(t) })
//	}
package intenttest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/starweaver-go/starweaver/core/intent"
	"github.com/starweaver-go/starweaver/core/internal/storeerr"
)

// Run runs the conformance suite, one subtest per rule, each on a fresh
// journal from newJournal.
func Run(t *testing.T, newJournal func(t *testing.T) intent.Journal) {
	tests := []struct {
		name string
		fn   func(t *testing.T, j intent.Journal)
	}{
		{"FirstWriteWins", testFirstWriteWins},
		{"BodiesKeptByteForByte", testBytes},
		{"StreamPositionsAreUnique", testStreams},
		{"NotFound", testNotFound},
		{"InvalidEntriesWriteNothing", testInvalid},
		{"ConcurrentAppendsOfOneKeyWriteOnce", testConcurrent},
		{"RealisedIntentsReplayAcrossHandles", testRealise},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { tc.fn(t, newJournal(t)) })
	}
}

func testFirstWriteWins(t *testing.T, j intent.Journal) {
	ctx := context.Background()
	e, existed, err := j.Append(ctx, intent.Entry{Key: "a", Body: json.RawMessage(`1`)})
	if err != nil || existed || string(e.Body) != `1` {
		t.Fatalf("first append: %+v, %v, %v", e, existed, err)
	}
	e, existed, err = j.Append(ctx, intent.Entry{Key: "a", Stream: "s", Seq: 4, Body: json.RawMessage(`2`)})
	if err != nil || !existed || string(e.Body) != `1` || e.Stream != "" {
		t.Fatalf("second append: %+v, %v, %v", e, existed, err)
	}
	if es, _ := j.Stream(ctx, "s"); len(es) != 0 {
		t.Fatal("a losing append joined a stream")
	}
}

func testBytes(t *testing.T, j intent.Journal) {
	ctx := context.Background()
	body := json.RawMessage("{\"z\": 1e3,  \"a\":\"\\u00e9\\u0000\",\n\"n\":[ ]}")
	if _, _, err := j.Append(ctx, intent.Entry{Key: "k/é", Stream: "s", Body: body}); err != nil {
		t.Fatal(err)
	}
	e, err := j.Get(ctx, "k/é")
	if err != nil || string(e.Body) != string(body) || e.Stream != "s" || e.Seq != 0 {
		t.Fatalf("get: %+v, %v", e, err)
	}
	es, err := j.Stream(ctx, "s")
	if err != nil || len(es) != 1 || string(es[0].Body) != string(body) || es[0].Key != "k/é" {
		t.Fatalf("stream: %+v, %v", es, err)
	}
	// What a journal returns is the caller's.
	e.Body[0] = 'x'
	if again, _ := j.Get(ctx, "k/é"); string(again.Body) != string(body) {
		t.Fatal("the journal shares memory with its caller")
	}
}

func testStreams(t *testing.T, j intent.Journal) {
	ctx := context.Background()
	for i, k := range []string{"c", "a", "b"} {
		if _, _, err := j.Append(ctx, intent.Entry{Key: k, Stream: "s", Seq: int64(i), Body: json.RawMessage(fmt.Sprint(i))}); err != nil {
			t.Fatal(err)
		}
	}
	_, _, err := j.Append(ctx, intent.Entry{Key: "d", Stream: "s", Seq: 1, Body: json.RawMessage(`9`)})
	if !errors.Is(err, intent.ErrConflict) || !errors.Is(err, storeerr.ErrConflict) {
		t.Fatalf("a taken position: %v", err)
	}
	if _, err := j.Get(ctx, "d"); !errors.Is(err, intent.ErrNotFound) {
		t.Fatalf("a conflicting append wrote: %v", err)
	}
	// Another stream has its own positions.
	if _, _, err := j.Append(ctx, intent.Entry{Key: "d", Stream: "t", Seq: 1, Body: json.RawMessage(`9`)}); err != nil {
		t.Fatal(err)
	}
	es, err := j.Stream(ctx, "s")
	if err != nil || len(es) != 3 {
		t.Fatalf("stream: %v, %v", es, err)
	}
	for i, want := range []string{"c", "a", "b"} {
		if es[i].Key != want || es[i].Seq != int64(i) {
			t.Fatalf("stream order: %+v", es)
		}
	}
}

func testNotFound(t *testing.T, j intent.Journal) {
	_, err := j.Get(context.Background(), "missing")
	if !errors.Is(err, intent.ErrNotFound) || !errors.Is(err, storeerr.ErrNotFound) {
		t.Fatalf("missing entry: %v", err)
	}
	if es, err := j.Stream(context.Background(), "missing"); err != nil || len(es) != 0 {
		t.Fatalf("missing stream: %v, %v", es, err)
	}
}

func testInvalid(t *testing.T, j intent.Journal) {
	ctx := context.Background()
	for _, e := range []intent.Entry{
		{Body: json.RawMessage(`1`)},
		{Key: "a\x00", Body: json.RawMessage(`1`)},
		{Key: "a", Stream: "s\x00", Body: json.RawMessage(`1`)},
		{Key: "a", Body: json.RawMessage(`{`)},
		{Key: "a", Seq: 2, Body: json.RawMessage(`1`)},
		{Key: "a", Stream: "s", Seq: -1, Body: json.RawMessage(`1`)},
	} {
		if _, _, err := j.Append(ctx, e); !errors.Is(err, intent.ErrInvalid) {
			t.Fatalf("%+v: %v", e, err)
		}
	}
	if _, err := j.Get(ctx, "a"); !errors.Is(err, intent.ErrNotFound) {
		t.Fatal("an invalid entry was written")
	}
}

func testConcurrent(t *testing.T, j intent.Journal) {
	ctx := context.Background()
	const n = 8
	var wg sync.WaitGroup
	bodies := make([]string, n)
	fresh := make([]bool, n)
	for i := range n {
		wg.Go(func() {
			e, existed, err := j.Append(ctx, intent.Entry{Key: "once", Stream: "s", Body: json.RawMessage(fmt.Sprint(i))})
			if err != nil {
				t.Errorf("append %d: %v", i, err)
				return
			}
			bodies[i], fresh[i] = string(e.Body), !existed
		})
	}
	wg.Wait()
	winners := 0
	for i := range n {
		if fresh[i] {
			winners++
		}
		if bodies[i] != bodies[0] {
			t.Fatalf("appends saw different winners: %v", bodies)
		}
	}
	if winners != 1 {
		t.Fatalf("%d appends won", winners)
	}
}

func testRealise(t *testing.T, j intent.Journal) {
	ctx := context.Background()
	const sess = "s"
	call := intent.Call{Session: sess, Scope: intent.TurnScope("turn-1"), CallID: "call-1"}
	id, _ := intent.DeriveIdentity(sess, "turn-1", "call-1", 0)
	done := intent.Done{Result: json.RawMessage(`{"ok":true}`), Intents: intent.V1(
		&intent.StartProcess{SessionID: sess, Request: intent.ProcessStartRequest{ID: "x", Input: json.RawMessage(`{"n": 1}`)}},
		&intent.SignalProcess{SessionID: sess, ProcessID: id.ReplayKey, SignalName: "go"},
	)}
	first, err := (&intent.Realiser{Journal: j}).Realise(ctx, call, done)
	if err != nil {
		t.Fatal(err)
	}
	second, err := (&intent.Realiser{Journal: j}).Realise(ctx, call, intent.Done{Result: json.RawMessage(`0`)})
	if err != nil || !second.Replayed {
		t.Fatal(second, err)
	}
	a, _ := json.Marshal(first.Intents)
	b, _ := json.Marshal(second.Intents)
	if string(a) != string(b) {
		t.Fatalf("replay differs:\n%s\n%s", a, b)
	}
	st, err := intent.NewLocal(j).Process(ctx, id.ReplayKey)
	if err != nil || len(st.Entries) != 2 {
		t.Fatalf("process %+v, %v", st, err)
	}
	settled, err := (&intent.Realiser{Journal: j}).SettleParentEnd(ctx, sess, call.Scope)
	if err != nil || len(settled) != 1 || settled[0].Result != intent.ParentEndCancelled {
		t.Fatalf("settle %+v, %v", settled, err)
	}
}
