package guard

import (
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/mcpvalidate/mcpvalidate/guard/testsuite"
)

const weatherSchema = `{"type":"object","properties":{"location":{"type":"string"},"days":{"type":"integer"},
"units":{"type":"string","enum":["c","f"]}},"required":["location"],"additionalProperties":false}`

// check compiles schema and returns the default-style messages for args, joined by " | ".
func check(t *testing.T, schema, args string, opts ...CompileOption) string {
	t.Helper()
	v, err := Compile([]byte(schema), opts...)
	if err != nil {
		t.Fatalf("compile %s: %v", schema, err)
	}
	return strings.Join(Messages(v.Validate([]byte(args)), nil), " | ")
}

func TestContract(t *testing.T) {
	cases := []struct{ args, want string }{
		{`{"days": 2.5, "units": "k", "x": 1}`, "missing required property 'location' | property 'days' must be integer | property 'units' must be one of ['c', 'f'] | unexpected property 'x'"},
		{`{"location": "Paris", "days": 2}`, ""},
		{`{"location": "Paris", "days": true}`, "property 'days' must be integer"},
		{`{"location": "Paris", "days": "two"}`, "property 'days' must be integer"},
	}
	for _, c := range cases {
		if got := check(t, weatherSchema, c.args); got != c.want {
			t.Errorf("%s:\n got %q\nwant %q", c.args, got, c.want)
		}
	}
}

func TestSemantics(t *testing.T) {
	taggedUnion := `{"oneOf":[
		{"properties":{"kind":{"const":"circle"},"r":{"type":"number"}},"required":["kind","r"],"additionalProperties":false},
		{"properties":{"kind":{"const":"square"},"side":{"type":"number"}},"required":["kind","side"],"additionalProperties":false}]}`
	byFirstName := `{"oneOf":[
		{"properties":{"field":{"type":"string"},"op":{}},"required":["field"],"additionalProperties":false},
		{"properties":{"logic":{},"children":{"type":"array"}},"required":["logic"],"additionalProperties":false}]}`
	filterTree := `{"properties":{"f":{"$ref":"#/$defs/c"}},"$defs":{"c":{"oneOf":[
		{"type":"object","properties":{"kind":{"const":"leaf"},"v":{"type":"string"}},"required":["kind","v"]},
		{"type":"object","properties":{"kind":{"const":"group"},"children":{"type":"array","items":{"$ref":"#/$defs/c"}}},"required":["kind","children"]}]}}}`
	cases := []struct{ name, schema, args, want string }{
		{"nested path", `{"type":"object","properties":{"customer":{"type":"object","properties":{"addresses":{"type":"array","items":{"type":"object","properties":{"zip_code":{"type":"string"}}}}}}}}`,
			`{"customer":{"addresses":[{},{},{"zip_code":12345}]}}`, "property 'customer.addresses[2].zip_code' must be string"},
		{"names that are not plain are quoted", `{"properties":{"a.b":{"type":"string"},"x":{"properties":{"line\nbreak":{"type":"string"}}}}}`,
			`{"a.b":1,"x":{"line\nbreak":2}}`, `property "a.b" must be string | property 'x["line\nbreak"]' must be string`},
		{"nested order: required first at each level, then wire order", `{"properties":{"o":{"properties":{"a":{"type":"string"},"b":{"type":"string"}},"required":["z"]}},"required":["r"]}`,
			`{"o":{"b":1,"a":2}}`, "missing required property 'r' | missing required property 'o.z' | property 'o.b' must be string | property 'o.a' must be string"},
		{"required listed before properties", `{"required":["b","a"],"properties":{"a":{"type":"string"},"c":{},"b":{"type":"string"}}}`,
			`{"a":"x","b":"y","c":1}`, ""},
		{"required names that are not properties", `{"required":["q"],"properties":{"a":{}}}`, `{"q":1,"q":2}`, "property 'q' appears more than once"},
		{"null is only null", `{"properties":{"u":{"type":"string"}}}`, `{"u":null}`, "property 'u' must be string"},
		{"boolean is not a number", `{"properties":{"n":{"type":"number"}}}`, `{"n":false}`, "property 'n' must be number"},
		{"2.0 is an integer", `{"properties":{"n":{"type":"integer"}}}`, `{"n":2.0}`, ""},
		{"1e2 is an integer", `{"properties":{"n":{"type":"integer","maximum":100}}}`, `{"n":1e2}`, ""},
		{"1e400 is an integer", `{"properties":{"n":{"type":"integer"}}}`, `{"n":1e400}`, ""},
		{"2.5 is not", `{"properties":{"n":{"type":"integer"}}}`, `{"n":2.5}`, "property 'n' must be integer"},
		{"exact beyond 2^53", `{"properties":{"n":{"maximum":9007199254740992}}}`, `{"n":9007199254740993}`, "property 'n' must be at most 9007199254740992"},
		{"exact decimals", `{"properties":{"n":{"multipleOf":0.01}}}`, `{"n":19.99}`, ""},
		{"exact decimals fail", `{"properties":{"n":{"multipleOf":0.01}}}`, `{"n":19.999}`, "property 'n' must be a multiple of 0.01"},
		{"multipleOf of a huge literal", `{"properties":{"n":{"multipleOf":7}}}`, `{"n":7e1000}`, ""},
		{"tagged union, members in any order", taggedUnion, `{"side":2,"kind":"square"}`, ""},
		{"tagged union, the meant alternative explains", taggedUnion, `{"kind":"square","r":1}`,
			"missing required property 'side' | unexpected property 'r'"},
		{"tagged union, no alternative fits", taggedUnion, `{"x":1}`,
			"arguments must match exactly one of the alternatives in oneOf, and matches none"},
		{"union told apart by first names", byFirstName, `{"logic":"and","children":[]}`, ""},
		{"an escaped first name is decoded", byFirstName, `{"\u006cogic":"and"}`, ""},
		{"a first name sharing its first character", byFirstName, `{"fx":1}`,
			"arguments must match exactly one of the alternatives in oneOf, and matches none"},
		{"a first name beginning outside ASCII", byFirstName, `{"é":1,"field":"x"}`, `unexpected property "é"`},
		{"the empty name", byFirstName, `{"":1,"logic":"x"}`, `unexpected property ""`},
		{"exclusive bounds", `{"properties":{"n":{"exclusiveMinimum":0,"exclusiveMaximum":1}}}`, `{"n":0}`, "property 'n' must be greater than 0"},
		{"-0 equals 0", `{"properties":{"n":{"const":0}}}`, `{"n":-0.0}`, ""},
		{"duplicate names", `{"type":"object"}`, `{"a":1,"a":2}`, "property 'a' appears more than once"},
		{"duplicate names deep inside", `{"type":"object"}`, `{"x":{"b":{"c":1,"c":2}}}`, "property 'x.b.c' appears more than once"},
		{"duplicate declared names", `{"properties":{"a":{}}}`, `{"a":1,"a":1}`, "property 'a' appears more than once"},
		{"duplicates spelled differently", `{"type":"object"}`, `{"a":1,"\u0061":2}`, "property 'a' appears more than once"},
		{"discriminated oneOf reports the intended branch", filterTree, `{"f":{"kind":"group","children":3}}`, "property 'f.children' must be array"},
		{"discriminated oneOf deep in a tree", filterTree, `{"f":{"kind":"group","children":[{"kind":"leaf","v":1}]}}`, "property 'f.children[0].v' must be string"},
		{"anyOf of scalar types merges them", `{"properties":{"v":{"anyOf":[{"type":"string"},{"type":"number"}]}}}`, `{"v":true}`, "property 'v' must be string or number"},
		{"oneOf matching twice", `{"properties":{"v":{"oneOf":[{"type":"integer"},{"type":"number","multipleOf":0.5}]}}}`, `{"v":3}`,
			"property 'v' matches more than one alternative in oneOf (#0 and #1) but must match exactly one"},
		{"not", `{"properties":{"v":{"not":{"type":"null"}}}}`, `{"v":null}`, "property 'v' must not be null"},
		{"if then else", `{"properties":{"p":{"if":{"type":"string"},"then":{"minLength":2},"else":{"minimum":5}}}}`, `{"p":3}`, "property 'p' must be at least 5"},
		{"allOf", `{"allOf":[{"required":["a"]},{"required":["b"]}]}`, `{}`, "missing required property 'a' | missing required property 'b'"},
		{"uniqueItems: 1 equals 1.0", `{"properties":{"u":{"uniqueItems":true}}}`, `{"u":[1,{"a":1},1.0]}`, "property 'u' must not contain equal items (items 0 and 2 are equal)"},
		{"uniqueItems: member order does not matter", `{"properties":{"u":{"uniqueItems":true}}}`, `{"u":[{"a":1,"b":2},{"b":2,"a":1}]}`, "property 'u' must not contain equal items (items 0 and 1 are equal)"},
		{"enum of structures", `{"properties":{"x":{"enum":[1,{"k":[1]}]}}}`, `{"x":{"k":[1.0]}}`, ""},
		{"enum message", `{"properties":{"x":{"enum":[1,"a",null,{"k":[1]}]}}}`, `{"x":2}`, `property 'x' must be one of [1, 'a', null, {"k":[1]}]`},
		{"dependentRequired", `{"dependentRequired":{"a":["b"]}}`, `{"a":1}`, "missing required property 'b' (required when 'a' is present)"},
		{"lengths count code points", `{"properties":{"s":{"minLength":2}}}`, `{"s":"\ud83d\ude00"}`, "property 's' must be at least 2 characters long"},
		{"a lone surrogate is one character", `{"properties":{"s":{"maxLength":1}}}`, `{"s":"\ud800"}`, ""},
		{"pattern is not anchored", `{"properties":{"s":{"pattern":"b+"}}}`, `{"s":"abbc"}`, ""},
		{"pattern: $ does not match before a newline", `{"properties":{"s":{"pattern":"^a$"}}}`, `{"s":"a\n"}`, "property 's' must match the pattern '^a$'"},
		{"a pattern reads as the schema states it", `{"properties":{"y":{"pattern":"^\\d{4}$"},"z":{"pattern":"^a\u200bb\\s$"}}}`, `{"y":"x","z":"x"}`,
			`property 'y' must match the pattern '^\d{4}$' | property 'z' must match the pattern '^a\u200bb\s$'`},
		{"alternatives over types say what an array holds", `{"properties":{"vars":{"anyOf":[{"type":"string"},{"type":"array","items":{"type":"string"}}]},"ids":{"oneOf":[{"type":"integer"},{"$ref":"#/$defs/list"}]}},"$defs":{"list":{"type":"array","items":{"type":["integer","string"]}}}}`,
			`{"vars":5,"ids":true}`, "property 'vars' must be string or array of strings | property 'ids' must be integer or array (of integer or string)"},
		{"alternatives over types without item types", `{"properties":{"v":{"anyOf":[{"type":"string"},{"type":"array"}]}}}`, `{"v":5}`, "property 'v' must be string or array"},
		{"items after prefixItems", `{"properties":{"t":{"prefixItems":[{"type":"string"}],"items":false}}}`, `{"t":["a",1]}`, "unexpected item 't[1]': at most 1 item allowed"},
		{"counts", `{"properties":{"a":{"minItems":2},"o":{"maxProperties":1}}}`, `{"a":[1],"o":{"x":1,"y":2}}`, "property 'a' must have at least 2 items | property 'o' must have at most 1 property"},
		{"false schema", `{"properties":{"no":false}}`, `{"no":1}`, "property 'no' is not allowed"},
		{"additionalProperties as a schema", `{"additionalProperties":{"type":"integer"}}`, `{"x":"1"}`, "property 'x' must be integer"},
		{"arguments of another type", `{"type":"object"}`, `[]`, "arguments must be an object"},
		{"without type:object, an array passes", `{"properties":{"q":{"type":"string"}},"required":["q"]}`, `[]`, ""},
		{"trailing data", `{"type":"object"}`, `{"a":1} x`, "arguments are not valid JSON: unexpected data after the arguments at offset 8"},
		{"broken JSON", `{"type":"object"}`, `{"a":[1,2,}`, "arguments are not valid JSON: expected a value at offset 10"},
		{"draft-07 tuples and format", `{"$schema":"http://json-schema.org/draft-07/schema#","properties":{"t":{"items":[{"type":"string"}],"additionalItems":false},"e":{"format":"email"}}}`,
			`{"t":["a","b"],"e":"nope"}`, "unexpected item 't[1]': at most 1 item allowed | property 'e' must be a valid email"},
		{"draft-07 $ref ignores its siblings", `{"$schema":"http://json-schema.org/draft-07/schema#","definitions":{"s":{"type":"string"}},"properties":{"x":{"$ref":"#/definitions/s","maxLength":1}}}`,
			`{"x":"long"}`, ""},
		{"2020-12 $ref keeps its siblings", `{"$defs":{"s":{"type":"string"}},"properties":{"x":{"$ref":"#/$defs/s","maxLength":1}}}`,
			`{"x":"long"}`, "property 'x' must be at most 1 character long"},
		{"format is an annotation by default", `{"properties":{"d":{"format":"date"}}}`, `{"d":"nope"}`, ""},
		{"patternProperties: required first, then wire order", `{"type":"object","patternProperties":{"^x":{"type":"string"}},"required":["a"]}`, `{"x1":2,"b":1}`,
			"missing required property 'a' | property 'x1' must be string"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := check(t, c.schema, c.args); got != c.want {
				t.Errorf("\n got %q\nwant %q", got, c.want)
			}
		})
	}
}

// TestKeywordSemantics covers the keywords that once went to the full engine, alone and
// with the keywords around them.
func TestKeywordSemantics(t *testing.T) {
	const patterned = `{"properties":{"id":{"type":"string"}},"patternProperties":{"^x-":{"type":"integer"},"-n$":{"minimum":0}},"additionalProperties":false}`
	const names = `{"propertyNames":{"pattern":"^[a-zé]+$","maxLength":3}}`
	const draft7 = `"$schema":"http://json-schema.org/draft-07/schema#"`
	cases := []struct{ name, schema, args, want string }{
		{"patternProperties: declared, matched and other members", patterned, `{"id":"a","x-1":2,"x-n":3,"zz":1}`, "unexpected property 'zz'"},
		{"patternProperties: every matching pattern applies", patterned, `{"x-n":-1,"x-2":"s"}`, "property 'x-n' must be at least 0 | property 'x-2' must be integer"},
		{"patternProperties: a property's schema and a pattern's", `{"properties":{"x-n":{"type":"integer"}},"patternProperties":{"-n$":{"minimum":0}}}`, `{"x-n":-1.5}`,
			"property 'x-n' must be integer | property 'x-n' must be at least 0"},
		{"patternProperties: unanchored, on the decoded name", `{"patternProperties":{"é":{"type":"null"}},"additionalProperties":false}`, `{"caf\u00e9s":null,"b":1}`, "unexpected property 'b'"},
		{"patternProperties: a repeated name", `{"patternProperties":{"^a":{}}}`, `{"a":1,"a":2}`, "property 'a' appears more than once"},
		{"patternProperties: an object inside", `{"patternProperties":{"^o":{"required":["k"],"patternProperties":{"^o":{"type":"string"}}}}}`, `{"o1":{"o2":1}}`,
			"missing required property 'o1.k' | property 'o1.o2' must be string"},
		{"propertyNames: pattern and maxLength", names, `{"abc":1,"a1":2,"abcd":3}`,
			"property 'a1' is invalid: the member name does not satisfy propertyNames | property 'abcd' is invalid: the member name does not satisfy propertyNames"},
		{"propertyNames: escaped and non-ASCII names", names, `{"\u0061b":1,"éé":2,"\u00e9\u00e9\u00e9\u00e9":3}`,
			"property \"éééé\" is invalid: the member name does not satisfy propertyNames"},
		{"propertyNames: enum", `{"propertyNames":{"enum":["a","b\"c"]}}`, `{"a":1,"b\"c":2,"b\u0022c":3,"d":4}`,
			`property "b\"c" appears more than once | property 'd' is invalid: the member name does not satisfy propertyNames`},
		{"propertyNames: const", `{"propertyNames":{"const":"é"}}`, `{"\u00e9":1,"e":2}`, "property 'e' is invalid: the member name does not satisfy propertyNames"},
		{"propertyNames: false refuses every member", `{"propertyNames":false}`, `{"a":1}`, "property 'a' is invalid: the member name does not satisfy propertyNames"},
		{"propertyNames: false allows the empty object", `{"propertyNames":false}`, `{}`, ""},
		{"propertyNames: through anyOf", `{"propertyNames":{"anyOf":[{"maxLength":1},{"pattern":"^x"}]}}`, `{"a":1,"xyz":2,"ab":3}`,
			"property 'ab' is invalid: the member name does not satisfy propertyNames"},
		{"propertyNames: after the value's own violation", `{"propertyNames":{"maxLength":1},"additionalProperties":{"type":"string"}}`, `{"ab":1}`,
			"property 'ab' must be string | property 'ab' is invalid: the member name does not satisfy propertyNames"},
		{"propertyNames: before violations inside the value", `{"propertyNames":{"maxLength":1},"additionalProperties":{"required":["z"]}}`, `{"ab":{}}`,
			"property 'ab' is invalid: the member name does not satisfy propertyNames | missing required property 'ab.z'"},
		{"contains: none matches", `{"properties":{"t":{"contains":{"const":"x"}}}}`, `{"t":["a"]}`,
			"property 't' is invalid: must contain an item that matches the schema under contains"},
		{"contains: one matches", `{"contains":{"const":"x"}}`, `["a","x"]`, ""},
		{"contains: the empty array", `{"contains":true}`, `[]`, "arguments are invalid: must contain an item that matches the schema under contains"},
		{"contains: not an array", `{"contains":false}`, `{"a":1}`, ""},
		{"minContains 0: none needed", `{"contains":{"type":"string"},"minContains":0}`, `[1,2]`, ""},
		{"minContains", `{"contains":{"type":"string"},"minContains":2}`, `["a",1]`,
			"arguments are invalid: must contain at least 2 items that match the schema under contains"},
		{"maxContains", `{"contains":{"type":"string"},"maxContains":1}`, `["a",1,"b"]`,
			"arguments are invalid: must contain at most 1 item that match the schema under contains"},
		{"minContains 0 with maxContains", `{"contains":{"type":"string"},"minContains":0,"maxContains":0}`, `[1,"a"]`,
			"arguments are invalid: must contain at most 0 items that match the schema under contains"},
		{"contains before the items' violations", `{"items":{"type":"integer"},"contains":{"type":"number","minimum":5}}`, `[1,"a"]`,
			"arguments are invalid: must contain an item that matches the schema under contains | property '[1]' must be integer"},
		{"draft-07: minContains and maxContains are no keywords", `{` + draft7 + `,"contains":{"const":1},"minContains":3,"maxContains":0}`, `[1]`, ""},
		{"dependentSchemas: the member present", `{"dependentSchemas":{"card":{"required":["billing"],"properties":{"cvv":{"type":"string"}}}}}`, `{"card":1,"cvv":123}`,
			"missing required property 'billing' | property 'cvv' must be string"},
		{"dependentSchemas: the member absent", `{"dependentSchemas":{"card":false}}`, `{"cvv":123}`, ""},
		{"dependentSchemas: false", `{"dependentSchemas":{"card":false}}`, `{"card":1}`, "arguments are not allowed"},
		{"dependentSchemas: not an object", `{"dependentSchemas":{"card":false}}`, `"card"`, ""},
		{"dependentSchemas: after the object's own violations", `{"properties":{"a":{"type":"integer"}},"dependentSchemas":{"a":{"required":["b"]}}}`, `{"a":"x"}`,
			"property 'a' must be integer | missing required property 'b'"},
		{"draft-07 dependencies: a list", `{` + draft7 + `,"dependencies":{"a":["b","c"]}}`, `{"a":1,"c":2}`, "missing required property 'b' (required when 'a' is present)"},
		{"draft-07 dependencies: a schema", `{` + draft7 + `,"dependencies":{"a":{"maxProperties":1}}}`, `{"a":1,"c":2}`, "arguments must have at most 1 property"},
		{"draft-07: dependentSchemas is no keyword", `{` + draft7 + `,"dependentSchemas":{"a":false}}`, `{"a":1}`, ""},
		{"$anchor", `{"$defs":{"pos":{"$anchor":"positive","exclusiveMinimum":0}},"properties":{"n":{"$ref":"#positive"}}}`, `{"n":0}`, "property 'n' must be greater than 0"},
		{"$anchor through an absolute reference", `{"$id":"https://example.com/tool","$defs":{"s":{"$anchor":"s","type":"string"}},"items":{"$ref":"https://example.com/tool#s"}}`, `[1]`,
			"property '[0]' must be string"},
		{"draft-07: an $id of a plain name is an anchor", `{` + draft7 + `,"definitions":{"s":{"$id":"#str","type":"string"}},"properties":{"a":{"$ref":"#str"}}}`, `{"a":1}`,
			"property 'a' must be string"},
		{"$anchor in draft-07 is no keyword", `{` + draft7 + `,"definitions":{"s":{"$anchor":"s"}},"properties":{"a":{"$ref":"#/definitions/s"}}}`, `{"a":1}`, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v, err := Compile([]byte(c.schema))
			if err != nil {
				t.Fatal(err)
			}
			if v.full != nil {
				t.Fatal("the full engine is in charge")
			}
			if got := strings.Join(Messages(v.Validate([]byte(c.args)), nil), " | "); got != c.want {
				t.Errorf("\n got %q\nwant %q", got, c.want)
			}
		})
	}
}

func TestFormatAssertion(t *testing.T) {
	schema := `{"properties":{"d":{"format":"date-time"},"u":{"format":"uuid"},"ip":{"format":"ipv4"}}}`
	got := check(t, schema, `{"d":"2026-11-30T10:00:00Z","u":"nope","ip":"1.2.3.4"}`, WithFormatAssertion())
	if got != "property 'u' must be a valid uuid" {
		t.Errorf("got %q", got)
	}
	if got := check(t, `{"properties":{"x":{"format":"no-such-format"}}}`, `{"x":"y"}`, WithFormatAssertion()); got != "" {
		t.Errorf("unknown formats are annotations: %q", got)
	}
}

func TestLimits(t *testing.T) {
	deep := strings.Repeat(`{"a":`, 100) + "1" + strings.Repeat("}", 100)
	v, _ := Compile([]byte(`{"type":"object"}`), WithMaxDepth(10))
	vs := v.Validate([]byte(deep))
	if len(vs) != 1 || vs[0].Kind != KindTooDeep || len(vs[0].Path) != 10 {
		t.Fatalf("deep arguments: %+v", vs)
	}
	if got := Messages(vs, nil)[0]; got != "property 'a.a.a.a.a.a.a.a.a.a' nests deeper than the limit of 10 levels" {
		t.Errorf("got %q", got)
	}
	v, _ = Compile([]byte(`{"additionalProperties":{"type":"string"}}`), WithMaxViolations(3))
	vs = v.Validate([]byte(`{"a":1,"b":2,"c":3,"d":4,"e":5}`))
	if got := strings.Join(Messages(vs, nil), " | "); got != "property 'a' must be string | property 'b' must be string | property 'c' must be string | and 2 more violations" {
		t.Errorf("got %q", got)
	}
}

func TestValidAllocatesNothing(t *testing.T) {
	for _, c := range []struct{ schema, args string }{
		{weatherSchema, `{"location": "Paris", "days": 2, "units": "c"}`},
		{`{"properties":{"tags":{"type":"array","uniqueItems":true,"items":{"type":"string"}}}}`, `{"tags":["a","b","c","d"]}`},
	} {
		v, _ := Compile([]byte(c.schema))
		args := []byte(c.args)
		v.Validate(args) // fill the pool
		if n := testing.AllocsPerRun(100, func() { v.Validate(args) }); n != 0 {
			t.Errorf("%s: a valid call allocates %v times", c.args, n)
		}
		if !v.quickValid(args) {
			t.Errorf("%s: the quick pass gives it up", c.args)
		}
	}
}

// A syntax error met while explaining alternatives is the answer, not lost with them.
func TestSyntaxErrorInsideAlternatives(t *testing.T) {
	for _, schema := range []string{`{"anyOf":[false,false]}`, `{"oneOf":[{"type":"string","minLength":9},{"type":"number"}]}`} {
		if got := check(t, schema, `"`); !strings.HasPrefix(got, "arguments are not valid JSON: unterminated string") {
			t.Errorf("%s: got %q", schema, got)
		}
	}
}

// A refusal's violations, paths and names belong to the caller: later calls on the same
// validator, which reuse its scanning state, leave them as they were.
func TestResultsOutliveLaterCalls(t *testing.T) {
	v, _ := Compile([]byte(weatherSchema))
	first := v.Validate([]byte(`{"days": 2.5, "units": "k", "x": 1}`))
	want := strings.Join(Messages(first, nil), " | ")
	for _, args := range []string{`{"zz": 1, "units": "q", "days": "x"}`, `{"location": "Paris"}`, `{"yy": [1], "days": 1.5}`} {
		v.Validate([]byte(args))
		if got := strings.Join(Messages(first, nil), " | "); got != want {
			t.Fatalf("after validating %s the first answer changed:\n got %q\nwant %q", args, got, want)
		}
	}
}

// malformedShapes are arguments that are not JSON under schemas that once read them again
// as if they were, after finding them malformed, and panicked.
var malformedShapes = []struct{ schema, args string }{
	{`{"items":false,"uniqueItems":true}`, `[{"id":01}]`},
	{`{"items":false,"uniqueItems":true}`, `["\x"]`},
	{`{"items":false,"uniqueItems":true}`, `[{"a" 1}]`},
	{`{"items":false,"uniqueItems":true}`, `[[1`},
	{`{"items":false,"uniqueItems":true}`, `[-]`},
	{`{"prefixItems":[{}],"items":false,"uniqueItems":true}`, `[1,{"a":01}]`},
	{`{"$schema":"http://json-schema.org/draft-07/schema#","items":[{}],"additionalItems":false,"uniqueItems":true}`, `[1,{"a":01}]`},
	{`{"properties":{"a":{"items":false,"uniqueItems":true,"unevaluatedItems":false}}}`, `{"a":[{"b":01}]}`},
}

// TestMalformedArgumentsRefused: arguments that are not JSON are refused for their syntax,
// whatever reads the schema would make of them if they were.
func TestMalformedArgumentsRefused(t *testing.T) {
	for _, c := range malformedShapes {
		v, err := Compile([]byte(c.schema))
		if err != nil {
			t.Fatal(err)
		}
		if vs := v.Validate([]byte(c.args)); len(vs) != 1 || vs[0].Kind != KindSyntax {
			t.Errorf("%s under %s: %v, want one syntax violation", c.args, c.schema, Messages(vs, nil))
		}
	}
}

// FuzzValidateAnyBytes feeds arbitrary bytes to Validate under every schema of the
// conformance corpora, the quick pass's cases, generated schemas and malformedShapes'
// schemas, each with the options that take other paths: it must never panic, and must
// refuse whatever is not JSON. The first input picks the schema and options.
func FuzzValidateAnyBytes(f *testing.F) {
	var validators []*Validator
	variants := [][]CompileOption{nil, {WithHints(), WithFormatAssertion()}, {WithMaxDepth(3), WithMaxViolations(1)}, {WithFullEngine()}}
	add := func(schema []byte, args ...[]byte) {
		for _, opts := range variants {
			v, err := Compile(schema, opts...)
			if err != nil {
				return
			}
			for _, a := range args {
				f.Add(uint(len(validators)), a)
			}
			validators = append(validators, v)
		}
	}
	for _, s := range malformedShapes {
		add([]byte(s.schema), []byte(s.args))
	}
	for _, c := range quickCases {
		add([]byte(c.schema), []byte(c.args))
	}
	files, err := testsuite.LoadCorpus()
	if err != nil {
		f.Fatal(err)
	}
	for _, file := range files {
		for _, g := range file.Groups {
			var args [][]byte
			for _, tc := range g.Tests {
				args = append(args, tc.Data)
			}
			add(g.Schema, args...)
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 300 {
		data := make([]byte, 64)
		for i := range data {
			data[i] = byte(r.Uint32())
		}
		c := generate(data)
		add(c.schema, c.args)
	}
	f.Fuzz(func(t *testing.T, i uint, args []byte) {
		v := validators[i%uint(len(validators))]
		if vs := v.Validate(args); vs == nil && !json.Valid(args) {
			t.Fatalf("Validate accepts %q, which is not JSON", args)
		}
	})
}
