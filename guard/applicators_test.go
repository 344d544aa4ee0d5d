package guard

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpvalidate/mcpvalidate/guard/testsuite"
)

// nest returns a schema of levels applicators, each applying the one below it through
// tmpl, in which %[1]s stands for the reference to that one, down to leaf.
func nest(levels int, leaf, tmpl string) string {
	var b strings.Builder
	fmt.Fprintf(&b, `{"$ref":"#/$defs/a%d","$defs":{"a0":%s`, levels, leaf)
	for i := 1; i <= levels; i++ {
		fmt.Fprintf(&b, `,"a%d":`, i)
		fmt.Fprintf(&b, tmpl, "#/$defs/a"+strconv.Itoa(i-1))
	}
	b.WriteString(`}}`)
	return b.String()
}

// nestings are nests of every applicator in which each level reaches the one below twice,
// so that naive evaluation of 20 levels checks the arguments 2^20 times.
var nestings = []struct{ name, tmpl string }{
	{"allOf", `{"allOf":[{"$ref":"%[1]s"},{"$ref":"%[1]s"}]}`},
	{"anyOf", `{"anyOf":[{"$ref":"%[1]s"},{"allOf":[{"$ref":"%[1]s"}]}]}`},
	{"oneOf", `{"oneOf":[{"$ref":"%[1]s"},{"allOf":[{"$ref":"%[1]s"},{"type":"null"}]}]}`},
	{"not", `{"not":{"not":{"$ref":"%[1]s"}},"allOf":[{"$ref":"%[1]s"}]}`},
	{"if-then-else", `{"if":{"$ref":"%[1]s"},"then":{"$ref":"%[1]s"},"else":{"$ref":"%[1]s"}}`},
	{"$ref", `{"$ref":"%[1]s","allOf":[{"$ref":"%[1]s"}],"dependentRequired":{"m0":["m1"]}}`},
	{"dependentSchemas", `{"dependentSchemas":{"m0":{"$ref":"%[1]s"},"m1":{"$ref":"%[1]s"}}}`},
}

// members returns an object of about size bytes of plain members.
func members(size int) []byte {
	b := []byte{'{'}
	for i := 0; len(b) < size; i++ {
		if i > 0 {
			b = append(b, ',')
		}
		b = fmt.Appendf(b, `"m%d":%d`, i, i)
	}
	return append(b, '}')
}

// longNames returns objects nested 40 deep, each with one member whose name makes up a
// fortieth of size, around leaf.
func longNames(size int, leaf string) []byte {
	name := `"` + strings.Repeat("n", size/40) + `":`
	return []byte(strings.Repeat("{"+name, 40) + leaf + strings.Repeat("}", 40))
}

// spine returns objects nested 500 deep through member "a" around an array of small
// objects, of about size bytes in all.
func spine(size int) []byte {
	b := []byte(strings.Repeat(`{"a":`, 500) + "[")
	for i := 0; len(b) < size; i++ {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"x":1}`...)
	}
	return append(append(b, ']'), strings.Repeat("}", 500)...)
}

// arrays returns arrays nested 500 deep around an array of zeros, of about size bytes in
// all.
func arrays(size int) []byte {
	b := []byte(strings.Repeat("[", 501))
	for i := 0; len(b) < size; i++ {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '0')
	}
	return append(b, strings.Repeat("]", 501)...)
}

type workCase struct {
	name   string
	schema string
	args   func(size int) []byte
}

func workCases() []workCase {
	var cases []workCase
	for _, n := range nestings {
		for _, leaf := range []struct{ name, schema string }{
			{"valid", `{"type":"object"}`},
			{"invalid", `{"type":"object","required":["zz"]}`},
		} {
			cases = append(cases, workCase{n.name + "/" + leaf.name, nest(20, leaf.schema, n.tmpl), members})
		}
	}
	tree := `{"anyOf":[{"type":"object","additionalProperties":{"$ref":"#"},"required":["zz"]},{"type":"object","additionalProperties":{"$ref":"#"}}]}`
	return append(cases,
		workCase{"long-names/valid", tree, func(size int) []byte { return longNames(size, "{}") }},
		workCase{"long-names/invalid", tree, func(size int) []byte { return longNames(size, "1") }},
		// Each level applies a chain that goes down the whole spine, or scans it for syntax.
		workCase{"spine/chain", `{"allOf":[{"$ref":"#/$defs/p"}],"properties":{"a":{"$ref":"#"}},"$defs":{"p":{"properties":{"a":{"$ref":"#/$defs/p"}}}}}`, spine},
		workCase{"spine/scan", `{"allOf":[{"properties":{"a":true}}],"properties":{"a":{"$ref":"#"}}}`, spine},
		workCase{"spine/alternatives", `{"anyOf":[{"type":"object","properties":{"a":{"$ref":"#"}},"required":["zz"]},{"type":"array","items":{"$ref":"#"}},{"type":"object","properties":{"a":{"$ref":"#"},"x":{"type":"string"}}}]}`, spine},
		// A member's value checked against its property's schema and two patterns'.
		workCase{"spine/patterns", `{"properties":{"a":{"$ref":"#"}},"patternProperties":{"a":{"$ref":"#"},"^a$":{"$ref":"#"}},"items":{"required":["zz"]}}`, spine},
		workCase{"spine/names", `{"propertyNames":{"$ref":"#/$defs/n"},"additionalProperties":{"$ref":"#"},"$defs":{"n":{"anyOf":[{"maxLength":0},{"pattern":"^[b-z]"}]}}}`, spine},
		// Every member matched by two patterns and its name checked through anyOf.
		workCase{"members/patterns-and-names", `{"patternProperties":{"^m":{"type":"integer"},"[0-9]$":{"minimum":5}},"propertyNames":{"anyOf":[{"maxLength":1},{"pattern":"^m"}]}}`, members},
		// Each level's one item checked against items and contains, both the whole schema.
		workCase{"arrays/contains", `{"items":{"$ref":"#"},"contains":{"$ref":"#"}}`, arrays},
		workCase{"arrays/contains-invalid", `{"items":{"$ref":"#"},"contains":{"$ref":"#","type":"array"}}`, arrays},
		workCase{"arrays/max-contains", `{"items":{"$ref":"#"},"contains":{"$ref":"#"},"minContains":0,"maxContains":0}`, arrays},
	)
}

// work returns the bytes the explaining pass scans, and the jumps it makes, over args.
func work(v *Validator, args []byte) int {
	s := v.state(args)
	s.root()
	n := s.work()
	s.result()
	v.release(s)
	return n
}

// TestApplicatorWorkIsLinear: however applicators nest, however deep the arguments, and
// whether they are valid or not, a call scans each byte a bounded number of times. From
// 16 KB to 64 KB and to 1 MB (256 KB under the race detector), the bytes scanned and jumps
// made grow as the arguments do, and stay within a few dozen per byte.
func TestApplicatorWorkIsLinear(t *testing.T) {
	if testing.Short() {
		t.Skip("full tier: runs without -short")
	}
	const perByte = 64
	for _, c := range workCases() {
		t.Run(c.name, func(t *testing.T) {
			v, err := Compile([]byte(c.schema), WithMaxDepth(1000))
			if err != nil {
				t.Fatal(err)
			}
			var size, scanned int
			for _, next := range []int{16 << 10, 64 << 10, largest} {
				args := c.args(next)
				n := work(v, args)
				if per := float64(n) / float64(len(args)); per > perByte {
					t.Fatalf("%d bytes of arguments: %d bytes scanned and jumps, %.1f per byte", len(args), n, per)
				}
				if size > 0 && float64(n)/float64(scanned) > 1.5*float64(len(args))/float64(size) {
					t.Fatalf("%d bytes of arguments take %d bytes scanned and jumps, %d bytes %d: not linear", size, scanned, len(args), n)
				}
				size, scanned = len(args), n
			}
			t.Logf("%d bytes of arguments: %.1f bytes scanned and jumps per byte", size, float64(scanned)/float64(size))
		})
	}
}

// checkRemembering is check with every result remembered from the start.
func (v *Validator) checkRemembering(args []byte) []Violation {
	s := v.state(args)
	s.remember = true
	s.root()
	out := s.result()
	v.release(s)
	return out
}

// TestRememberingChangesNothing: remembering results is only a shortcut. Over every case
// of the conformance corpora, and nests of every applicator over arguments with and
// without duplicate names, checking with every result remembered from the start gives
// the same violations as checking without.
func TestRememberingChangesNothing(t *testing.T) {
	groups := corpusGroups(t, func(*Validator) bool { return true })
	for _, n := range nestings {
		for _, leaf := range []string{`{"type":"object","required":["zz"]}`, `{"properties":{"m1":{"type":"string"}}}`} {
			v, err := Compile([]byte(nest(6, leaf, n.tmpl)))
			if err != nil {
				t.Fatal(err)
			}
			g := quickGroup{name: n.name + " over " + leaf, v: v}
			for _, args := range []string{`{}`, `{"m0":1,"m1":2}`, `{"m1":"x","m1":"y","m0":[{"a":1,"a":2}]}`, `[1]`} {
				g.tests = append(g.tests, testsuite.Test{Description: args, Data: []byte(args)})
			}
			groups = append(groups, g)
		}
	}
	checked := 0
	for _, g := range groups {
		for _, tc := range g.tests {
			want, got := g.v.violations(tc.Data), g.v.checkRemembering(tc.Data)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s / %s:\nremembering %q\n    without %q", g.name, tc.Description, Messages(got, nil), Messages(want, nil))
			}
			checked++
		}
	}
	t.Logf("%d cases", checked)
}
