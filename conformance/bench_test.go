package conformance

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/mcpvalidate/mcpvalidate"
	"github.com/mcpvalidate/mcpvalidate/guard"
	"github.com/mcpvalidate/mcpvalidate/guard/testsuite"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// seedRefused is the contract's first example: four violations.
const seedRefused = `{"days": 2.5, "units": "k", "x": 1}`

// seedSchema is the weather tool of the contract.
const seedSchema = `{"type":"object","properties":{"location":{"type":"string"},"days":{"type":"integer"},"units":{"type":"string","enum":["c","f"]}},"required":["location"],"additionalProperties":false}`

const rowsSchema = `{"type":"object","properties":{"rows":{"type":"array","items":{"type":"object",
"properties":{"name":{"type":"string","maxLength":64},"count":{"type":"integer","minimum":0,"maximum":1000},
"score":{"type":"number"},"active":{"type":"boolean"},"tier":{"type":"string","enum":["free","pro","team"]}},
"required":["name","count","score","active","tier"],"additionalProperties":false}}},"required":["rows"],"additionalProperties":false}`

const filterSchema = `{"type":"object","properties":{"filter":{"$ref":"#/$defs/condition"}},"required":["filter"],
"$defs":{"condition":{"oneOf":[
{"type":"object","properties":{"field":{"type":"string","pattern":"^[a-z_]{1,32}$"},"op":{"enum":["eq","ne","lt","gt","contains"]},
"value":{"type":["string","number","boolean"]}},"required":["field","op","value"],"additionalProperties":false},
{"type":"object","properties":{"logic":{"enum":["and","or","not"]},"children":{"type":"array","minItems":1,"items":{"$ref":"#/$defs/condition"}}},
"additionalProperties":false}]}}}`

// rowsArgs returns n valid rows.
func rowsArgs(n int) string {
	rows := make([]string, n)
	tiers := []string{"free", "pro", "team"}
	for i := range rows {
		rows[i] = fmt.Sprintf(`{"name":"user_%d","count":%d,"score":%d.5,"active":%v,"tier":%q}`, i, i*7%1001, i, i%2 == 0, tiers[i%3])
	}
	return `{"rows":[` + strings.Join(rows, ",") + `]}`
}

// filterArgs returns a valid filter tree depth groups deep, each group holding a leaf and
// the next group; the innermost group holds two leaves.
func filterArgs(depth int) string {
	leaf := func(i int) string {
		values := []string{`"x"`, `42`, `true`}
		return fmt.Sprintf(`{"field":"field_%c","op":"eq","value":%s}`, 'a'+rune(i%26), values[i%3])
	}
	tree := `{"logic":"or","children":[` + leaf(0) + `,` + leaf(1) + `]}`
	logic := []string{"and", "or", "not"}
	for i := 1; i < depth; i++ {
		tree = fmt.Sprintf(`{"logic":%q,"children":[%s,%s]}`, logic[i%3], leaf(i), tree)
	}
	return `{"filter":` + tree + `}`
}

// BenchmarkCompare measures each engine on each case: subset is Validate on the raw bytes,
// subset-value is ValidateValue on a value decoded beforehand, santhosh is the oracle on a
// value decoded beforehand with json.Number, decode is json.Unmarshal alone, the cost a
// server pays anyway, and jsonvalid is json.Valid, which only reads the bytes once.
func BenchmarkCompare(b *testing.B) {
	cases := []struct {
		name, schema, args string
		valid              bool
	}{
		{"small-valid", seedSchema, `{"location": "Paris", "days": 2, "units": "c"}`, true},
		{"small-invalid", seedSchema, seedRefused, false},
		{"array-100", rowsSchema, rowsArgs(100), true},
		{"ref-tree-20", filterSchema, filterArgs(20), true},
	}
	for _, c := range cases {
		args := []byte(c.args)
		ours, err := mcpvalidate.Compile([]byte(c.schema))
		if err != nil {
			b.Fatal(err)
		}
		oracle, err := compileOracle(testsuite.Group{Schema: []byte(c.schema)})
		if err != nil {
			b.Fatal(err)
		}
		var value any
		if err := json.Unmarshal(args, &value); err != nil {
			b.Fatal(err)
		}
		exact, err := jsonschema.UnmarshalJSON(bytes.NewReader(args))
		if err != nil {
			b.Fatal(err)
		}
		engines := []struct {
			name  string
			valid func() bool
		}{
			{"subset", func() bool { return ours.Validate(args) == nil }},
			{"subset-value", func() bool { return ours.ValidateValue(value) == nil }},
			{"santhosh", func() bool { return oracle.Validate(exact) == nil }},
			{"decode", func() bool {
				var v any
				return json.Unmarshal(args, &v) == nil
			}},
			{"jsonvalid", func() bool { return json.Valid(args) }},
		}
		for _, e := range engines {
			b.Run(c.name+"/"+e.name, func(b *testing.B) {
				want := c.valid || e.name == "decode" || e.name == "jsonvalid" // well-formed whatever the verdict
				if got := e.valid(); got != want {
					b.Fatalf("%s: got %v, want %v", e.name, got, want)
				}
				b.SetBytes(int64(len(args)))
				b.ReportAllocs()
				for b.Loop() {
					e.valid()
				}
			})
		}
	}
}

var answers []guard.Violation

// BenchmarkRefusalFloor measures what returning a refusal of the contract's first example costs
// before anything is validated: a fresh copy of its violations, with their paths in one
// block, as the caller receives them. Against BenchmarkCompare/small-invalid/santhosh, it
// shows how fast any refusal that returns a []Violation can be.
func BenchmarkRefusalFloor(b *testing.B) {
	v, err := mcpvalidate.Compile([]byte(seedSchema))
	if err != nil {
		b.Fatal(err)
	}
	want := v.Validate([]byte(seedRefused))
	if len(want) != 4 {
		b.Fatalf("got %d violations, want 4", len(want))
	}
	elems := 0
	for _, w := range want {
		elems += len(w.Path)
	}
	b.ReportAllocs()
	for b.Loop() {
		out := make([]guard.Violation, len(want))
		paths := make(guard.Path, 0, elems)
		for i, w := range want {
			out[i] = w
			start := len(paths)
			paths = append(paths, w.Path...)
			out[i].Path = paths[start:len(paths):len(paths)]
		}
		answers = out
	}
}
