package bridge

import (
	"runtime"

	"github.com/starweaver-go/starweaver/core/agent"
	"github.com/starweaver-go/starweaver/core/effect"
	"github.com/starweaver-go/starweaver/core/store/postgres"
	"github.com/starweaver-go/starweaver/core/store/sqlite"
)

// heldEffectStore is the effect journal an agent uses, holding a reference
// to its database as heldSessionStore does.
type heldEffectStore struct {
	effect.Store
}

// effectStore returns the effect journal of the handle's database, with a
// reference of its own (see heldSessionStore).
func (h *storeHandle) effectStore() effect.Store {
	d := h.db
	var st effect.Store
	if d.sqlite != nil {
		st = sqlite.NewEffectStore(d.sqlite)
	} else {
		st = postgres.NewEffectStore(d.postgres)
	}
	held := &heldEffectStore{Store: st}
	d.acquire()
	runtime.AddCleanup(held, (*database).release, d)
	return held
}

// useEffectJournal gives b the effect journal of the store handle h (an
// agent spec's "effect_journal"; 0 for none) under the recovery policy
// named by recovery ("effect_recovery"; "" for the default). A policy
// without a journal is refused rather than ignored.
func useEffectJournal(b *agent.Builder, h int64, recovery string) error {
	if h == 0 {
		if recovery != "" {
			return specError(`"effect_recovery" needs an "effect_journal"`)
		}
		return nil
	}
	if err := effect.CheckRecoveryPolicy(effect.RecoveryPolicy(recovery)); err != nil {
		return specError("%v", err)
	}
	st, err := lookup[*storeHandle](h)
	if err != nil {
		return err
	}
	b.EffectJournal(st.effectStore(), agent.JournalRecovery(effect.RecoveryPolicy(recovery)))
	return nil
}

// inFlightInfo is what sw_session_info reports of a run left in flight
// (agent.InFlightRun): its calls by id and name.
type inFlightInfo struct {
	RunID      string         `json:"run_id"`
	Step       int            `json:"step"`
	Calls      []inFlightCall `json:"calls"`
	Recoveries int            `json:"recoveries"`
}

type inFlightCall struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

// inFlightOf reports s's run in flight, or nil.
func inFlightOf(s *agent.Session) *inFlightInfo {
	f, ok := s.InFlight()
	if !ok {
		return nil
	}
	info := &inFlightInfo{RunID: f.RunID, Step: f.Step, Calls: make([]inFlightCall, 0, len(f.Calls)), Recoveries: f.Recoveries}
	for _, c := range f.Calls {
		info.Calls = append(info.Calls, inFlightCall{ID: c.ID, Name: c.Name})
	}
	return info
}
