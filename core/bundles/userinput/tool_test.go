package userinput_test

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/starweaver-go/starweaver/core/bundles/userinput"
	"github.com/starweaver-go/starweaver/core/tool"
	"github.com/starweaver-go/starweaver/core/toolset"
)

// q builds a valid question with the given option labels.
func q(text, header string, labels ...string) map[string]any {
	opts := make([]any, len(labels))
	for i, l := range labels {
		opts[i] = map[string]any{"label": l, "description": "choose " + l}
	}
	return map[string]any{"question": text, "header": header, "options": opts, "multiSelect": false}
}

func validArgs() map[string]any {
	return map[string]any{"questions": []any{
		q("Which database should I use?", "Database", "Postgres", "SQLite"),
		q("Which features do you need?", "Features", "Auth", "Billing", "Search"),
	}}
}

func registry(t *testing.T, sets ...toolset.Toolset) *tool.Registry {
	t.Helper()
	if len(sets) == 0 {
		sets = []toolset.Toolset{userinput.Tools()}
	}
	r := &tool.Registry{}
	if err := toolset.Register(r, nil, sets...); err != nil {
		t.Fatalf("register: %v", err)
	}
	return r
}

func execute(t *testing.T, r *tool.Registry, args any, approval *tool.Approval) tool.Return {
	t.Helper()
	raw, ok := args.(json.RawMessage)
	if !ok {
		b, err := json.Marshal(args)
		if err != nil {
			t.Fatal(err)
		}
		raw = b
	}
	return r.Execute(context.Background(), &tool.Context{Approval: approval}, tool.Call{ID: "call_1", Name: userinput.ToolName, Arguments: raw})
}

// asJSON round-trips v through JSON so tests compare plain values.
func asJSON(t *testing.T, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func contentOf(t *testing.T, v any) map[string]any {
	t.Helper()
	m, ok := asJSON(t, v).(map[string]any)
	if !ok {
		t.Fatalf("content %#v is not an object", v)
	}
	return m
}

func TestToolsetShape(t *testing.T) {
	ts := userinput.Tools()
	if ts.Name() != "user_input" || ts.ID() != "user_input" || ts.Err() != nil {
		t.Fatalf("toolset %q %q %v", ts.Name(), ts.ID(), ts.Err())
	}
	ins := ts.Instructions(nil)
	if len(ins) != 1 || ins[0].Group != "user_input" || !strings.Contains(ins[0].Content, "alone") ||
		!strings.Contains(ins[0].Content, "side-effecting") {
		t.Fatalf("instructions %+v", ins)
	}
	r := registry(t)
	if got := r.Names(); !reflect.DeepEqual(got, []string{"ask_user_question"}) {
		t.Fatalf("names %v", got)
	}
	def, _ := r.Definition(userinput.ToolName)
	if def.Metadata[tool.MetaSelfManagedHITL] != true || def.Metadata[tool.MetaKind] != "function" {
		t.Fatalf("metadata %v", def.Metadata)
	}
	if !def.IsSequential() || def.ReturnSchema == nil {
		t.Fatalf("definition %+v", def)
	}
	for _, want := range []string{"by itself", "side-effecting", "materially change"} {
		if !strings.Contains(def.Description, want) {
			t.Errorf("description lacks %q", want)
		}
	}
	// The schema the model sees carries the bounds.
	params := asJSON(t, def.Parameters).(map[string]any)
	qs := params["properties"].(map[string]any)["questions"].(map[string]any)
	item := qs["items"].(map[string]any)
	header := item["properties"].(map[string]any)["header"].(map[string]any)
	opts := item["properties"].(map[string]any)["options"].(map[string]any)
	if qs["minItems"] != 1.0 || qs["maxItems"] != 4.0 || header["maxLength"] != 12.0 ||
		opts["minItems"] != 2.0 || opts["maxItems"] != 4.0 || params["additionalProperties"] != false ||
		item["additionalProperties"] != false || !reflect.DeepEqual(item["required"], []any{"question", "header", "options", "multiSelect"}) {
		t.Fatalf("schema %v", params)
	}
}

func TestNotGatedByApprovalRequiredToolsets(t *testing.T) {
	r := registry(t, toolset.ApprovalRequired(userinput.Tools(), "*"))
	def, _ := r.Definition(userinput.ToolName)
	if def.Metadata[tool.MetaApprovalRequired] != nil || def.Metadata[tool.MetaKind] != "function" {
		t.Fatalf("gated definition %v", def.Metadata)
	}
	ret := execute(t, r, validArgs(), nil)
	approval, _ := ret.WireMetadata()["approval"].(map[string]any)
	if ret.ErrorKind() != tool.ErrorKindApprovalRequired || approval["kind"] != "clarifying_questions" {
		t.Fatalf("return %+v", ret)
	}
}

func TestFirstCallRequestsApproval(t *testing.T) {
	r := registry(t)
	args := validArgs()
	ret := execute(t, r, args, nil)
	if ret.ErrorKind() != tool.ErrorKindApprovalRequired || !ret.IsError {
		t.Fatalf("return %+v", ret)
	}
	approval := ret.WireMetadata()["approval"].(map[string]any)
	want := map[string]any{
		"kind":      "clarifying_questions",
		"tool":      "ask_user_question",
		"questions": asJSON(t, args["questions"]),
		"reason":    "clarifying questions need answers",
	}
	if !reflect.DeepEqual(approval, want) {
		t.Fatalf("approval metadata\n got %#v\nwant %#v", approval, want)
	}
}

func TestSchemaAndValidatorRejections(t *testing.T) {
	r := registry(t)
	five := []any{}
	for _, text := range []string{"A?", "B?", "C?", "D?", "E?"} {
		five = append(five, q(text, "H", "x", "y"))
	}
	with := func(edit func(q map[string]any)) map[string]any {
		args := validArgs()
		edit(args["questions"].([]any)[0].(map[string]any))
		return args
	}
	cases := []struct {
		name string
		args any
		want []string
	}{
		{"no questions", map[string]any{"questions": []any{}}, []string{"at '/questions': must contain 1 to 4 questions, got 0"}},
		{"five questions", map[string]any{"questions": five}, []string{"at '/questions': must contain 1 to 4 questions, got 5"}},
		{"missing questions", map[string]any{}, []string{"questions"}},
		{"13-character header", with(func(q map[string]any) { q["header"] = "Thirteen char" }),
			[]string{"at '/questions/0/header': must be at most 12 characters, got 13"}},
		{"13 multibyte characters", with(func(q map[string]any) { q["header"] = strings.Repeat("é", 13) }),
			[]string{"at '/questions/0/header': must be at most 12 characters, got 13"}},
		{"one option", with(func(q map[string]any) { q["options"] = q["options"].([]any)[:1] }),
			[]string{"at '/questions/0/options': must contain 2 to 4 options, got 1"}},
		{"five options", map[string]any{"questions": []any{q("Pick?", "Pick", "a", "b", "c", "d", "e")}},
			[]string{"at '/questions/0/options': must contain 2 to 4 options, got 5"}},
		{"duplicate labels ignoring case and space", map[string]any{"questions": []any{q("Pick?", "Pick", "Yes", " yes ")}},
			[]string{"at '/questions/0/options/1/label': repeats the label of option 0"}},
		{"duplicate questions", map[string]any{"questions": []any{q("Pick?", "A", "x", "y"), q(" pick? ", "B", "x", "y")}},
			[]string{"at '/questions/1/question': repeats question 0"}},
		{"blank question", with(func(q map[string]any) { q["question"] = "  " }), []string{"at '/questions/0/question': must not be blank"}},
		{"blank header", with(func(q map[string]any) { q["header"] = " \t" }), []string{"at '/questions/0/header': must not be blank"}},
		{"blank label", with(func(q map[string]any) { q["options"].([]any)[1].(map[string]any)["label"] = " " }),
			[]string{"at '/questions/0/options/1/label': must not be blank"}},
		{"blank description", with(func(q map[string]any) { q["options"].([]any)[0].(map[string]any)["description"] = "" }),
			[]string{"at '/questions/0/options/0/description': must not be blank"}},
		{"every problem at once", map[string]any{"questions": []any{q("", "", "a", "A")}}, []string{
			"at '/questions/0/question': must not be blank", "at '/questions/0/header': must not be blank",
			"at '/questions/0/options/1/label': repeats the label of option 0",
		}},
		{"missing multiSelect (schema)", with(func(q map[string]any) { delete(q, "multiSelect") }), []string{"/questions/0", "multiSelect"}},
		{"unknown member (schema)", with(func(q map[string]any) { q["default"] = "x" }), []string{"/questions/0", "default"}},
		{"wrong type (schema)", with(func(q map[string]any) { q["header"] = 5 }), []string{"/questions/0/header"}},
		{"not an object", json.RawMessage(`[1]`), []string{"must be a JSON object"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ret := execute(t, r, c.args, nil)
			if ret.ErrorKind() != tool.ErrorKindInvalidArguments {
				t.Fatalf("kind %q, return %+v", ret.ErrorKind(), ret)
			}
			msg := contentOf(t, ret.Content)["message"].(string)
			for _, w := range c.want {
				if !strings.Contains(msg, w) {
					t.Errorf("message %q lacks %q", msg, w)
				}
			}
			if ret.WireMetadata()["approval"] != nil {
				t.Errorf("rejected call asked for approval: %v", ret.Metadata)
			}
		})
	}
}

func TestHeaderLengthCountsCharacters(t *testing.T) {
	r := registry(t)
	args := map[string]any{"questions": []any{q("Which region?", strings.Repeat("é", 12), "eu", "us")}}
	if ret := execute(t, r, args, nil); ret.ErrorKind() != tool.ErrorKindApprovalRequired {
		t.Fatalf("12 two-byte characters rejected: %+v", ret)
	}
}

func TestApprovedCall(t *testing.T) {
	r := registry(t)
	args := validArgs()
	questions := asJSON(t, args["questions"])
	approved := func(md map[string]any) *tool.Approval { return &tool.Approval{Status: "approved", Metadata: md} }

	t.Run("answers", func(t *testing.T) {
		ret := execute(t, r, args, approved(map[string]any{
			userinput.MetaAnswers: map[string]any{"answers": map[string]any{"Which database should I use?": "SQLite"}, "response": "keep it small"},
		}))
		c := contentOf(t, ret.Content)
		want := map[string]any{
			"questions": questions,
			"answers":   map[string]any{"Which database should I use?": "SQLite"},
			"response":  "keep it small",
		}
		if ret.IsError || !reflect.DeepEqual(c, want) {
			t.Fatalf("content %v", c)
		}
		if ret.Metadata["kind"] != "clarifying_questions" || ret.Metadata["answered"] != true {
			t.Fatalf("metadata %v", ret.Metadata)
		}
	})
	t.Run("typed answers from a Go host", func(t *testing.T) {
		ret := execute(t, r, args, approved(map[string]any{
			userinput.MetaAnswers: userinput.Answers{Answers: map[string]string{"Which features do you need?": "Auth, Search"}},
		}))
		c := contentOf(t, ret.Content)
		if ret.IsError || !reflect.DeepEqual(c["answers"], map[string]any{"Which features do you need?": "Auth, Search"}) {
			t.Fatalf("return %+v", ret)
		}
	})
	t.Run("no answers", func(t *testing.T) {
		ret := execute(t, r, args, approved(map[string]any{"decided_by": "ui"}))
		c := contentOf(t, ret.Content)
		want := map[string]any{"questions": questions, "answers": map[string]any{}, "note": userinput.UnansweredNote}
		if ret.IsError || ret.ErrorKind() != "" || !reflect.DeepEqual(c, want) || ret.Metadata["answered"] != false {
			t.Fatalf("return %+v", ret)
		}
	})
	t.Run("unknown question", func(t *testing.T) {
		ret := execute(t, r, args, approved(map[string]any{
			userinput.MetaAnswers: map[string]any{"answers": map[string]any{"Which cloud?": "aws"}},
		}))
		c := contentOf(t, ret.Content)
		if ret.ErrorKind() != tool.ErrorKindUserError || !strings.Contains(c["message"].(string), `"Which cloud?" is not one of the questions asked`) {
			t.Fatalf("return %+v", ret)
		}
		if _, leaked := c["answers"]; leaked {
			t.Fatal("answers reached the model")
		}
	})
	t.Run("malformed stored answers", func(t *testing.T) {
		ret := execute(t, r, args, approved(map[string]any{userinput.MetaAnswers: 42}))
		if ret.ErrorKind() != tool.ErrorKindUserError {
			t.Fatalf("return %+v", ret)
		}
	})
	t.Run("denied status", func(t *testing.T) {
		ret := execute(t, r, args, &tool.Approval{Status: "denied", Metadata: map[string]any{"reason": "not now"}})
		c := contentOf(t, ret.Content)
		if ret.ErrorKind() != tool.ErrorKindUserError || c["message"] != "not now" {
			t.Fatalf("return %+v", ret)
		}
	})
	t.Run("invalid questions even when approved", func(t *testing.T) {
		ret := execute(t, r, map[string]any{"questions": []any{}}, approved(nil))
		if ret.ErrorKind() != tool.ErrorKindInvalidArguments {
			t.Fatalf("return %+v", ret)
		}
	})
}

// Called directly, outside a registry, the tool still validates.
func TestDirectCallValidates(t *testing.T) {
	f := userinput.AskUserQuestion()
	_, err := f.Call(context.Background(), &tool.Context{}, json.RawMessage(`{"questions":[{"question":"Q?","header":"H","options":[{"label":"a","description":"d"}],"multiSelect":false}]}`))
	if tool.KindOf(err) != tool.ErrorKindInvalidArguments || !strings.Contains(err.Error(), "/questions/0/options") {
		t.Fatalf("err %v", err)
	}
	_, err = f.Call(context.Background(), &tool.Context{}, json.RawMessage(`{"questions":[],"extra":1}`))
	if tool.KindOf(err) != tool.ErrorKindInvalidArguments {
		t.Fatalf("err %v", err)
	}
}
