package guard

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/mcpvalidate/mcpvalidate/guard/internal/engine"
	"github.com/mcpvalidate/mcpvalidate/guard/testsuite"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// FuzzDifferential generates a schema and arguments from its input (see generate) and holds
// three judges to one verdict: the quick pass never accepts what the explaining pass
// refuses, and the explaining pass, Validate and the full engine's library agree, but on
// arguments we refuse on purpose (see testsuite.PlainJSON) or whose numbers the library cannot take.
func FuzzDifferential(f *testing.F) {
	for _, data := range differentialSeeds {
		f.Add([]byte(data))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c := generate(data)
		if _, msg := judge(c); msg != "" {
			t.Fatal(c.String() + msg)
		}
	})
}

// Inputs that make cases the generator aims at; the fuzzer starts from them and from
// testdata/fuzz/FuzzDifferential.
var differentialSeeds = []string{
	"",
	"\xd4γ\xe2\x8c5{\xf7l", // a oneOf of two alternatives tagged alike
	";:\xa3\x99\xd1\xcdN\x90\x81\x1bw@s\x8b\xa4\xc1d\x10\xcf^3\xf9\xc8\xf7\x97 \x87%\xa3s\xeb", // prefixItems
	"Kz\a%N\x91Ufs\x80m]\x90\xbd\x1c",                                                  // draft-04 items, additionalItems, exclusiveMaximum
	"\xf0\xb8\x9c^7FdT\f\x97L\xe5\xc2B`\xa0\x8f\xaf\x9e\xf8\x1d\x88\x02\x91\x99",       // 2^63 in an enum's object
	"\xba\x85\xfd.\xb4\x93T#\x97'>\x01\xc0\xc93",                                       // escaped names
	"\x11\xe8 \xf4\x13G\xf9\x99\xa8xVC\xef\t\x9e\x943\xcbh,T\xf4\xe5\xb9\nu\xca3\xc87", // 16-byte names alike in 8
}

// An outcome is what judge could compare.
type outcome int

const (
	schemaRefused outcome = iota // by the oracle's metaschema: nothing to compare
	notCompared                  // with the oracle: see judge
	refused                      // by every judge
	accepted                     // by the explaining pass and the oracle, not the quick pass
	quickAccepted                // by every judge
	outcomes
)

func (c genCase) String() string {
	return fmt.Sprintf("schema %s\nargs %s\nmax depth %d\n", c.schema, c.args, c.maxDepth)
}

// judge compiles the case's schema with us and with the oracle and tells how their
// verdicts on its arguments differ, or "" when they agree or the arguments are ones we
// refuse on purpose. Where the oracle is blind (see genCase), only our passes are compared.
func judge(c genCase) (outcome, string) {
	schema, args, maxDepth := c.schema, c.args, defaultMaxDepth
	var opts []CompileOption
	if c.maxDepth > 0 {
		maxDepth = c.maxDepth
		opts = append(opts, WithMaxDepth(maxDepth))
	}
	v, err := Compile(schema, opts...)
	oracle, oracleErr := compileOracle(schema)
	switch {
	case oracleErr != nil:
		return schemaRefused, ""
	case err != nil:
		return schemaRefused, "we refuse the schema, the oracle takes it: " + err.Error()
	}
	quick, vs, validate := v.quickValid(args), v.violations(args), v.Validate(args)
	switch {
	case quick && vs != nil:
		return refused, "the quick pass accepts, the explaining pass refuses: " + strings.Join(Messages(vs, nil), "; ")
	case (vs == nil) != (validate == nil):
		return refused, fmt.Sprintf("the explaining pass refuses: %v; Validate refuses: %v", Messages(vs, nil), Messages(validate, nil))
	case !json.Valid(args):
		if vs == nil {
			return notCompared, "the explaining pass accepts malformed arguments"
		}
		return notCompared, ""
	case c.oracleBlind || !testsuite.PlainJSON(args, maxDepth) || !testsuite.ModestNumbers(args):
		return notCompared, ""
	}
	ve, err := oracleValidate(oracle, args)
	if err != nil {
		return refused, "the oracle fails: " + err.Error()
	}
	out := refused
	switch {
	case vs == nil && quick:
		out = quickAccepted
	case vs == nil:
		out = accepted
	}
	if (vs == nil) != (ve == nil) {
		ours := "accepts"
		if vs != nil {
			ours = "refuses: " + strings.Join(Messages(vs, nil), "; ")
		}
		theirs := "accepts"
		if ve != nil {
			theirs = "refuses: " + strings.ReplaceAll(ve.Error(), "\n", " ")
		}
		return out, fmt.Sprintf("quick pass accepts: %v; explaining pass %s; oracle %s", quick, ours, theirs)
	}
	return out, ""
}

// TestJudge holds judge to its outcomes on cases written out, among them the deviation of
// the oracle that generate marks as oracleBlind.
func TestJudge(t *testing.T) {
	const (
		closed = `{"$schema":"http://json-schema.org/draft-06/schema#","oneOf":[{"type":"object","additionalProperties":false},
{"type":"object","additionalProperties":false}]}`
		constBesideRef = `{"$schema":"http://json-schema.org/draft-07/schema#","definitions":{"s":{"type":"string"}},
"properties":{"k":{"$ref":"#/definitions/s","const":"x"}}}`
	)
	cases := []struct {
		name     string
		c        genCase
		want     outcome
		disagree bool
	}{
		{"an empty object under two closed alternatives", genCase{schema: []byte(closed), args: []byte(` { } `)}, refused, false},
		{"a closed alternative's member", genCase{schema: []byte(closed), args: []byte(`{"a":1}`)}, refused, false},
		{"a duplicate name, refused on purpose", genCase{schema: []byte(`{}`), args: []byte(`{"a":1,"\u0061":1}`)}, notCompared, false},
		{"arguments cut short", genCase{schema: []byte(`{"properties":{"a":{}}}`), args: []byte(`{"a":1`)}, notCompared, false},
		{"deeper than the limit", genCase{schema: []byte(`{}`), args: []byte(`[[1]]`), maxDepth: 1}, notCompared, false},
		{"at the limit", genCase{schema: []byte(`{}`), args: []byte(`[[1]]`), maxDepth: 2}, quickAccepted, false},
		{"a number beyond the oracle", genCase{schema: []byte(`{"type":"integer"}`), args: []byte(`1e10001`)}, notCompared, false},
		{"a tag that takes both alternatives of a oneOf", genCase{schema: []byte(`{"oneOf":[
{"type":"object","properties":{"kind":{"const":"a"}}},{"type":"object","properties":{"kind":{"enum":["a","b"]}}}]}`),
			args: []byte(`{"kind":"a"}`)}, refused, false},
		{"2^63 under an int64 maximum", genCase{schema: []byte(`{"maximum":9223372036854775807}`), args: []byte(`92233720368547758080e-1`)}, refused, false},
		// santhosh-tekuri/jsonschema applies draft-06 and draft-07 keywords beside $ref;
		// once it does not, generate need not mark such schemas.
		{"a const beside $ref in draft-07", genCase{schema: []byte(constBesideRef), args: []byte(`{"k":"y"}`)}, accepted, true},
		{"a const beside $ref, marked", genCase{schema: []byte(constBesideRef), args: []byte(`{"k":"y"}`), oracleBlind: true}, notCompared, false},
	}
	for _, c := range cases {
		out, msg := judge(c.c)
		if out != c.want || (msg != "") != c.disagree {
			t.Errorf("%s: judge gives outcome %d, %q; want outcome %d, a disagreement: %v", c.name, out, msg, c.want, c.disagree)
		}
	}
}

// compileOracle compiles a schema with santhosh-tekuri/jsonschema as compileFull does,
// without format assertion, which no generated schema asks for.
func compileOracle(schema []byte) (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schema))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	c.UseLoader(noFetch{})
	c.DefaultDraft(jsonschema.Draft2020)
	if err := c.AddResource(engine.URL, doc); err != nil {
		return nil, err
	}
	return c.Compile(engine.URL)
}

// noFetch refuses every document the oracle asks for, as the full engine does.
type noFetch struct{}

func (noFetch) Load(string) (any, error) {
	return nil, errors.New("remote references are never fetched")
}

// oracleValidate decodes args exactly and validates them with the oracle; nil when valid.
func oracleValidate(sch *jsonschema.Schema, args []byte) (*jsonschema.ValidationError, error) {
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(args))
	if err != nil {
		return nil, err
	}
	var ve *jsonschema.ValidationError
	if err := sch.Validate(inst); err != nil && !errors.As(err, &ve) {
		return nil, err
	}
	return ve, nil
}

// TestDifferentialRandom runs the fuzz target's generator on inputs from a seeded PRNG:
// five hundred cases in the quick tier, twenty thousand in the full tier (half a minute on a
// busy 2-core machine, a few minutes under the race detector).
func TestDifferentialRandom(t *testing.T) {
	n := 500
	if !testing.Short() {
		n = 20000
	}
	rng := rand.New(rand.NewPCG(1, 2))
	data := make([]byte, 96)
	var seen [outcomes]int
	for range n {
		for i := range data {
			data[i] = byte(rng.Uint32())
		}
		c := generate(data)
		out, msg := judge(c)
		if msg != "" {
			t.Fatalf("input %q\n%s%s", data, c, msg)
		}
		seen[out]++
	}
	t.Logf("%d cases: %d schemas the oracle refuses, %d arguments not compared, %d refused, %d accepted by the explaining pass only, %d by the quick pass too",
		n, seen[schemaRefused], seen[notCompared], seen[refused], seen[accepted], seen[quickAccepted])
}
