package conformance

// The keywords the subset took over from the full engine (patternProperties, propertyNames,
// contains, dependentSchemas, unevaluatedProperties, unevaluatedItems, $dynamicRef) over megabytes of arguments: the subset validates them, and a
// refusal allocates in proportion to the arguments, at most 20 bytes per byte.

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpvalidate/mcpvalidate/guard"
	"github.com/mcpvalidate/mcpvalidate/guard/testsuite"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// issueSchema is issue 10's own example, once sent to the full engine by patternProperties.
const issueSchema = `{"type":"object","required":["q"],"patternProperties":{"^z":{}}}`

// keywordShape is a schema using the keywords, with arguments of about size bytes that it
// refuses, and others it accepts.
type keywordShape struct {
	name          string
	schema        string
	refused, good func(size int) string
}

// membersOf returns an object of about size bytes whose members are named and valued by
// member for i = 0, 1, ...
func membersOf(size int, member func(i int) string) string {
	var b strings.Builder
	b.WriteString("{")
	for i := 0; b.Len() < size; i++ {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(member(i))
	}
	return b.String() + "}"
}

// letters writes i in base 26 with the letters a to z.
func letters(i int) string {
	s := string(rune('a' + i%26))
	for i /= 26; i > 0; i /= 26 {
		s = string(rune('a'+i%26)) + s
	}
	return s
}

// wideAllOf is an array of objects under unevaluatedProperties false and an allOf of n
// branches, branch i declaring the member p<i>.
func wideAllOf(n int) string {
	branches := make([]string, n)
	for i := range branches {
		branches[i] = `{"properties":{"p` + strconv.Itoa(i) + `":{}}}`
	}
	return `{"type":"array","items":{"allOf":[` + strings.Join(branches, ",") + `],"unevaluatedProperties":false}}`
}

// nestA wraps inner in levels objects, each with one member named by n letters a.
func nestA(levels, n int, inner string) string {
	return strings.Repeat(`{"`+strings.Repeat("a", n)+`":`, levels) + inner + strings.Repeat("}", levels)
}

// arraysOf returns arrays of 10 arrays of 100 zeros, about size bytes in all; last is the
// last item of the last innermost array.
func arraysOf(size int, last string) string {
	inner := "[" + strings.Repeat("0,", 99) + "0]"
	group := "[" + strings.Repeat(inner+",", 9) + inner + "]"
	n := max(1, size/len(group))
	return "[" + strings.Repeat(group+",", n-1) + strings.TrimSuffix(group, "0]]") + last + "]]]"
}

func keywordShapes() []keywordShape {
	return []keywordShape{
		// One long name over many values: the issue's case.
		{"issue-long-name", issueSchema,
			func(n int) string { return `{"` + strings.Repeat("a", n/2) + `":` + zeros(n/8) + `}` },
			func(n int) string { return `{"q":1,"` + strings.Repeat("z", n/2) + `":` + zeros(n/8) + `}` }},
		// Every member matched by two patterns, and refused by one.
		{"patternProperties", `{"properties":{"id":{"type":"string"}},"patternProperties":{"^m":{"type":"integer"},"[0-9]$":{"minimum":0}},"additionalProperties":false}`,
			func(n int) string { return membersOf(n, func(i int) string { return `"m` + strconv.Itoa(i) + `":-1` }) },
			func(n int) string { return membersOf(n, func(i int) string { return `"m` + strconv.Itoa(i) + `":1` }) }},
		{"propertyNames", `{"propertyNames":{"pattern":"^[a-z]+$","maxLength":12}}`,
			func(n int) string { return membersOf(n, func(i int) string { return `"m` + strconv.Itoa(i) + `":0` }) },
			func(n int) string { return membersOf(n, func(i int) string { return `"` + letters(i) + `":0` }) }},
		{"propertyNames-anyOf", `{"propertyNames":{"anyOf":[{"maxLength":1},{"pattern":"^m"}]},"additionalProperties":{"type":"integer"}}`,
			func(n int) string { return membersOf(n, func(i int) string { return `"n` + strconv.Itoa(i) + `":0` }) },
			func(n int) string { return membersOf(n, func(i int) string { return `"m` + strconv.Itoa(i) + `":0` }) }},
		{"contains", `{"contains":{"type":"string"}}`,
			func(n int) string { return zeros(n / 2) },
			func(n int) string { return strings.TrimSuffix(zeros(n/2), "]") + `,"x"]` }},
		{"contains-bounds", `{"contains":{"type":"integer"},"minContains":3,"maxContains":2000000000}`,
			func(n int) string { return "[" + strings.TrimSuffix(strings.Repeat(`"a",`, n/4), ",") + "]" },
			func(n int) string { return zeros(n / 2) }},
		{"nested-contains", `{"contains":{"contains":{"contains":{"type":"string"}}}}`,
			func(n int) string { return arraysOf(n, "0") },
			func(n int) string { return arraysOf(n, `"x"`) }},
		{"dependentSchemas", `{"dependentSchemas":{"m0":{"properties":{"m1":{"type":"integer"}}},"m1":{"additionalProperties":{"type":"integer"}}}}`,
			func(n int) string {
				return membersOf(n, func(i int) string { return `"m` + strconv.Itoa(i) + `":"s"` })
			},
			func(n int) string { return membersOf(n, func(i int) string { return `"m` + strconv.Itoa(i) + `":1` }) }},
		// Members evaluated by a property, by an allOf branch's pattern, or by neither.
		{"unevaluatedProperties", `{"properties":{"id":{"type":"string"}},"allOf":[{"patternProperties":{"^m":{"type":"integer"}}}],"unevaluatedProperties":false}`,
			func(n int) string { return membersOf(n, func(i int) string { return `"n` + strconv.Itoa(i) + `":0` }) },
			func(n int) string { return membersOf(n, func(i int) string { return `"m` + strconv.Itoa(i) + `":1` }) }},
		// The alternative that holds decides what is evaluated: the first never holds here.
		{"unevaluatedProperties-anyOf", `{"anyOf":[{"required":["a"],"properties":{"a":{}}},{"patternProperties":{"^m":{}}}],"unevaluatedProperties":{"type":"string"}}`,
			func(n int) string { return membersOf(n, func(i int) string { return `"x` + strconv.Itoa(i) + `":0` }) },
			func(n int) string {
				return membersOf(n, func(i int) string { return `"x` + strconv.Itoa(i) + `":"s"` })
			}},
		// Items evaluated by prefixItems, by contains, or by neither.
		{"unevaluatedItems", `{"prefixItems":[{"type":"integer"}],"contains":{"type":"string"},"unevaluatedItems":{"type":"integer"}}`,
			func(n int) string { return "[0," + strings.Repeat("true,", n/5) + `"x"]` },
			func(n int) string { return "[0," + strings.Repeat(`"a",1,`, n/6) + `"x"]` }},
		// A tree closed by the schema that extends it, through $dynamicRef: every node is
		// checked against the extension's unevaluatedProperties.
		{"dynamicRef-tree", `{"$id":"https://example.com/strict-tree","$dynamicAnchor":"node","$ref":"tree","unevaluatedProperties":false,"$defs":{"tree":{"$id":"tree","$dynamicAnchor":"node","type":"object","properties":{"data":true,"children":{"type":"array","items":{"$dynamicRef":"#node"}}}}}}`,
			func(n int) string { return `{"children":[` + strings.Repeat(`{"data":0,"x":0},`, n/17) + `{}]}` },
			func(n int) string { return `{"children":[` + strings.Repeat(`{"data":0},`, n/11) + `{"children":[]}]}` }},
		// unevaluatedProperties over 20 allOf branches, each declaring one member: each
		// schema is gathered once per object, however many there are.
		{"unevaluated-wide-allOf", wideAllOf(20),
			func(n int) string { return "[" + strings.Repeat(`{"x":0},`, n/8) + "{}]" },
			func(n int) string { return "[" + strings.Repeat(`{"p7":0},`, n/9) + "{}]" }},
		// A tagged union the quick pass tells apart by its tag, read after a scalar member:
		// valid, it is one pass; refused, every leaf is explained.
		{"tagged-union", `{"$defs":{"n":{"oneOf":[{"type":"object","properties":{"kind":{"const":"leaf"},"v":{"type":"string"}},"required":["kind"],"additionalProperties":false},{"type":"object","properties":{"kind":{"const":"group"},"c":{"type":"array","items":{"$ref":"#/$defs/n"}}},"required":["kind"],"additionalProperties":false}]}},"$ref":"#/$defs/n"}`,
			func(n int) string {
				return `{"kind":"group","c":[` + strings.Repeat(`{"v":1,"kind":"leaf"},`, n/22) + `{"kind":"leaf"}]}`
			},
			func(n int) string {
				return `{"kind":"group","c":[` + strings.Repeat(`{"v":"x","kind":"leaf"},`, n/24) + `{"kind":"leaf"}]}`
			}},
		// unevaluatedProperties at every level of a recursive schema, under long names.
		{"unevaluated-recursive", `{"$defs":{"n":{"type":"object","patternProperties":{"^a":{"$ref":"#/$defs/n"},"^b":{"type":"array","items":{"type":"string"}}},"unevaluatedProperties":false}},"$ref":"#/$defs/n"}`,
			func(n int) string { return nestA(60, n/240, `{"b":`+zeros(n/4)+`}`) },
			func(n int) string {
				return nestA(60, n/240, `{"b":[`+strings.TrimSuffix(strings.Repeat(`"s",`, n/16), ",")+`]}`)
			}},
	}
}

// TestHostileKeywordsMemory: the subset validates every shape; a refusal allocates at most
// 20 bytes per byte of arguments at 64 KB and 1 MB, and 1.5 times as much per byte at most
// for 16 times the arguments. The issue's own case, a name of 50,000 characters over an
// array of 10,000 zeros, is refused within the same bound.
func TestHostileKeywordsMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("full tier: runs without -short")
	}
	issue := []byte(`{"` + strings.Repeat("a", 50000) + `":` + zeros(10000) + `}`)
	if vs := mustCompile(t, issueSchema).Validate(issue); len(vs) != 1 || vs[0].Kind != guard.KindRequired {
		t.Fatalf("the issue's case: got %s, want q missing", describe(vs))
	}
	if n := coldAllocation(t, issueSchema, issue); float64(n) > 20*float64(len(issue)) {
		t.Errorf("the issue's case: %d bytes of arguments allocate %d bytes, %.1f per byte", len(issue), n, float64(n)/float64(len(issue)))
	}
	for _, sh := range keywordShapes() {
		t.Run(sh.name, func(t *testing.T) {
			v := mustCompile(t, sh.schema)
			var perByte [2]float64
			for i, size := range []int{64 << 10, 1 << 20 / hostileScale} {
				refused, good := []byte(sh.refused(size)), []byte(sh.good(size))
				var vs []guard.Violation
				finishes(t, "Validate", func() { vs = v.Validate(refused) })
				if vs == nil {
					t.Fatalf("%d bytes: the refused arguments pass", len(refused))
				}
				if vs := v.Validate(good); vs != nil {
					t.Fatalf("%d bytes: the good arguments are refused: %s", len(good), describe(vs[:min(len(vs), 3)]))
				}
				n := coldAllocation(t, sh.schema, refused)
				perByte[i] = float64(n) / float64(len(refused))
				if perByte[i] > 20 {
					t.Fatalf("%d bytes of arguments: %d bytes allocated, %.1f per byte", len(refused), n, perByte[i])
				}
			}
			if perByte[1] > 1.5*perByte[0]+1 {
				t.Errorf("bytes allocated per byte of arguments grow from %.1f to %.1f for 16 times the arguments", perByte[0], perByte[1])
			}
			t.Logf("%.2f and %.2f bytes allocated per byte of a refusal", perByte[0], perByte[1])
		})
	}
}

// BenchmarkHostileKeywordsSlope shows time and memory against the size of the arguments,
// 1 KB, 64 KB and 1 MB, for each shape, refused and accepted. ns/B should stay flat.
func BenchmarkHostileKeywordsSlope(b *testing.B) {
	for _, sh := range keywordShapes() {
		v := mustCompile(b, sh.schema)
		for _, valid := range []bool{false, true} {
			verdict, args := "refused", sh.refused
			if valid {
				verdict, args = "valid", sh.good
			}
			for _, size := range []int{1 << 10, 64 << 10, 1 << 20} {
				a := []byte(args(size))
				b.Run(fmt.Sprintf("%s/%s/%s", sh.name, verdict, sizeName(size)), func(b *testing.B) {
					b.ReportAllocs()
					for b.Loop() {
						if got := v.Validate(a) == nil; got != valid {
							b.Fatalf("valid=%v, want %v", got, valid)
						}
					}
					b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(a)), "ns/B")
					b.ReportMetric(float64(testing.AllocsPerRun(1, func() { v.Validate(a) })), "allocs/call")
				})
			}
		}
	}
}

// BenchmarkKeywordsCompare measures the subset and santhosh-tekuri/jsonschema, on a value
// it decoded beforehand, on each shape's arguments of 1 KB and 64 KB, accepted and refused.
func BenchmarkKeywordsCompare(b *testing.B) {
	for _, sh := range keywordShapes() {
		ours := mustCompile(b, sh.schema)
		oracle, err := compileOracle(testsuite.Group{Schema: []byte(sh.schema)})
		if err != nil {
			b.Fatal(err)
		}
		for _, valid := range []bool{true, false} {
			verdict, args := "refused", sh.refused
			if valid {
				verdict, args = "valid", sh.good
			}
			for _, size := range []int{1 << 10, 64 << 10} {
				a := []byte(args(size))
				exact, err := jsonschema.UnmarshalJSON(bytes.NewReader(a))
				if err != nil {
					b.Fatal(err)
				}
				for _, e := range []struct {
					name  string
					valid func() bool
				}{
					{"subset", func() bool { return ours.Validate(a) == nil }},
					{"santhosh", func() bool { return oracle.Validate(exact) == nil }},
				} {
					b.Run(fmt.Sprintf("%s/%s/%s/%s", sh.name, verdict, sizeName(size), e.name), func(b *testing.B) {
						if got := e.valid(); got != valid {
							b.Fatalf("valid=%v, want %v", got, valid)
						}
						b.SetBytes(int64(len(a)))
						b.ReportAllocs()
						for b.Loop() {
							e.valid()
						}
					})
				}
			}
		}
	}
}
