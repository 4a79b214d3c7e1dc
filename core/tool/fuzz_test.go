package tool_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/starweaver-go/starweaver/core/tool"
)

// FuzzArgs has a nested object, an array, an enum and integer bounds.
type FuzzArgs struct {
	Name   string      `json:"name" jsonschema:"minLength=1,maxLength=32,pattern=^[a-z]+$"`
	Count  int         `json:"count,omitempty" jsonschema:"minimum=0,maximum=1000,default=1"`
	Mode   string      `json:"mode,omitempty" jsonschema:"enum=fast,enum=slow"`
	Ratio  float64     `json:"ratio,omitempty" jsonschema:"exclusiveMinimum=0,maximum=1"`
	Items  []FuzzItem  `json:"items,omitempty" jsonschema:"maxItems=8"`
	Nested *FuzzNested `json:"nested,omitempty"`
}

type FuzzItem struct {
	ID    int64    `json:"id" jsonschema:"minimum=1"`
	Label string   `json:"label,omitempty"`
	Flags []string `json:"flags,omitempty" jsonschema:"uniqueItems=true"`
}

type FuzzNested struct {
	Enabled bool              `json:"enabled"`
	Depth   uint8             `json:"depth,omitempty" jsonschema:"maximum=5"`
	Labels  map[string]string `json:"labels,omitempty"`
}

func FuzzExecuteArguments(f *testing.F) {
	for _, seed := range []string{
		`{"name":"abc"}`,
		`{"name":"abc","count":5,"mode":"fast","ratio":0.5}`,
		`{"name":"abc","items":[{"id":1,"label":"x","flags":["a","b"]}],"nested":{"enabled":true,"depth":2,"labels":{"k":"v"}}}`,
		`{"name":"abc","count":1001}`,
		`{"name":"abc","count":-1}`,
		`{"name":"abc","count":1.5}`,
		`{"name":"abc","count":1e400}`,
		`{"name":"ABC"}`,
		`{"name":""}`,
		`{"name":"abc","mode":"medium"}`,
		`{"name":"abc","ratio":0}`,
		`{"name":"abc","items":[{"id":0}]}`,
		`{"name":"abc","items":[{"id":1,"flags":["a","a"]}]}`,
		`{"name":"abc","nested":{"enabled":"yes"}}`,
		`{"name":"abc","nested":{"enabled":true,"depth":300}}`,
		`{"name":"abc","extra":true}`,
		`{"NAME":"abc"}`,
		`{"name":"abc","name":"def"}`,
		`{}`,
		``,
		`null`,
		`[]`,
		`"abc"`,
		`{"name":`,
		`{"name":"a\u0000b"}`,
		"{\"name\":\"\xff\xfe\"}",
		`[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]`,
	} {
		f.Add([]byte(seed))
	}
	typed := tool.Typed("fuzz", "", func(_ context.Context, _ *tool.Context, args FuzzArgs) (tool.Result, error) {
		return tool.JSON(args), nil
	})
	r, err := tool.NewRegistry(typed)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, args []byte) {
		ret := r.Execute(context.Background(), nil, tool.Call{ID: "f", Name: "fuzz", Arguments: args})
		switch k := ret.ErrorKind(); k {
		case "":
			if ret.IsError {
				t.Fatalf("success marked is_error for %q", args)
			}
			got, ok := ret.Content.(FuzzArgs)
			if !ok {
				t.Fatalf("content is %T", ret.Content)
			}
			if got.Name == "" || got.Count < 0 || got.Count > 1000 || len(got.Items) > 8 {
				t.Fatalf("arguments %q passed validation as %+v", args, got)
			}
		case tool.ErrorKindInvalidArguments:
			if !ret.IsError {
				t.Fatalf("invalid_arguments without is_error for %q", args)
			}
		default:
			t.Fatalf("arguments %q produced kind %q: %v", args, k, ret.Content)
		}
		if ret.ToolCallID != "f" || ret.Name != "fuzz" {
			t.Fatalf("id/name = %q/%q", ret.ToolCallID, ret.Name)
		}
		if _, err := json.Marshal(ret); err != nil {
			t.Fatalf("return for %q does not marshal: %v", args, err)
		}
	})
}
