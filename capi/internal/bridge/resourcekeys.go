package bridge

import (
	"context"
	"encoding/json"

	"github.com/starweaver-go/starweaver/core/tool"
)

// Resource keys of host tools. A key given as an argument name or a JSON
// Pointer ("key") is read in Go: no round trip. A key computed by a host
// function ("host": true) cannot be: core orders a batch's calls before
// any of them reaches the host, so it asks the host for the keys of all
// of one tool's calls in the batch in one item (a "resource_keys" item,
// see starweaver.h), and only when two or more calls in the batch have
// keys. Having the host order the calls itself as they arrive was
// rejected: scheduling stays in core, which also orders Go tools and
// other hosts' tools by the same keys.

// resourceSpec is a tool spec's "resource".
type resourceSpec struct {
	// Key is an argument name, or a JSON Pointer when it starts with "/".
	Key string `json:"key"`
	// Host says the host computes the keys.
	Host   bool        `json:"host"`
	Access tool.Access `json:"access"`
}

func (s resourceSpec) build(id int64) (*tool.ResourceKey, error) {
	if err := tool.CheckAccess(s.Access); err != nil {
		return nil, err
	}
	switch {
	case s.Host && s.Key == "":
		return &tool.ResourceKey{Access: s.Access, Keys: hostKeys(id)}, nil
	case !s.Host && s.Key != "":
		return &tool.ResourceKey{Access: s.Access, Key: tool.KeyArgument(s.Key)}, nil
	}
	return nil, specError("resource needs exactly one of key and host")
}

// resourceKeysItem asks the host for the keys of calls of one tool.
type resourceKeysItem struct {
	Kind      string            `json:"kind"`
	Token     int64             `json:"token"`
	Tool      int64             `json:"tool"`
	Arguments []json.RawMessage `json:"arguments"`
}

// hostKeys asks the host; keys it could not compute (null), a failed or
// malformed answer and a wait ended by the run all leave keys unread,
// which core orders as barriers.
func hostKeys(id int64) func(context.Context, []json.RawMessage) []tool.KeyResult {
	return func(ctx context.Context, args []json.RawMessage) []tool.KeyResult {
		run := runFrom(ctx)
		if run == nil {
			return nil
		}
		data, err := run.await(ctx, func(token int64) ([]byte, error) {
			return encodeItem(resourceKeysItem{Kind: "resource_keys", Token: token, Tool: id, Arguments: args})
		})
		if err != nil {
			return nil
		}
		var a struct {
			OK   bool      `json:"ok"`
			Keys []*string `json:"keys"`
		}
		if json.Unmarshal(data, &a) != nil || !a.OK || len(a.Keys) != len(args) {
			return nil
		}
		out := make([]tool.KeyResult, len(args))
		for i, k := range a.Keys {
			if k != nil {
				out[i] = tool.KeyResult{Key: *k, OK: true}
			}
		}
		return out
	}
}
