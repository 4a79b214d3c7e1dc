package tool_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/starweaver-go/starweaver/core/tool"
)

// grantFixture is a registry of three tools whose code, and a global
// hook, count every time they run.
func grantFixture(t *testing.T) (*tool.Registry, *atomic.Int32, *atomic.Int32) {
	t.Helper()
	var ran, hooked atomic.Int32
	mk := func(name string) tool.Tool {
		return tool.New(name, "", nil, func(context.Context, *tool.Context, json.RawMessage) (tool.Result, error) {
			ran.Add(1)
			return tool.Text(name), nil
		})
	}
	reg := mustRegistry(t, mk("search"), mk("read_file"), mk("delete_file"))
	reg.AddHook(tool.Hook{Name: "count", Before: func(context.Context, *tool.Context, map[string]any) error {
		hooked.Add(1)
		return nil
	}})
	return reg, &ran, &hooked
}

func TestGrantOffersOnlyGrantedTools(t *testing.T) {
	reg, _, _ := grantFixture(t)
	g, err := reg.Grant("search", "read_file")
	if err != nil {
		t.Fatal(err)
	}
	if got := g.Names(); !slices.Equal(got, []string{"read_file", "search"}) {
		t.Errorf("Names = %v", got)
	}
	avail := g.DefinitionsFor(nil)
	var defs []string
	for _, d := range avail.Definitions {
		defs = append(defs, d.Name)
	}
	if !slices.Equal(defs, []string{"read_file", "search"}) || len(avail.Unavailable) != 0 {
		t.Errorf("definitions = %v, unavailable = %v", defs, avail.Unavailable)
	}
	if _, ok := g.Tool("delete_file"); ok {
		t.Error("an ungranted tool is looked up")
	}
	if !g.Refused("delete_file") || g.Refused("search") || g.Refused("nope") {
		t.Error("Refused does not tell granted, refused and unknown names apart")
	}
	if reg.Len() != 3 || reg.Refused("delete_file") {
		t.Error("Grant modified the registry it narrows")
	}
}

// An ungranted call is refused as user_error before anything of the tool
// runs: neither its code nor a hook; a name never registered stays
// not_found.
func TestGrantRefusesUngrantedCallsBeforeHooks(t *testing.T) {
	reg, ran, hooked := grantFixture(t)
	g, err := reg.Grant("search")
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range []*tool.Registry{g, g.Clone(), g.Select([]string{"search", "delete_file"})} {
		ret := r.Execute(context.Background(), nil, call("c1", "delete_file", `{"path":"/"}`))
		wantKind(t, ret, tool.ErrorKindUserError)
		if msg := content(t, ret)["message"].(string); !strings.Contains(msg, `"delete_file" is not granted to this run`) {
			t.Errorf("message = %q", msg)
		}
		if !ret.IsError || ret.Name != "delete_file" || ret.ToolCallID != "c1" {
			t.Errorf("return = %+v", ret)
		}
		wantKind(t, r.Execute(context.Background(), nil, call("c2", "nope", `{}`)), tool.ErrorKindNotFound)
		rets := r.ExecuteBatch(context.Background(), nil, []tool.Call{call("c3", "delete_file", `{}`), call("c4", "search", `{}`)}, tool.BatchOptions{})
		wantKind(t, rets[0], tool.ErrorKindUserError)
		if rets[1].Content != "search" {
			t.Errorf("granted call in the batch = %+v", rets[1])
		}
	}
	if ran.Load() != 3 || hooked.Load() != 3 {
		t.Errorf("tool code ran %d times and hooks %d times, want 3 each (the granted calls only)", ran.Load(), hooked.Load())
	}
}

func TestGrantAllAndNone(t *testing.T) {
	reg, _, _ := grantFixture(t)
	all, err := reg.Grant("search", tool.GrantAll)
	if err != nil || all.Len() != 3 || all.Refused("delete_file") {
		t.Fatalf("Grant(*) = %v tools, %v", all.Len(), err)
	}
	none, err := reg.Grant()
	if err != nil || none.Len() != 0 || !none.Refused("search") {
		t.Fatalf("Grant() = %v tools, %v", none.Len(), err)
	}
	wantKind(t, none.Execute(context.Background(), nil, call("c", "search", `{}`)), tool.ErrorKindUserError)
}

func TestGrantRejectsUnknownNames(t *testing.T) {
	reg, _, _ := grantFixture(t)
	_, err := reg.Grant("search", "serach", "")
	if !errors.Is(err, tool.ErrUnknownGrant) || !strings.Contains(err.Error(), `"serach", ""`) {
		t.Fatalf("err = %v", err)
	}
}
