package agent

import "github.com/starweaver-go/starweaver/core/model"

// transcript is a conversation's history together with its model-visible
// projection (model.Visible of each message, position for position).
//
// Both only grow, and a message is never modified once appended; that is
// what lets models (which may keep what they receive, see model.Model),
// run results and the session share them without copies, so a long
// session costs memory linear in its length. Appends may write into spare
// capacity that the session's committed slices do not cover; a run that
// ends without committing seals the session (see Session.seal) so that no
// later run overwrites what it handed out.
type transcript struct {
	full    []model.Message
	visible []model.Message
}

// append adds m to the history and its projection to the visible view.
func (t *transcript) append(m model.Message) {
	t.full = append(t.full, m)
	t.visible = append(t.visible, model.Visible(m))
}

// catchUp projects the messages the visible view lacks (a restored
// session starts with a history and no projection).
func (t *transcript) catchUp() {
	for len(t.visible) < len(t.full) {
		t.visible = append(t.visible, model.Visible(t.full[len(t.visible)]))
	}
}

// forModel is the visible view as a model receives it: clipped, so that
// the transcript's next append can never reach what the model keeps.
func (t *transcript) forModel() []model.Message { return clip(t.visible) }

// clip returns ms with its capacity cut to its length.
func clip(ms []model.Message) []model.Message { return ms[:len(ms):len(ms)] }
