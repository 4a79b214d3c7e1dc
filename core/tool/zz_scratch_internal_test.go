package tool

import (
	"context"
	"encoding/json"
	"testing"
)

var sink any

func BenchmarkZDecode(b *testing.B) {
	raw := json.RawMessage(`{"query":"starweaver","limit":10}`)
	b.ReportAllocs()
	for b.Loop() {
		m, _, _ := decodeArguments(raw)
		sink = m
	}
}
func BenchmarkZValid(b *testing.B) {
	raw := json.RawMessage(`{"query":"starweaver","limit":10}`)
	for b.Loop() {
		sink = json.Valid(raw)
	}
}
func BenchmarkZGoroutine(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		ch := make(chan int, 1)
		go func() { ch <- 1 }()
		<-ch
	}
}
func BenchmarkZAttempt(b *testing.B) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	f := New("t", "", nil, func(context.Context, *Context, json.RawMessage) (Result, error) { return Result{Content: "ok"}, nil })
	tc := &Context{}
	b.ReportAllocs()
	for b.Loop() {
		attemptCall(ctx, f, tc, nil, 0)
	}
}
func BenchmarkZMap(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		m := map[string]any{}
		m["query"] = "x"
		m["limit"] = json.Number("10")
		sink = m
	}
}
