package agent

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/starweaver-go/starweaver/core/artifact"
	"github.com/starweaver-go/starweaver/core/effect"
	"github.com/starweaver-go/starweaver/core/model"
	"github.com/starweaver-go/starweaver/core/tool"
)

// Output budgeting defaults (see OutputBudget).
const (
	// DefaultOutputBudget is the most model-visible text one tool return
	// keeps in the conversation: 32 KiB.
	DefaultOutputBudget = 32 << 10
	// DefaultSpillHeadBytes is how much of a spilled return the model
	// reads at once: 4 KiB.
	DefaultSpillHeadBytes = 4 << 10
	// ReadArtifactToolName names the tool that pages through spilled
	// outputs; an agent that may spill registers it.
	ReadArtifactToolName = "read_artifact"
	// MetaSpilled is the return metadata key of a spilled output: an
	// object {"artifact": reference, "size_bytes", "head_bytes"}.
	MetaSpilled = "starweaver_spilled"
)

// OutputBudget bounds what one tool return adds to a conversation. A
// return whose model-visible text (its text parts, or else its content as
// text) is longer than MaxBytes is spilled to the agent's artifact store:
// the conversation keeps the first HeadBytes, the size and the artifact's
// id, and the model pages through the rest with the read_artifact tool.
// Errors the runtime decided (timeouts, invalid arguments ...) are never
// spilled. Spilling needs an artifact store (Builder.Artifacts); without
// one returns are kept whole.
//
// The zero value means the defaults (DefaultOutputBudget,
// DefaultSpillHeadBytes); Disabled turns spilling off.
type OutputBudget struct {
	MaxBytes  int
	HeadBytes int
	Disabled  bool
}

func (b OutputBudget) maxBytes() int {
	if b.MaxBytes == 0 {
		return DefaultOutputBudget
	}
	return b.MaxBytes
}

func (b OutputBudget) headBytes() int {
	if b.HeadBytes == 0 {
		return min(DefaultSpillHeadBytes, b.maxBytes())
	}
	return b.HeadBytes
}

// Artifacts gives the agent an artifact store and the scope its runs use:
// tools reach it through tool.Context.Artifacts (bound to scope), artifact
// references in tool returns are resolved from it just before each model
// request (history and exported state keep the references), and tool
// returns over the output budget are spilled to it (see OutputBudget).
// A zero scope or a nil store makes Build report ErrConfig.
func (b *Builder) Artifacts(scope artifact.Scope, store artifact.Store) *Builder {
	if _, err := newArtifacts(scope, store); err != nil {
		b.fail(err)
		return b
	}
	b.opts.ArtifactStore, b.opts.ArtifactScope = store, scope
	return b
}

// ArtifactResolveLimit bounds the size of one artifact resolved into a
// model request (artifact.DefaultMaxBytes unless set); a larger one fails
// the run. n must be positive.
func (b *Builder) ArtifactResolveLimit(n int64) *Builder {
	if err := checkResolveLimit(n); err != nil {
		b.fail(err)
		return b
	}
	b.opts.ArtifactResolveLimit = n
	return b
}

// MaxToolOutputBytes bounds one call's output (tool.DefaultMaxOutputBytes,
// 8 MiB, unless set): a larger output ends the call as invalid_output.
// n must be positive.
func (b *Builder) MaxToolOutputBytes(n int) *Builder {
	if err := checkMaxToolOutput(n); err != nil {
		b.fail(err)
		return b
	}
	b.opts.MaxToolOutputBytes = n
	return b
}

// OutputBudget sets the output budget (see OutputBudget). Negative sizes,
// or a head larger than the budget, make Build report ErrConfig.
func (b *Builder) OutputBudget(ob OutputBudget) *Builder {
	if err := checkOutputBudget(ob); err != nil {
		b.fail(err)
		return b
	}
	b.opts.OutputBudget = ob
	return b
}

// spills reports whether the agent's returns may be spilled: it has a
// store and a budget.
func (a *Agent) spills() bool { return a.artifacts != nil && !a.budget.Disabled }

// resolve returns msgs with the artifact references of tool returns
// replaced by their bytes, for the model request about to be sent.
func (r *runner) resolve(ctx context.Context, msgs []model.Message) ([]model.Message, error) {
	return r.a.resolveArtifacts(ctx, msgs)
}

// resolveArtifacts reads the artifacts msgs refer to (see resolve).
func (a *Agent) resolveArtifacts(ctx context.Context, msgs []model.Message) ([]model.Message, error) {
	store := a.artifacts
	if store == nil {
		return msgs, nil
	}
	out, err := model.ResolveArtifacts(ctx, msgs, artifact.Resolver{Reader: store.Store(), Scope: store.Scope(), MaxBytes: a.resolveLimit})
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrArtifacts, err)
	}
	return out, nil
}

// disclose checks and shapes a batch's returns before they enter history:
// every host-only return is replaced by a withheld error return and fails
// the run (the first is reported), and every return over the output
// budget is spilled (a failed spill, reported when nothing was withheld,
// leaves its return whole). It changes returns in place.
func (r *runner) disclose(ctx context.Context, returns []tool.Return) error {
	var hidden, failed error
	for i := range returns {
		ret := &returns[i]
		if !ret.HostOnly {
			continue
		}
		if hidden == nil {
			hidden = &ToolOutputNotVisibleError{Tool: ret.Name, ToolCallID: ret.ToolCallID}
		}
		*ret = tool.ErrorReturn(tool.Call{ID: ret.ToolCallID, Name: ret.Name},
			tool.UserError("the output of this call is host-only; it was withheld from the model"))
	}
	if r.spilled != nil {
		for i := range returns {
			if err := r.spill(ctx, &returns[i]); err != nil && failed == nil {
				failed = err
			}
		}
	}
	if hidden != nil {
		return hidden
	}
	return failed
}

// spillIndex is the spilled outputs a conversation refers to, by artifact
// id: read_artifact reads only these, never an arbitrary artifact of the
// scope. It is shared by the run loop and concurrent read_artifact calls.
type spillIndex struct {
	mu   sync.Mutex
	refs map[string]artifact.Ref
}

func (x *spillIndex) add(ref artifact.Ref) {
	x.mu.Lock()
	x.refs[ref.ID] = ref
	x.mu.Unlock()
}

// list returns the indexed references, ordered by id (a batch carries
// them; see Batch.Spilled).
func (x *spillIndex) list() []artifact.Ref {
	x.mu.Lock()
	defer x.mu.Unlock()
	out := make([]artifact.Ref, 0, len(x.refs))
	for _, ref := range x.refs {
		out = append(out, ref)
	}
	slices.SortFunc(out, func(a, b artifact.Ref) int { return strings.Compare(a.ID, b.ID) })
	return out
}

func (x *spillIndex) get(id string) (artifact.Ref, bool) {
	x.mu.Lock()
	defer x.mu.Unlock()
	ref, ok := x.refs[id]
	return ref, ok
}

// spillRecord is the value of MetaSpilled.
type spillRecord struct {
	Artifact  artifact.Ref `json:"artifact"`
	SizeBytes int          `json:"size_bytes"`
	HeadBytes int          `json:"head_bytes"`
}

// indexSpills collects the spilled outputs of a history (a session's
// earlier runs, or a restored one).
func indexSpills(history []model.Message) *spillIndex {
	x := &spillIndex{refs: map[string]artifact.Ref{}}
	for i := range history {
		for j := range history[i].Parts {
			if ret := history[i].Parts[j].Return; ret != nil {
				x.addReturn(ret)
			}
		}
	}
	return x
}

// addReturn indexes ret when it was spilled (a resumed run adds its paused
// batch's returns, which history does not hold yet).
func (x *spillIndex) addReturn(ret *tool.Return) {
	raw, ok := ret.Metadata[MetaSpilled]
	if !ok {
		return
	}
	var rec spillRecord
	if b, err := json.Marshal(raw); err == nil && json.Unmarshal(b, &rec) == nil && rec.Artifact.ID != "" {
		x.add(rec.Artifact)
	}
}

// spill stores the model-visible text of ret in the artifact store when it
// is over the budget, and leaves ret with its head, its size and the
// artifact's id. Runtime errors are left alone.
func (r *runner) spill(ctx context.Context, ret *tool.Return) error {
	if ret.Runtime != nil {
		return nil
	}
	text, mediaType, textParts, err := visibleText(ret)
	if err != nil || len(text) <= r.a.budget.maxBytes() {
		return nil // content that is not JSON fails at the provider, as before
	}
	a := r.a.artifacts
	sum := sha256.Sum256([]byte(text))
	// The key is the content's digest: the same output spilled twice (a
	// retried run, two calls) is one artifact.
	w, err := a.NewWrite("starweaver.spill."+hex.EncodeToString(sum[:]), mediaType, []byte(text))
	if err == nil {
		var ref artifact.Ref
		if ref, err = a.Put(ctx, w); err == nil {
			r.spilled.add(ref)
			shrink(ret, text, ref, r.a.budget.headBytes(), textParts)
			return nil
		}
	}
	return fmt.Errorf("%w: spilling the %d-byte output of tool %q (call %q): %w", ErrArtifacts, len(text), ret.Name, ret.ToolCallID, err)
}

// visibleText is the model-visible text of ret: its text parts joined, or
// its content as text (a string as is, anything else as JSON), with the
// media type it is stored as; textParts tells which of the two.
func visibleText(ret *tool.Return) (text, mediaType string, textParts bool, err error) {
	if ret.Parts != nil {
		var b strings.Builder
		for _, p := range ret.Parts {
			if p.Kind == tool.PartText {
				if b.Len() > 0 {
					b.WriteByte('\n')
				}
				b.WriteString(p.Text)
			}
		}
		text, mediaType, textParts = b.String(), "text/plain", true
	} else {
		switch c := ret.Content.(type) {
		case nil:
			return "", "", false, nil
		case string:
			text, mediaType = c, "text/plain"
		case json.RawMessage:
			// A host's string result arrives as JSON: spill its text.
			text, mediaType = string(c), "application/json"
			if s := strings.TrimSpace(text); len(s) > 0 && s[0] == '"' {
				var str string
				if json.Unmarshal([]byte(s), &str) == nil {
					text, mediaType = str, "text/plain"
				}
			}
		default:
			var b []byte
			if b, err = json.Marshal(c); err != nil {
				return "", "", false, err
			}
			text, mediaType = string(b), "application/json"
		}
	}
	if !utf8.ValidString(text) {
		mediaType = "application/octet-stream" // text/* must be UTF-8
	}
	return text, mediaType, textParts, nil
}

// shrink replaces the visible text of ret with the notice of its spill and
// the head of text; media parts stay where they are.
func shrink(ret *tool.Return, text string, ref artifact.Ref, head int, textParts bool) {
	h := text[:runeStart(text, min(head, len(text)))]
	notice := fmt.Sprintf("[This output has %d bytes, more than this conversation keeps. The first %d follow. "+
		"To read on, call %s with ref %q and offset %d.]\n%s", len(text), len(h), ReadArtifactToolName, ref.ID, len(h), h)
	md := make(map[string]any, len(ret.Metadata)+1)
	maps.Copy(md, ret.Metadata)
	md[MetaSpilled] = spillRecord{Artifact: ref, SizeBytes: len(text), HeadBytes: len(h)}
	ret.Metadata = md
	ret.StructuredContent = nil // the stored text holds it
	if !textParts {
		ret.Content = notice
		return
	}
	parts := make([]tool.Part, 0, len(ret.Parts))
	placed := false
	for _, p := range ret.Parts {
		if p.Kind != tool.PartText {
			parts = append(parts, p)
		} else if !placed {
			parts = append(parts, tool.TextPart(notice))
			placed = true
		}
	}
	ret.Parts = parts
}

// runeStart moves i back to the start of the UTF-8 sequence it falls in,
// so that a cut never splits a character.
func runeStart[S ~string | ~[]byte](s S, i int) int {
	for i > 0 && i < len(s) && !utf8.RuneStart(s[i]) {
		i--
	}
	return i
}

// readArtifactArgs are read_artifact's arguments.
type readArtifactArgs struct {
	Ref    string `json:"ref"`
	Offset int    `json:"offset"`
	Limit  int    `json:"limit"`
}

// readArtifactTool pages through the outputs this conversation spilled.
func (r *runner) readArtifactTool() tool.Tool {
	budget := r.a.budget.maxBytes()
	schema := map[string]any{
		"type": "object",
		"properties": map[string]any{
			"ref":    map[string]any{"type": "string", "description": "The artifact id a truncated tool output named (sha256:...)."},
			"offset": map[string]any{"type": "integer", "minimum": 0, "description": "The byte offset to start at (default 0)."},
			"limit":  map[string]any{"type": "integer", "minimum": 1, "maximum": budget, "description": fmt.Sprintf("How many bytes to read (default and at most %d).", budget)},
		},
		"required":             []any{"ref"},
		"additionalProperties": false,
	}
	return tool.New(ReadArtifactToolName, "Read part of a tool output that was too long to show whole: the bytes from offset, at most limit of them.", schema,
		func(ctx context.Context, tc *tool.Context, raw json.RawMessage) (tool.Result, error) {
			var args readArtifactArgs
			if err := json.Unmarshal(raw, &args); err != nil {
				return tool.Result{}, tool.InvalidArguments("%v", err)
			}
			ref, ok := r.spilled.get(args.Ref)
			if !ok {
				return tool.Result{}, tool.ModelRetry("no output of this conversation was stored as %q; use the ref a truncated output gave", args.Ref)
			}
			data, err := tc.Artifacts.Get(ctx, ref)
			if err != nil {
				return tool.Result{}, fmt.Errorf("reading %s: %w", ref.ID, err)
			}
			limit := args.Limit
			if limit <= 0 || limit > budget {
				limit = budget
			}
			if args.Offset > len(data) {
				return tool.Result{}, tool.ModelRetry("offset %d is past the end of the output (%d bytes)", args.Offset, len(data))
			}
			end := min(args.Offset+limit, len(data))
			if end < len(data) {
				end = max(runeStart(data, end), args.Offset+1) // never split a character, always progress
			}
			return tool.Result{Content: map[string]any{
				"text": string(data[args.Offset:end]), "offset": args.Offset, "next_offset": end,
				"size_bytes": len(data), "more": end < len(data),
			}}, nil
		}).WithEffect(effect.ClassReadOnly) // it only reads: never journaled
}
