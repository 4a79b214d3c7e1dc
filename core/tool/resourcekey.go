package tool

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"
)

// Access says how a call uses the resource its key names.
type Access string

// The access modes. The zero value is a write, the safe reading of a
// tool that says nothing.
const (
	AccessWrite Access = "write"
	AccessRead  Access = "read"
)

// CheckAccess reports whether a is an access mode ("" is a write).
func CheckAccess(a Access) error {
	switch a {
	case "", AccessWrite, AccessRead:
		return nil
	}
	return fmt.Errorf("%w: unknown access %q (want read or write)", ErrInvalidOption, string(a))
}

// ResourceKey declares what a tool's calls touch, so that a parallel batch
// orders them by resource instead of by tool name. Within one batch:
//   - calls on different keys run in parallel, even when they call the
//     same tool (a repeated name no longer makes the batch sequential);
//   - reads of one key run together;
//   - a write waits for every earlier call on its key, and every later
//     call on its key waits for it, in model order.
//
// Keys are one namespace across tools: a read_file and a write_file keyed
// by path order each other. Calls of tools without a ResourceKey are not
// ordered by keys. The other reasons that make a batch sequential (see
// Registry.SequentialReason) still apply, and returns still reach history
// in model order.
//
// A key is read from a call's arguments as the model sent them, before
// hooks and validation, on the batch's goroutine (scheduling precedes any
// of the call's code). A call whose key cannot be read is ordered as a
// write on every key: it waits for every earlier keyed call, and every
// later keyed call waits for it. Keys order calls of one batch only;
// across batches and runs, cap a tool with a Limiter.
//
// Set exactly one of Key and Keys.
type ResourceKey struct {
	// Access is how every call of the tool uses its key; "" is a write.
	Access Access
	// Key reads one call's key; false means it cannot be read.
	Key func(args json.RawMessage) (string, bool)
	// Keys reads the keys of several calls of the tool in one go, in
	// order, for keys computed elsewhere (a host language's function: one
	// round trip per tool per batch instead of one per call). An answer of
	// another length counts as unreadable keys. ctx is the batch's.
	Keys func(ctx context.Context, args []json.RawMessage) []KeyResult
}

// KeyResult is one call's answer from ResourceKey.Keys.
type KeyResult struct {
	Key string
	OK  bool
}

// KeyArgument returns a Key function reading the argument named name, or,
// when name starts with "/", the value at that JSON Pointer (RFC 6901). A
// string value is the key itself; any other value is keyed by its compact
// JSON text; a missing one is the key "" (all calls without it share it).
// It reads the key without decoding the other arguments.
func KeyArgument(name string) func(args json.RawMessage) (string, bool) {
	var path []string
	if strings.HasPrefix(name, "/") {
		for _, tok := range strings.Split(name[1:], "/") {
			path = append(path, strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~"))
		}
	} else {
		path = []string{name}
	}
	return func(args json.RawMessage) (string, bool) {
		v := args
		for _, p := range path {
			next, found, ok := member(v, p)
			if !ok {
				return "", false
			}
			if !found {
				return "", true
			}
			v = next
		}
		if len(v) > 0 && v[0] == '"' {
			var s string
			if err := json.Unmarshal(v, &s); err != nil {
				return "", false
			}
			return s, true
		}
		var b bytes.Buffer
		if err := json.Compact(&b, v); err != nil {
			return "", false
		}
		return b.String(), true
	}
}

// member returns the value of key in the JSON object (or the element at
// that index of the array) v; ok is false when v is not valid JSON.
func member(v json.RawMessage, key string) (_ json.RawMessage, found, ok bool) {
	d := json.NewDecoder(bytes.NewReader(v))
	tok, err := d.Token()
	if err != nil {
		return nil, false, false
	}
	switch tok {
	case json.Delim('{'):
		for d.More() {
			k, err := d.Token()
			if err != nil {
				return nil, false, false
			}
			var raw json.RawMessage
			if err := d.Decode(&raw); err != nil {
				return nil, false, false
			}
			if k == key {
				return raw, true, true
			}
		}
		return nil, false, true
	case json.Delim('['):
		want, aerr := strconv.Atoi(key)
		for i := 0; d.More(); i++ {
			var raw json.RawMessage
			if err := d.Decode(&raw); err != nil {
				return nil, false, false
			}
			if aerr == nil && i == want {
				return raw, true, true
			}
		}
		return nil, false, true
	}
	return nil, false, true // a scalar has no members
}

// WithResourceKey orders the tool's calls by the key that key reads from
// their arguments, used with access (see ResourceKey). An unknown access
// is reported by Err and at registration.
func (f *Function) WithResourceKey(key func(args json.RawMessage) (string, bool), access Access) *Function {
	f.fail(CheckAccess(access))
	f.cfg.Resource = &ResourceKey{Access: access, Key: key}
	return f
}

// WithResourceArgument is WithResourceKey with the key read by
// KeyArgument(name): an argument name, or a JSON Pointer.
func (f *Function) WithResourceArgument(name string, access Access) *Function {
	return f.WithResourceKey(KeyArgument(name), access)
}

// ResourceKeyed reports whether calls of the named tool are ordered by a
// ResourceKey.
func (r *Registry) ResourceKeyed(name string) bool {
	e, ok := r.entries[name]
	return ok && e.cfg.Resource != nil
}

// keyOrder is the order a batch's resource keys impose: how many earlier
// calls each call waits for, and which calls wait for it. A call is
// launched when its count reaches zero.
type keyOrder struct {
	waits []atomic.Int32
	next  [][]int32
}

// keyedCall is one call's key while the order is built.
type keyedCall struct {
	keyed, ok bool
	key       string
	write     bool
}

// resourceOrder reads the keys of calls and returns their order, or nil
// when no two calls have keys (nothing to order).
func (r *Registry) resourceOrder(ctx context.Context, calls []Call) *keyOrder {
	n := 0
	for _, c := range calls {
		if r.ResourceKeyed(c.Name) {
			n++
		}
	}
	if n < 2 {
		return nil
	}
	keys := make([]keyedCall, len(calls))
	var batched map[string][]int // tools whose keys are read together
	for i, c := range calls {
		e, ok := r.entries[c.Name]
		if !ok || e.cfg.Resource == nil {
			continue
		}
		rk := e.cfg.Resource
		keys[i] = keyedCall{keyed: true, write: rk.Access != AccessRead}
		switch {
		case rk.Key != nil:
			keys[i].key, keys[i].ok = safeKey(rk.Key, c.Arguments)
		case rk.Keys != nil:
			if batched == nil {
				batched = map[string][]int{}
			}
			batched[c.Name] = append(batched[c.Name], i)
		}
	}
	for name, idx := range batched {
		args := make([]json.RawMessage, len(idx))
		for j, i := range idx {
			args[j] = calls[i].Arguments
		}
		got := safeKeys(ctx, r.entries[name].cfg.Resource.Keys, args)
		if len(got) != len(idx) {
			continue // unreadable: every one orders as a barrier
		}
		for j, i := range idx {
			keys[i].key, keys[i].ok = got[j].Key, got[j].OK
		}
	}
	return buildKeyOrder(keys)
}

func safeKey(f func(json.RawMessage) (string, bool), args json.RawMessage) (key string, ok bool) {
	defer func() {
		if recover() != nil {
			key, ok = "", false
		}
	}()
	return f(args)
}

func safeKeys(ctx context.Context, f func(context.Context, []json.RawMessage) []KeyResult, args []json.RawMessage) (out []KeyResult) {
	defer func() {
		if recover() != nil {
			out = nil
		}
	}()
	return f(ctx, args)
}

// buildKeyOrder links each keyed call to the earlier calls it must wait
// for: a read to the last write on its key, a write to the reads since
// that write (or the write itself when none). A call with an unreadable
// key waits for the latest calls on every key, and every later keyed call
// waits for it.
func buildKeyOrder(keys []keyedCall) *keyOrder {
	type keyState struct {
		lastWrite int32
		reads     []int32
	}
	o := &keyOrder{waits: make([]atomic.Int32, len(keys)), next: make([][]int32, len(keys))}
	states := map[string]*keyState{}
	barrier := int32(-1)
	link := func(from, to int32) {
		o.next[from] = append(o.next[from], to)
		o.waits[to].Add(1)
	}
	tails := func(s *keyState, i int32) {
		if len(s.reads) > 0 {
			for _, r := range s.reads {
				link(r, i)
			}
		} else if s.lastWrite >= 0 {
			link(s.lastWrite, i)
		}
	}
	for i, k := range keys {
		i := int32(i)
		if !k.keyed {
			continue
		}
		if !k.ok {
			if len(states) == 0 && barrier >= 0 {
				link(barrier, i)
			}
			for _, s := range states {
				tails(s, i)
			}
			clear(states)
			barrier = i
			continue
		}
		s := states[k.key]
		if s == nil {
			s = &keyState{lastWrite: barrier}
			states[k.key] = s
		}
		if k.write {
			tails(s, i)
			s.lastWrite, s.reads = i, nil
			continue
		}
		if s.lastWrite >= 0 {
			link(s.lastWrite, i)
		}
		s.reads = append(s.reads, i)
	}
	return o
}
