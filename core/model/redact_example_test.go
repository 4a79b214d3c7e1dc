package model_test

import (
	"fmt"

	"github.com/starweaver-go/starweaver/core/model"
)

// A gateway quoted the key in its error body: the provider's Redactor
// masks it, and the credential shapes besides.
func ExampleRedactor() {
	r := model.NewRedactor("gw-Zk81QmP3vX7sT2nR")
	fmt.Println(r.String("key gw-Zk81QmP3vX7sT2nR rejected (Authorization: Bearer gw-Zk81QmP3vX7sT2nR)"))
	fmt.Println(r.String("Incorrect API key provided: sk-proj-ab***yz"))
	// Output:
	// key [REDACTED] rejected (Authorization: Bearer [REDACTED])
	// Incorrect API key provided: [REDACTED]
}

// The bounds a provider applies to each request: zero fields keep the
// defaults, negative ones remove the bound.
func ExampleHTTPBounds() {
	b := model.HTTPBounds{IdleTimeout: 30e9, MaxRetryAfter: -1}.Resolved()
	fmt.Println(b.ConnectTimeout, b.FirstByteTimeout, b.IdleTimeout, b.MaxRetryAfter)
	// Output: 10s 10m0s 30s 0s
}
