package bridge

import "github.com/starweaver-go/starweaver/core/agent"

// restoreSpec is the options object of sw_session_restore. Defaults live
// in core: an absent field means core's default.
type restoreSpec struct {
	// AllowUnsigned accepts state exported without a state key.
	AllowUnsigned bool `json:"allow_unsigned"`
}

// decodeRestoreOptions turns the options JSON (empty for none) into
// core's restore options.
func decodeRestoreOptions(data []byte) ([]agent.RestoreOption, error) {
	if len(data) == 0 {
		return nil, nil
	}
	var s restoreSpec
	if err := decodeStrict(data, &s); err != nil {
		return nil, err
	}
	if s.AllowUnsigned {
		return []agent.RestoreOption{agent.AllowUnsigned()}, nil
	}
	return nil, nil
}
