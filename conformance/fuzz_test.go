package conformance

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"

	"github.com/mcpvalidate/mcpvalidate"
	"github.com/mcpvalidate/mcpvalidate/guard"
	"github.com/mcpvalidate/mcpvalidate/guard/testsuite"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// maxArgsDepth is how deeply Validate lets arguments nest by default.
const maxArgsDepth = 64

type fuzzTarget struct {
	name   string
	ours   *mcpvalidate.Validator
	oracle *jsonschema.Schema
}

// FuzzAgainstOracle mutates arguments for the schemas of the corpus and requires our
// verdict to be the oracle's. The first input picks the schema.
func FuzzAgainstOracle(f *testing.F) {
	var targets []fuzzTarget
	for _, file := range loadCorpus(f) {
		for _, g := range file.Groups {
			ours, ourErr := mcpvalidate.Compile(g.Schema, ourOptions(g)...)
			oracle, theirErr := compileOracle(g)
			if ourErr != nil || theirErr != nil {
				continue // TestOracle requires both to refuse together
			}
			i := uint(len(targets))
			targets = append(targets, fuzzTarget{name: file.Name + " / " + g.Description, ours: ours, oracle: oracle})
			for _, tc := range g.Tests {
				var b bytes.Buffer
				if err := json.Compact(&b, tc.Data); err != nil {
					f.Fatal(err)
				}
				f.Add(i, b.Bytes())
			}
		}
	}
	for _, c := range sameAsFullCases {
		oracle, err := compileOracle(testsuite.Group{Schema: []byte(c.schema)})
		if err != nil {
			f.Fatal(err)
		}
		f.Add(uint(len(targets)), []byte(c.args))
		targets = append(targets, fuzzTarget{name: c.name, ours: mustCompile(f, c.schema), oracle: oracle})
	}
	f.Fuzz(func(t *testing.T, i uint, data []byte) {
		if !json.Valid(data) || !testsuite.PlainJSON(data, maxArgsDepth) {
			return
		}
		target := targets[i%uint(len(targets))]
		vs := target.ours.Validate(data) // before the number filter: it must not panic on any number
		if !testsuite.ModestNumbers(data) {
			return
		}
		ve, err := oracleValidate(target.oracle, data)
		if err != nil {
			t.Fatalf("%s: the oracle fails on %q: %v", target.name, data, err)
		}
		if (vs == nil) != (ve == nil) {
			t.Fatalf("%s: args %s: %s", target.name, data, disagreement(vs, ve))
		}
	})
}

// FuzzNoPanic compiles arbitrary bytes as a schema, with options picked by the bits of
// opts, and validates arbitrary arguments with it, as bytes and as decoded values.
func FuzzNoPanic(f *testing.F) {
	for _, file := range loadCorpus(f) {
		for _, g := range file.Groups {
			opts := uint8(0)
			if g.FormatAssertion {
				opts = 1
			}
			for _, tc := range g.Tests {
				f.Add([]byte(g.Schema), []byte(tc.Data), opts)
			}
		}
	}
	for _, s := range []struct{ schema, args string }{
		{``, ``},
		{`true`, `{`},
		{`false`, `null`},
		{`{"type":"object","properties":{"a":{"$ref":"#"}}}`, `{"a":{"a":{"a":{}}}}`},
		{`{"$ref":"#"}`, `1`},
		{`{"$ref":"#/$defs/x","$defs":{"x":{"$ref":"#/$defs/x"}}}`, `1`},
		{`{"patternProperties":{"^a":{"type":"string"}}}`, `{"a":1,"a":2}`},
		{`{"enum":[1e2,{"a":[1.0]}]}`, `{"a":[1]}`},
		{`{"multipleOf":1e-400}`, `1e400`},
		{`{"uniqueItems":true}`, `[1,1.0,"\u0031"]`},
		{`{"$schema":"http://json-schema.org/draft-04/schema#","minimum":0,"exclusiveMinimum":true}`, `0`},
		{`{"type":"string","pattern":"\\p{L}+","format":"date-time"}`, `"\ud800"`},
		{`{"oneOf":[{"required":["a"]},{"required":["b"]}]}`, `{"a":1,"b":2}`},
		{`{"if":{"const":1},"then":false,"else":true}`, `[[[[[[1]]]]]]`},
		{`{"propertyNames":{"$ref":"#"},"patternProperties":{"":{"$ref":"#"}},"additionalProperties":false}`, `{"a":{"b":{"\u0063":1}}}`},
		{`{"contains":{"contains":{"type":"null"}},"minContains":2,"maxContains":1}`, `[[null],[],[1,null]]`},
		{`{"dependentSchemas":{"a":{"properties":{"a":{"$ref":"#"}}}},"dependencies":{"b":["a"]}}`, `{"a":{"a":{"b":1}},"b":2}`},
		{`{"$defs":{"a":{"$anchor":"a","items":{"$ref":"#a"},"maxItems":1}},"$ref":"#a"}`, `[[[],[]]]`},
	} {
		f.Add([]byte(s.schema), []byte(s.args), uint8(0xff))
	}
	f.Fuzz(func(t *testing.T, schema, args []byte, opts uint8) {
		var options []guard.CompileOption
		if opts&1 != 0 {
			options = append(options, guard.WithFormatAssertion())
		}
		if opts&2 != 0 {
			options = append(options, guard.WithFullEngine())
		}
		if opts&4 != 0 {
			options = append(options, guard.WithMaxDepth(3))
		}
		if opts&8 != 0 {
			options = append(options, guard.WithMaxViolations(1))
		}
		v, err := mcpvalidate.Compile(schema, options...)
		if err != nil {
			var se *guard.SchemaError
			if !errors.As(err, &se) {
				t.Fatalf("Compile returned %T, not a *SchemaError: %v", err, err)
			}
			return
		}
		vs := v.Validate(args)
		guard.Messages(vs, nil)
		guard.Messages(vs, guard.GatewayFormat)
		syntax, tooDeep := false, false
		for _, x := range vs {
			syntax = syntax || x.Kind == guard.KindSyntax
			tooDeep = tooDeep || x.Kind == guard.KindTooDeep
		}
		wellFormed := json.Valid(args)
		if wellFormed && syntax {
			t.Fatalf("Validate reports a syntax error in well-formed JSON %q: %s", args, describe(vs))
		}
		if !wellFormed && !syntax && !tooDeep {
			t.Fatalf("Validate finds no syntax error in malformed JSON %q: %s", args, describe(vs))
		}
		if !wellFormed {
			return
		}
		var decoded any
		if json.Unmarshal(args, &decoded) == nil {
			guard.Messages(v.ValidateValue(decoded), nil)
		}
		// Decoded exactly, the same arguments must get the same verdict, unless a duplicate
		// member name, which decoding drops, made Validate refuse them.
		dec := json.NewDecoder(bytes.NewReader(args))
		dec.UseNumber()
		var exact any
		if dec.Decode(&exact) != nil || !testsuite.PlainJSON(args, 1<<30) {
			return
		}
		if vvs := v.ValidateValue(exact); (vvs == nil) != (vs == nil) {
			t.Fatalf("schema %q, args %q: Validate says %q, ValidateValue of the decoded value says %q",
				schema, args, describe(vs), describe(vvs))
		}
	})
}
