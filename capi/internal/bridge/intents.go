package bridge

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"runtime"

	"github.com/starweaver-go/starweaver/core/agent"
	shellbundle "github.com/starweaver-go/starweaver/core/bundles/shell"
	"github.com/starweaver-go/starweaver/core/env"
	"github.com/starweaver-go/starweaver/core/intent"
	"github.com/starweaver-go/starweaver/core/store/postgres"
	"github.com/starweaver-go/starweaver/core/store/sqlite"
	"github.com/starweaver-go/starweaver/core/tool"
)

// The intent slugs (intent.ErrorSlugs) join the one exported slug list.
func init() { abiErrorTypes = append(abiErrorTypes, intent.ErrorSlugs()...) }

// heldIntentJournal is the intent journal an agent uses, holding a
// reference to its database as heldEffectStore does.
type heldIntentJournal struct {
	intent.Journal
}

// intentJournal returns the intent journal of the handle's database, with
// a reference of its own (see heldSessionStore).
func (h *storeHandle) intentJournal() intent.Journal {
	d := h.db
	var j intent.Journal
	if d.sqlite != nil {
		j = sqlite.NewIntentJournal(d.sqlite)
	} else {
		j = postgres.NewIntentJournal(d.postgres)
	}
	held := &heldIntentJournal{Journal: j}
	d.acquire()
	runtime.AddCleanup(held, (*database).release, d)
	return held
}

// useIntentJournal gives b the intent journal of the store handle h (an
// agent spec's "intent_journal"; 0 for none). With a shell (the agent's
// own, or its local environment's), the processes its intents start are
// processes of that shell (shell.IntentProcesses); otherwise they are
// intent.Local's durable records.
func useIntentJournal(b *agent.Builder, h int64, shell *env.LocalShell) error {
	if h == 0 {
		return nil
	}
	st, err := lookup[*storeHandle](h)
	if err != nil {
		return err
	}
	j := st.intentJournal()
	if shell == nil {
		b.IntentJournal(j)
		return nil
	}
	b.Intents(&intent.Realiser{Journal: j, Commands: shellbundle.NewIntentProcesses(j, shell)})
	return nil
}

// intentError classifies an error of the intent ingress: its intent slug
// (with the refusal's code for "intent_refused"), "store_unavailable" for
// a journal that failed otherwise.
func intentError(err error) error {
	var ae *abiError
	if errors.As(err, &ae) {
		return ae
	}
	if errors.Is(err, agent.ErrNoIntents) {
		return &abiError{Type: "config", Message: err.Error()}
	}
	slug := intent.Slug(err)
	if slug == "" {
		return &abiError{Type: "store_unavailable", Message: err.Error()}
	}
	e := &abiError{Type: slug, Message: err.Error()}
	var re *intent.RefusedError
	if errors.As(err, &re) {
		e.Code = string(re.Outcome.Refusal.Code)
	}
	return e
}

// ingressRequest names an ingress (session, scope) and, for a key or a
// submission, the key's call id and index and the intent.
type ingressRequest struct {
	SessionID string          `json:"session_id"`
	Scope     intent.Scope    `json:"scope"`
	CallID    string          `json:"call_id"`
	Index     int             `json:"index"`
	Intent    json.RawMessage `json:"intent"`
}

func decodeIngress(req []byte) (ingressRequest, error) {
	var r ingressRequest
	if err := json.Unmarshal(req, &r); err != nil {
		return r, &abiError{Type: "invalid_argument", Message: "intent ingress request: " + err.Error()}
	}
	return r, nil
}

// admittedJSON is what sw_tool_intents_submit reports.
type admittedJSON struct {
	Replayed bool            `json:"replayed"`
	Identity intent.Identity `json:"identity"`
	Kind     intent.Kind     `json:"kind"`
	Outcome  intent.Outcome  `json:"outcome"`
	// ModelAddendum is the outcome's line for a model.
	ModelAddendum string `json:"model_addendum"`
}

// toolIntentKey derives the identity of a key (sw_tool_intent_key).
func toolIntentKey(req []byte) ([]byte, error) {
	r, err := decodeIngress(req)
	if err != nil {
		return nil, err
	}
	id, err := intent.DeriveIdentity(r.SessionID, r.Scope.ID, r.CallID, r.Index)
	if err != nil {
		return nil, intentError(err)
	}
	return json.Marshal(id)
}

// toolIntentsSubmit submits one intent through a's ingress.
func toolIntentsSubmit(ctx context.Context, a *agent.Agent, req []byte) ([]byte, error) {
	r, err := decodeIngress(req)
	if err != nil {
		return nil, err
	}
	in, err := intent.UnmarshalIntent(r.Intent)
	if err != nil {
		return nil, intentError(err)
	}
	g, err := a.ToolIntents(r.SessionID, r.Scope)
	if err != nil {
		return nil, intentError(err)
	}
	ad, err := g.Submit(ctx, g.Key(r.CallID, r.Index), in)
	if err != nil {
		return nil, intentError(err)
	}
	return json.Marshal(admittedJSON{Replayed: ad.Replayed, Identity: ad.Identity, Kind: ad.Kind, Outcome: ad.Outcome,
		ModelAddendum: ad.Outcome.ModelAddendum()})
}

// toolIntentsSettle settles the parent-end actions of a's ingress's scope.
func toolIntentsSettle(ctx context.Context, a *agent.Agent, req []byte) ([]byte, error) {
	r, err := decodeIngress(req)
	if err != nil {
		return nil, err
	}
	g, err := a.ToolIntents(r.SessionID, r.Scope)
	if err != nil {
		return nil, intentError(err)
	}
	out, err := g.SettleParentEnd(ctx)
	if err != nil {
		return nil, intentError(err)
	}
	if out == nil {
		out = []intent.ParentEndOutcome{}
	}
	return json.Marshal(out)
}

// withSession gives the intents of a host tool's result that name no
// session the call's own (a Python tool declares them without knowing
// it); an intent naming another session is left for admission to refuse.
func withSession(res tool.Result, session string) tool.Result {
	batch, _ := res.Intents.(intent.Intents) // decodeOutcome's
	for _, in := range batch.Intents {
		switch v := in.(type) {
		case *intent.StartProcess:
			v.SessionID = cmp.Or(v.SessionID, session)
		case *intent.SignalProcess:
			v.SessionID = cmp.Or(v.SessionID, session)
		case *intent.CancelProcess:
			v.SessionID = cmp.Or(v.SessionID, session)
		case *intent.EmitProcessEvent:
			v.SessionID = cmp.Or(v.SessionID, session)
		case *intent.EmitTrigger:
			v.SessionID = cmp.Or(v.SessionID, session)
			v.Request.SessionID = cmp.Or(v.Request.SessionID, v.SessionID)
		}
	}
	return res
}
