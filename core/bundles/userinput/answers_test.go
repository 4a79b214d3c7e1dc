package userinput_test

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/starweaver-go/starweaver/core/bundles/userinput"
	"github.com/starweaver-go/starweaver/core/tool"
)

func TestNormalizeAnswers(t *testing.T) {
	ok := []struct {
		name, input string
		want        userinput.Answers
	}{
		{"free string", `"  use whatever is simplest "`, userinput.Answers{Answers: map[string]string{}, Response: "use whatever is simplest"}},
		{"answers only", `{"answers":{"Which DB?":" SQLite "}}`, userinput.Answers{Answers: map[string]string{"Which DB?": "SQLite"}}},
		{"response only", `{"response":"later"}`, userinput.Answers{Answers: map[string]string{}, Response: "later"}},
		{"null answers, response", `{"answers":null,"response":"later"}`, userinput.Answers{Answers: map[string]string{}, Response: "later"}},
		{"blank response beside answers", `{"answers":{"Q?":"a"},"response":"  "}`, userinput.Answers{Answers: map[string]string{"Q?": "a"}}},
		{"multiSelect joined", `{"answers":{"Which features?":"Auth, Search"}}`, userinput.Answers{Answers: map[string]string{"Which features?": "Auth, Search"}}},
		{"limit in characters", `"` + strings.Repeat("é", userinput.MaxResponseLength) + `"`,
			userinput.Answers{Answers: map[string]string{}, Response: strings.Repeat("é", userinput.MaxResponseLength)}},
	}
	for _, c := range ok {
		got, err := userinput.NormalizeAnswers(json.RawMessage(c.input))
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: got %+v, %v", c.name, got, err)
		}
	}
	bad := []struct{ name, input, want string }{
		{"empty", ``, "no user input"},
		{"spaces", `   `, "no user input"},
		{"null", `null`, "no user input"},
		{"not JSON", `{"answers":`, "not valid JSON"},
		{"blank string", `"   "`, "the response must not be blank"},
		{"number", `42`, "got a number"},
		{"array", `["a"]`, "got an array"},
		{"boolean", `true`, "got a boolean"},
		{"empty object", `{}`, "neither answers nor a response"},
		{"empty answers", `{"answers":{}}`, "neither answers nor a response"},
		{"blank answer", `{"answers":{"Q?":" "}}`, `the answer to "Q?" must not be blank`},
		{"numeric answer", `{"answers":{"Q?":3}}`, `the answer to "Q?" must be a string, got a number`},
		{"list answer", `{"answers":{"Q?":["a","b"]}}`, "must be a string, got an array"},
		{"null answer", `{"answers":{"Q?":null}}`, "must be a string, got null"},
		{"blank key", `{"answers":{" ":"a"}}`, "blank question key"},
		{"answers not an object", `{"answers":"a"}`, `"answers" must be an object`},
		{"response not a string", `{"response":1}`, `"response" must be a string, got a number`},
		{"unknown member", `{"answers":{"Q?":"a"},"extra":1}`, `unknown member "extra"`},
		{"too many answers", `{"answers":{"a":"1","b":"2","c":"3","d":"4","e":"5"}}`, "holds 5 answers"},
		{"answer too long", `{"answers":{"Q?":"` + strings.Repeat("x", userinput.MaxAnswerLength+1) + `"}}`, "has 4001 characters; the limit is 4000"},
		{"response too long", `"` + strings.Repeat("x", userinput.MaxResponseLength+1) + `"`, "the limit is 16384"},
	}
	for _, c := range bad {
		_, err := userinput.NormalizeAnswers(json.RawMessage(c.input))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err %v, want %q", c.name, err, c.want)
			continue
		}
		if !errors.Is(err, userinput.ErrInvalidAnswers) || tool.KindOf(err) != tool.ErrorKindUserError {
			t.Errorf("%s: err %v is not a user_error wrapping ErrInvalidAnswers", c.name, err)
		}
	}
}

func TestResolveAnswers(t *testing.T) {
	questions := []userinput.Question{{Question: "Which DB?"}, {Question: "Which features?"}}
	got, err := userinput.ResolveAnswers(questions, json.RawMessage(`{"answers":{"Which DB?":"SQLite"},"response":"thanks"}`))
	want := userinput.Answers{Answers: map[string]string{"Which DB?": "SQLite"}, Response: "thanks"}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v, %v", got, err)
	}
	for _, in := range []string{`{"answers":{"Which cloud?":"aws"}}`, `{"answers":{"which db?":"x"}}`, `{"answers":{" Which DB?":"x"}}`} {
		_, err := userinput.ResolveAnswers(questions, json.RawMessage(in))
		if !errors.Is(err, userinput.ErrInvalidAnswers) || !strings.Contains(err.Error(), "is not one of the questions asked") {
			t.Errorf("%s: err %v", in, err)
		}
	}
	// Normalisation failures come first.
	if _, err := userinput.ResolveAnswers(questions, json.RawMessage(`""`)); !errors.Is(err, userinput.ErrInvalidAnswers) {
		t.Fatalf("err %v", err)
	}
	// A long unknown key is shortened in the message.
	long := strings.Repeat("k", 500)
	_, err = userinput.ResolveAnswers(questions, json.RawMessage(`{"answers":{"`+long+`":"x"}}`))
	if err == nil || strings.Contains(err.Error(), long) || len(err.Error()) > 300 {
		t.Fatalf("err %v", err)
	}
}

func TestParseQuestions(t *testing.T) {
	qs, err := userinput.ParseQuestions(json.RawMessage(`{"questions":[{"question":"Q?","header":"H","options":[{"label":"a","description":"d","preview":"p"},{"label":"b","description":"d"}],"multiSelect":true}]}`))
	want := []userinput.Question{{Question: "Q?", Header: "H", MultiSelect: true, Options: []userinput.Option{
		{Label: "a", Description: "d", Preview: "p"}, {Label: "b", Description: "d"},
	}}}
	if err != nil || !reflect.DeepEqual(qs, want) {
		t.Fatalf("got %+v, %v", qs, err)
	}
	for _, in := range []string{`{}`, `{"questions":[],"x":1}`, `[]`, `{"questions":[]}`, `{"questions":[{"question":"Q?","header":"H","options":[]}]}`} {
		_, err := userinput.ParseQuestions(json.RawMessage(in))
		if !errors.Is(err, userinput.ErrInvalidQuestions) || tool.KindOf(err) != tool.ErrorKindInvalidArguments {
			t.Errorf("%s: err %v", in, err)
		}
	}
}

func TestPreprocessUserInput(t *testing.T) {
	out, err := userinput.PreprocessUserInput(context.Background(), &tool.Context{}, json.RawMessage(`{"answers":{"Q?":"a"}}`))
	want := map[string]any{
		"kind":               "clarifying_questions",
		"clarifying_answers": map[string]any{"answers": map[string]any{"Q?": "a"}},
	}
	if err != nil || out.OverrideArguments != nil || !reflect.DeepEqual(out.Metadata, want) {
		t.Fatalf("got %+v, %v", out, err)
	}
	out, err = userinput.PreprocessUserInput(context.Background(), &tool.Context{}, json.RawMessage(`"fine"`))
	want = map[string]any{
		"kind":               "clarifying_questions",
		"clarifying_answers": map[string]any{"answers": map[string]any{}, "response": "fine"},
	}
	if err != nil || !reflect.DeepEqual(out.Metadata, want) {
		t.Fatalf("got %+v, %v", out, err)
	}
	if _, err := userinput.PreprocessUserInput(context.Background(), &tool.Context{}, json.RawMessage(`1`)); tool.KindOf(err) != tool.ErrorKindUserError {
		t.Fatalf("err %v", err)
	}
}
