package intent

import (
	"context"
	"encoding/json"
	"fmt"
)

// Local is a minimal process runtime kept in a Journal: it implements
// Commands, and gives hosts what it recorded (Process, Triggers).
//
// A process here is a durable record, not an operating-system process:
// its start, the signals it received, the events emitted to it and its
// end (a cancellation, or Complete) are entries of its stream, in order,
// each written once under the replay key of the command that caused it.
// A host that runs real work for a process reads its stream and
// completes it. A command's outcome, refusals included (a process that is
// not there, or already ended), is decided once, when its entry is
// written; a repeated command returns that entry's outcome.
//
// Local holds no state of its own: two Locals over one journal (or over
// two handles on one database) are one runtime. It is safe for concurrent
// use; commands racing on one process are ordered by the stream's
// positions.
type Local struct {
	j Journal
}

var _ Commands = (*Local)(nil)

// NewLocal returns the process runtime kept in j.
func NewLocal(j Journal) *Local { return &Local{j: j} }

// ProcessStatus is where a process is in its life.
type ProcessStatus string

// Process statuses.
const (
	ProcessRunning   ProcessStatus = "running"
	ProcessCancelled ProcessStatus = "cancelled"
	ProcessCompleted ProcessStatus = "completed"
)

// ProcessEntry is one entry of a process's stream.
type ProcessEntry struct {
	// Sequence is the entry's position in the process's history (the
	// start is 0).
	Sequence int64 `json:"sequence"`
	// Command is "start", "signal", "event", "cancel" or "complete".
	Command string `json:"command"`
	// ReplayKey is the key of the command that wrote the entry.
	ReplayKey string `json:"replay_key"`
	// Result is what the command returned.
	Result json.RawMessage `json:"result"`
}

// ProcessState is a process's recorded history.
type ProcessState struct {
	ID      string
	Status  ProcessStatus
	Entries []ProcessEntry
}

// commandRecord is the journal body of one command.
type commandRecord struct {
	ProcessEntry
	Refused *CommandError `json:"refused,omitempty"`
}

func commandKey(replayKey string) string { return path("process-command", replayKey) }
func processStream(id string) string     { return path("process", id) }

// Recorded returns the outcome of the process command journaled under
// replayKey, and whether there is one, so that a runtime over real
// processes (core/bundles/shell's IntentProcesses) replays a recorded
// command without acting on it again. A failure to read the journal is
// reported with ok true: the command must not act either.
func (l *Local) Recorded(ctx context.Context, replayKey string) (res json.RawMessage, ok bool, err error) {
	e, err := l.j.Get(ctx, commandKey(replayKey))
	if err != nil {
		if isNotFound(err) {
			return nil, false, nil
		}
		return nil, true, err
	}
	res, err = replay(e)
	return res, true, err
}

// Process returns process id's recorded history; a process never started
// is a *CommandError with CodeProcessNotVisible.
func (l *Local) Process(ctx context.Context, id string) (ProcessState, error) {
	es, err := l.j.Stream(ctx, processStream(id))
	if err != nil {
		return ProcessState{}, err
	}
	if len(es) == 0 {
		return ProcessState{}, &CommandError{Code: CodeProcessNotVisible, Message: fmt.Sprintf("no process %q", id)}
	}
	st := ProcessState{ID: id, Status: ProcessRunning}
	for _, e := range es {
		var rec commandRecord
		if err := json.Unmarshal(e.Body, &rec); err != nil {
			return ProcessState{}, fmt.Errorf("%w: process %q entry %d: %w", ErrInvalid, id, e.Seq, err)
		}
		switch rec.Command {
		case "cancel":
			st.Status = ProcessCancelled
		case "complete":
			st.Status = ProcessCompleted
		}
		st.Entries = append(st.Entries, rec.ProcessEntry)
	}
	return st, nil
}

// replay returns the recorded outcome of a command.
func replay(e Entry) (json.RawMessage, error) {
	var rec commandRecord
	if err := json.Unmarshal(e.Body, &rec); err != nil {
		return nil, fmt.Errorf("%w: command %q: %w", ErrInvalid, e.Key, err)
	}
	if rec.Refused != nil {
		return nil, rec.Refused
	}
	return rec.Result, nil
}

// StartProcess implements Commands: the process's id is replayKey.
func (l *Local) StartProcess(ctx context.Context, replayKey string, in *StartProcess) (json.RawMessage, error) {
	res, err := json.Marshal(struct {
		ProcessID  string          `json:"process_id"`
		Status     ProcessStatus   `json:"status"`
		SessionID  string          `json:"session_id"`
		Originator string          `json:"originator,omitempty"`
		Input      json.RawMessage `json:"input,omitempty"`
	}{replayKey, ProcessRunning, in.SessionID, in.Request.Originator, in.Request.Input})
	if err != nil {
		return nil, fmt.Errorf("%w: start %q: %w", ErrInvalid, replayKey, err)
	}
	body, err := json.Marshal(commandRecord{ProcessEntry: ProcessEntry{Sequence: 0, Command: "start", ReplayKey: replayKey, Result: res}})
	if err != nil {
		return nil, err
	}
	e, _, err := l.j.Append(ctx, Entry{Key: commandKey(replayKey), Stream: processStream(replayKey), Seq: 0, Body: body})
	if err != nil {
		return nil, err
	}
	return replay(e)
}

// SignalProcess implements Commands.
func (l *Local) SignalProcess(ctx context.Context, replayKey string, in *SignalProcess) (json.RawMessage, error) {
	return l.command(ctx, replayKey, in.ProcessID, "signal", func(seq int64) any {
		return struct {
			ProcessID  string          `json:"process_id"`
			Sequence   int64           `json:"sequence"`
			SignalName string          `json:"signal_name"`
			Payload    json.RawMessage `json:"payload,omitempty"`
		}{in.ProcessID, seq, in.SignalName, in.Payload}
	})
}

// EmitProcessEvent implements Commands.
func (l *Local) EmitProcessEvent(ctx context.Context, replayKey string, in *EmitProcessEvent) (json.RawMessage, error) {
	return l.command(ctx, replayKey, in.ProcessID, "event", func(seq int64) any {
		return struct {
			ProcessID string          `json:"process_id"`
			Sequence  int64           `json:"sequence"`
			EventType string          `json:"event_type"`
			Payload   json.RawMessage `json:"payload,omitempty"`
		}{in.ProcessID, seq, in.EventType, in.Payload}
	})
}

// CancelProcess implements Commands.
func (l *Local) CancelProcess(ctx context.Context, replayKey, processID, reason string) (json.RawMessage, error) {
	return l.command(ctx, replayKey, processID, "cancel", func(seq int64) any {
		return struct {
			ProcessID string `json:"process_id"`
			Sequence  int64  `json:"sequence"`
			Cancelled bool   `json:"cancelled"`
			Reason    string `json:"reason,omitempty"`
		}{processID, seq, true, reason}
	})
}

// Complete ends a running process with result (a host's report that its
// work finished); it is keyed by the process, so it happens once. It
// fails with a *CommandError for a process that is not there or already
// ended.
func (l *Local) Complete(ctx context.Context, processID string, result json.RawMessage) (json.RawMessage, error) {
	return l.command(ctx, path("complete", processID), processID, "complete", func(seq int64) any {
		return struct {
			ProcessID string          `json:"process_id"`
			Sequence  int64           `json:"sequence"`
			Result    json.RawMessage `json:"result,omitempty"`
		}{processID, seq, result}
	})
}

// command appends a command to a running process's stream, or records
// why it cannot; a command already recorded under replayKey is replayed.
func (l *Local) command(ctx context.Context, replayKey, processID, command string, result func(seq int64) any) (json.RawMessage, error) {
	key := commandKey(replayKey)
	const maxRaces = 16
	for range maxRaces {
		if e, err := l.j.Get(ctx, key); err == nil {
			return replay(e)
		} else if !isNotFound(err) {
			return nil, err
		}
		st, err := l.Process(ctx, processID)
		var refusal *CommandError
		switch {
		case err != nil && !asCommandError(err, &refusal):
			return nil, err
		case err == nil && st.Status != ProcessRunning:
			refusal = &CommandError{Code: CodeProcessAlreadyTerminal, Message: fmt.Sprintf("process %q is %s", processID, st.Status)}
		}
		e := Entry{Key: key}
		if refusal != nil {
			e.Body, err = json.Marshal(commandRecord{ProcessEntry: ProcessEntry{Sequence: -1, Command: command, ReplayKey: replayKey, Result: json.RawMessage("null")}, Refused: refusal})
		} else {
			seq := int64(len(st.Entries))
			var res []byte
			if res, err = json.Marshal(result(seq)); err == nil {
				e.Stream, e.Seq = processStream(processID), seq
				e.Body, err = json.Marshal(commandRecord{ProcessEntry: ProcessEntry{Sequence: seq, Command: command, ReplayKey: replayKey, Result: res}})
			}
		}
		if err != nil {
			return nil, fmt.Errorf("%w: %s %q: %w", ErrInvalid, command, processID, err)
		}
		stored, _, err := l.j.Append(ctx, e)
		if isConflict(err) {
			continue // another command took the position: decide again
		}
		if err != nil {
			return nil, err
		}
		return replay(stored)
	}
	return nil, fmt.Errorf("intent: %s %q: lost %d races in a row: %w", command, processID, maxRaces, ErrConflict)
}

// EmitTrigger implements Commands. Occurrences are deduplicated on
// (request session, idempotency key): the report says which replay key
// emitted the occurrence first, and whether this emission was a
// duplicate of it.
func (l *Local) EmitTrigger(ctx context.Context, replayKey string, req TriggerRequest) (json.RawMessage, error) {
	key := commandKey(replayKey)
	if e, err := l.j.Get(ctx, key); err == nil {
		return replay(e)
	} else if !isNotFound(err) {
		return nil, err
	}
	var body []byte
	var err error
	if req.IdempotencyKey == "" {
		body, err = json.Marshal(commandRecord{ProcessEntry: ProcessEntry{Sequence: -1, Command: "trigger", ReplayKey: replayKey, Result: json.RawMessage("null")},
			Refused: &CommandError{Code: CodeTriggerIdempotencyMissing, Message: "a trigger occurrence needs an idempotency key"}})
	} else {
		occ, oerr := json.Marshal(TriggerOccurrence{ReplayKey: replayKey, Request: req})
		if oerr != nil {
			return nil, fmt.Errorf("%w: trigger: %w", ErrInvalid, oerr)
		}
		first, _, aerr := appendNext(ctx, l.j, path("trigger", req.SessionID, req.IdempotencyKey), path("triggers", req.SessionID), occ)
		if aerr != nil {
			return nil, aerr
		}
		var o TriggerOccurrence
		if err := json.Unmarshal(first.Body, &o); err != nil {
			return nil, fmt.Errorf("%w: trigger occurrence: %w", ErrInvalid, err)
		}
		report, rerr := json.Marshal(struct {
			Trigger        string `json:"trigger"`
			SessionID      string `json:"session_id"`
			IdempotencyKey string `json:"idempotency_key"`
			Sequence       int64  `json:"sequence"`
			Occurrence     string `json:"occurrence"`
			Duplicate      bool   `json:"duplicate"`
		}{req.Trigger, req.SessionID, req.IdempotencyKey, first.Seq, o.ReplayKey, o.ReplayKey != replayKey})
		if rerr != nil {
			return nil, rerr
		}
		body, err = json.Marshal(commandRecord{ProcessEntry: ProcessEntry{Sequence: first.Seq, Command: "trigger", ReplayKey: replayKey, Result: report}})
	}
	if err != nil {
		return nil, err
	}
	stored, _, err := l.j.Append(ctx, Entry{Key: key, Body: body})
	if err != nil {
		return nil, err
	}
	return replay(stored)
}

// TriggerOccurrence is one emitted trigger occurrence.
type TriggerOccurrence struct {
	// ReplayKey is the key of the command that emitted it first.
	ReplayKey string         `json:"replay_key"`
	Request   TriggerRequest `json:"request"`
}

// Triggers returns the occurrences routed to session, in emission order.
func (l *Local) Triggers(ctx context.Context, session string) ([]TriggerOccurrence, error) {
	es, err := l.j.Stream(ctx, path("triggers", session))
	if err != nil {
		return nil, err
	}
	out := make([]TriggerOccurrence, len(es))
	for i, e := range es {
		if err := json.Unmarshal(e.Body, &out[i]); err != nil {
			return nil, fmt.Errorf("%w: trigger occurrence: %w", ErrInvalid, err)
		}
	}
	return out, nil
}
