package agent

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/starweaver-go/starweaver/core/agentctx"
	"github.com/starweaver-go/starweaver/core/env"
	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/tool"
)

// StateVersion is the version of exported session state.
const StateVersion = 1

// stateEnvelope carries the state bytes exactly as signed.
type stateEnvelope struct {
	Version int             `json:"version"`
	State   json.RawMessage `json:"state"`
	Digest  string          `json:"digest"`
}

type sessionState struct {
	ConversationID string          `json:"conversation_id"`
	Messages       []model.Message `json:"messages"`
	Waiting        *waitState      `json:"waiting,omitempty"`
	// Resuming is a resume claimed in a session store that has not saved
	// its outcome (see Session.claim).
	Resuming *resumeClaim `json:"resuming,omitempty"`
	// InFlight is the checkpoint of a run whose batch of calls was about
	// to run when it was saved (see recover.go).
	InFlight *inFlight `json:"in_flight,omitempty"`
	// Context is the session's agent context (its exportable part).
	Context *agentctx.State `json:"context,omitempty"`
	// Environment is the state of the session's environment provider when
	// it exports one (a virtual provider); absent in older state.
	Environment *env.State `json:"environment,omitempty"`
}

// contextState is the exportable part of the session's agent context, or
// nil when it holds nothing (state then reads as before agent contexts).
func (s *Session) contextState() *agentctx.State {
	if s.actx == nil {
		return nil
	}
	if st := s.actx.Export(); !st.IsZero() {
		return &st
	}
	return nil
}

// Digest algorithms of exported state. The algorithm is part of the
// digest string ("hmac-sha256:<hex>"), so a reader sees whether state is
// signed.
const (
	// digestSigned marks state signed with the agent's state key.
	digestSigned = "hmac-sha256:"
	// digestUnsigned marks state exported without a key: a checksum that
	// catches accidental edits, which anyone can recompute after a
	// deliberate one.
	digestUnsigned = "sha256:"
)

// RestoreOption changes how SessionFromState verifies state.
type RestoreOption func(*restoreOptions)

type restoreOptions struct {
	allowUnsigned bool
}

// AllowUnsigned accepts state carrying only a plain SHA-256 digest (state
// exported by an agent without a state key). Such state is unprotected:
// whoever can edit it can change the history, the paused calls and their
// arguments, and recompute the digest, and the restored run executes what
// it says. Use it only for state that never left the hands of whoever
// restores it. Signed state is verified with the agent's key either way,
// and an agent with a state key ignores AllowUnsigned: it accepts only
// state signed with its key.
func AllowUnsigned() RestoreOption {
	return func(o *restoreOptions) { o.allowUnsigned = true }
}

// canonical is the form of state that digests cover (keys sorted, numbers
// exact), so state that was decoded and re-encoded elsewhere still
// verifies.
func canonical(state []byte) ([]byte, error) {
	d := json.NewDecoder(bytes.NewReader(state))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	return json.Marshal(v)
}

// hmacDigest signs canon with key.
func hmacDigest(key, canon []byte) string {
	m := hmac.New(sha256.New, key)
	m.Write(canon)
	return digestSigned + hex.EncodeToString(m.Sum(nil))
}

// plainDigest is the unsigned checksum of canon.
func plainDigest(canon []byte) string {
	sum := sha256.Sum256(canon)
	return digestUnsigned + hex.EncodeToString(sum[:])
}

// digest is the digest ExportState writes: signed when the agent has a
// key, a plain checksum otherwise.
func (a *Agent) digest(state []byte) (string, error) {
	canon, err := canonical(state)
	if err != nil {
		return "", err
	}
	if len(a.stateKey) > 0 {
		return hmacDigest(a.stateKey, canon), nil
	}
	return plainDigest(canon), nil
}

// verify checks the digest of restored state against the rules of
// SessionFromState.
func (a *Agent) verify(env stateEnvelope, o restoreOptions) error {
	canon, err := canonical(env.State)
	if err != nil {
		return fmt.Errorf("%w: session state is not JSON: %v", ErrState, err)
	}
	var want string
	switch {
	case strings.HasPrefix(env.Digest, digestSigned):
		if len(a.stateKey) == 0 {
			return fmt.Errorf("%w: session state is signed, but this agent has no state key to verify it; give the agent the key the state was exported with", ErrState)
		}
		want = hmacDigest(a.stateKey, canon)
	case strings.HasPrefix(env.Digest, digestUnsigned):
		if len(a.stateKey) > 0 {
			// A keyed agent exports signed state only, so unsigned state
			// is someone else's or signed state whose signature was
			// swapped for a checksum: accepting it would let whoever can
			// write state bypass the key.
			return fmt.Errorf("%w %s", ErrUnsignedState, keyedHint)
		}
		if !o.allowUnsigned {
			return fmt.Errorf("%w %s", ErrUnsignedState, unsignedHint)
		}
		want = plainDigest(canon)
	default:
		return fmt.Errorf("%w: session state has no digest of a known kind (want %q or %q)", ErrState, digestSigned, digestUnsigned)
	}
	if !hmac.Equal([]byte(env.Digest), []byte(want)) {
		if strings.HasPrefix(want, digestSigned) {
			return fmt.Errorf("%w: session state signature does not match; the state was modified or signed with another key", ErrState)
		}
		return fmt.Errorf("%w: session state digest does not match; the state was modified", ErrState)
	}
	return nil
}

// ErrUnsignedState: restored state is unsigned and AllowUnsigned was not
// given. It is an ErrState too.
var ErrUnsignedState = fmt.Errorf("%w: session state is unsigned", ErrState)

// unsignedHint says how to get past ErrUnsignedState, naming the options
// as every host spells them (state_key, allow_unsigned) and as Go does.
const unsignedHint = "(exported without a state key): its sha256 digest can be recomputed by anyone " +
	"who edits it, so it does not show that the state is unmodified. Export and restore with a state " +
	"key (state_key) to have it signed, or accept it unprotected with allow_unsigned (AllowUnsigned in Go)"

// keyedHint explains ErrUnsignedState for an agent with a state key,
// which refuses unsigned state even with AllowUnsigned.
const keyedHint = "and this agent has a state key (state_key): an agent with a key accepts only " +
	"state signed with it, even with allow_unsigned (AllowUnsigned in Go), since unsigned state may be " +
	"signed state whose signature was replaced; restore unsigned state with an agent without a key"

// ExportState returns the session as JSON: its history and, when a run
// waits, everything needed to resume it (pending items, the paused batch,
// retry counters, ids). With a state key the state is signed
// ("hmac-sha256:" digest); without one it carries a plain "sha256:"
// checksum and is unsigned, which SessionFromState refuses unless asked
// with AllowUnsigned. It fails with ErrSessionBusy while a run is active.
//
// Exported state is a value, not a claim on the run. Without a session
// store every copy of a waiting state restores to a waiting session, so an
// old copy can be resumed again after another copy was: the host keeps
// which copies are current. With a session store (Builder.SessionStore)
// the store decides: resuming a restored copy claims its waiting run in
// the store, which only the copy of the current stored state can do, so a
// waiting run is resumed at most once however many copies exist (see
// OpenSession). The store saves this same state after every run.
func (s *Session) ExportState() ([]byte, error) {
	if err := s.acquire(); err != nil {
		return nil, err
	}
	defer s.release()
	return s.agent.encodeState(s.snapshot())
}

// snapshot is the session's state as ExportState exports it. Messages
// are never modified once in the history, so they need no copy.
func (s *Session) snapshot() sessionState {
	s.mu.Lock()
	defer s.mu.Unlock()
	return sessionState{ConversationID: s.id, Messages: s.history, Waiting: s.waiting, Resuming: s.resuming, InFlight: s.inflight,
		Context: s.contextState(), Environment: s.environmentState()}
}

// encodeState encodes st and signs it (see ExportState).
func (a *Agent) encodeState(st sessionState) ([]byte, error) {
	b, err := json.Marshal(st)
	if err != nil {
		return nil, fmt.Errorf("agent: exporting session state: %w", err)
	}
	digest, err := a.digest(b)
	if err != nil {
		return nil, fmt.Errorf("agent: signing session state: %w", err)
	}
	return json.Marshal(stateEnvelope{Version: StateVersion, State: b, Digest: digest})
}

// SessionFromState restores a session exported by ExportState, binding it
// to this agent's current tools and policies.
//
// What is accepted depends on the digest and the agent's state key:
//   - signed state ("hmac-sha256:") is verified with the agent's key; an
//     agent without a key, or with another key, refuses it;
//   - unsigned state ("sha256:") is refused with ErrUnsignedState by an
//     agent with a key, always (AllowUnsigned included: a keyed agent
//     accepts only signed state, so a stripped signature cannot pass), and
//     by an agent without a key unless AllowUnsigned is given; it is then
//     checked against its checksum only, which detects accidental edits
//     but not deliberate ones.
//
// State of another version, state whose digest does not match, and a
// waiting run that names tools this agent lacks or whose pending items
// disagree with the paused calls are refused with ErrState.
//
// For an agent with a session store, the restored session is bound to the
// store's record of its id when it first runs, resumes or abandons a
// resume: the store must hold no record of it (the first save creates
// one) or exactly this state; any other copy is refused with
// ErrSessionConflict and runs nothing.
func (a *Agent) SessionFromState(data []byte, opts ...RestoreOption) (*Session, error) {
	s, err := a.restore(data, restoreOpts(opts))
	if err != nil {
		return nil, err
	}
	// Its record in the agent's store, if any, is looked up when it first
	// runs (see Session.checkRecord).
	s.adopt = a.sessions != nil
	return s, nil
}

func restoreOpts(opts []RestoreOption) restoreOptions {
	var o restoreOptions
	for _, opt := range opts {
		if opt != nil {
			opt(&o)
		}
	}
	return o
}

// restore verifies and decodes state as SessionFromState describes.
func (a *Agent) restore(data []byte, o restoreOptions) (*Session, error) {
	env, err := decodeEnvelope(data)
	if err != nil {
		return nil, err
	}
	if env.Version != StateVersion {
		return nil, fmt.Errorf("%w: unsupported session state version %d (want %d)", ErrState, env.Version, StateVersion)
	}
	if err := a.verify(env, o); err != nil {
		return nil, err
	}
	var st sessionState
	d := json.NewDecoder(bytes.NewReader(env.State))
	d.UseNumber()
	if err := d.Decode(&st); err != nil {
		return nil, fmt.Errorf("%w: decoding session state: %v", ErrState, err)
	}
	if st.ConversationID == "" {
		return nil, fmt.Errorf("%w: session state has no conversation id", ErrState)
	}
	if st.Waiting != nil {
		if err := a.checkWaiting(st.Waiting); err != nil {
			return nil, err
		}
	}
	if c := st.Resuming; c != nil {
		// A claimed resume is never run again, only abandoned: its calls
		// must be consistent, its tools need not exist any more.
		if st.Waiting != nil || c.Waiting == nil || c.RunID != c.Waiting.RunID {
			return nil, fmt.Errorf("%w: session state has a malformed claimed resume", ErrState)
		}
		if err := checkWaitShape(c.Waiting); err != nil {
			return nil, err
		}
	}
	if f := st.InFlight; f != nil {
		if st.Waiting != nil || st.Resuming != nil {
			return nil, fmt.Errorf("%w: session state has a run in flight and a waiting or resumed one", ErrState)
		}
		if err := checkInFlight(f, st.Messages); err != nil {
			return nil, err
		}
	}
	actx := a.newContext()
	if st.Context != nil {
		actx.Restore(*st.Context)
	}
	if st.Environment != nil {
		p, err := restoreEnvironment(st.Environment)
		if err != nil {
			return nil, err
		}
		installEnvironment(actx, p)
	}
	return &Session{agent: a, id: st.ConversationID, history: st.Messages, waiting: st.Waiting, resuming: st.Resuming,
		inflight: st.InFlight, actx: actx}, nil
}

// envelopeShape names what ExportState returns, for errors about
// state of another shape.
const envelopeShape = `a JSON object with "version", "state" and "digest", as ExportState returns it`

// decodeEnvelope decodes exported state, saying what is wrong with state
// of another shape: not JSON, a JSON value that is not an object, or an
// object that lacks a field or has one of the wrong type.
func decodeEnvelope(data []byte) (stateEnvelope, error) {
	var env stateEnvelope
	if len(bytes.TrimSpace(data)) == 0 {
		return env, fmt.Errorf("%w: session state is empty; want %s", ErrState, envelopeShape)
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(data, &fields); err != nil {
		var typeErr *json.UnmarshalTypeError
		if errors.As(err, &typeErr) {
			return env, fmt.Errorf("%w: session state is a JSON %s; want %s", ErrState, typeErr.Value, envelopeShape)
		}
		return env, fmt.Errorf("%w: session state is not JSON (%v); want %s", ErrState, err, envelopeShape)
	}
	if fields == nil {
		return env, fmt.Errorf("%w: session state is JSON null; want %s", ErrState, envelopeShape)
	}
	for _, f := range []struct {
		name, kind, article string
		into                any
	}{
		{"version", "number", "a", &env.Version},
		{"state", "object", "an", &env.State},
		{"digest", "string", "a", &env.Digest},
	} {
		raw, ok := fields[f.name]
		if !ok {
			return env, fmt.Errorf("%w: session state has no %q field; want %s", ErrState, f.name, envelopeShape)
		}
		if k := jsonKind(raw); k != f.kind {
			return env, fmt.Errorf("%w: the %q field of session state is a JSON %s, not %s %s; want %s",
				ErrState, f.name, k, f.article, f.kind, envelopeShape)
		}
		if err := json.Unmarshal(raw, f.into); err != nil {
			return env, fmt.Errorf("%w: the %q field of session state is not a valid %s (%v); want %s",
				ErrState, f.name, f.kind, err, envelopeShape)
		}
	}
	return env, nil
}

// jsonKind names the kind of a valid JSON value by its first byte.
func jsonKind(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return "nothing"
	}
	switch raw[0] {
	case '{':
		return "object"
	case '[':
		return "array"
	case '"':
		return "string"
	case 't', 'f':
		return "bool"
	case 'n':
		return "null"
	default:
		return "number"
	}
}

// checkWaiting verifies that a restored waiting run fits this agent.
func (a *Agent) checkWaiting(w *waitState) error {
	reg, _, _, err := a.registry(&tool.RunContext{Metadata: a.metadata, Deps: a.deps}, nil)
	if err != nil {
		return err
	}
	if err := checkWaitShape(w); err != nil {
		return err
	}
	for _, p := range w.Pending {
		name := p.ToolName
		if p.ParentToolCallID != "" {
			// A child's request: its call is the child's; the call here is
			// the agent tool's (checkWaitShape found it).
			name = w.Calls[callIndex(w.Calls, p.ParentToolCallID)].Name
		}
		// The tools of managed toolsets are known in runs only.
		if _, ok := reg.Tool(name); !ok && a.managed == nil {
			return fmt.Errorf("%w: pending %q names tool %q, which this agent does not have", ErrState, p.ID, p.ToolName)
		}
	}
	return nil
}

// checkWaitShape verifies that a restored waiting run is consistent: its
// pending items match its paused calls, run and ids.
func checkWaitShape(w *waitState) error {
	if len(w.Returns) != len(w.Calls) {
		return fmt.Errorf("%w: waiting run has %d calls but %d returns", ErrState, len(w.Calls), len(w.Returns))
	}
	if len(w.Pending) == 0 {
		return fmt.Errorf("%w: waiting run has nothing pending", ErrState)
	}
	for _, p := range w.Pending {
		if p.ParentToolCallID != "" {
			// A child's request: the child checks it against its own state
			// when it resumes.
			if callIndex(w.Calls, p.ParentToolCallID) < 0 {
				return fmt.Errorf("%w: pending %q refers to unknown call %q", ErrState, p.ID, p.ParentToolCallID)
			}
			if w.Children[p.ParentToolCallID] == nil {
				return fmt.Errorf("%w: pending %q refers to call %q, which has no waiting agent", ErrState, p.ID, p.ParentToolCallID)
			}
			continue
		}
		i := callIndex(w.Calls, p.ToolCallID)
		if i < 0 {
			return fmt.Errorf("%w: pending %q refers to unknown call %q", ErrState, p.ID, p.ToolCallID)
		}
		c := w.Calls[i]
		if c.Name != p.ToolName || !jsonEqual(c.Arguments, p.Arguments) {
			return fmt.Errorf("%w: pending %q does not match its call", ErrState, p.ID)
		}
		if want := p.Kind + "_" + w.RunID + "_" + p.ToolCallID; p.ID != want {
			return fmt.Errorf("%w: pending id %q does not match its run and call", ErrState, p.ID)
		}
	}
	return nil
}

func jsonEqual(a, b json.RawMessage) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	xb, _ := json.Marshal(x)
	yb, _ := json.Marshal(y)
	return bytes.Equal(xb, yb)
}
