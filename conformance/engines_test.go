package conformance

import (
	"reflect"
	"strings"
	"testing"

	"github.com/mcpvalidate/mcpvalidate/guard"
	_ "github.com/mcpvalidate/mcpvalidate/guard/fullengine" // WithFullEngine, in every test of the package
)

// engineCase is a schema the subset validates, and arguments for it.
type engineCase struct{ name, schema, args string }

// sameAsFullCases exercise the keywords the subset took over from the full engine, alone and
// together with the others.
var sameAsFullCases = []engineCase{
	{"patternProperties with additionalProperties false", `{"properties":{"a":{"type":"string"}},"patternProperties":{"^x-":{"type":"integer"}},"additionalProperties":false}`,
		`{"a":1,"x-1":"s","b":2,"x-2":3,"x-":null}`},
	{"a property's schema and a pattern's", `{"properties":{"xa":{"minLength":3}},"patternProperties":{"^x":{"type":"string"}}}`, `{"xa":"ab","xb":1}`},
	{"patterns on escaped and non-ASCII names", `{"patternProperties":{"^é+$":{"const":1},"\\\\":{"type":"null"}}}`, `{"\u00e9\u00e9":2,"a\\b":0,"éa":3}`},
	{"additionalProperties as a schema beside patterns", `{"patternProperties":{"[0-9]":{"type":"integer"}},"additionalProperties":{"type":"string"}}`, `{"a1":"x","b":2,"c":"ok","d2":3}`},
	{"propertyNames: pattern and maxLength", `{"propertyNames":{"pattern":"^[a-z]+$","maxLength":5}}`, `{"ab\u0063":1,"é":2,"toolong":3,"A":4}`},
	{"propertyNames: enum and const through anyOf", `{"propertyNames":{"anyOf":[{"const":"a"},{"enum":["é","b\"c"]}]}}`, `{"a":1,"\u00e9":2,"b\"c":3,"z":4}`},
	{"propertyNames: non-ASCII length", `{"propertyNames":{"maxLength":2}}`, `{"éé":1,"ééé":2,"\ud83d\ude00\ud83d\ude00":3}`},
	{"propertyNames: a type other than string", `{"propertyNames":{"type":"number"}}`, `{"1":1}`},
	{"propertyNames: $ref", `{"$defs":{"short":{"maxLength":1}},"properties":{"o":{"propertyNames":{"$ref":"#/$defs/short"}}}}`, `{"o":{"a":1,"bb":{"ccc":2}}}`},
	{"propertyNames and values", `{"propertyNames":{"maxLength":2},"additionalProperties":{"type":"integer"}}`, `{"abc":"x","ab":{"a":1}}`},
	{"propertyNames and values inside", `{"propertyNames":{"maxLength":2},"additionalProperties":{"required":["z"],"properties":{"q":{"type":"string"}}}}`, `{"abc":{"q":1},"abcd":[]}`},
	{"propertyNames under required", `{"required":["q"],"propertyNames":{"minLength":2}}`, `{"a":1}`},
	{"contains with minContains 0", `{"contains":{"type":"string"},"minContains":0}`, `[1,2]`},
	{"contains with minContains 0 and maxContains", `{"contains":{"type":"string"},"minContains":0,"maxContains":1}`, `[1,"a","b"]`},
	{"minContains above the matches", `{"contains":{"minimum":5},"minContains":2}`, `[1,7,3]`},
	{"maxContains alone", `{"contains":{"const":1},"maxContains":1}`, `[1,1,2]`},
	{"contains on an empty array", `{"contains":{}}`, `[]`},
	{"nested contains", `{"items":{"contains":{"const":1}},"contains":{"type":"array","minItems":2}}`, `[[2],[3,4]]`},
	{"contains with items failing", `{"items":{"type":"integer"},"contains":{"type":"integer","minimum":10}}`, `[1,"a",3]`},
	{"draft-07 ignores minContains", `{"$schema":"http://json-schema.org/draft-07/schema#","contains":{"const":1},"minContains":2,"maxContains":0}`, `[1]`},
	{"dependentSchemas failing", `{"dependentSchemas":{"a":{"required":["b"],"properties":{"c":{"type":"string"}}}}}`, `{"a":1,"c":1}`},
	{"dependentSchemas absent member", `{"dependentSchemas":{"a":false}}`, `{"b":1}`},
	{"dependentSchemas on a non-object", `{"dependentSchemas":{"a":false}}`, `["a"]`},
	{"dependencies, both forms", `{"$schema":"http://json-schema.org/draft-07/schema#","dependencies":{"a":["b","c"],"b":{"properties":{"b":{"type":"string"}}}}}`, `{"a":1,"b":2}`},
	{"dependencies in 2020-12, as the full engine has them", `{"dependencies":{"a":["b"]}}`, `{"a":1}`},
	{"$anchor", `{"$defs":{"s":{"$anchor":"str","type":"string"}},"properties":{"a":{"$ref":"#str"}}}`, `{"a":1}`},
	{"draft-06 anchor in $id", `{"$schema":"http://json-schema.org/draft-06/schema#","definitions":{"s":{"$id":"#s","maxLength":1}},"additionalProperties":{"$ref":"#s"}}`, `{"a":"bc","b":"c"}`},
	{"unevaluatedProperties false", `{"properties":{"a":{"type":"string"}},"allOf":[{"properties":{"b":{}}}],"unevaluatedProperties":false}`, `{"z":1,"a":1,"b":2,"c":3}`},
	{"unevaluatedProperties as a schema", `{"anyOf":[{"properties":{"a":{}},"required":["a"]},{"patternProperties":{"^x":{}}}],"unevaluatedProperties":{"type":"integer"}}`, `{"a":1,"x1":"s","b":"t","c":2}`},
	{"unevaluatedProperties through if and then", `{"if":{"properties":{"k":{"const":1}}},"then":{"properties":{"t":{}}},"else":{"properties":{"e":{}}},"unevaluatedProperties":false}`, `{"k":1,"t":0,"e":0}`},
	{"unevaluatedItems false", `{"prefixItems":[{"type":"integer"}],"allOf":[{"prefixItems":[{},{}]}],"unevaluatedItems":false}`, `[1,2,3,4]`},
	{"unevaluatedItems with contains", `{"contains":{"type":"string"},"unevaluatedItems":{"type":"integer"}}`, `["a",1,true,"b",null]`},
	{"nested unevaluatedProperties", `{"properties":{"o":{"properties":{"p":{}},"unevaluatedProperties":false}},"unevaluatedProperties":false}`, `{"o":{"p":1,"q":2},"r":3}`},
	{"$dynamicRef through an extension", `{"$id":"https://example.com/strict-tree","$dynamicAnchor":"node","$ref":"tree","unevaluatedProperties":false,"$defs":{"tree":{"$id":"tree","$dynamicAnchor":"node","type":"object","properties":{"data":true,"children":{"type":"array","items":{"$dynamicRef":"#node"}}}}}}`, `{"children":[{"data":1,"daat":2},{"children":[{"x":0}]}],"y":1}`},
	{"$dynamicRef without the extension", `{"$id":"https://example.com/loose-tree","$ref":"tree","$defs":{"tree":{"$id":"tree","$dynamicAnchor":"node","type":"object","properties":{"data":true,"children":{"type":"array","items":{"$dynamicRef":"#node"}}}}}}`, `{"children":[{"data":1,"daat":2},{"children":3}]}`},
	{"$recursiveRef", `{"$schema":"https://json-schema.org/draft/2019-09/schema","$id":"https://example.com/r","$recursiveAnchor":true,"$ref":"list","unevaluatedProperties":false,"$defs":{"list":{"$id":"list","$recursiveAnchor":true,"properties":{"next":{"$recursiveRef":"#"}}}}}`, `{"next":{"next":{"x":1}},"y":2}`},
	{"$dynamicRef in 2019-09", `{"$schema":"https://json-schema.org/draft/2019-09/schema","properties":{"a":{"$dynamicRef":"#/$defs/s"}},"$defs":{"s":{"type":"string"}}}`, `{"a":1}`},
	{"$anchor in 2019-09", `{"$schema":"https://json-schema.org/draft/2019-09/schema","$defs":{"s":{"$anchor":"n:1","type":"null"}},"items":{"$ref":"#n:1"}}`, `[null,0]`},
}

// TestSubsetMatchesFullEngine requires the subset to give exactly the full engine's
// violations on the suite's cases for the keywords it took over, and on sameAsFullCases.
func TestSubsetMatchesFullEngine(t *testing.T) {
	// Where a value matches none of nested oneOf alternatives, the full engine explains the
	// closest one at depth and lists the members those alternatives declare as unexpected;
	// the subset says the value matches none, and lists as unexpected only what no
	// alternative declares. Where a member's value fails, the full engine drops what the
	// failing schemas evaluated, and lists the member itself as unexpected beside the
	// failure inside it; the subset lists only the failure inside. draft-04 brings every keyword, and 2019-09's recursiveRef groups
	// nest anyOf, whose explanations differ as they do in 2020-12 (which alternative of
	// anyOf is explained, how a bound is written, the order of the types): there only the
	// verdicts are compared.
	explainedOtherwise := map[string]bool{
		"unevaluatedProperties + ref inside allOf / oneOf": true,
		"dynamic evalation inside nested refs":             true,
		"$dynamicRef through an extension":                 true,
		"$recursiveRef":                                    true,
	}
	// The comparison means something only if WithFullEngine hands the schema to the other
	// engine: where the two explain otherwise, they must.
	oneOf := `{"oneOf":[{"properties":{"a":{"type":"string"}},"required":["a"]},{"properties":{"b":{}},"required":["b"]}]}`
	if ours, theirs := mustCompile(t, oneOf).Validate([]byte(`{"a":1}`)), mustCompile(t, oneOf, guard.WithFullEngine()).Validate([]byte(`{"a":1}`)); reflect.DeepEqual(ours, theirs) {
		t.Fatalf("WithFullEngine explains a value matching no oneOf alternative as the subset does (%s): is the full engine in charge?", describe(ours))
	}
	compare := func(t *testing.T, what string, schema []byte, opts []guard.CompileOption, args [][]byte) {
		v := mustCompile(t, string(schema), opts...)
		full := mustCompile(t, string(schema), append(opts, guard.WithFullEngine())...)
		for _, a := range args {
			ours, theirs := v.Validate(a), full.Validate(a)
			file, group, _ := strings.Cut(what, " / ")
			verdictOnly := explainedOtherwise[group] || explainedOtherwise[what] || strings.HasPrefix(file, "draft4/") || file == "draft2019-09/recursiveRef.json"
			if verdictOnly && (ours == nil) == (theirs == nil) {
				continue
			}
			if !reflect.DeepEqual(ours, theirs) {
				t.Errorf("%s: %s:\n subset %s\n full   %s", what, a, describe(ours), describe(theirs))
			}
		}
	}
	for _, f := range loadCorpus(t) {
		if f.Name != "jsts-added-keywords.json" {
			continue
		}
		for _, g := range f.Groups {
			var args [][]byte
			for _, tc := range g.Tests {
				args = append(args, tc.Data)
			}
			compare(t, g.File+" / "+g.Description, g.Schema, ourOptions(g), args)
		}
	}
	for _, c := range sameAsFullCases {
		compare(t, c.name, []byte(c.schema), nil, [][]byte{[]byte(c.args)})
	}
}
