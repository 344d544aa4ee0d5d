package fullengine_test

import (
	"fmt"

	"github.com/mcpvalidate/mcpvalidate/guard"
	_ "github.com/mcpvalidate/mcpvalidate/guard/fullengine"
)

// The full engine gives the violations the subset gives, in the same order.
func Example() {
	schema := []byte(`{"type":"object","properties":{"days":{"type":"integer","maximum":14}},"required":["city"]}`)
	for _, opts := range [][]guard.CompileOption{nil, {guard.WithFullEngine()}} {
		v, err := guard.Compile(schema, opts...)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(guard.Messages(v.Validate([]byte(`{"days":30}`)), guard.DefaultFormat))
	}
	// Output:
	// [missing required property 'city' property 'days' must be at most 14]
	// [missing required property 'city' property 'days' must be at most 14]
}
