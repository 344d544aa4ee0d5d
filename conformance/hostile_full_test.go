package conformance

// Hostile input for what the full engine does (WithFullEngine): refusals with long member
// names, deep paths and many failing values; the format checks both engines share;
// references through the schema's own $id. The engine's own error tree costs what it costs
// (a few hundred bytes per failing value, plus 16 bytes per level of its path); what
// mcpvalidate adds to turn it into ordered violations must stay linear in the size of the
// arguments and within the engine's own cost. By default the subset validates the same
// schemas, within 20 bytes per byte. Memory goals are assertions, time goals benchmarks.

import (
	"encoding/json"
	"errors"
	"maps"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpvalidate/mcpvalidate"
	"github.com/mcpvalidate/mcpvalidate/guard"
	"github.com/mcpvalidate/mcpvalidate/guard/testsuite"
)

// allocated returns the heap bytes one call of fn allocates, averaged over runs calls after
// a first one.
func allocated(fn func(), runs int) uint64 {
	fn()
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range runs {
		fn()
	}
	runtime.ReadMemStats(&after)
	return (after.TotalAlloc - before.TotalAlloc) / uint64(runs)
}

// sizeName writes a size as 16KB or 1MB.
func sizeName(n int) string {
	if n >= 1<<20 {
		return strconv.Itoa(n>>20) + "MB"
	}
	return strconv.Itoa(n>>10) + "KB"
}

// zeros returns a JSON array of n zeros.
func zeros(n int) string {
	return "[" + strings.TrimSuffix(strings.Repeat("0,", n), ",") + "]"
}

// nestNames wraps inner in levels objects, each with one member whose name is n bytes long.
func nestNames(levels, n int, inner string) string {
	var b strings.Builder
	for i := range levels {
		b.WriteString(`{"` + strings.Repeat(string(rune('a'+i%26)), n) + `":`)
	}
	b.WriteString(inner)
	b.WriteString(strings.Repeat("}", levels))
	return b.String()
}

// fullShape is a refusal by the full engine whose arguments grow with size.
type fullShape struct {
	name   string
	schema string
	args   func(size int) string
	first  guard.Kind // the first violation listed
}

// recursive wants strings under any number of objects and arrays.
const recursive = `{"$defs":{"n":{"type":["object","array"],"additionalProperties":{"$ref":"#/$defs/n"},"items":{"type":"string"}}},"$ref":"#/$defs/n","unevaluatedProperties":{}}`

func fullShapes() []fullShape {
	return []fullShape{
		// The case, one long name over many values, one violation.
		{"long-name-over-values", `{"type":"object","required":["q"],"unevaluatedProperties":{}}`,
			func(n int) string { return `{"` + strings.Repeat("a", n/2) + `":` + zeros(n/8) + `}` }, guard.KindRequired},
		{"failing-items", `{"properties":{"a":{"items":{"type":"string"}}},"unevaluatedProperties":{}}`,
			func(n int) string { return `{"a":` + zeros(n/2) + `}` }, guard.KindType},
		// 60 levels of long names, then failing items: every failure's path repeats them.
		{"deep-long-names-failing-items", recursive,
			func(n int) string { return nestNames(60, n/240, zeros(n/4)) }, guard.KindType},
		{"undeclared-members", `{"unevaluatedProperties":{},"additionalProperties":false}`,
			func(n int) string {
				var b strings.Builder
				b.WriteString("{")
				for i := 0; b.Len() < n; i++ {
					if i > 0 {
						b.WriteString(",")
					}
					b.WriteString(`"m` + strconv.Itoa(i) + `":0`)
				}
				return b.String() + "}"
			}, guard.KindAdditional},
		{"enum-failures", `{"unevaluatedProperties":{},"properties":{"a":{"items":{"enum":[` +
			strings.TrimSuffix(strings.Repeat(`"some allowed value",`, 50), ",") + `]}}}}`,
			func(n int) string { return `{"a":` + zeros(n/2) + `}` }, guard.KindEnum},
		{"anyOf-failures", `{"unevaluatedProperties":{},"properties":{"a":{"items":{"anyOf":[{"type":"string"},{"type":"object","required":["k"]}]}}}}`,
			func(n int) string { return `{"a":` + zeros(n/2) + `}` }, guard.KindType},
	}
}

// TestHostileFullRefusalMemory: a refusal by the full engine allocates, beyond what the
// engine itself allocates to decode and validate the arguments, at most as much again plus
// 4 bytes per byte of arguments; and its cost per byte does not grow with the size of the
// arguments (16 times the arguments, at most 1.25 times the bytes per byte). The engine
// allocates little for one long name over many values: there a refusal of a megabyte
// allocates at most 20 bytes per byte. Without WithFullEngine, the subset validates every
// shape and a refusal of a megabyte allocates at most 20 bytes per byte, whatever the shape.
func TestHostileFullRefusalMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("full tier: runs without -short")
	}
	// The engine allocates several hundred bytes per failing value: the sizes stay small
	// where it validates every value.
	sizes := map[string][2]int{"long-name-over-values": {64 << 10 / hostileScale, 1 << 20 / hostileScale}}
	for _, sh := range fullShapes() {
		t.Run(sh.name, func(t *testing.T) {
			v := mustCompile(t, sh.schema, guard.WithFullEngine())
			oracle, err := compileOracle(testsuite.Group{Schema: []byte(sh.schema)})
			if err != nil {
				t.Fatal(err)
			}
			pair, ok := sizes[sh.name]
			if !ok {
				pair = [2]int{4 << 10, 64 << 10}
			}
			var perByte [2]float64
			for i, size := range pair {
				args := []byte(sh.args(size))
				var vs []guard.Violation
				finishes(t, "Validate", func() { vs = v.Validate(args) })
				if len(vs) == 0 || vs[0].Kind != sh.first {
					t.Fatalf("%d bytes: got %s, want a first violation of kind %v", len(args), describe(vs[:min(len(vs), 3)]), sh.first)
				}
				ours := allocated(func() { v.Validate(args) }, 2)
				engine := allocated(func() { oracleValidate(oracle, args) }, 2)
				s := uint64(len(args))
				t.Logf("%d bytes: %.1f bytes allocated per byte, the engine alone %.1f", s, float64(ours)/float64(s), float64(engine)/float64(s))
				if ours > 2*engine+4*s {
					t.Fatalf("%d bytes: a refusal allocates %d bytes, more than twice the engine's %d plus 4 per byte", s, ours, engine)
				}
				perByte[i] = float64(ours) / float64(s)
			}
			if perByte[1] > 1.25*perByte[0] {
				t.Errorf("bytes allocated per byte of arguments grow from %.1f to %.1f for 16 times the arguments", perByte[0], perByte[1])
			}
			if sh.name == "long-name-over-values" && perByte[1] > 20 {
				t.Errorf("a refusal of %d bytes allocates %.1f bytes per byte, more than 20", pair[1], perByte[1])
			}

			sub := mustCompile(t, sh.schema)
			args := []byte(sh.args(1 << 20 / hostileScale))
			if vs := sub.Validate(args); len(vs) == 0 || vs[0].Kind != sh.first {
				t.Fatalf("the subset: got %s, want a first violation of kind %v", describe(vs[:min(len(vs), 3)]), sh.first)
			}
			if n := coldAllocation(t, sh.schema, args); float64(n) > 20*float64(len(args)) {
				t.Errorf("the subset: a refusal of %d bytes allocates %d bytes, %.1f per byte", len(args), n, float64(n)/float64(len(args)))
			} else {
				t.Logf("the subset: %.2f bytes allocated per byte of a refusal of %d bytes", float64(n)/float64(len(args)), len(args))
			}
		})
	}
}

// BenchmarkHostileFullRefusal: refusals by the full engine from 1 KB to 1 MB of arguments;
// ns/op and B/op should grow 16 times per step (MB/s stays flat).
func BenchmarkHostileFullRefusal(b *testing.B) {
	for _, sh := range fullShapes()[:3] {
		v := mustCompile(b, sh.schema, guard.WithFullEngine())
		for _, size := range []int{1 << 10, 16 << 10, 256 << 10, 1 << 20} {
			b.Run(sh.name+"/"+sizeName(size), func(b *testing.B) {
				args := []byte(sh.args(size))
				if v.Validate(args) == nil {
					b.Fatal("the arguments are valid")
				}
				b.SetBytes(int64(len(args)))
				b.ReportAllocs()
				for b.Loop() {
					v.Validate(args)
				}
			})
		}
	}
}

// formatArgs returns arguments {"x": s} where s repeats unit to n bytes after a prefix that
// takes the format's checks past their first character.
func formatArgs(format, unit string, n int) []byte {
	prefix := map[string]string{"uri": "http://x/", "iri": "http://x/", "uri-reference": "http://x/",
		"iri-reference": "http://x/", "uri-template": "http://x/", "duration": "P", "period": "P",
		"json-pointer": "/", "relative-json-pointer": "0/"}[format]
	s := prefix + strings.Repeat(unit, (n-len(prefix))/len(unit))
	b, _ := json.Marshal(map[string]string{"x": s})
	return b
}

// formatUnits are the awkward shapes every format is checked against: repeats, nesting,
// dots, colons, percent escapes, backslashes, digits, non-ASCII, and the shapes Go's
// regular expression parser is slowest or largest on.
var formatUnits = []string{"a", "((", ".", ":", "%41", `\\`, "é", "-", "/", "()", "(?:.", `\pL`, "[[:"}

// TestHostileFormats: every format the full engine knows, checked on strings of awkward
// shapes, costs linear memory: at most 20 bytes allocated per byte of arguments at the
// larger size, and not much more per byte than at the smaller, 16 times smaller, size.
// Go's regexp.Compile, the engine's check of "regex", allocated 230 to 580 bytes per byte
// of pattern.
func TestHostileFormats(t *testing.T) {
	if testing.Short() {
		t.Skip("full tier: runs without -short")
	}
	formats := []string{"date", "date-time", "duration", "email", "hostname", "iri", "iri-reference", "ipv4", "ipv6",
		"json-pointer", "period", "regex", "relative-json-pointer", "semver", "time", "uri", "uri-reference",
		"uri-template", "uuid"}
	for _, format := range formats {
		t.Run(format, func(t *testing.T) {
			schema := `{"type":"object","properties":{"x":{"type":"string","format":"` + format + `"}}}`
			validators := map[string]*mcpvalidate.Validator{"subset": mustCompile(t, schema, guard.WithFormatAssertion())}
			if format == "regex" {
				validators["full"] = mustCompile(t, schema, guard.WithFormatAssertion(), guard.WithFullEngine())
			}
			// Go's regular expression parser was the superlinear one: regex is checked at a
			// megabyte, the others at a quarter of one.
			sizes := [2]int{16 << 10 / hostileScale, 256 << 10 / hostileScale}
			if format == "regex" {
				sizes = [2]int{64 << 10 / hostileScale, 1 << 20 / hostileScale}
			}
			for engine, v := range validators {
				for _, unit := range formatUnits {
					var perByte [2]float64
					for i, size := range sizes {
						args := formatArgs(format, unit, size)
						finishes(t, "Validate", func() { v.Validate(args) })
						perByte[i] = float64(allocated(func() { v.Validate(args) }, 1)) / float64(len(args))
					}
					if perByte[1] > 20 || perByte[1] > 2*perByte[0]+4 {
						t.Errorf("%s, %q repeated: %.1f then %.1f bytes allocated per byte of arguments", engine, unit, perByte[0], perByte[1])
					}
				}
			}
		})
	}
}

// BenchmarkHostileFormat: each format on 64 KB and 1 MB of its most awkward shape; ns/op
// and B/op should grow 16 times.
func BenchmarkHostileFormat(b *testing.B) {
	shapes := map[string]string{"date": "0", "date-time": "0", "duration": "1D", "email": ".", "hostname": "a.",
		"iri": "%41", "iri-reference": "((", "ipv4": ".", "ipv6": ":", "json-pointer": "/", "period": "1D",
		"regex": "[[:", "relative-json-pointer": "~0", "semver": ".", "time": "0", "uri": "%41", "uri-reference": "((",
		"uri-template": "{}", "uuid": "-"}
	for _, format := range slices.Sorted(maps.Keys(shapes)) {
		v := mustCompile(b, `{"type":"object","properties":{"x":{"type":"string","format":"`+format+`"}}}`, guard.WithFormatAssertion())
		for _, size := range []int{64 << 10, 1 << 20} {
			b.Run(format+"/"+sizeName(size), func(b *testing.B) {
				args := formatArgs(format, shapes[format], size)
				b.SetBytes(int64(len(args)))
				b.ReportAllocs()
				for b.Loop() {
					v.Validate(args)
				}
			})
		}
	}
}

// TestOwnIDReferences: a $ref to the schema's own $id, absolute or relative, or to the $id
// of a resource inside it, points into the schema itself: the call {"p":"x"} passes and
// {"p":1} is refused at p, as santhosh-tekuri decides, and the subset validates them all.
// A $ref to any other document is refused at compile time, at the $ref.
func TestOwnIDReferences(t *testing.T) {
	cases := []struct{ name, schema string }{
		{"absolute", `{"$id":"https://example.com/tool.json","$defs":{"a":{"type":"string"}},"properties":{"p":{"$ref":"https://example.com/tool.json#/$defs/a"}}}`},
		{"relative to the $id", `{"$id":"https://example.com/tool.json","$defs":{"a":{"type":"string"}},"properties":{"p":{"$ref":"tool.json#/$defs/a"}}}`},
		{"fragment under an $id with a path", `{"$id":"https://example.com/dir/tool.json","$defs":{"a":{"type":"string"}},"properties":{"p":{"$ref":"#/$defs/a"}}}`},
		{"relative $id", `{"$id":"tool.json","$defs":{"a":{"type":"string"}},"properties":{"p":{"$ref":"tool.json#/$defs/a"}}}`},
		{"urn", `{"$id":"urn:example:tool","$defs":{"a":{"type":"string"}},"properties":{"p":{"$ref":"urn:example:tool#/$defs/a"}}}`},
		{"draft-07", `{"$schema":"http://json-schema.org/draft-07/schema#","$id":"https://example.com/tool.json","definitions":{"a":{"type":"string"}},"properties":{"p":{"$ref":"https://example.com/tool.json#/definitions/a"}}}`},
		{"nested resource", `{"$id":"https://example.com/tool.json","$defs":{"a":{"$id":"a.json","type":"string"}},"properties":{"p":{"$ref":"a.json"}}}`},
		{"nested resource elsewhere", `{"$id":"https://example.com/tool.json","$defs":{"a":{"$id":"https://other.example/a.json","type":"string"}},"properties":{"p":{"$ref":"https://other.example/a.json"}}}`},
		{"fragment inside a nested resource", `{"$id":"https://example.com/tool.json","$defs":{"b":{"$id":"b/","$defs":{"x":{"type":"string"}},"$ref":"#/$defs/x"}},"properties":{"p":{"$ref":"b/"}}}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v := mustCompile(t, c.schema)
			oracle, err := compileOracle(testsuite.Group{Schema: []byte(c.schema)})
			if err != nil {
				t.Fatal(err)
			}
			for _, args := range []string{`{"p":"x"}`, `{"p":1}`} {
				vs := v.Validate([]byte(args))
				ve, err := oracleValidate(oracle, []byte(args))
				if err != nil {
					t.Fatal(err)
				}
				if (vs == nil) != (ve == nil) {
					t.Errorf("%s: %s, the oracle says valid=%v", args, describe(vs), ve == nil)
				}
			}
			if vs := v.Validate([]byte(`{"p":1}`)); len(vs) != 1 || vs[0].Kind != guard.KindType || vs[0].Path.String() != "p" {
				t.Errorf(`{"p":1}: %s, want one type violation at p`, describe(vs))
			}
		})
	}
	remote := []struct{ schema, at string }{
		{`{"$id":"https://example.com/tool.json","properties":{"p":{"$ref":"other.json#/$defs/a"}}}`, "#/properties/p/$ref"},
		{`{"properties":{"p":{"$ref":"https://example.com/tool.json#/$defs/a"}}}`, "#/properties/p/$ref"},
		{`{"$id":"https://example.com/tool.json","$defs":{"a":{"$ref":"https://example.org/tool.json"}},"properties":{"p":{"$ref":"#/$defs/a"}}}`, "#/$defs/a/$ref"},
	}
	for _, c := range remote {
		_, err := mcpvalidate.Compile([]byte(c.schema))
		var se *guard.SchemaError
		if !errors.As(err, &se) || se.Location != c.at || !strings.Contains(se.Reason, "remote references are never fetched") {
			t.Errorf("%s: %v, want a SchemaError at %s about a remote reference", c.schema, err, c.at)
		}
	}
}
