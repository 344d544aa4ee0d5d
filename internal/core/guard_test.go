package core

import (
	"fmt"
	"strings"
	"testing"
)

// BenchmarkRefusalText: the cost of a refusal's text, validation aside: the weather tool's four
// violations, and the 20 violations (and a closing count) of 960 KB of arguments that
// nest 60 objects under 16,000-character names around an array of 30 numbers.
func BenchmarkRefusalText(b *testing.B) {
	g := New()
	seed, err := Compile([]byte(weatherSchema))
	if err != nil {
		b.Fatal(err)
	}
	deep, err := Compile([]byte(`{"type":["object","array"],"additionalProperties":{"$ref":"#"},"items":{"type":"string"}}`))
	if err != nil {
		b.Fatal(err)
	}
	var args strings.Builder
	for i := range 60 {
		fmt.Fprintf(&args, `{"%s":`, strings.Repeat(string(rune('a'+i%26)), 16_000))
	}
	args.WriteString("[" + strings.TrimSuffix(strings.Repeat("1,", 30), ",") + "]" + strings.Repeat("}", 60))
	for _, c := range []struct {
		name string
		vs   []Violation
	}{
		{"seed", seed.Validate([]byte(`{"days": 2.5, "units": "k", "x": 1}`))},
		{"960KB-nested", deep.Validate([]byte(args.String()))},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				g.render(c.vs)
			}
		})
	}
}
