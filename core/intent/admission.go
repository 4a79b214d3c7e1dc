package intent

import (
	"encoding/json"

	"github.com/starweaver-go/starweaver/core/effect"
)

// Admission limits of protocol version 1.
const (
	// MaxCount is the most intents one attempt may declare.
	MaxCount = 32
	// MaxPerKind is the most intents of one kind one attempt may declare.
	MaxPerKind = 16
	// MaxCanonicalBytes bounds the batch's canonical JSON (see
	// effect.Canonical).
	MaxCanonicalBytes = 64 * 1024
)

// Declared is an admitted intent with its identity.
type Declared struct {
	Identity Identity
	Intent   Intent
}

// Admit admits the batch an attempt of tool call callID declared in scope
// scopeID of session, all or nothing. It checks, in this order: the
// protocol version is ProtocolV1; callID is not empty; at most MaxCount
// intents; canonical JSON of at most MaxCanonicalBytes; at most
// MaxPerKind of each kind; every intent's session is session. The first
// check that fails refuses every intent of the batch with that reason
// (one ProtocolRefused when the batch is empty), and nothing is declared.
// An empty batch of version 1 (or version 0, the zero Intents) is a
// no-op: both results are nil.
//
// Admit reads no state: the same batch gives the same answer, so a
// redrive recomputes it.
func Admit(session, scopeID, callID string, batch Intents) ([]Declared, []Outcome) {
	if batch.Empty() && (batch.ProtocolVersion == ProtocolV1 || batch.ProtocolVersion == 0) {
		return nil, nil
	}
	if r, ok := admissionRefusal(session, callID, batch); ok {
		if batch.Empty() {
			return nil, []Outcome{ProtocolRefused{Refusal: r}}
		}
		out := make([]Outcome, len(batch.Intents))
		for i, in := range batch.Intents {
			ref := Refused{IntentIndex: uint32(i), Kind: kindOf(in), Refusal: r}
			if id, err := DeriveIdentity(session, scopeID, callID, i); err == nil {
				ref.Identity = &id
			}
			out[i] = ref
		}
		return nil, out
	}
	decl := make([]Declared, len(batch.Intents))
	for i, in := range batch.Intents {
		id, _ := DeriveIdentity(session, scopeID, callID, i) // checked by admissionRefusal
		decl[i] = Declared{Identity: id, Intent: in}
	}
	return decl, nil
}

// admissionRefusal returns the first reason to refuse batch.
func admissionRefusal(session, callID string, batch Intents) (Refusal, bool) {
	if batch.ProtocolVersion != ProtocolV1 {
		v := batch.ProtocolVersion
		return Refusal{Code: RefusalUnsupportedProtocolVersion, RecordedVersion: &v}, true
	}
	if callID == "" {
		return Refusal{Code: RefusalMissingToolCallID}, true
	}
	if len(batch.Intents) > MaxCount {
		return Refusal{Code: RefusalCountBudgetExceeded}, true
	}
	for i, in := range batch.Intents {
		if in == nil {
			return Refusal{Code: RefusalMalformedIntent, Message: "intent #" + itoa(i) + " is nil"}, true
		}
	}
	raw, err := json.Marshal(batch)
	if err == nil {
		raw, err = effect.Canonical(raw)
	}
	if err != nil {
		return Refusal{Code: RefusalMalformedIntent, Message: "the batch cannot be encoded as JSON"}, true
	}
	if len(raw) > MaxCanonicalBytes {
		return Refusal{Code: RefusalCanonicalByteBudgetExceeded}, true
	}
	perKind := map[Kind]int{}
	for _, in := range batch.Intents {
		perKind[in.Kind()]++
	}
	for _, k := range Kinds() {
		if perKind[k] > MaxPerKind {
			return Refusal{Code: RefusalPerKindBudgetExceeded, Kind: k}, true
		}
	}
	for _, in := range batch.Intents {
		if in.Session() != session {
			return Refusal{Code: RefusalSessionMismatch, Expected: session, Recorded: in.Session()}, true
		}
	}
	return Refusal{}, false
}

func kindOf(in Intent) Kind {
	if in == nil {
		return ""
	}
	return in.Kind()
}
