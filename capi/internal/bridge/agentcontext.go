package bridge

import (
	"bytes"
	"encoding/json"

	"github.com/starweaver-go/starweaver/core/agent"
	"github.com/starweaver-go/starweaver/core/agentctx"
)

// contextRequest is one operation on a session's agent context
// (sw_session_context).
type contextRequest struct {
	Op         string            `json:"op"`
	Key        string            `json:"key"`
	Value      json.RawMessage   `json:"value"`
	Text       string            `json:"text"`
	Tool       string            `json:"tool"`
	Grant      *agentctx.Grant   `json:"grant"`
	Tools      []string          `json:"tools"`
	Namespaces []string          `json:"namespaces"`
	Env        map[string]string `json:"env"`
	ID         string            `json:"id"`
	Status     string            `json:"status"`
	Kind       string            `json:"kind"`
	Payload    map[string]any    `json:"payload"`
}

// contextView is what sw_session_context writes back: the context's
// exportable state, its usage, and the events an operation took.
type contextView struct {
	agentctx.State
	Usage  agentctx.Usage   `json:"usage"`
	Events []agentctx.Event `json:"events,omitempty"`
	// Added is what a record_tool_search_loaded added, or the task an
	// add_task created.
	Added any `json:"added,omitempty"`
}

// sessionContext applies one operation to the session's agent context and
// returns its state after it.
func sessionContext(s *agent.Session, body []byte) ([]byte, error) {
	var req contextRequest
	d := json.NewDecoder(bytes.NewReader(body))
	d.DisallowUnknownFields()
	if err := d.Decode(&req); err != nil {
		return nil, specError("agent context request: %v", err)
	}
	c := s.Context()
	var view contextView
	switch req.Op {
	case "get":
	case "set_metadata":
		if req.Key == "" {
			return nil, specError("set_metadata needs a key")
		}
		var v any
		if len(req.Value) > 0 {
			if err := json.Unmarshal(req.Value, &v); err != nil {
				return nil, specError("set_metadata value: %v", err)
			}
		}
		c.SetMetadata(req.Key, v)
	case "set_note":
		if req.Key == "" {
			return nil, specError("set_note needs a key")
		}
		c.SetNote(req.Key, req.Text)
	case "grant":
		if req.Tool == "" || req.Grant == nil {
			return nil, specError("grant needs a tool and a grant")
		}
		c.GrantToolCapabilities(req.Tool, *req.Grant)
	case "revoke":
		if req.Tool == "" {
			return nil, specError("revoke needs a tool")
		}
		c.RevokeToolCapabilities(req.Tool)
	case "record_tool_search_loaded":
		tools, spaces := c.RecordToolSearchLoaded(req.Tools, req.Namespaces)
		view.Added = map[string][]string{"tools": nonNilNames(tools), "namespaces": nonNilNames(spaces)}
	case "clear_tool_search_loaded":
		c.ClearToolSearchLoaded()
	case "set_shell_environment":
		c.SetShellEnvironment(req.Env)
	case "set_handoff_message":
		c.SetHandoffMessage(req.Text)
	case "add_task":
		view.Added = c.AddTask(req.Text)
	case "set_task_status":
		if !c.SetTaskStatus(req.ID, req.Status) {
			return nil, &abiError{Type: "invalid_argument", Message: "no task " + req.ID}
		}
	case "publish":
		if req.Kind == "" {
			return nil, specError("publish needs a kind")
		}
		c.Publish(req.Kind, req.Payload)
	case "take_events":
		view.Events = c.TakeEvents()
		if view.Events == nil {
			view.Events = []agentctx.Event{}
		}
	default:
		return nil, specError("unknown agent context operation %q", req.Op)
	}
	view.State, view.Usage = c.Export(), c.Usage()
	return json.Marshal(view)
}

func nonNilNames(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
