package conformance

// Applicators nested in applicators, over large arguments: time and memory grow with the
// arguments, and no failure is reported twice, however many passes find it.

import (
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpvalidate/mcpvalidate/guard"
)

// nestings are 20-level nests in which each level reaches the one below twice: naive
// evaluation checks the arguments 2^20 times.
var nestings = []struct{ name, tmpl string }{
	{"allOf", `{"allOf":[{"$ref":"#/$defs/a%d"},{"$ref":"#/$defs/a%d"}]}`},
	{"anyOf", `{"anyOf":[{"$ref":"#/$defs/a%d"},{"allOf":[{"$ref":"#/$defs/a%d"}]}]}`},
	{"dependentSchemas", `{"dependentSchemas":{"m0":{"$ref":"#/$defs/a%d"},"m1":{"$ref":"#/$defs/a%d"}}}`},
}

// nestingArgs is an object of about size bytes of plain members.
func nestingArgs(size int) []byte {
	b := []byte{'{'}
	for i := 0; len(b) < size; i++ {
		if i > 0 {
			b = append(b, ',')
		}
		b = fmt.Appendf(b, `"m%d":%d`, i, i)
	}
	return append(b, '}')
}

// nameTree is a recursive anyOf of two branches, both of which descend into every member.
const nameTree = `{"anyOf":[{"type":"object","additionalProperties":{"$ref":"#"},"required":["zz"]},{"type":"object","additionalProperties":{"$ref":"#"}}]}`

// longNames is objects nested 40 deep, each with one member whose name makes up a fortieth
// of size, around leaf: {} passes nameTree, 1 fails it at every level.
func longNames(size int, leaf string) []byte {
	name := `"` + strings.Repeat("n", size/40) + `":`
	return []byte(strings.Repeat("{"+name, 40) + leaf + strings.Repeat("}", 40))
}

type nestingCase struct {
	name   string
	schema string
	args   func(size int) []byte
}

// nestingCases are the nests, then the tree of long names, with arguments that pass them
// (valid) or fail them.
func nestingCases(valid bool) []nestingCase {
	verdict, leaf, bottom := "invalid", `{"type":"object","required":["zz"]}`, "1"
	if valid {
		verdict, leaf, bottom = "valid", `{"type":"object"}`, "{}"
	}
	var cases []nestingCase
	for _, n := range nestings {
		schema := strings.Replace(chainSchema(20, "#", n.tmpl), `{"type":"string"}`, leaf, 1)
		cases = append(cases, nestingCase{n.name + "-20/" + verdict, schema, nestingArgs})
	}
	return append(cases, nestingCase{"long-names/" + verdict, nameTree, func(size int) []byte { return longNames(size, bottom) }})
}

// coldAllocation returns the bytes the first validation of args under a freshly compiled
// schema allocates, with no pooled state to lean on.
func coldAllocation(t *testing.T, schema string, args []byte) uint64 {
	v := mustCompile(t, schema)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	finishes(t, "Validate", func() { v.Validate(args) })
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestHostileNestingMemory: a refusal through nested applicators, dependentSchemas among
// them, allocates in proportion to the arguments, from 16 KB to 64 KB and to 1 MB, and at
// most 20 bytes per byte of them: alternatives that lose leave nothing behind, and long
// member names are copied once.
func TestHostileNestingMemory(t *testing.T) {
	for _, c := range nestingCases(false) {
		t.Run(c.name, func(t *testing.T) {
			mustCompile(t, c.schema)
			var size int
			var bytes uint64
			for _, next := range []int{16 << 10, 64 << 10, 1 << 20} {
				args := c.args(next)
				n := coldAllocation(t, c.schema, args)
				if per := float64(n) / float64(len(args)); per > 20 {
					t.Fatalf("%d bytes of arguments: %d bytes allocated, %.1f per byte", len(args), n, per)
				}
				if size > 0 && float64(n) > 1.5*float64(bytes)*float64(len(args))/float64(size)+64<<10 {
					t.Fatalf("%d bytes of arguments allocate %d bytes, %d bytes %d: not linear", size, bytes, len(args), n)
				}
				size, bytes = len(args), n
			}
			t.Logf("%d bytes of arguments: %.2f bytes allocated per byte", size, float64(bytes)/float64(size))
		})
	}
}

// BenchmarkHostileNestingSlope shows time and memory against the size of the arguments,
// 1 KB to 1 MB, for 20-level allOf, anyOf and dependentSchemas nests over an object of
// plain members and for a recursive anyOf over names of a fortieth of the arguments each,
// on valid and invalid arguments. ns/B should stay flat.
func BenchmarkHostileNestingSlope(b *testing.B) {
	for _, valid := range []bool{true, false} {
		for _, c := range nestingCases(valid) {
			v := mustCompile(b, c.schema)
			for _, size := range []int{1 << 10, 16 << 10, 256 << 10, 1 << 20} {
				args := c.args(size)
				b.Run(fmt.Sprintf("%s/%dKB", c.name, size>>10), func(b *testing.B) {
					for b.Loop() {
						if got := v.Validate(args) == nil; got != valid {
							b.Fatalf("valid=%v, want %v", got, valid)
						}
					}
					b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(args)), "ns/B")
				})
			}
		}
	}
}

// duplicatedPaths returns, as JSON Pointers, the member names that repeat an earlier name
// of their object in the JSON text doc, each once, read with encoding/json alone.
func duplicatedPaths(t *testing.T, doc string) []string {
	dec := json.NewDecoder(strings.NewReader(doc))
	var out []string
	var walk func(ptr string)
	walk = func(ptr string) {
		tok, err := dec.Token()
		if err != nil {
			t.Fatalf("%s: %v", doc, err)
		}
		switch tok {
		case json.Delim('{'):
			seen := map[string]bool{}
			for dec.More() {
				k, _ := dec.Token()
				name := k.(string)
				p := ptr + "/" + strings.NewReplacer("~", "~0", "/", "~1").Replace(name)
				if seen[name] {
					out = append(out, p)
				}
				seen[name] = true
				walk(p)
			}
			dec.Token()
		case json.Delim('['):
			for i := 0; dec.More(); i++ {
				walk(ptr + "/" + strconv.Itoa(i))
			}
			dec.Token()
		}
	}
	walk("")
	if _, err := dec.Token(); err != io.EOF {
		t.Fatalf("%s: trailing data", doc)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// TestHostileNestingNoViolationTwice: whatever route finds a failure (passes over a value
// under several applicators, alternatives explained, a type refused after alternatives
// were tried), it is listed once, at its own path, and counted once: the violations
// listed with room for all, and the count behind a list of one, agree. Every duplicate
// member name is reported, once, where it is.
func TestHostileNestingNoViolationTwice(t *testing.T) {
	schemas := []string{
		`{"anyOf":[{"required":["x"]}]}`,
		`{"allOf":[{"required":["x"]},{"required":["y"]}]}`,
		`{"allOf":[{"$ref":"#/$defs/a"},{"$ref":"#/$defs/a"}],"$defs":{"a":{"allOf":[{"properties":{"x":{"$ref":"#/$defs/b"}}}]},"b":{"type":"object","required":["q"]}}}`,
		`{"oneOf":[{"properties":{"x":{"type":"object"}}},{"properties":{"x":{"type":"object"}}}]}`,
		`{"oneOf":[{"properties":{"k":{"const":1},"x":{"type":"string"}}},{"properties":{"k":{"const":2}},"required":["z"]}]}`,
		`{"not":{"required":["nope"]},"if":{"required":["x"]},"then":{"properties":{"x":{"type":"object"}}},"else":{"required":["x"]}}`,
		`{"anyOf":[{"type":"string"},{"type":"array"}]}`,
		`{"properties":{"x":{"anyOf":[{"type":"object","required":["q"]},{"type":"object","required":["r"]}]},"y":{"items":{"oneOf":[{"required":["c"]},{"required":["c"]}]}}}}`,
		`{"$ref":"#/$defs/n","$defs":{"n":{"anyOf":[{"additionalProperties":{"$ref":"#/$defs/n"},"required":["zz"]},{"additionalProperties":{"$ref":"#/$defs/n"},"minProperties":9}]}}}`,
		strings.Replace(chainSchema(20, "#", nestings[0].tmpl), `{"type":"string"}`, `{"required":["zz"]}`, 1),
		strings.Replace(chainSchema(20, "#", nestings[1].tmpl), `{"type":"string"}`, `{"required":["zz"]}`, 1),
		strings.Replace(chainSchema(20, "#", nestings[2].tmpl), `{"type":"string"}`, `{"required":["zz"]}`, 1),
		`{"properties":{"x":{"required":["q"]}},"patternProperties":{"^x":{"required":["r"]},"x$":{"$ref":"#/$defs/s"}},"$defs":{"s":{"required":["s"],"propertyNames":{"maxLength":1}}}}`,
		`{"propertyNames":{"anyOf":[{"maxLength":1},{"pattern":"^[xy]"}]},"additionalProperties":{"$ref":"#"}}`,
		`{"properties":{"y":{"items":{"required":["c"]},"contains":{"required":["c"]},"maxContains":0}}}`,
		`{"dependentSchemas":{"k":{"properties":{"x":{"required":["q"]}}},"x":{"properties":{"x":{"required":["q"]}},"required":["z"]}}}`,
	}
	args := []string{
		`{"x":1,"x":2}`,
		`{"k":1,"x":{"d":1,"d":2},"x":{"e":[{"f":1,"f":2}]}}`,
		`{"x":{"a":{"b":1,"b":2},"a":3},"y":[{"c":1,"c":1},{"c":2}],"k":2}`,
		`{"y":[{"c":{"g":{"h":1,"h":2}}}],"x":{"q":{"i":1,"i":2,"i":3}}}`,
		`{"k":2,"d":0,"d":1,"d":2,"d":3,"d":4,"d":5,"d":6,"d":7,"d":8,"d":9,"d":10,"d":11,"d":12,"d":13,"d":14,"d":15,"d":16,"d":17,"d":18,"d":19,"d":20,"d":21,"d":22,"d":23,"d":24}`,
	}
	for _, schema := range schemas {
		all := mustCompile(t, schema, guard.WithMaxViolations(1000))
		one := mustCompile(t, schema, guard.WithMaxViolations(1))
		for _, doc := range args {
			vs := all.Validate([]byte(doc))
			var dups []string
			for i, v := range vs {
				for _, w := range vs[:i] {
					if reflect.DeepEqual(v, w) {
						t.Errorf("schema %.80s, args %s: %q is listed twice", schema, doc, guard.DefaultFormat(v))
					}
				}
				if v.Kind == guard.KindDuplicate {
					dups = append(dups, v.Path.Pointer())
				}
			}
			slices.Sort(dups)
			if want := duplicatedPaths(t, doc); !slices.Equal(dups, want) {
				t.Errorf("schema %.80s, args %s: duplicates reported at %q, want %q", schema, doc, dups, want)
			}
			first := one.Validate([]byte(doc))
			counted := len(first)
			if n := len(first); n > 0 && first[n-1].Kind == guard.KindTruncated {
				counted = n - 1 + first[n-1].Count
			}
			if counted != len(vs) {
				t.Errorf("schema %.80s, args %s: %d violations listed, but %d counted behind a list of one: %s",
					schema, doc, len(vs), counted, describe(vs))
			}
		}
	}
}
