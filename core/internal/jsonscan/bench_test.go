package jsonscan_test

import (
	"encoding/json"
	"testing"

	"github.com/starweaver-go/starweaver/core/internal/jsonscan"
)

// BenchmarkCheck compares one validating pass, limits included, with
// encoding/json.Valid, which checks the grammar alone.
func BenchmarkCheck(b *testing.B) {
	text := []byte(`{"query":"starweaver","limit":10,"tags":["a","b"],"nested":{"on":true,"ratio":0.5}}`)
	lim := jsonscan.Limits{MaxDepth: 128, MaxNumberLength: 4000, RequireUTF8: true}
	b.Run("jsonscan", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(text)))
		for b.Loop() {
			if err := jsonscan.Check(text, lim); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(text)))
		for b.Loop() {
			if !json.Valid(text) {
				b.Fatal("invalid")
			}
		}
	})
}
