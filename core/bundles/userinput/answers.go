package userinput

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/starweaver-go/starweaver/core/tool"
)

// Limits of what a person may answer, in characters (Unicode code points)
// after trimming surrounding space.
const (
	MaxAnswerLength   = 4000
	MaxResponseLength = 16384
)

// ErrInvalidAnswers is wrapped by every error of [NormalizeAnswers] and
// [ResolveAnswers]; the error itself is a [*tool.Error] of kind user_error.
var ErrInvalidAnswers = errors.New("userinput: invalid clarifying answers")

// Answers is what a person answered to a clarifying request, normalised.
type Answers struct {
	// Answers maps the exact text of an asked question to its answer. It
	// is never nil after normalisation (a free-form reply gives {}).
	Answers map[string]string `json:"answers"`
	// Response is optional free-form text about the request as a whole.
	Response string `json:"response,omitempty"`
}

// jsonValue returns a as plain JSON values, the form stored in approval
// metadata so that it reads the same before and after a state round trip.
func (a Answers) jsonValue() map[string]any {
	m := make(map[string]any, len(a.Answers))
	for k, v := range a.Answers {
		m[k] = v
	}
	out := map[string]any{"answers": m}
	if a.Response != "" {
		out["response"] = a.Response
	}
	return out
}

// NormalizeAnswers checks and normalises user input without knowing the
// questions (the seed's normalize_clarifying_question_answers). input is
// either
//   - a JSON string: a free-form reply, giving {"answers": {}, "response": s};
//   - a JSON object {"answers": {question text: answer}, "response": text},
//     where both members are optional but at least one must say something.
//
// Answers and the response are trimmed. It fails when the input is empty,
// null, not JSON, or another JSON type; when the object has other members;
// when there are more than MaxQuestions answers; when a question key or an
// answer is blank or not a string; when an answer exceeds MaxAnswerLength
// or the response MaxResponseLength characters; and when there are neither
// answers nor a response. The error is a [*tool.Error] of kind user_error
// wrapping [ErrInvalidAnswers].
func NormalizeAnswers(input json.RawMessage) (Answers, error) {
	input = bytes.TrimSpace(input)
	if len(input) == 0 || string(input) == "null" {
		return Answers{}, invalidAnswers("no user input was supplied; give a JSON string or an object with \"answers\" and an optional \"response\"")
	}
	if !json.Valid(input) {
		return Answers{}, invalidAnswers("user input is not valid JSON")
	}
	switch input[0] {
	case '"':
		var s string
		if err := json.Unmarshal(input, &s); err != nil {
			return Answers{}, invalidAnswers("user input is not a valid JSON string: %v", err)
		}
		s, err := checkText("the response", s, MaxResponseLength)
		if err != nil {
			return Answers{}, err
		}
		return Answers{Answers: map[string]string{}, Response: s}, nil
	case '{':
		return normalizeObject(input)
	}
	return Answers{}, invalidAnswers("user input must be a JSON string or an object with \"answers\" and an optional \"response\", got %s", jsonKind(input))
}

func normalizeObject(input json.RawMessage) (Answers, error) {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(input, &obj); err != nil {
		return Answers{}, invalidAnswers("user input is not a valid JSON object: %v", err)
	}
	for _, k := range slices.Sorted(maps.Keys(obj)) {
		if k != "answers" && k != "response" {
			return Answers{}, invalidAnswers("user input has an unknown member %s; only \"answers\" and \"response\" are allowed", quote(k))
		}
	}
	out := Answers{Answers: map[string]string{}}
	if raw := bytes.TrimSpace(obj["response"]); len(raw) > 0 && string(raw) != "null" {
		var s string
		if raw[0] != '"' || json.Unmarshal(raw, &s) != nil {
			return Answers{}, invalidAnswers("\"response\" must be a string, got %s", jsonKind(raw))
		}
		// A blank response next to answers just says nothing more.
		if !blank(s) {
			r, err := checkText("the response", s, MaxResponseLength)
			if err != nil {
				return Answers{}, err
			}
			out.Response = r
		}
	}
	if raw := bytes.TrimSpace(obj["answers"]); len(raw) > 0 && string(raw) != "null" {
		var answers map[string]json.RawMessage
		if raw[0] != '{' || json.Unmarshal(raw, &answers) != nil {
			return Answers{}, invalidAnswers("\"answers\" must be an object mapping question text to an answer string, got %s", jsonKind(raw))
		}
		if len(answers) > MaxQuestions {
			return Answers{}, invalidAnswers("\"answers\" holds %d answers; at most %d questions are asked", len(answers), MaxQuestions)
		}
		for _, q := range slices.Sorted(maps.Keys(answers)) {
			if blank(q) {
				return Answers{}, invalidAnswers("\"answers\" has a blank question key")
			}
			v := bytes.TrimSpace(answers[q])
			var s string
			if len(v) == 0 || v[0] != '"' || json.Unmarshal(v, &s) != nil {
				return Answers{}, invalidAnswers("the answer to %s must be a string, got %s", quote(q), jsonKind(v))
			}
			a, err := checkText("the answer to "+quote(q), s, MaxAnswerLength)
			if err != nil {
				return Answers{}, err
			}
			out.Answers[q] = a
		}
	}
	if len(out.Answers) == 0 && out.Response == "" {
		return Answers{}, invalidAnswers("user input has neither answers nor a response")
	}
	return out, nil
}

// ResolveAnswers is [NormalizeAnswers] followed by a check against the
// questions that were asked (the seed's resolve_clarifying_question_answers):
// every answer must be keyed by the exact text of one of them. Questions
// left unanswered are allowed. The questions themselves are not validated
// here (see [ValidateQuestions]); multiSelect is not checked against the
// answers, which stay free strings.
func ResolveAnswers(questions []Question, input json.RawMessage) (Answers, error) {
	a, err := NormalizeAnswers(input)
	if err != nil {
		return Answers{}, err
	}
	asked := make(map[string]bool, len(questions))
	for _, q := range questions {
		asked[q.Question] = true
	}
	for _, k := range slices.Sorted(maps.Keys(a.Answers)) {
		if !asked[k] {
			return Answers{}, invalidAnswers("%s is not one of the questions asked; key answers by the exact question text", quote(k))
		}
	}
	return a, nil
}

// PreprocessUserInput is the user-input preprocessor of ask_user_question
// (see [tool.Config.PreprocessUserInput]). It normalises input with
// [NormalizeAnswers] and returns approval metadata
// {MetaAnswers: {"answers": {...}, "response": "..."}, "kind":
// "clarifying_questions"} in plain JSON values; it never overrides the
// arguments, so the re-executed call keeps the questions the model asked.
//
// A failure is a user_error, not invalid_arguments: a person (through the
// host), not the model, wrote the input, and the model must neither be
// told to correct its arguments nor be charged a retry for it. The agent
// makes that error the call's return.
//
// The preprocessor cannot see the call's arguments (the agent passes only
// the approval), so answers keyed by questions that were not asked are
// rejected when the approved call runs, which applies [ResolveAnswers].
func PreprocessUserInput(ctx context.Context, tc *tool.Context, input json.RawMessage) (tool.PreprocessResult, error) {
	a, err := NormalizeAnswers(input)
	if err != nil {
		return tool.PreprocessResult{}, err
	}
	return tool.PreprocessResult{Metadata: map[string]any{
		MetaAnswers: a.jsonValue(),
		"kind":      RequestKind,
	}}, nil
}

// checkText trims s and checks that it is not blank and has at most max
// characters.
func checkText(what, s string, max int) (string, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return "", invalidAnswers("%s must not be blank", what)
	}
	if n := utf8.RuneCountInString(s); n > max {
		return "", invalidAnswers("%s has %d characters; the limit is %d", what, n, max)
	}
	return s, nil
}

func invalidAnswers(format string, a ...any) *tool.Error {
	return &tool.Error{
		Kind:    tool.ErrorKindUserError,
		Message: "invalid clarifying answers: " + fmt.Sprintf(format, a...),
		Err:     ErrInvalidAnswers,
	}
}

// jsonKind names the JSON type of a valid JSON value.
func jsonKind(v []byte) string {
	if len(v) == 0 {
		return "nothing"
	}
	switch v[0] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	default:
		return "a number"
	}
}

// quote quotes s for an error message, shortening it to 80 characters so
// that a long key cannot flood the message.
func quote(s string) string {
	const max = 80
	if utf8.RuneCountInString(s) <= max {
		return strconv.Quote(s)
	}
	r := []rune(s)
	return strconv.Quote(string(r[:max])) + "…"
}
