package userinput

import (
	"reflect"
	"strings"
	"testing"
)

// Shapes the questions cannot be decoded from are left to the JSON
// Schema, which runs after the validator and names the problem precisely.
func TestValidateArgumentsDefersShapeErrors(t *testing.T) {
	for _, args := range []map[string]any{
		{},
		{"questions": "not a list"},
		{"questions": []any{map[string]any{"header": 5}}},
	} {
		if err := validateArguments(nil, args); err != nil {
			t.Errorf("%v: %v", args, err)
		}
	}
	err := validateArguments(nil, map[string]any{"questions": []any{}})
	if err == nil || !strings.Contains(err.Error(), "got 0") {
		t.Fatalf("err %v", err)
	}
}

func TestAnswersJSONValueIsPlain(t *testing.T) {
	got := Answers{Answers: map[string]string{"Q?": "a"}}.jsonValue()
	if want := map[string]any{"answers": map[string]any{"Q?": "a"}}; !reflect.DeepEqual(got, want) {
		t.Fatalf("got %#v", got)
	}
	got = Answers{Answers: map[string]string{}, Response: "r"}.jsonValue()
	if want := map[string]any{"answers": map[string]any{}, "response": "r"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("got %#v", got)
	}
}

func TestPlainJSONQuestions(t *testing.T) {
	got := plainJSON([]Question{{Question: "Q?", Header: "H", Options: []Option{{Label: "a", Description: "d"}}}})
	want := []any{map[string]any{
		"question": "Q?", "header": "H", "multiSelect": false,
		"options": []any{map[string]any{"label": "a", "description": "d"}},
	}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %#v", got)
	}
}

func TestQuoteShortens(t *testing.T) {
	if got := quote("abc"); got != `"abc"` {
		t.Fatalf("got %s", got)
	}
	long := strings.Repeat("é", 100)
	if got := quote(long); got != `"`+strings.Repeat("é", 80)+`"…` {
		t.Fatalf("got %s", got)
	}
	if jsonKind(nil) != "nothing" || jsonKind([]byte("null")) != "null" || jsonKind([]byte("-1")) != "a number" {
		t.Fatal("jsonKind")
	}
}
