// Package userinput provides the opt-in clarifying-questions bundle: the
// "user_input" toolset and its one tool, ask_user_question, with which a
// model asks a person one to four structured questions before it goes on.
//
// The tool is related to the approval flow of [github.com/starweaver-go/starweaver/core/agent]:
// it never answers by itself. Its first call validates the questions and
// returns a [tool.ApprovalRequired] error, so the run ends waiting, and the
// pending approval's metadata carries {"kind": "clarifying_questions",
// "tool": "ask_user_question", "questions": [...]} for a host to render.
// The host resumes the session with an approved decision whose UserInput is
// what the person answered; the tool's user-input preprocessor
// ([PreprocessUserInput]) normalises it into the approval metadata under
// [MetaAnswers], and the re-executed call returns the original questions
// together with the answers to the model.
//
// The bundle is opt in: hosts add [Tools] only when they can resolve
// approvals and show the questions. Durable hosts that resolve requests
// outside a live session validate answers the same way with
// [NormalizeAnswers], [ResolveAnswers] and [ParseQuestions].
package userinput
