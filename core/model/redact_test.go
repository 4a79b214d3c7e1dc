package model_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/starweaver-go/starweaver/core/model"
)

const gatewayKey = "gw-7Hq2xZ9pLm4Rt8Vb"

func TestRedactorMasksTheConfiguredKeyAndCredentialShapes(t *testing.T) {
	r := model.NewRedactor(gatewayKey, "Bearer tok-ABCDEFGH12345", "short")
	cases := map[string]string{
		"invalid key " + gatewayKey + " given":            "invalid key [REDACTED] given",
		"key prefix gw-7Hq2xZ9p... is wrong":              "key prefix [REDACTED]... is wrong",
		"Authorization: Bearer abcdefghijkl rejected":     "Authorization: Bearer [REDACTED] rejected",
		"a bearer eyJhbGciOiJIUzI1NiJ9.e30 token":         "a bearer [REDACTED] token",
		"Missing bearer authentication in header":         "Missing bearer authentication in header",
		`{"x-api-key": "some-other-value"}`:               `{"x-api-key": "[REDACTED]"}`,
		"api-key=zzzzzzzzzz;":                             "api-key=[REDACTED];",
		"Incorrect API key provided: sk-proj-abc***wxyz.": "Incorrect API key provided: [REDACTED].",
		"token tok-ABCDEFGH12345 expired":                 "token [REDACTED] expired",
		"a short secret stays":                            "a short secret stays",
		"nothing to see here":                             "nothing to see here",
	}
	for in, want := range cases {
		if got := r.String(in); got != want {
			t.Errorf("String(%q) = %q, want %q", in, got, want)
		}
	}
	// The zero and nil Redactors still apply the shape rules.
	var nilR *model.Redactor
	if got := nilR.String("Bearer abcdefghijkl0123456 and sk-ant-api03-xyz"); strings.Contains(got, "abcdefghijkl") || strings.Contains(got, "sk-ant") {
		t.Errorf("nil redactor: %q", got)
	}
}

func TestRedactorErrorKeepsIsAndAsButNotTheKey(t *testing.T) {
	r := model.NewRedactor(gatewayKey)
	pe := &model.ProviderError{Provider: "gw", StatusCode: 401, Code: "invalid_api_key", Message: "bad key " + gatewayKey}
	got := r.Error(pe)
	var gotPE *model.ProviderError
	if !errors.As(got, &gotPE) || gotPE.StatusCode != 401 || strings.Contains(gotPE.Message, gatewayKey) {
		t.Fatalf("provider error = %#v", got)
	}
	if strings.Contains(pe.Message, "REDACTED") {
		t.Fatal("the original error was modified")
	}
	wrapped := fmt.Errorf("%w: request ended (%s): %w", model.ErrModel, gatewayKey, context.Canceled)
	red := r.Error(wrapped)
	if strings.Contains(red.Error(), gatewayKey) || !errors.Is(red, context.Canceled) || !errors.Is(red, model.ErrModel) {
		t.Fatalf("redacted = %v (Is canceled %v)", red, errors.Is(red, context.Canceled))
	}
	inner := fmt.Errorf("outer %s: %w", gatewayKey, pe)
	if !errors.As(r.Error(inner), &gotPE) || strings.Contains(gotPE.Message, gatewayKey) {
		t.Fatalf("As through a wrapper = %#v", gotPE)
	}
	for _, s := range []string{fmt.Sprintf("%v", red), fmt.Sprintf("%+v", red), fmt.Sprintf("%#v", got)} {
		if strings.Contains(s, gatewayKey) {
			t.Errorf("formatted error carries the key: %s", s)
		}
	}
	plain := errors.New("nothing secret")
	if r.Error(plain) != plain || r.Error(nil) != nil {
		t.Error("an error with nothing to mask must come back as is")
	}
}

func TestCredentialHeaderValues(t *testing.T) {
	got := model.CredentialHeaderValues(map[string]string{"Authorization": "Bearer a", "X-Api-Key": "b", "X-Trace": "c", "X-Auth-Token": "d"})
	if len(got) != 3 {
		t.Fatalf("got %v", got)
	}
}
