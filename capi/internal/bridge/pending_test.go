package bridge

import (
	"testing"

	"github.com/starweaver-go/starweaver/core/tool"
)

// A host outcome with "pending" is a pending attempt with its completion;
// the registry checks it against the tool's declaration.
func TestDecodePendingOutcome(t *testing.T) {
	_, err := decodeOutcome([]byte(`{"ok":false,"kind":"call_deferred","message":"queued","pending":{"on_timeout":"fail_turn","deadline_ms":7}}`))
	var e *tool.Error
	if !tool.IsPending(err) {
		t.Fatalf("err %v", err)
	}
	e = err.(*tool.Error)
	c, ok := tool.PendingOf(e.Metadata)
	if !ok || c.OnTimeout != "fail_turn" || c.DeadlineMS != 7 || e.Message != "queued" {
		t.Fatalf("pending %+v %v", e, ok)
	}
	// A plain deferral stays one.
	if _, err := decodeOutcome([]byte(`{"ok":false,"kind":"call_deferred","message":"client"}`)); tool.IsPending(err) || tool.KindOf(err) != tool.ErrorKindCallDeferred {
		t.Fatalf("err %v", err)
	}
}
