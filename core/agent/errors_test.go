package agent

import (
	"errors"
	"fmt"
	"testing"

	"github.com/starweaver-go/starweaver/core/model"
)

func TestAModelFailureIsSaidOnce(t *testing.T) {
	inner := fmt.Errorf("%w: openai (connection_error): refused", model.ErrModel)
	err := asModelError(inner)
	if !errors.Is(err, ErrModel) || !errors.Is(err, model.ErrModel) {
		t.Fatalf("%v: not ErrModel and model.ErrModel", err)
	}
	if got := err.Error(); got != "model: request failed: openai (connection_error): refused" {
		t.Fatalf("message = %q", got)
	}
	other := asModelError(errors.New("boom"))
	if !errors.Is(other, ErrModel) || other.Error() != "agent: model failed: boom" {
		t.Fatalf("other = %v", other)
	}
}
