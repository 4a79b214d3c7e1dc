// Package jsonscan provides a bounds-checked cursor over JSON text
// (RFC 8259) that reads tokens in place, without decoding them into Go
// values and without allocating.
//
// It exists for speed. Tool-call arguments are checked (syntax, nesting
// depth, number length, UTF-8) and, for the common schema shapes, validated
// against their JSON Schema by walking the text in place instead of
// decoding it for the full validator. Measured side by side on the tool
// registry's benchmark arguments (BenchmarkValidate in core/tool), the walk
// takes about 0.3 µs with no allocation, decoding plus the full validator
// alone about 8 µs and 38 allocations; a whole call through the registry
// (BenchmarkExecute) stays near 3.5 µs and 4 allocations. Check alone
// (BenchmarkCheck) is faster than encoding/json.Valid, which checks no
// limits. Before this package the argument checks, the argument parser and
// the schema fast path each kept a cursor of their own over the same text.
//
// A [Scanner] validates everything it reads, so it is safe on any input:
// malformed or truncated text records an error instead of panicking, and
// [Check] agrees with [encoding/json.Valid] when the [Limits] are zero.
package jsonscan
