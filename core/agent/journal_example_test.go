package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/starweaver-go/starweaver/core/agent"
	"github.com/starweaver-go/starweaver/core/effect"
	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/session"
	"github.com/starweaver-go/starweaver/core/tool"
)

// A worker stops after its tool sent a message and before its run's end
// was saved; another worker recovers the session: the message is not sent
// again, and the run completes.
func ExampleSession_Recover() {
	ctx := context.Background()
	// Stores shared by the workers: sqlite.NewSessionStore and
	// sqlite.NewEffectStore (or postgres') in a deployment.
	sessions, journal := &session.MemoryStore{}, effect.NewMemoryStore()
	send := tool.New("send", "Send a message", nil, func(context.Context, *tool.Context, json.RawMessage) (tool.Result, error) {
		fmt.Println("sending")
		return tool.Text("sent"), nil
	}).WithEffect(effect.ClassNonIdempotentWrite)
	worker := func(m model.Model, st session.Store) *agent.Agent {
		return agent.NewBuilder(m).Tool(send).StateKey([]byte("shared key")).SessionStore(st).EffectJournal(journal).MustBuild()
	}

	// The first worker's store keeps the checkpoint saved before the call
	// ran, and nothing after: the worker stopped.
	saves := 0
	stopping := session.StoreFuncs{LoadFunc: sessions.Load,
		SaveFunc: func(ctx context.Context, id string, state []byte, expected uint64) (uint64, error) {
			if saves++; saves > 1 {
				return 0, errors.New("the worker stopped")
			}
			return sessions.Save(ctx, id, state, expected)
		}}
	s := worker(model.NewTestModel(model.CallsResponse(model.Call("call_1", "send", map[string]string{})), model.Response(model.TextPart("done"))), stopping).NewSession()
	_, _ = s.Run(ctx, "send it")

	r, _ := worker(model.TextModel("done, after recovery"), sessions).OpenSession(ctx, s.ID())
	f, _ := r.InFlight()
	fmt.Println("in flight:", f.Calls[0].Name)
	res, err := r.Recover(ctx)
	fmt.Println(res.Output, err)
	// Output:
	// sending
	// in flight: send
	// done, after recovery <nil>
}
