// Package jsonscan provides a bounds-checked cursor over JSON text
// (RFC 8259) that reads tokens in place, without decoding them into Go
// values and without allocating.
//
// It exists for speed. Tool-call arguments are checked (syntax, nesting
// depth, number length, UTF-8) and, for the common schema shapes, validated
// against their JSON Schema by walking the text once instead of decoding it
// for the full validator. On the tool registry's benchmark call that keeps
// one call at about 3 µs and 4 allocations; decoding and running the full
// validator alone costs 12–15 µs and 42 allocations (BenchmarkValidate in
// core/tool measures the pair). Before this package the argument checks and
// the schema fast path each kept a cursor of their own over the same text.
//
// A [Scanner] validates everything it reads, so it is safe on any input:
// malformed or truncated text records an error instead of panicking, and
// [Check] agrees with [encoding/json.Valid] when the [Limits] are zero.
package jsonscan
