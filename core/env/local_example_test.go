package env_test

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/starweaver-go/starweaver/core/env"
)

func ExampleNewLocal() {
	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	p, err := env.NewLocal(dir, env.LocalOptions{})
	if err != nil {
		panic(err)
	}
	defer p.Close()
	ctx := context.Background()
	_ = p.WriteFile(ctx, "notes/todo.txt", []byte("ship it"), env.WriteOptions{Parents: true})
	b, _ := p.ReadFile(ctx, "notes/todo.txt", 0, -1)
	fmt.Println(string(b))
	_, err = p.ReadFile(ctx, "../etc/passwd", 0, -1)
	fmt.Println(errors.Is(err, env.ErrInvalidRequest))
	// Output:
	// ship it
	// true
}
