package userinput

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/starweaver-go/starweaver/core/tool"
)

// Limits of one clarifying request. They are also the bounds of the JSON
// Schema the model sees. Lengths count characters (Unicode code points),
// not bytes.
const (
	MinQuestions    = 1
	MaxQuestions    = 4
	MinOptions      = 2
	MaxOptions      = 4
	MaxHeaderLength = 12
)

// ErrInvalidQuestions is wrapped by every error of [ValidateQuestions] and
// [ParseQuestions]; the error itself is a [*tool.Error] of kind
// invalid_arguments.
var ErrInvalidQuestions = errors.New("userinput: invalid clarifying questions")

// Option is one suggested answer to a question.
type Option struct {
	// Label is the short text of the choice; labels are unique within a
	// question, ignoring case and surrounding space.
	Label string `json:"label"`
	// Description explains what choosing the option means.
	Description string `json:"description"`
	// Preview is optional longer content (a snippet, a mock-up) a user
	// interface may show beside the option.
	Preview string `json:"preview,omitempty"`
}

// Question is one clarifying question. Its JSON form uses the camelCase
// "multiSelect" key, as the model writes it.
type Question struct {
	// Question is the full question text. Answers are keyed by it exactly.
	Question string `json:"question"`
	// Header is a very short label for the question (at most
	// MaxHeaderLength characters), shown as a chip or tab.
	Header string `json:"header"`
	// Options are the suggested answers; a person may also answer freely.
	Options []Option `json:"options"`
	// MultiSelect says that several options may be chosen. The answer is
	// still one string: clients join the chosen labels.
	MultiSelect bool `json:"multiSelect"`
}

// arguments is the argument object of ask_user_question.
type arguments struct {
	Questions []Question `json:"questions"`
}

// ParseQuestions decodes the arguments of an ask_user_question call (an
// object {"questions": [...]}, as in a pending approval's Arguments) and
// validates them with [ValidateQuestions]. Unknown fields are rejected. The
// error is a [*tool.Error] of kind invalid_arguments wrapping
// [ErrInvalidQuestions].
func ParseQuestions(args json.RawMessage) ([]Question, error) {
	d := json.NewDecoder(bytes.NewReader(args))
	d.DisallowUnknownFields()
	var a struct {
		Questions *[]Question `json:"questions"`
	}
	if err := d.Decode(&a); err != nil {
		return nil, invalidQuestions([]string{fmt.Sprintf("arguments are not a valid questions object: %v", err)})
	}
	if d.More() {
		return nil, invalidQuestions([]string{"arguments hold more than one JSON value"})
	}
	if a.Questions == nil {
		return nil, invalidQuestions([]string{"at '': missing property 'questions'"})
	}
	if err := ValidateQuestions(*a.Questions); err != nil {
		return nil, err
	}
	return *a.Questions, nil
}

// ValidateQuestions checks the rules the JSON Schema cannot express, and
// repeats the ones it can so that the check stands on its own:
//   - 1 to 4 questions, whose texts are not blank and are unique (ignoring
//     case and surrounding space);
//   - each header is not blank and has at most 12 characters (counted as
//     Unicode code points, surrounding space included);
//   - each question has 2 to 4 options whose labels and descriptions are
//     not blank and whose labels are unique within the question (ignoring
//     case and surrounding space).
//
// Every problem is reported, each naming its location as a JSON pointer
// (for example '/questions/1/options/0/label'), in one [*tool.Error] of
// kind invalid_arguments that wraps [ErrInvalidQuestions]. nil means the
// questions are valid.
func ValidateQuestions(questions []Question) error {
	var problems []string
	add := func(path, format string, a ...any) {
		problems = append(problems, fmt.Sprintf("at '%s': ", path)+fmt.Sprintf(format, a...))
	}
	if n := len(questions); n < MinQuestions || n > MaxQuestions {
		add("/questions", "must contain %d to %d questions, got %d", MinQuestions, MaxQuestions, n)
	}
	for i, q := range questions {
		at := fmt.Sprintf("/questions/%d", i)
		if blank(q.Question) {
			add(at+"/question", "must not be blank")
		} else {
			for j := range i {
				if sameText(questions[j].Question, q.Question) {
					add(at+"/question", "repeats question %d (question texts must be unique, ignoring case)", j)
					break
				}
			}
		}
		if blank(q.Header) {
			add(at+"/header", "must not be blank")
		} else if n := utf8.RuneCountInString(q.Header); n > MaxHeaderLength {
			add(at+"/header", "must be at most %d characters, got %d", MaxHeaderLength, n)
		}
		if n := len(q.Options); n < MinOptions || n > MaxOptions {
			add(at+"/options", "must contain %d to %d options, got %d", MinOptions, MaxOptions, n)
		}
		for k, o := range q.Options {
			oat := fmt.Sprintf("%s/options/%d", at, k)
			if blank(o.Label) {
				add(oat+"/label", "must not be blank")
			} else {
				for j := range k {
					if sameText(q.Options[j].Label, o.Label) {
						add(oat+"/label", "repeats the label of option %d (labels must be unique within a question, ignoring case)", j)
						break
					}
				}
			}
			if blank(o.Description) {
				add(oat+"/description", "must not be blank")
			}
		}
	}
	if len(problems) > 0 {
		return invalidQuestions(problems)
	}
	return nil
}

func invalidQuestions(problems []string) *tool.Error {
	return &tool.Error{
		Kind:    tool.ErrorKindInvalidArguments,
		Message: "invalid clarifying questions: " + strings.Join(problems, "; "),
		Err:     ErrInvalidQuestions,
	}
}

func blank(s string) bool { return strings.TrimSpace(s) == "" }

// sameText compares two texts ignoring surrounding space and case.
func sameText(a, b string) bool {
	return strings.EqualFold(strings.TrimSpace(a), strings.TrimSpace(b))
}
