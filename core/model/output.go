package model

// Output modes: how a model is asked for a structured final answer.
const (
	// OutputTool: the answer is the arguments of a call of the output tool,
	// whose definition is among Params.Tools (named Output.Name). Every
	// model that calls tools supports it.
	OutputTool = "tool"
	// OutputNative: the provider's own JSON-schema response format; the
	// answer is the response text. Providers without one fail the request.
	OutputNative = "native"
)

// Output asks for a structured final answer matching Schema.
type Output struct {
	Mode        string         `json:"mode"`
	Name        string         `json:"name"`
	Description string         `json:"description,omitempty"`
	Schema      map[string]any `json:"schema"`
	Strict      bool           `json:"strict,omitempty"`
}
