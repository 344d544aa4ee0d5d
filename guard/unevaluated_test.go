package guard

import "testing"

func TestUnevaluated(t *testing.T) {
	cases := []struct{ name, schema, args, want string }{
		{"in the members' order", `{"properties":{"a":{"type":"string"}},"allOf":[{"properties":{"b":{}}}],"unevaluatedProperties":false}`,
			`{"z":1,"a":1,"b":2,"c":3}`, "unexpected property 'z' | property 'a' must be string | unexpected property 'c'"},
		{"the alternative that holds evaluates", `{"anyOf":[{"properties":{"a":{}},"required":["a"]},{"properties":{"b":{}}}],"unevaluatedProperties":false}`,
			`{"b":1,"a":2}`, ""},
		{"an alternative that fails does not", `{"anyOf":[{"properties":{"a":{}},"required":["a"]},{"properties":{"b":{}}}],"unevaluatedProperties":false}`,
			`{"b":1,"a":2,"q":0}`, "unexpected property 'q'"},
		{"a member whose value fails is not also unexpected", `{"allOf":[{"properties":{"a":{"type":"string"}}}],"unevaluatedProperties":false}`,
			`{"a":1}`, "property 'a' must be string"},
		{"when no alternative holds, none of their members is unexpected", `{"oneOf":[{"properties":{"a":{"type":"string"}}},{"properties":{"a":{"type":"boolean"}}}],"unevaluatedProperties":false}`,
			`{"a":1}`, "arguments must match exactly one of the alternatives in oneOf, and matches none"},
		{"if evaluates when it holds, then too", `{"if":{"properties":{"k":{"const":1}}},"then":{"properties":{"t":{}}},"unevaluatedProperties":false}`,
			`{"k":1,"t":0}`, ""},
		{"a bare if evaluates when it holds", `{"if":{"properties":{"k":{"const":1}}},"unevaluatedProperties":false}`,
			`{"k":1}`, ""},
		{"else when if does not hold", `{"if":{"properties":{"k":{"const":1}}},"else":{"properties":{"e":{}}},"unevaluatedProperties":false}`,
			`{"k":2,"e":0}`, "unexpected property 'k'"},
		{"a schema for the rest", `{"properties":{"a":{}},"unevaluatedProperties":{"type":"integer"}}`,
			`{"a":"s","b":"t"}`, "property 'b' must be integer"},
		{"additionalProperties evaluates everything", `{"additionalProperties":true,"unevaluatedProperties":false}`, `{"a":1}`, ""},
		{"nested unevaluatedProperties evaluates everything", `{"allOf":[{"unevaluatedProperties":true}],"unevaluatedProperties":false}`, `{"a":1}`, ""},
		{"items past every prefixItems", `{"prefixItems":[{}],"allOf":[{"prefixItems":[{},{}]}],"unevaluatedItems":false}`,
			`[1,2,3]`, "unexpected item '[2]'"},
		{"items contains matches", `{"contains":{"type":"string"},"unevaluatedItems":{"type":"integer"}}`,
			`["a",1,true]`, "property '[2]' must be integer"},
		{"2019-09: contains evaluates nothing", `{"$schema":"https://json-schema.org/draft/2019-09/schema","contains":{"type":"string"},"unevaluatedItems":{"type":"integer"}}`,
			`["a",1]`, "property '[0]' must be integer"},
		{"draft-07 has no unevaluatedProperties", `{"$schema":"http://json-schema.org/draft-07/schema#","unevaluatedProperties":false}`, `{"a":1}`, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := check(t, c.schema, c.args); got != c.want {
				t.Errorf("got %q, want %q", got, c.want)
			}
		})
	}
}
