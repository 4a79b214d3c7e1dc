package model_test

import (
	"context"
	"testing"

	"github.com/starweaver-go/starweaver/core/model"
)

// reports collects the attempts a Fallback reports.
type reports struct{ got []model.Attempt }

func (r *reports) ReportAttempt(a model.Attempt) { r.got = append(r.got, a) }

// The reporter hears of each listed attempt as it fails (before the next
// model answers), once; the failure of the only model asked is no
// attempt; a Fallback among the models reports as one attempt.
func TestFallbackReportsAttemptsAsTheyFail(t *testing.T) {
	down := func() *failing { return &failing{err: &model.ProviderError{Provider: "openai", StatusCode: 503}} }
	var seenBeforeAnswer int
	r := &reports{}
	ctx := model.WithAttemptReporter(context.Background(), r)
	answer := model.NewFunctionModel(func(context.Context, []model.Message, model.Params) (model.Message, error) {
		seenBeforeAnswer = len(r.got)
		return model.Message{Parts: []model.Part{model.TextPart("hi")}}, nil
	})
	got, err := fallback(t, model.FallbackOptions{}, down(), down(), answer).Request(ctx, hello(), model.Params{})
	if err != nil || len(got.Attempts) != 2 || len(r.got) != 2 || seenBeforeAnswer != 2 {
		t.Fatalf("err %v, attempts %d, reported %d (%d before the answer)", err, len(got.Attempts), len(r.got), seenBeforeAnswer)
	}

	// Every model fails: each attempt reported, the last one too.
	r.got = nil
	if _, err := fallback(t, model.FallbackOptions{}, down(), down()).Request(ctx, hello(), model.Params{}); err == nil || len(r.got) != 2 {
		t.Fatalf("err %v, reported %d", err, len(r.got))
	}

	// One model asked (a 400 is not passed on): its own error, no report.
	r.got = nil
	bad := &failing{err: &model.ProviderError{Provider: "openai", StatusCode: 400}}
	if _, err := fallback(t, model.FallbackOptions{}, bad, answering("b")).Request(ctx, hello(), model.Params{}); err == nil || len(r.got) != 0 {
		t.Fatalf("err %v, reported %d", err, len(r.got))
	}

	// Nested: the inner Fallback's failure is one attempt of the outer.
	r.got = nil
	inner := fallback(t, model.FallbackOptions{}, down(), down())
	got, err = fallback(t, model.FallbackOptions{}, inner, answering("c")).Request(ctx, hello(), model.Params{})
	if err != nil || len(got.Attempts) != 1 || len(r.got) != 1 {
		t.Fatalf("err %v, attempts %d, reported %d", err, len(got.Attempts), len(r.got))
	}
}
