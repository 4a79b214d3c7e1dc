package intent

import (
	"encoding/json"
	"fmt"
	"strconv"
)

// Outcome is what became of one declared intent: [Executed], [Refused],
// or, for a batch refused with no intent to refuse, [ProtocolRefused].
// The interface is sealed. Outcomes are recorded in the journal as JSON
// tagged by "status" and replayed from there byte for byte.
type Outcome interface {
	// ModelAddendum is the line the model reads about the outcome, e.g.
	// "[tool intent cancel_process #4 executed: {...}]".
	ModelAddendum() string
	outcome()
}

// Executed is an intent whose command ran (or replayed its first run).
type Executed struct {
	Identity Identity
	Kind     Kind
	// Result is the command's result: the process summary of a start, the
	// event of a signal (with its "sequence") or of an emitted event, the
	// receipt of a cancellation, the report of a trigger.
	Result json.RawMessage
	// ParentEnd is set for a started process: what its scope's end does.
	ParentEnd *ParentEnd
}

// ParentEnd is the parent-end action a started process leaves behind.
type ParentEnd struct {
	ProcessID string          `json:"process_id"`
	Policy    ParentEndPolicy `json:"policy"`
}

// Refused is an intent that was refused: by admission (every intent of
// the batch, for one reason) or by its command (CommandFailed).
type Refused struct {
	// Identity is nil when none could be derived (no tool call id).
	Identity    *Identity
	IntentIndex uint32
	Kind        Kind
	Refusal     Refusal
}

// ProtocolRefused is a batch refused when it holds no intent that could
// carry the refusal (an empty batch of an unsupported version).
type ProtocolRefused struct {
	Refusal Refusal
}

func (Executed) outcome()        {}
func (Refused) outcome()         {}
func (ProtocolRefused) outcome() {}

// ModelAddendum implements Outcome: "[tool intent <kind> #<index>
// executed: <result JSON>]".
func (o Executed) ModelAddendum() string {
	return "[tool intent " + string(o.Kind) + " #" + strconv.FormatUint(uint64(o.Identity.IntentIndex), 10) + " executed: " + string(o.Result) + "]"
}

// ModelAddendum implements Outcome: "[tool intent <kind> #<index>
// refused: <code>]".
func (o Refused) ModelAddendum() string {
	return "[tool intent " + string(o.Kind) + " #" + strconv.FormatUint(uint64(o.IntentIndex), 10) + " refused: " + string(o.Refusal.Code) + "]"
}

// ModelAddendum implements Outcome: "[tool intent batch refused: <code>]".
func (o ProtocolRefused) ModelAddendum() string {
	return "[tool intent batch refused: " + string(o.Refusal.Code) + "]"
}

// RefusalCode names why an intent was refused.
type RefusalCode string

// Refusal codes.
const (
	RefusalUnsupportedProtocolVersion  RefusalCode = "unsupported_protocol_version"
	RefusalMissingToolCallID           RefusalCode = "missing_tool_call_id"
	RefusalIntentIndexOverflow         RefusalCode = "intent_index_overflow"
	RefusalCountBudgetExceeded         RefusalCode = "count_budget_exceeded"
	RefusalCanonicalByteBudgetExceeded RefusalCode = "canonical_byte_budget_exceeded"
	RefusalPerKindBudgetExceeded       RefusalCode = "per_kind_budget_exceeded"
	RefusalSessionMismatch             RefusalCode = "session_mismatch"
	// RefusalCommandFailed: the command refused the intent; CommandCode
	// says why (CodeProcessNotVisible, CodeProcessAlreadyTerminal, ...).
	RefusalCommandFailed RefusalCode = "command_failed"
	// RefusalMalformedIntent: the batch cannot be encoded (a payload that
	// is not JSON). A batch read back from a journal never is; this code
	// exists so that Admit never has to panic.
	RefusalMalformedIntent RefusalCode = "malformed_intent"
)

// Refusal is a refusal's code and its details.
type Refusal struct {
	Code RefusalCode `json:"code"`
	// RecordedVersion is the refused protocol version
	// (unsupported_protocol_version).
	RecordedVersion *uint16 `json:"recorded_version,omitempty"`
	// Kind is the kind over its budget (per_kind_budget_exceeded).
	Kind Kind `json:"kind,omitempty"`
	// Expected and Recorded are the attempt's and the intent's sessions
	// (session_mismatch).
	Expected string `json:"expected,omitempty"`
	Recorded string `json:"recorded,omitempty"`
	// CommandCode and Message are the command's refusal (command_failed).
	CommandCode string `json:"command_code,omitempty"`
	Message     string `json:"message,omitempty"`
}

type outcomeJSON struct {
	Status      string          `json:"status"`
	Identity    *Identity       `json:"identity,omitempty"`
	IntentIndex *uint32         `json:"intent_index,omitempty"`
	Kind        Kind            `json:"kind,omitempty"`
	Result      json.RawMessage `json:"result,omitempty"`
	ParentEnd   *ParentEnd      `json:"parent_end,omitempty"`
	Refusal     *Refusal        `json:"refusal,omitempty"`
}

// MarshalJSON implements json.Marshaler:
// {"status":"executed","identity":{...},"kind":...,"result":...,"parent_end":{...}}.
func (o Executed) MarshalJSON() ([]byte, error) {
	id := o.Identity
	res := o.Result
	if res == nil {
		res = json.RawMessage("null")
	}
	return json.Marshal(outcomeJSON{Status: "executed", Identity: &id, Kind: o.Kind, Result: res, ParentEnd: o.ParentEnd})
}

// MarshalJSON implements json.Marshaler:
// {"status":"refused","identity":{...},"intent_index":n,"kind":...,"refusal":{...}}.
func (o Refused) MarshalJSON() ([]byte, error) {
	i, r := o.IntentIndex, o.Refusal
	return json.Marshal(outcomeJSON{Status: "refused", Identity: o.Identity, IntentIndex: &i, Kind: o.Kind, Refusal: &r})
}

// MarshalJSON implements json.Marshaler:
// {"status":"protocol_refused","refusal":{...}}.
func (o ProtocolRefused) MarshalJSON() ([]byte, error) {
	r := o.Refusal
	return json.Marshal(outcomeJSON{Status: "protocol_refused", Refusal: &r})
}

// UnmarshalOutcome decodes an outcome's JSON.
func UnmarshalOutcome(b []byte) (Outcome, error) {
	var v outcomeJSON
	if err := json.Unmarshal(b, &v); err != nil {
		return nil, fmt.Errorf("%w: outcome: %w", ErrRecordedOutcomeOutsideProtocol, err)
	}
	switch {
	case v.Status == "executed" && v.Identity != nil && v.Result != nil && v.Refusal == nil:
		return Executed{Identity: *v.Identity, Kind: v.Kind, Result: v.Result, ParentEnd: v.ParentEnd}, nil
	case v.Status == "refused" && v.IntentIndex != nil && v.Refusal != nil && v.Result == nil:
		return Refused{Identity: v.Identity, IntentIndex: *v.IntentIndex, Kind: v.Kind, Refusal: *v.Refusal}, nil
	case v.Status == "protocol_refused" && v.Refusal != nil:
		return ProtocolRefused{Refusal: *v.Refusal}, nil
	}
	return nil, fmt.Errorf("%w: outcome of status %q", ErrRecordedOutcomeOutsideProtocol, v.Status)
}
