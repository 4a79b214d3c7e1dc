package skills

import (
	"context"

	"github.com/starweaver-go/starweaver/core/agentctx"
	"github.com/starweaver-go/starweaver/core/env"
)

// Activate reads the skill whose SKILL.md is at path, with its body. The
// provider's errors (env.ErrNotFound, ...) come back wrapped, as do
// Parse's and ErrTooLarge / ErrNotText.
func Activate(ctx context.Context, p env.Provider, path string) (Package, error) {
	text, err := readSkill(ctx, p, path)
	if err != nil {
		return Package{}, err
	}
	pkg, err := Parse(path, text)
	if err != nil {
		return Package{}, &FileError{Path: path, Err: err}
	}
	return pkg, nil
}

// ActivateWithContext activates as Activate does and, on success,
// publishes skill_activated on actx (when not nil) with the package's
// name, description, path, metadata and body_bytes, never its body.
func ActivateWithContext(ctx context.Context, p env.Provider, path string, actx *agentctx.Context) (Package, error) {
	pkg, err := Activate(ctx, p, path)
	if err != nil {
		return Package{}, err
	}
	if actx != nil {
		actx.Publish(EventActivated, ActivatedPayload(pkg))
	}
	return pkg, nil
}
