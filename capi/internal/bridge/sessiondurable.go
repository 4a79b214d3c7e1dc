package bridge

import (
	"encoding/json"

	"github.com/starweaver-go/starweaver/core/agent"
)

// openSessionByID loads session id from the agent's session store
// (sw_agent_open_session); opts are sw_session_restore's.
func openSessionByID(a *agent.Agent, id string, opts []byte) (*agent.Session, error) {
	ctx, ok := rootContext()
	if !ok {
		return nil, &abiError{Type: "state", Message: "the runtime is shut down"}
	}
	ro, err := decodeRestoreOptions(opts)
	if err != nil {
		return nil, err
	}
	return a.OpenSession(ctx, id, ro...)
}

// claimedResume is what sw_session_claimed_resume reports of a claimed,
// unfinished resume (agent.ResumeClaim).
type claimedResume struct {
	RunID       string           `json:"run_id"`
	ClaimedAtMS int64            `json:"claimed_at_ms"`
	Pending     []agent.Pending  `json:"pending"`
	Resolution  agent.Resolution `json:"resolution"`
}

// claimedResumeJSON encodes the session's claimed resume, or null.
func claimedResumeJSON(s *agent.Session) ([]byte, error) {
	c, ok := s.ClaimedResume()
	if !ok {
		return []byte("null"), nil
	}
	v := claimedResume{RunID: c.RunID, ClaimedAtMS: c.ClaimedAt.UnixMilli(), Pending: c.Pending, Resolution: c.Resolution}
	if v.Pending == nil {
		v.Pending = []agent.Pending{}
	}
	return json.Marshal(v)
}

// abandonResume settles the session's claimed resume (sw_session_abandon_resume).
func abandonResume(s *agent.Session) error {
	ctx, ok := rootContext()
	if !ok {
		return &abiError{Type: "state", Message: "the runtime is shut down"}
	}
	return s.AbandonResume(ctx)
}

// abandonInFlight settles the session's run in flight (sw_session_abandon_in_flight).
func abandonInFlight(s *agent.Session) error {
	ctx, ok := rootContext()
	if !ok {
		return &abiError{Type: "state", Message: "the runtime is shut down"}
	}
	return s.AbandonInFlight(ctx)
}
