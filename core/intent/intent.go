package intent

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// Kind names an intent's kind; its string form is the "kind" tag of the
// intent's JSON.
type Kind string

// The kinds of protocol version 1, in the order Kinds lists them.
const (
	KindStartProcess     Kind = "start_process"
	KindSignalProcess    Kind = "signal_process"
	KindCancelProcess    Kind = "cancel_process"
	KindEmitProcessEvent Kind = "emit_process_event"
	KindEmitTrigger      Kind = "emit_trigger"
)

// Kinds lists every kind of protocol version 1.
func Kinds() []Kind {
	return []Kind{KindStartProcess, KindSignalProcess, KindCancelProcess, KindEmitProcessEvent, KindEmitTrigger}
}

// Intent is one durable action a tool attempt declares. The interface is
// sealed: its implementations are *StartProcess, *SignalProcess,
// *CancelProcess, *EmitProcessEvent and *EmitTrigger (values work too).
//
// As JSON an intent is adjacently tagged:
//
//	{"kind":"cancel_process","intent":{"session_id":"s","process_id":"p"}}
type Intent interface {
	// Kind returns the intent's kind.
	Kind() Kind
	// Session returns the session the intent claims to act in; admission
	// refuses an intent whose session is not the attempt's.
	Session() string
	intent()
}

// ParentEndPolicy is what happens to a started process when the scope
// that started it (a turn, a process) ends. As JSON it is "cancel" or
// "abandon"; a missing policy decodes as ParentEndCancel, and anything
// else (Temporal's "terminate" among them) is refused: there is no hard
// kill, and a policy that pretended to offer one would lie.
type ParentEndPolicy string

// Parent-end policies. The zero value means ParentEndCancel.
const (
	// ParentEndCancel issues one replay-keyed cancellation of the process.
	ParentEndCancel ParentEndPolicy = "cancel"
	// ParentEndAbandon leaves the process running; settling it is a
	// recorded no-op.
	ParentEndAbandon ParentEndPolicy = "abandon"
)

// Effective returns p, or ParentEndCancel for the zero value.
func (p ParentEndPolicy) Effective() ParentEndPolicy {
	if p == "" {
		return ParentEndCancel
	}
	return p
}

// MarshalJSON writes the effective policy.
func (p ParentEndPolicy) MarshalJSON() ([]byte, error) {
	switch e := p.Effective(); e {
	case ParentEndCancel, ParentEndAbandon:
		return json.Marshal(string(e))
	}
	return nil, fmt.Errorf("%w: unknown parent-end policy %q", ErrInvalid, string(p))
}

// UnmarshalJSON accepts "cancel" and "abandon" only.
func (p *ParentEndPolicy) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("%w: parent-end policy: %w", ErrInvalid, err)
	}
	switch ParentEndPolicy(s) {
	case ParentEndCancel, ParentEndAbandon:
		*p = ParentEndPolicy(s)
		return nil
	}
	return fmt.Errorf("%w: unknown parent-end policy %q (want cancel or abandon)", ErrInvalid, s)
}

// ProcessStartRequest describes a process to start. Its ID is chosen by
// the host but replaced, when the intent is realised, by the intent's
// replay key: that key is the process id the host observes.
type ProcessStartRequest struct {
	ID string `json:"id"`
	// Originator names who asks for the process (a host-scoped name, a
	// tool).
	Originator string `json:"originator,omitempty"`
	// Input is the process's input, as JSON.
	Input json.RawMessage `json:"input,omitempty"`
}

// StartProcess starts a background process owned by the session.
type StartProcess struct {
	SessionID   string              `json:"session_id"`
	Request     ProcessStartRequest `json:"request"`
	OnParentEnd ParentEndPolicy     `json:"on_parent_end"`
}

// SignalProcess delivers a named signal to a running process.
type SignalProcess struct {
	SessionID  string          `json:"session_id"`
	ProcessID  string          `json:"process_id"`
	SignalName string          `json:"signal_name"`
	Payload    json.RawMessage `json:"payload,omitempty"`
}

// CancelProcess cancels a running process.
type CancelProcess struct {
	SessionID string `json:"session_id"`
	ProcessID string `json:"process_id"`
	Reason    string `json:"reason,omitempty"`
}

// EmitProcessEvent appends an event to a running process's history.
type EmitProcessEvent struct {
	SessionID string          `json:"session_id"`
	ProcessID string          `json:"process_id"`
	EventType string          `json:"event_type"`
	Payload   json.RawMessage `json:"payload,omitempty"`
}

// EmitTrigger emits a trigger occurrence. SessionID is the authority
// admission checks; the request's own SessionID is where the occurrence
// is routed, and its IdempotencyKey is the exactly-once backstop of the
// trigger router.
type EmitTrigger struct {
	SessionID string         `json:"session_id"`
	Request   TriggerRequest `json:"request"`
}

// TriggerRequest is one trigger occurrence to emit.
type TriggerRequest struct {
	SessionID      string          `json:"session_id"`
	Trigger        string          `json:"trigger"`
	IdempotencyKey string          `json:"idempotency_key"`
	Payload        json.RawMessage `json:"payload,omitempty"`
}

func (*StartProcess) Kind() Kind     { return KindStartProcess }
func (*SignalProcess) Kind() Kind    { return KindSignalProcess }
func (*CancelProcess) Kind() Kind    { return KindCancelProcess }
func (*EmitProcessEvent) Kind() Kind { return KindEmitProcessEvent }
func (*EmitTrigger) Kind() Kind      { return KindEmitTrigger }

func (i *StartProcess) Session() string     { return i.SessionID }
func (i *SignalProcess) Session() string    { return i.SessionID }
func (i *CancelProcess) Session() string    { return i.SessionID }
func (i *EmitProcessEvent) Session() string { return i.SessionID }
func (i *EmitTrigger) Session() string      { return i.SessionID }

func (*StartProcess) intent()     {}
func (*SignalProcess) intent()    {}
func (*CancelProcess) intent()    {}
func (*EmitProcessEvent) intent() {}
func (*EmitTrigger) intent()      {}

// tagged is an intent's JSON envelope.
type tagged struct {
	Kind   Kind            `json:"kind"`
	Intent json.RawMessage `json:"intent"`
}

// MarshalIntent encodes in as {"kind":...,"intent":{...}}.
func MarshalIntent(in Intent) ([]byte, error) {
	if in == nil {
		return nil, fmt.Errorf("%w: a nil intent", ErrInvalid)
	}
	body, err := json.Marshal(in)
	if err != nil {
		return nil, fmt.Errorf("%w: %s intent: %w", ErrInvalid, in.Kind(), err)
	}
	return json.Marshal(tagged{Kind: in.Kind(), Intent: body})
}

// UnmarshalIntent decodes what MarshalIntent encodes. An unknown kind, an
// unknown field, or an unknown parent-end policy is refused.
func UnmarshalIntent(b []byte) (Intent, error) {
	var t tagged
	if err := json.Unmarshal(b, &t); err != nil {
		return nil, fmt.Errorf("%w: intent: %w", ErrInvalid, err)
	}
	var in Intent
	switch t.Kind {
	case KindStartProcess:
		in = &StartProcess{}
	case KindSignalProcess:
		in = &SignalProcess{}
	case KindCancelProcess:
		in = &CancelProcess{}
	case KindEmitProcessEvent:
		in = &EmitProcessEvent{}
	case KindEmitTrigger:
		in = &EmitTrigger{}
	default:
		return nil, fmt.Errorf("%w: unknown intent kind %q", ErrInvalid, string(t.Kind))
	}
	if t.Intent == nil {
		return nil, fmt.Errorf("%w: %s intent has no \"intent\" object", ErrInvalid, t.Kind)
	}
	d := json.NewDecoder(bytes.NewReader(t.Intent))
	d.DisallowUnknownFields()
	if err := d.Decode(in); err != nil {
		return nil, fmt.Errorf("%w: %s intent: %w", ErrInvalid, t.Kind, err)
	}
	if s, ok := in.(*StartProcess); ok {
		s.OnParentEnd = s.OnParentEnd.Effective()
	}
	return in, nil
}

// ProtocolV1 is the only intent protocol version this package realises.
const ProtocolV1 = 1

// Intents is a versioned batch of intents, in source order. The zero
// value is an empty batch of version 0: it declares nothing (an attempt
// without intents); V1 builds a batch to realise. As JSON:
//
//	{"protocol_version":1,"intents":[{"kind":...,"intent":{...}}, ...]}
//
// A batch of another version decodes (so that a fabricated or future
// record is refused by admission, not misread), but is never realised.
type Intents struct {
	ProtocolVersion uint16
	Intents         []Intent
}

// V1 returns a protocol version 1 batch of intents.
func V1(intents ...Intent) Intents {
	return Intents{ProtocolVersion: ProtocolV1, Intents: intents}
}

// BatchOf returns the batch x holds: x itself when it is an Intents (what
// a tool returned), else x's JSON decoded (a batch the effect journal
// replayed, tool.RawIntents). A nil x is the empty batch.
func BatchOf(x json.Marshaler) (Intents, error) {
	switch v := x.(type) {
	case nil:
		return Intents{}, nil
	case Intents:
		return v, nil
	case *Intents:
		if v == nil {
			return Intents{}, nil
		}
		return *v, nil
	}
	raw, err := x.MarshalJSON()
	if err != nil {
		return Intents{}, fmt.Errorf("%w: intents: %w", ErrInvalid, err)
	}
	var b Intents
	if len(raw) == 0 || string(raw) == "null" {
		return b, nil
	}
	if err := json.Unmarshal(raw, &b); err != nil {
		return Intents{}, err
	}
	return b, nil
}

// Empty reports a batch that declares nothing (of any version).
func (b Intents) Empty() bool { return len(b.Intents) == 0 }

type intentsJSON struct {
	ProtocolVersion uint16            `json:"protocol_version"`
	Intents         []json.RawMessage `json:"intents"`
}

// MarshalJSON implements json.Marshaler.
func (b Intents) MarshalJSON() ([]byte, error) {
	v := intentsJSON{ProtocolVersion: b.ProtocolVersion, Intents: make([]json.RawMessage, len(b.Intents))}
	for i, in := range b.Intents {
		raw, err := MarshalIntent(in)
		if err != nil {
			return nil, fmt.Errorf("intent #%d: %w", i, err)
		}
		v.Intents[i] = raw
	}
	return json.Marshal(v)
}

// UnmarshalJSON implements json.Unmarshaler.
func (b *Intents) UnmarshalJSON(data []byte) error {
	var v intentsJSON
	if err := json.Unmarshal(data, &v); err != nil {
		return fmt.Errorf("%w: intents: %w", ErrInvalid, err)
	}
	out := Intents{ProtocolVersion: v.ProtocolVersion}
	for i, raw := range v.Intents {
		in, err := UnmarshalIntent(raw)
		if err != nil {
			return fmt.Errorf("intent #%d: %w", i, err)
		}
		out.Intents = append(out.Intents, in)
	}
	*b = out
	return nil
}
