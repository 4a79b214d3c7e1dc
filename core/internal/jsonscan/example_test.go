package jsonscan_test

import (
	"fmt"

	"github.com/starweaver-go/starweaver/core/internal/jsonscan"
)

// A caller walks the text in its shape and checks for problems once.
func Example() {
	s := jsonscan.New([]byte(`{"query": "go", "limit": 10, "tags": ["a", "b"]}`), jsonscan.Limits{MaxDepth: 128})
	s.BeginObject()
	for {
		key, _, ok := s.NextKey()
		if !ok {
			break
		}
		switch s.Peek() {
		case jsonscan.Number:
			fmt.Printf("%s = %s\n", key, s.Number())
		default:
			fmt.Printf("%s: %v\n", key, s.Peek())
			s.Skip()
		}
	}
	fmt.Println("valid:", s.End())

	fmt.Println(jsonscan.Check([]byte(`[[[]]]`), jsonscan.Limits{MaxDepth: 2}))
	// Output:
	// query: string
	// limit = 10
	// tags: array
	// valid: true
	// jsonscan: arrays and objects nest too deeply at offset 2
}
