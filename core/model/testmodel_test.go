package model_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/starweaver-go/starweaver/core/model"
)

func TestNewCheckedTestModel(t *testing.T) {
	m, err := model.NewCheckedTestModel(model.Response(model.TextPart("hi")))
	if err != nil || m.Remaining() != 1 {
		t.Fatalf("NewCheckedTestModel = %v, %v", m, err)
	}
	bad := map[string][]model.Message{
		"response 0": {{Kind: model.KindResponse}},
		"response 1": {model.Response(model.TextPart("hi")), {Kind: model.KindRequest, Parts: []model.Part{model.TextPart("x")}}},
	}
	for want, script := range bad {
		_, err := model.NewCheckedTestModel(script...)
		if !errors.Is(err, model.ErrInvalidScript) || !strings.Contains(err.Error(), want+" is not a non-empty response message") {
			t.Errorf("NewCheckedTestModel = %v, want %q", err, want)
		}
	}
}
