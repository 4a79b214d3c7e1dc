package agent

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"

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
}

// digest signs the canonical form of state (keys sorted, numbers exact),
// so state that was decoded and re-encoded elsewhere still verifies.
func (a *Agent) digest(state []byte) (string, error) {
	d := json.NewDecoder(bytes.NewReader(state))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return "", err
	}
	canon, err := json.Marshal(v)
	if err != nil {
		return "", err
	}
	if len(a.stateKey) > 0 {
		m := hmac.New(sha256.New, a.stateKey)
		m.Write(canon)
		return "hmac-sha256:" + hex.EncodeToString(m.Sum(nil)), nil
	}
	sum := sha256.Sum256(canon)
	return "sha256:" + hex.EncodeToString(sum[:]), nil
}

// ExportState returns the session as JSON: its history and, when a run
// waits, everything needed to resume it (pending items, the paused batch,
// retry counters, ids). It fails with ErrSessionBusy while a run is active.
func (s *Session) ExportState() ([]byte, error) {
	if err := s.acquire(); err != nil {
		return nil, err
	}
	defer s.release()
	s.mu.Lock()
	st := sessionState{ConversationID: s.id, Messages: s.history, Waiting: s.waiting}
	b, err := json.Marshal(st)
	s.mu.Unlock()
	if err != nil {
		return nil, fmt.Errorf("agent: exporting session state: %w", err)
	}
	digest, err := s.agent.digest(b)
	if err != nil {
		return nil, fmt.Errorf("agent: signing session state: %w", err)
	}
	return json.Marshal(stateEnvelope{Version: StateVersion, State: b, Digest: digest})
}

// SessionFromState restores a session exported by ExportState, binding it
// to this agent's current tools and policies. State of another version,
// state whose digest does not match, and a waiting run that names tools
// this agent lacks or whose pending items disagree with the paused calls
// are refused with ErrState.
func (a *Agent) SessionFromState(data []byte) (*Session, error) {
	var env stateEnvelope
	if err := json.Unmarshal(data, &env); err != nil {
		return nil, fmt.Errorf("%w: session state is not JSON: %v", ErrState, err)
	}
	if env.Version != StateVersion {
		return nil, fmt.Errorf("%w: unsupported session state version %d (want %d)", ErrState, env.Version, StateVersion)
	}
	digest, err := a.digest(env.State)
	if err != nil || !hmac.Equal([]byte(env.Digest), []byte(digest)) {
		return nil, fmt.Errorf("%w: session state digest does not match; the state was modified or signed with another key", ErrState)
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
	return &Session{agent: a, id: st.ConversationID, history: st.Messages, waiting: st.Waiting}, nil
}

// checkWaiting verifies that a restored waiting run fits this agent.
func (a *Agent) checkWaiting(w *waitState) error {
	reg, err := a.registry(&tool.RunContext{Metadata: a.metadata, Deps: a.deps}, nil)
	if err != nil {
		return err
	}
	if len(w.Returns) != len(w.Calls) {
		return fmt.Errorf("%w: waiting run has %d calls but %d returns", ErrState, len(w.Calls), len(w.Returns))
	}
	if len(w.Pending) == 0 {
		return fmt.Errorf("%w: waiting run has nothing pending", ErrState)
	}
	for _, p := range w.Pending {
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
		if _, ok := reg.Tool(p.ToolName); !ok {
			return fmt.Errorf("%w: pending %q names tool %q, which this agent does not have", ErrState, p.ID, p.ToolName)
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
