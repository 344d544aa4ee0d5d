package guard_test

import (
	"fmt"

	"github.com/mcpvalidate/mcpvalidate/guard"
)

func ExampleCompile() {
	v, err := guard.Compile([]byte(`{
		"type": "object",
		"properties": {
			"location": {"type": "string"},
			"days": {"type": "integer"},
			"units": {"type": "string", "enum": ["c", "f"]}
		},
		"required": ["location"],
		"additionalProperties": false
	}`))
	if err != nil {
		panic(err)
	}
	for _, msg := range guard.Messages(v.Validate([]byte(`{"days": 2.5, "units": "k", "x": 1}`)), nil) {
		fmt.Println(msg)
	}
	fmt.Println(v.Validate([]byte(`{"location": "Paris", "days": 2}`)) == nil)
	// Output:
	// missing required property 'location'
	// property 'days' must be integer
	// property 'units' must be one of ['c', 'f']
	// unexpected property 'x'
	// true
}

func ExampleDetailedFormat() {
	v, _ := guard.Compile([]byte(`{"type":"object","additionalProperties":false,"required":["location"],
		"properties":{"location":{"type":"string"},"days":{"type":"integer"},"units":{"enum":["celsius","fahrenheit"]}}}`),
		guard.WithHints())
	vs := v.Validate([]byte(`{"loction": "Paris", "days": "3", "units": "Celsius"}`))
	for _, msg := range guard.Messages(vs, guard.DetailedFormat) {
		fmt.Println(msg)
	}
	// Output:
	// missing required property 'location'
	// unexpected property 'loction' (did you mean 'location'?)
	// property 'days' must be integer, not string
	// property 'units' must be one of ['celsius', 'fahrenheit'] (did you mean 'celsius'?)
}
