package intent

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
)

// CompletionKeyPrefix starts every completion key.
const CompletionKeyPrefix = "tool-completion:v1:sha256:"

// DeriveCompletionKey returns the completion key of tool call callID in
// execution scope scopeID of session: the key under which a [Pending]
// attempt of a tool that declares it may defer waits, and with which the
// host completes it later. It is CompletionKeyPrefix followed by the hex
// SHA-256 of
//
//	"lash-stable-identity" 0x01 0x01
//	u64be(len) "lash.tool-completion"
//	u64be(len) session  u64be(len) scopeID  u64be(len) callID
//
// (the layout of DeriveIdentity under its own family name, without an
// index), so it depends only on what a replay or a recovery of the call
// sees again: the same call keeps its key for the scope's whole lifetime,
// and it never equals an intent's replay key. An empty callID fails with
// ErrMissingToolCallID.
func DeriveCompletionKey(session, scopeID, callID string) (string, error) {
	if callID == "" {
		return "", fmt.Errorf("%w: completion key of session %q, scope %q", ErrMissingToolCallID, session, scopeID)
	}
	h := sha256.New()
	h.Write([]byte("lash-stable-identity"))
	h.Write([]byte{0x01, 0x01})
	var n [8]byte
	for _, s := range [...]string{"lash.tool-completion", session, scopeID, callID} {
		binary.BigEndian.PutUint64(n[:], uint64(len(s)))
		h.Write(n[:])
		h.Write([]byte(s))
	}
	return CompletionKeyPrefix + hex.EncodeToString(h.Sum(nil)), nil
}
