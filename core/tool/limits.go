package tool

// Limits on the arguments of one call. Arguments beyond them are refused as
// invalid_arguments before any tool code, hook or validator sees them, so a
// model (or an attacker steering one) cannot hand a tool's host a value it
// cannot decode: Python's JSON reader recurses once per nesting level and
// refuses integers of more than 4 300 digits. The same limits decide what
// history keeps of a call's arguments (ArgumentsForHistory), so that a
// model's reply can never make history unreadable.
const (
	// MaxArgumentBytes bounds the size of a call's arguments text.
	MaxArgumentBytes = 16 << 20
	// MaxArgumentDepth bounds how deeply arrays and objects nest.
	MaxArgumentDepth = 128
	// MaxNumberLength bounds the length of one number literal.
	MaxNumberLength = 4000
	// MaxRefusedArgumentsText bounds how much of refused arguments text
	// history keeps (see ArgumentsForHistory).
	MaxRefusedArgumentsText = 64 << 10
)
