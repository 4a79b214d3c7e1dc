package bridge

import (
	"github.com/starweaver-go/starweaver/core/agent"
	"github.com/starweaver-go/starweaver/core/model"
)

// sessionInfo is what sw_session_info reports.
type sessionInfo struct {
	ID      string          `json:"id"`
	Waiting bool            `json:"waiting"`
	Pending []agent.Pending `json:"pending"`
	// Usage sums what the session's runs consumed.
	Usage model.Usage `json:"usage"`
	// InFlight is the run a stopped worker left in flight, or null
	// (journal.go).
	InFlight *inFlightInfo `json:"in_flight"`
}

func infoOf(s *agent.Session) sessionInfo {
	p := s.Pending()
	if p == nil {
		p = []agent.Pending{}
	}
	return sessionInfo{ID: s.ID(), Waiting: s.Waiting(), Pending: p, Usage: s.Usage(), InFlight: inFlightOf(s)}
}
