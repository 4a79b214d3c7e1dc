package agentctx_test

import (
	"encoding/json"
	"reflect"
	"slices"
	"sync"
	"testing"

	"github.com/starweaver-go/starweaver/core/agentctx"
)

func TestNotesMetadataAndGrantsAreCopies(t *testing.T) {
	c := agentctx.New()
	c.SetNote("lang", "Chinese")
	c.SetMetadata("tenant", "acme")
	g := agentctx.Grant{HostCapabilities: []string{"db"}}
	c.GrantToolCapabilities("lookup", g)
	g.HostCapabilities[0] = "mutated"
	got, ok := c.ToolCapabilityGrant("lookup")
	if !ok || !slices.Equal(got.HostCapabilities, []string{"db"}) {
		t.Fatalf("grant = %+v, %v; the caller's slice must not alias it", got, ok)
	}
	got.HostCapabilities[0] = "again"
	if again, _ := c.ToolCapabilityGrant("lookup"); again.HostCapabilities[0] != "db" {
		t.Fatal("a returned grant aliases the stored one")
	}
	if v, _ := c.Note("lang"); v != "Chinese" {
		t.Fatalf("note = %q", v)
	}
	c.SetNote("lang", "")
	if _, ok := c.Note("lang"); ok {
		t.Fatal("an empty note must delete it")
	}
	c.RevokeToolCapabilities("lookup")
	if _, ok := c.ToolCapabilityGrant("lookup"); ok {
		t.Fatal("revoked grant still present")
	}
	var nilCtx *agentctx.Context
	if _, ok := nilCtx.ToolCapabilityGrant("x"); ok {
		t.Fatal("a nil context grants nothing")
	}
}

func TestToolSearchLoadedStateRecordsOnceAndPrunes(t *testing.T) {
	c := agentctx.New()
	tools, spaces := c.RecordToolSearchLoaded([]string{"a", "b"}, []string{"docs"})
	if !slices.Equal(tools, []string{"a", "b"}) || !slices.Equal(spaces, []string{"docs"}) {
		t.Fatalf("first record added %v %v", tools, spaces)
	}
	tools, spaces = c.RecordToolSearchLoaded([]string{"b", "c"}, []string{"docs"})
	if !slices.Equal(tools, []string{"c"}) || spaces != nil {
		t.Fatalf("second record added %v %v, want only the new ones", tools, spaces)
	}
	if !c.IsToolSearchLoaded("zzz", "docs") || !c.IsToolSearchLoaded("a", "") || c.IsToolSearchLoaded("zzz", "other") {
		t.Fatal("IsToolSearchLoaded is wrong")
	}
	rt, rn := c.RetainToolSearchLoaded(func(n string) bool { return n != "b" }, func(string) bool { return false })
	if !slices.Equal(rt, []string{"b"}) || !slices.Equal(rn, []string{"docs"}) {
		t.Fatalf("removed %v %v", rt, rn)
	}
	lt, ln := c.ToolSearchLoaded()
	if !slices.Equal(lt, []string{"a", "c"}) || len(ln) != 0 {
		t.Fatalf("left %v %v", lt, ln)
	}
	ct, _ := c.ClearToolSearchLoaded()
	if !slices.Equal(ct, []string{"a", "c"}) {
		t.Fatalf("cleared %v", ct)
	}
	if lt, _ := c.ToolSearchLoaded(); len(lt) != 0 {
		t.Fatalf("still loaded: %v", lt)
	}
}

func TestEventsWaitUntilAttachedThenFlowInOrder(t *testing.T) {
	c := agentctx.New()
	c.Publish("first", map[string]any{"n": 1})
	c.Publish("second", nil)
	var got []string
	detach := c.Attach(func(ev agentctx.Event) { got = append(got, ev.Kind) })
	c.Publish("third", nil)
	detach()
	c.Publish("fourth", nil)
	if !slices.Equal(got, []string{"first", "second", "third"}) {
		t.Fatalf("delivered %v", got)
	}
	if pending := c.TakeEvents(); len(pending) != 1 || pending[0].Kind != "fourth" {
		t.Fatalf("pending after detach = %+v", pending)
	}
	if c.TakeEvents() != nil {
		t.Fatal("TakeEvents must empty the queue")
	}
}

func TestExportRestoreRoundTripsThroughJSON(t *testing.T) {
	c := agentctx.New()
	c.SetMetadata("k", "v")
	c.SetNote("n", "note")
	c.GrantToolCapabilities("t", agentctx.Grant{HostCapabilities: []string{"db"}, ContextCapabilities: []string{agentctx.CapabilityTasks}, ShellEnvironment: true})
	c.RecordToolSearchLoaded([]string{"x"}, []string{"ns"})
	task := c.AddTask("write docs")
	c.SetTaskStatus(task.ID, agentctx.TaskDone)
	c.SetHandoffMessage("over to you")
	c.InsertNamedDependency("db", 42)
	c.SetShellEnvironment(map[string]string{"PATH": "/bin"})

	b, err := json.Marshal(c.Export())
	if err != nil {
		t.Fatal(err)
	}
	var st agentctx.State
	if err := json.Unmarshal(b, &st); err != nil {
		t.Fatal(err)
	}
	r := agentctx.New()
	r.Restore(st)
	if !reflect.DeepEqual(r.Export(), c.Export()) {
		t.Fatalf("restored %+v\nwant %+v", r.Export(), c.Export())
	}
	if len(r.NamedDependencies()) != 0 || len(r.ShellEnvironment()) != 0 {
		t.Fatal("host configuration must not travel with exported state")
	}
	// Task ids keep counting after a restore.
	if next := r.AddTask("more"); next.ID == task.ID {
		t.Fatalf("task id %q reused", next.ID)
	}
	if !(agentctx.State{}).IsZero() || st.IsZero() {
		t.Fatal("IsZero is wrong")
	}
}

func TestHandlesForOnlyTheKnownNames(t *testing.T) {
	c := agentctx.New()
	h := c.HandlesFor([]string{agentctx.CapabilityToolSearch, "starweaver.context.unknown", agentctx.CapabilityUsage})
	if h.ToolSearch == nil || h.Usage == nil || h.Tasks != nil || h.Handoff != nil {
		t.Fatalf("handles = %+v", h)
	}
	h.Usage.Add(agentctx.Usage{Requests: 1, InputTokens: 3})
	if u := c.Usage(); u.Requests != 1 || u.InputTokens != 3 {
		t.Fatalf("usage = %+v", u)
	}
	h.ToolSearch.Record([]string{"t"}, nil)
	if !c.IsToolSearchLoaded("t", "") {
		t.Fatal("a handle must write through to its context")
	}
	var nilCtx *agentctx.Context
	if h := nilCtx.HandlesFor([]string{agentctx.CapabilityTasks}); h.Tasks != nil {
		t.Fatal("a nil context has no handles")
	}
}

func TestConcurrentUse(t *testing.T) {
	c := agentctx.New()
	detach := c.Attach(func(agentctx.Event) {})
	defer detach()
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range 100 {
				c.RecordToolSearchLoaded([]string{string(rune('a' + i))}, nil)
				c.SetNote("k", "v")
				c.Publish("e", map[string]any{"j": j})
				c.AddUsage(agentctx.Usage{Requests: 1})
				_ = c.Export()
			}
		}()
	}
	wg.Wait()
	if u := c.Usage(); u.Requests != 800 {
		t.Fatalf("requests = %d", u.Requests)
	}
}
