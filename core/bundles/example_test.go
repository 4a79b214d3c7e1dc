package bundles_test

import (
	"fmt"

	"github.com/starweaver-go/starweaver/core/bundles"
)

func ExampleNew() {
	ts, err := bundles.New("user_input", bundles.Options{})
	fmt.Println(ts.Name(), err)
	_, err = bundles.New("browser", bundles.Options{})
	fmt.Println(err)
	// Output:
	// user_input <nil>
	// unknown toolset bundle "browser"
}

func ExampleCore() {
	for _, ts := range bundles.Core() {
		fmt.Println(ts.Name())
	}
	fmt.Println(bundles.UserInput().Name())
	// Output:
	// filesystem
	// shell
	// user_input
}
