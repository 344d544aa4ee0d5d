package guard

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/mcpvalidate/mcpvalidate/guard/internal/jsontext"
	"github.com/mcpvalidate/mcpvalidate/guard/testsuite"
)

func TestRewriteFor(t *testing.T) {
	for _, c := range []struct {
		name   string
		target Target
		schema string
		want   string // the rewritten schema, or, after "error: ", the rule a RewriteError names
	}{
		{"taken as it is", Gemini, `{"type":"object","properties":{"a":{"type":"string"}}}`,
			`{"type":"object","properties":{"a":{"type":"string"}}}`},
		{"$schema and a closed object", Gemini, `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"a":{"type":"string"}},"additionalProperties":false}`,
			`{"type":"object","properties":{"a":{"type":"string"}},"description":"The server checks: no other properties."}`},
		{"a format and a bound moved into the description", Gemini, `{"type":"object","properties":{"u":{"type":"string","format":"uri","description":"The page"},"n":{"type":"integer","exclusiveMinimum":0}}}`,
			`{"type":"object","properties":{"u":{"type":"string","description":"The page. The server checks: format uri."},"n":{"type":"integer","description":"The server checks: exclusiveMinimum 0."}}}`},
		{"const, a list of types, oneOf", Gemini, `{"type":"object","properties":{"k":{"const":"a"},"s":{"type":["string","null"]},"v":{"oneOf":[{"type":"integer"},{"type":"string"}]},"w":{"type":["integer","string"]}}}`,
			`{"type":"object","properties":{"k":{"enum":["a"]},"s":{"type":"string","nullable":true},"v":{"anyOf":[{"type":"integer"},{"type":"string"}]},"w":{"anyOf":[{"type":"integer"},{"type":"string"}]}}}`},
		{"$ref written in place", Gemini, `{"type":"object","properties":{"t":{"$ref":"#/$defs/T","description":"the target"}},"$defs":{"T":{"type":"object","properties":{"n":{"type":"string"}},"description":"a T"}}}`,
			`{"type":"object","properties":{"t":{"type":"object","properties":{"n":{"type":"string"}},"description":"the target"}}}`},
		{"a root without a type", Gemini, `{"properties":{"a":{"type":"string"}}}`,
			`{"type":"object","properties":{"a":{"type":"string"}}}`},
		{"items after prefixItems", Gemini, `{"type":"object","properties":{"p":{"type":"array","prefixItems":[{"type":"string"}],"items":{"type":"number"}}}}`,
			"error: gemini/array-without-items"},
		{"a bound below not goes with the not", AnthropicStrict, `{"type":"object","properties":{"s":{"type":"string","not":{"maxLength":3}}},"required":["s"],"additionalProperties":false}`,
			`{"type":"object","properties":{"s":{"type":"string","description":"The server checks: not {\"maxLength\":3}."}},"required":["s"],"additionalProperties":false}`},
		{"recursion", Gemini, `{"type":"object","properties":{"n":{"$ref":"#/$defs/N"}},"$defs":{"N":{"type":"object","properties":{"next":{"$ref":"#/$defs/N"}}}}}`,
			"error: rewrite"},
		{"an array of anything", Gemini, `{"type":"object","properties":{"a":{"type":"array"}}}`,
			"error: gemini/array-without-items"},
		{"oneOf and an unknown format", OpenAIStrict, `{"type":"object","properties":{"v":{"oneOf":[{"type":"integer"},{"type":"string","format":"uri"}]}},"required":["v"],"additionalProperties":false}`,
			`{"type":"object","properties":{"v":{"anyOf":[{"type":"integer"},{"type":"string","description":"The server checks: format uri."}]}},"required":["v"],"additionalProperties":false}`},
		{"an optional member is never made required", OpenAIStrict, `{"type":"object","properties":{"a":{"type":"string"}},"additionalProperties":false}`,
			"error: openai-strict/optional-member"},
		{"an open object is never closed", OpenAIStrict, `{"type":"object","properties":{"a":{"type":"string"}},"required":["a"]}`,
			"error: openai-strict/additional-properties"},
		{"bounds moved", AnthropicStrict, `{"type":"object","properties":{"n":{"type":"integer","minimum":1,"maximum":7},"s":{"type":"string","maxLength":9},"xs":{"type":"array","items":{"type":"string"},"minItems":1,"maxItems":3}},"required":["n"],"additionalProperties":false}`,
			`{"type":"object","properties":{"n":{"type":"integer","description":"The server checks: minimum 1; maximum 7."},"s":{"type":"string","description":"The server checks: maxLength 9."},"xs":{"type":"array","items":{"type":"string"},"minItems":1,"description":"The server checks: maxItems 3."}},"required":["n"],"additionalProperties":false}`},
		{"a choice at the root stays", Anthropic, `{"anyOf":[{"type":"object"}]}`,
			"error: anthropic/root-composition"},
	} {
		t.Run(string(c.target)+"/"+c.name, func(t *testing.T) {
			got, err := RewriteFor(c.target, []byte(c.schema))
			if rule, ok := strings.CutPrefix(c.want, "error: "); ok {
				var re *RewriteError
				if !errors.As(err, &re) || re.Advice[0].Rule != rule {
					t.Fatalf("got %s, %v; want an error naming %s", got, err, rule)
				}
				return
			}
			if err != nil || string(got) != c.want {
				t.Fatalf("got %s, %v\nwant %s", got, err, c.want)
			}
		})
	}
}

// asRead returns a rewritten schema as the target reads it, in JSON Schema: Gemini's
// "nullable" is a null among the types.
func asRead(t *testing.T, target Target, schema []byte) []byte {
	t.Helper()
	if target != Gemini {
		return schema
	}
	tree, err := parseSchema(schema)
	if err != nil {
		t.Fatal(err)
	}
	var walk func(v any)
	walk = func(v any) {
		o, ok := v.(*schemaObject)
		if !ok {
			return
		}
		if n, _ := o.get("nullable"); n == true {
			if ty, ok := o.get("type"); ok {
				o.put("type", []any{ty, "null"})
			} else if alts, ok := o.get("anyOf"); ok {
				o.put("anyOf", append(asList(alts), &schemaObject{keys: []string{"type"}, vals: []any{"null"}}))
			}
		}
		eachSubschema(o, "", func(s any, _, _ string) { walk(s) })
	}
	walk(tree)
	return appendJSON(nil, tree)
}

// TestRewriteForTakesWhatTheToolTakes: on every schema of the corpus a target's rewrite
// succeeds for, every object of the corpus the schema accepts (a tool's arguments are an
// object), the rewritten schema as the target reads it accepts too; RewriteFor has checked
// that the target takes it.
func TestRewriteForTakesWhatTheToolTakes(t *testing.T) {
	files, err := testsuite.LoadCorpus()
	if err != nil {
		t.Fatal(err)
	}
	rewritten, args := 0, 0
	for _, f := range files {
		for _, g := range f.Groups {
			original, err := Compile(g.Schema)
			if err != nil {
				continue
			}
			for _, target := range Targets() {
				out, err := RewriteFor(target, g.Schema)
				if err != nil {
					continue
				}
				rewritten++
				read, err := Compile(asRead(t, target, out))
				if err != nil {
					t.Errorf("%s, %s: the rewritten schema does not compile: %v\n%s", g.Description, target, err, out)
					continue
				}
				for _, test := range g.Tests {
					// A tool's arguments are an object, of which the rewrite may say so.
					if original.Validate(test.Data) == nil && jsonType(test.Data, jsontext.SkipSpace(test.Data, 0)) == "object" {
						args++
						if vs := read.Validate(test.Data); vs != nil {
							t.Errorf("%s, %s: %s is valid, but not to the rewritten schema %s: %v", g.Description, target, test.Data, out, vs)
						}
					}
				}
			}
		}
	}
	if rewritten < 100 || args < 100 {
		t.Errorf("only %d rewrites and %d arguments: the test holds little", rewritten, args)
	}
	t.Logf("%d rewrites, %d valid arguments accepted by them", rewritten, args)
}

// TestRewriteForAtScale: written in place, $refs that double at each level stop at the
// budget instead of growing the schema without end; deep and wide schemas are rewritten
// in work and bytes in proportion to their size.
func TestRewriteForAtScale(t *testing.T) {
	var defs []string
	defs = append(defs, `"d0":{"type":"string","format":"uri"}`)
	for i := 1; i <= 40; i++ {
		defs = append(defs, fmt.Sprintf(`"d%d":{"type":"object","properties":{"a":{"$ref":"#/$defs/d%d"},"b":{"$ref":"#/$defs/d%d"}}}`, i, i-1, i-1))
	}
	doubling := `{"type":"object","properties":{"x":{"$ref":"#/$defs/d40"}},"$defs":{` + strings.Join(defs, ",") + `}}`
	if _, err := RewriteFor(Gemini, []byte(doubling)); err == nil || !strings.Contains(err.Error(), "rewrite") {
		t.Errorf("$refs doubling 40 times: %v, want the rewrite refused", err)
	}

	deep := `{"type":"string","maxLength":3}`
	for range 400 {
		deep = `{"not":` + deep + `}`
	}
	deep = `{"type":"object","properties":{"s":` + deep + `},"required":["s"],"additionalProperties":false}`
	if _, err := RewriteFor(AnthropicStrict, []byte(deep)); err != nil {
		t.Errorf("400 nested nots: %v", err)
	}

	var props []string
	for i := range 20000 {
		props = append(props, fmt.Sprintf(`"p%d":{"type":"string","format":"uri","minLength":1}`, i))
	}
	wide := []byte(`{"type":"object","properties":{` + strings.Join(props, ",") + `}}`)
	out, err := RewriteFor(Gemini, wide)
	if err != nil || len(out) > 3*len(wide) {
		t.Errorf("%d bytes: %d bytes back, %v", len(wide), len(out), err)
	}
	small := []byte(`{"type":"object","properties":{` + strings.Join(props[:200], ",") + `}}`)
	a := testing.AllocsPerRun(3, func() { _, _ = RewriteFor(Gemini, small) })
	b := testing.AllocsPerRun(1, func() { _, _ = RewriteFor(Gemini, wide) })
	if b > 150*a {
		t.Errorf("allocations: %.0f for 200 properties, %.0f for 20,000: not in proportion", a, b)
	}
}

// rewriteKeeps reports why, for the generated case c, a target's rewrite refuses
// arguments the schema accepts, or "".
func rewriteKeeps(t *testing.T, c genCase) (why string, checked int) {
	original, err := Compile(c.schema)
	if err != nil || original.Validate(c.args) != nil || jsonType(c.args, jsontext.SkipSpace(c.args, 0)) != "object" {
		return "", 0
	}
	for _, target := range Targets() {
		out, err := RewriteFor(target, c.schema)
		if err != nil {
			continue
		}
		checked++
		read, err := Compile(asRead(t, target, out))
		if err != nil {
			return fmt.Sprintf("%s: the rewritten schema does not compile: %v\n%s", target, err, out), checked
		}
		if vs := read.Validate(c.args); vs != nil {
			return fmt.Sprintf("%s: %s is valid, not to the rewritten schema %s: %v", target, c.args, out, vs), checked
		}
	}
	return "", checked
}

// TestRewriteForGenerated: on generated schemas and the arguments generated for them (the
// differential test's), a rewrite never refuses what the schema accepts.
func TestRewriteForGenerated(t *testing.T) {
	n := 2000
	if testing.Short() {
		n = 300
	}
	r := rand.New(rand.NewPCG(7, 11))
	checked := 0
	for range n {
		data := make([]byte, 16+r.IntN(64))
		for i := range data {
			data[i] = byte(r.UintN(256))
		}
		c := generate(data)
		why, k := rewriteKeeps(t, c)
		if why != "" {
			t.Fatalf("%q: %s\nschema %s", data, why, c.schema)
		}
		checked += k
	}
	if checked < n/10 {
		t.Errorf("%d valid arguments checked against a rewrite in %d cases: the test holds little", checked, n)
	}
	t.Logf("%d valid arguments checked against a rewrite in %d cases", checked, n)
}

func FuzzRewriteFor(f *testing.F) {
	for _, data := range differentialSeeds {
		f.Add([]byte(data))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c := generate(data)
		if why, _ := rewriteKeeps(t, c); why != "" {
			t.Fatalf("%s\nschema %s", why, c.schema)
		}
	})
}
