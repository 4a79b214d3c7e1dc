package userinput

import (
	"context"
	"encoding/json"
	"maps"

	"github.com/starweaver-go/starweaver/core/tool"
	"github.com/starweaver-go/starweaver/core/toolset"
)

// Names of the bundle.
const (
	// ToolName is the name of the clarifying-questions tool.
	ToolName = "ask_user_question"
	// ToolsetName is the name, id and instruction group of the toolset.
	ToolsetName = "user_input"
)

// Metadata keys and values of the approval flow.
const (
	// RequestKind is the "kind" of the approval request (and of the
	// approval metadata the preprocessor writes): hosts recognise
	// clarifying requests by it together with the tool name.
	RequestKind = "clarifying_questions"
	// MetaAnswers is the approval-metadata key under which the
	// preprocessor stores the normalised answers, as plain JSON
	// {"answers": {question text: answer}, "response": text}.
	MetaAnswers = "clarifying_answers"
	// MetaRequestKind, MetaRequestTool and MetaQuestions are the keys of
	// the approval request metadata (besides "reason").
	MetaRequestKind = "kind"
	MetaRequestTool = "tool"
	MetaQuestions   = "questions"
)

// ApprovalReason is the reason of the approval request.
const ApprovalReason = "clarifying questions need answers"

// UnansweredNote is the note returned to the model when a person approved
// the request without answering it.
const UnansweredNote = "The user approved the clarifying request without answering the questions. " +
	"Continue with your best judgement and state the assumptions you make, " +
	"or ask again only if an answer is essential."

// Description is the description of ask_user_question the model reads.
const Description = "Ask the user one to four clarifying questions and wait for the answers. " +
	"Use it only when missing information would materially change the result " +
	"(which of several reasonable approaches to take, a preference or constraint you cannot infer); " +
	"do not ask about what you can find out yourself with other tools, and do not ask for confirmation of a plain plan. " +
	"Call it by itself, with no other tool call in the same turn, and before any side-effecting tool " +
	"(writing, deleting, running, deploying, sending) whose outcome depends on the answers. " +
	"Each question needs the full question text, a short header (at most 12 characters), " +
	"2 to 4 options with distinct labels and a description each, and multiSelect " +
	"(true when several options may be chosen together). Users may also answer in their own words, " +
	"so do not add an \"Other\" option. The result holds the questions, the answers keyed by exact " +
	"question text (selected labels joined into one string for multiSelect) and an optional free-form response."

// Instruction is the toolset instruction, in group ToolsetName.
const Instruction = "ask_user_question pauses the run until a person answers. " +
	"Call it alone, before any side-effecting tool, and only when missing information " +
	"would materially change the result; otherwise proceed with reasonable assumptions and state them."

// Reply is the content the model receives once a person has answered.
type Reply struct {
	// Questions are the questions as the model asked them.
	Questions []Question `json:"questions"`
	// Answers maps exact question text to the answer; it is {} when the
	// person answered only in free form or not at all.
	Answers map[string]string `json:"answers"`
	// Response is the person's free-form reply, if any.
	Response string `json:"response,omitempty"`
	// Note is set when the person approved without answering.
	Note string `json:"note,omitempty"`
}

// Tools returns a new "user_input" toolset (id "user_input") holding
// [AskUserQuestion] and its instruction. Add it only when the host can
// resolve approvals and show the questions; the agent never adds it.
func Tools() *toolset.Static {
	return toolset.New(ToolsetName, AskUserQuestion()).
		WithID(ToolsetName).
		WithInstruction(ToolsetName, Instruction)
}

// AskUserQuestion returns a new ask_user_question tool.
//
// Its arguments are checked by the JSON Schema and by an argument
// validator running [ValidateQuestions], so bad questions come back to the
// model as invalid_arguments. Called without an approval it always returns
// [tool.ApprovalRequired] with [ApprovalReason] and request metadata
// {"kind": "clarifying_questions", "tool": "ask_user_question",
// "questions": [...]} (plain JSON values). Approved, it reads the answers
// from the approval metadata under [MetaAnswers] (written by
// [PreprocessUserInput] or supplied by the host), checks them again with
// [ResolveAnswers] against the call's questions and returns a [Reply]; a
// failure there is a user_error and no answers reach the model. Approved
// without answers, it returns a Reply with empty answers and
// [UnansweredNote]. An approval with another status is a user_error.
//
// The definition is sequential and its metadata sets
// starweaver_self_managed_hitl (so approval-required toolsets never gate
// it again) and starweaver_tool_kind "function".
func AskUserQuestion() *tool.Function {
	return tool.New(ToolName, Description, parametersSchema(), call).
		WithReturnSchema(returnSchema()).
		WithSequential(true).
		WithKind(tool.KindFunction).
		WithMetadata(map[string]any{tool.MetaSelfManagedHITL: true}).
		WithArgumentValidator(validateArguments).
		WithUserInputPreprocessor(PreprocessUserInput)
}

// validateArguments applies ValidateQuestions to decoded arguments. A shape
// the questions cannot be decoded from (a wrong type, an unknown or missing
// member) is left to the JSON Schema, which runs next and names it better.
func validateArguments(_ *tool.Context, args map[string]any) error {
	if _, ok := args["questions"]; !ok {
		return nil
	}
	b, err := json.Marshal(args)
	if err != nil {
		return nil
	}
	var a arguments
	if json.Unmarshal(b, &a) != nil {
		return nil
	}
	return ValidateQuestions(a.Questions)
}

func call(_ context.Context, tc *tool.Context, args json.RawMessage) (tool.Result, error) {
	questions, err := ParseQuestions(args)
	if err != nil {
		return tool.Result{}, err
	}
	if tc == nil || tc.Approval == nil {
		return tool.Result{}, tool.ApprovalRequired(ApprovalReason, map[string]any{
			MetaRequestKind: RequestKind,
			MetaRequestTool: ToolName,
			MetaQuestions:   plainJSON(questions),
		})
	}
	if tc.Approval.Status != "" && tc.Approval.Status != "approved" {
		reason, _ := tc.Approval.Metadata["reason"].(string)
		if blank(reason) {
			reason = "the user declined to answer the clarifying questions"
		}
		return tool.Result{}, tool.UserError("%s", reason)
	}
	md := map[string]any{MetaRequestKind: RequestKind}
	stored, ok := tc.Approval.Metadata[MetaAnswers]
	if !ok || stored == nil {
		md["answered"] = false
		return tool.Result{
			Content:  Reply{Questions: questions, Answers: map[string]string{}, Note: UnansweredNote},
			Metadata: md,
		}, nil
	}
	raw, err := json.Marshal(stored)
	if err != nil {
		return tool.Result{}, invalidAnswers("approval metadata %q is not JSON: %v", MetaAnswers, err)
	}
	a, err := ResolveAnswers(questions, raw)
	if err != nil {
		return tool.Result{}, err
	}
	md["answered"] = true
	return tool.Result{
		Content:  Reply{Questions: questions, Answers: a.Answers, Response: a.Response},
		Metadata: md,
	}, nil
}

// plainJSON converts v (built by this package, so always encodable) to
// decoded JSON values: maps, slices, strings, bools.
func plainJSON(v any) any {
	b, err := json.Marshal(v)
	if err != nil {
		panic("userinput: encoding questions: " + err.Error())
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		panic("userinput: decoding questions: " + err.Error())
	}
	return out
}

func str(description string, extra map[string]any) map[string]any {
	m := map[string]any{"type": "string", "description": description}
	maps.Copy(m, extra)
	return m
}

func questionSchema() map[string]any {
	option := map[string]any{
		"type": "object",
		"properties": map[string]any{
			"label":       str("Short choice text (1 to 5 words), unique within the question.", map[string]any{"minLength": 1}),
			"description": str("What choosing this option means or implies.", map[string]any{"minLength": 1}),
			"preview":     str("Optional longer content (a snippet, a mock-up) a user interface may show beside the option.", nil),
		},
		"required":             []any{"label", "description"},
		"additionalProperties": false,
	}
	return map[string]any{
		"type": "object",
		"properties": map[string]any{
			"question": str("The complete question, ending with a question mark. Answers are keyed by this exact text.",
				map[string]any{"minLength": 1}),
			"header": str("A very short label for the question, at most 12 characters (for example \"Database\").",
				map[string]any{"minLength": 1, "maxLength": MaxHeaderLength}),
			"options": map[string]any{
				"type":        "array",
				"description": "2 to 4 distinct choices. The user may also answer in free text.",
				"minItems":    MinOptions,
				"maxItems":    MaxOptions,
				"items":       option,
			},
			"multiSelect": map[string]any{
				"type":        "boolean",
				"description": "true when several options may be chosen together; their labels come back joined in one answer.",
			},
		},
		"required":             []any{"question", "header", "options", "multiSelect"},
		"additionalProperties": false,
	}
}

func parametersSchema() map[string]any {
	return map[string]any{
		"type": "object",
		"properties": map[string]any{
			"questions": map[string]any{
				"type":        "array",
				"description": "1 to 4 questions, asked together.",
				"minItems":    MinQuestions,
				"maxItems":    MaxQuestions,
				"items":       questionSchema(),
			},
		},
		"required":             []any{"questions"},
		"additionalProperties": false,
	}
}

func returnSchema() map[string]any {
	return map[string]any{
		"type": "object",
		"properties": map[string]any{
			"questions": map[string]any{"type": "array", "items": questionSchema()},
			"answers": map[string]any{
				"type":                 "object",
				"description":          "Answers keyed by exact question text.",
				"additionalProperties": map[string]any{"type": "string"},
			},
			"response": map[string]any{"type": "string", "description": "The user's free-form reply."},
			"note":     map[string]any{"type": "string", "description": "Set when the user approved without answering."},
		},
		"required": []any{"questions", "answers"},
	}
}
