package intent

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math"
)

// Identity is the stable identity of one declared intent: the intent
// at IntentIndex among those tool call ToolCallID declared, in execution
// scope ExecutionScopeID (a turn id or a process id) of session
// SessionID. Its ReplayKey names the intent's command everywhere: in the
// journal, to the Commands that execute it, and, for a started process,
// as the process id.
type Identity struct {
	SessionID        string `json:"session_id"`
	ExecutionScopeID string `json:"execution_scope_id"`
	ToolCallID       string `json:"tool_call_id"`
	IntentIndex      uint32 `json:"intent_index"`
	ReplayKey        string `json:"replay_key"`
}

// ReplayKeyPrefix starts every replay key of identity family version 1.
const ReplayKeyPrefix = "tool-intent:v1:sha256:"

// DeriveIdentity returns the identity of the index-th intent (from 0) of
// tool call callID in execution scope scopeID of session. The replay key
// is ReplayKeyPrefix followed by the hex SHA-256 of
//
//	"lash-stable-identity" 0x01 0x01
//	u64be(len) "lash.tool-intent"
//	u64be(len) session  u64be(len) scopeID  u64be(len) callID
//	u32be(index)
//
// (0x01 the global salt, then the family version; every string preceded
// by its length in bytes). The layout is Lash's, byte for byte, so keys
// agree across implementations; it is stable.
//
// Scopes of turns and of processes share the byte layout: what keeps
// their keys apart is that their ids differ (a process id is itself a
// replay key). An empty callID fails with ErrMissingToolCallID; an index
// below 0 or above math.MaxUint32 with ErrIntentIndexOverflow.
func DeriveIdentity(session, scopeID, callID string, index int) (Identity, error) {
	if callID == "" {
		return Identity{}, fmt.Errorf("%w: intent #%d of session %q, scope %q", ErrMissingToolCallID, index, session, scopeID)
	}
	if index < 0 || uint64(index) > math.MaxUint32 {
		return Identity{}, fmt.Errorf("%w: index %d", ErrIntentIndexOverflow, index)
	}
	h := sha256.New()
	h.Write([]byte("lash-stable-identity"))
	h.Write([]byte{0x01, 0x01})
	var n [8]byte
	for _, s := range [...]string{"lash.tool-intent", session, scopeID, callID} {
		binary.BigEndian.PutUint64(n[:], uint64(len(s)))
		h.Write(n[:])
		h.Write([]byte(s))
	}
	var i [4]byte
	binary.BigEndian.PutUint32(i[:], uint32(index))
	h.Write(i[:])
	return Identity{
		SessionID:        session,
		ExecutionScopeID: scopeID,
		ToolCallID:       callID,
		IntentIndex:      uint32(index),
		ReplayKey:        ReplayKeyPrefix + hex.EncodeToString(h.Sum(nil)),
	}, nil
}

// ScopeKind says what kind of execution an intent was declared in.
type ScopeKind string

// Scope kinds.
const (
	ScopeTurn    ScopeKind = "turn"
	ScopeProcess ScopeKind = "process"
)

// Scope is an execution scope: a turn (by its id) or a process (by its
// id). Intents declared in a scope belong to it; its end settles the
// parent-end policies of the processes they started.
type Scope struct {
	Kind ScopeKind `json:"kind"`
	ID   string    `json:"id"`
}

// TurnScope returns the scope of turn id.
func TurnScope(id string) Scope { return Scope{Kind: ScopeTurn, ID: id} }

// ProcessScope returns the scope of process id.
func ProcessScope(id string) Scope { return Scope{Kind: ScopeProcess, ID: id} }

// validate reports a scope of an unknown kind or without an id.
func (s Scope) validate() error {
	if (s.Kind != ScopeTurn && s.Kind != ScopeProcess) || s.ID == "" {
		return fmt.Errorf("%w: scope %q %q: want a turn or process scope with an id", ErrInvalid, string(s.Kind), s.ID)
	}
	return nil
}
