package mcpvalidate

import "testing"

func BenchmarkFixedCost(b *testing.B) {
	v, _ := Compile([]byte(`{"type":"object"}`))
	args := []byte(`{}`)
	for b.Loop() {
		v.Validate(args)
	}
}
