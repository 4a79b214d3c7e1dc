package bridge

import (
	"encoding/json"
	"sync"
	"unsafe"

	"github.com/starweaver-go/starweaver/core/model"
)

// transcripts keep, for a host model, the conversations its requests came
// from, so that a request names its messages by transcript and length
// ("transcript", "length" in the model item) and the host fetches only the
// messages it lacks (sw_model_messages). Sending every request's whole
// history instead made a session of n runs cost O(n²) time and, in a host
// that keeps what it receives (FunctionModel), O(n²) memory.
//
// A transcript only grows: a request whose messages extend a transcript's
// (the same messages, by identity, at every position it holds) extends
// it; any other request starts a new transcript with a new id. So the
// messages of one id at one position never change, whoever fetches them
// and when. The messages are the agent's, shared, never copied (see
// model.Model). At most maxTranscripts are kept: the least recently used
// one no request is using is dropped first, and a host asking for a
// dropped id gets an error.
type transcripts struct {
	mu   sync.Mutex
	next int64
	tick uint64
	byID map[int64]*transcript
	// byHead finds the transcript a request may extend by its first
	// message's parts.
	byHead map[*model.Part]*transcript
}

// maxTranscripts bounds the transcripts a host model keeps.
const maxTranscripts = 64

type transcript struct {
	id   int64
	head *model.Part // nil: not found by head (one request only)
	msgs []model.Message
	pins int // requests using it now
	used uint64
}

// acquire returns the transcript of msgs, pinned until release.
func (ts *transcripts) acquire(msgs []model.Message) *transcript {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if ts.byID == nil {
		ts.byID, ts.byHead = map[int64]*transcript{}, map[*model.Part]*transcript{}
	}
	ts.tick++
	var head *model.Part
	if len(msgs) > 0 && len(msgs[0].Parts) > 0 {
		head = unsafe.SliceData(msgs[0].Parts)
	}
	if t := ts.byHead[head]; head != nil && t != nil && extends(msgs, t.msgs) {
		t.msgs, t.used = msgs, ts.tick
		t.pins++
		return t
	}
	ts.next++
	t := &transcript{id: ts.next, head: head, msgs: msgs, pins: 1, used: ts.tick}
	ts.byID[t.id] = t
	if head != nil {
		ts.byHead[head] = t
	}
	ts.evict()
	return t
}

// release unpins t.
func (ts *transcripts) release(t *transcript) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	t.pins--
	if t.head == nil && t.pins == 0 {
		delete(ts.byID, t.id)
	}
	ts.evict()
}

// evict drops the least recently used unpinned transcripts past the bound.
func (ts *transcripts) evict() {
	for len(ts.byID) > maxTranscripts {
		var old *transcript
		for _, t := range ts.byID {
			if t.pins == 0 && (old == nil || t.used < old.used) {
				old = t
			}
		}
		if old == nil {
			return // every one is in use
		}
		delete(ts.byID, old.id)
		if ts.byHead[old.head] == old {
			delete(ts.byHead, old.head)
		}
	}
}

// messages returns the JSON of messages [from, to) of transcript id.
func (ts *transcripts) messages(id int64, from, to int) ([]byte, error) {
	ts.mu.Lock()
	t := ts.byID[id]
	var msgs []model.Message
	if t != nil {
		msgs = t.msgs
	}
	ts.mu.Unlock()
	if t == nil {
		return nil, &abiError{Type: "invalid_argument", Message: "unknown or dropped transcript; the request that named it has ended"}
	}
	if from < 0 || to < from || to > len(msgs) {
		return nil, &abiError{Type: "invalid_argument", Message: "message range out of the transcript"}
	}
	if from == to {
		return []byte("[]"), nil
	}
	return json.Marshal(msgs[from:to])
}

// extends reports whether msgs starts with prefix, message by message:
// messages are never modified once in a history, so the same parts (by
// identity) and the same fields make the same message.
func extends(msgs, prefix []model.Message) bool {
	if len(msgs) < len(prefix) {
		return false
	}
	for i := range prefix {
		if !sameMessage(&msgs[i], &prefix[i]) {
			return false
		}
	}
	return true
}

func sameMessage(a, b *model.Message) bool {
	if a.Kind != b.Kind || len(a.Parts) != len(b.Parts) || a.Instructions != b.Instructions || a.RunID != b.RunID ||
		a.Usage != b.Usage || a.ModelName != b.ModelName || a.FinishReason != b.FinishReason ||
		a.Provider != b.Provider || a.ResponseID != b.ResponseID {
		return false
	}
	return len(a.Parts) == 0 || unsafe.SliceData(a.Parts) == unsafe.SliceData(b.Parts)
}
