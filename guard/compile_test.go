package guard

import (
	"errors"
	"strings"
	"testing"
)

// TestAnchorsUnderNestedID: an anchor belongs to the resource it is defined in. The
// schemas stay with the full engine for their nested $id, but the subset resolves them.
func TestAnchorsUnderNestedID(t *testing.T) {
	cases := []struct{ schema, at string }{
		{`{"$defs":{"r":{"$id":"other","$defs":{"a":{"$anchor":"x","type":"string"}}}},"$ref":"other#x"}`, "#/$defs/r/$defs/a"},
		{`{"$defs":{"r":{"$id":"other","$ref":"#x","$defs":{"a":{"$anchor":"x","type":"null"}}},"b":{"$anchor":"x","type":"string"}},"$ref":"#/$defs/r"}`, "#/$defs/r/$defs/a"},
	}
	for _, c := range cases {
		tree, err := parseSchema([]byte(c.schema))
		if err != nil {
			t.Fatal(err)
		}
		root, _, _, err := compileSubset(tree, newConfig(nil), draft2020)
		if err != nil {
			t.Fatalf("%s: %v", c.schema, err)
		}
		n := root.ref
		for n.ref != nil {
			n = n.ref
		}
		if n.loc != c.at {
			t.Errorf("%s: the reference reaches %s, want %s", c.schema, n.loc, c.at)
		}
	}
}

func TestCompileErrors(t *testing.T) {
	cases := []struct{ name, schema, location, reason string }{
		{"not JSON", `{"type":`, "#", "not valid JSON"},
		{"unknown type", `{"properties":{"a":{"type":"strnig"}}}`, "#/properties/a/type", `unknown type "strnig"`},
		{"bad regex", `{"properties":{"id":{"pattern":"(x"}}}`, "#/properties/id/pattern", "does not compile"},
		{"unresolved $ref", `{"properties":{"a":{"$ref":"#/$defs/missing"}}}`, "#/properties/a/$ref", "points at nothing"},
		{"remote $ref", `{"properties":{"a":{"$ref":"https://example.com/s.json"}}}`, "#/properties/a/$ref", "never fetched"},
		{"$ref loop", `{"$defs":{"a":{"$ref":"#/$defs/b"},"b":{"allOf":[{"$ref":"#/$defs/a"}]}},"$ref":"#/$defs/a"}`, "#/$defs/a", "loops back"},
		{"$ref to itself", `{"$ref":"#"}`, "#", "loops back"},
		{"negative length", `{"properties":{"a":{"minLength":-1}}}`, "#/properties/a/minLength", "non-negative integer"},
		{"zero multipleOf", `{"properties":{"a":{"multipleOf":0}}}`, "#/properties/a/multipleOf", "greater than 0"},
		{"unknown dialect", `{"$schema":"https://example.com/my-dialect"}`, "#/$schema", "unknown dialect"},
		{"draft-04 exclusiveMaximum as a number", `{"$schema":"http://json-schema.org/draft-04/schema#","properties":{"n":{"maximum":3,"exclusiveMaximum":3}}}`, "#/properties/n/exclusiveMaximum", "must be a boolean in draft-04"},
		{"draft-04 boolean schema", `{"$schema":"http://json-schema.org/draft-04/schema#","items":true}`, "#/items", "must be an object in draft-04"},
		{"duplicate names in the schema", `{"type":"object","type":"array"}`, "#", "appears twice"},
		{"bad patternProperties regex", `{"patternProperties":{"(x":{}}}`, "#/patternProperties/(x", "does not compile"},
		{"patternProperties not an object", `{"patternProperties":["^x"]}`, "#/patternProperties", "must be an object"},
		{"negative minContains", `{"contains":{},"minContains":-1}`, "#/minContains", "non-negative integer"},
		{"dependentSchemas not an object", `{"dependentSchemas":[{}]}`, "#/dependentSchemas", "must be an object"},
		{"dependencies of another kind", `{"dependencies":{"a":3}}`, "#/dependencies/a", "must be an object or a boolean"},
		{"$anchor not a name", `{"$defs":{"a":{"$anchor":"1a"}}}`, "#/$defs/a/$anchor", "must be a name"},
		{"$anchor not a 2019-09 name", `{"$schema":"https://json-schema.org/draft/2019-09/schema","$defs":{"a":{"$anchor":"_a"}}}`, "#/$defs/a/$anchor", "must be a name"},
		{"$anchor twice", `{"$defs":{"a":{"$anchor":"x"},"b":{"$anchor":"x"}}}`, "#/$defs/b/$anchor", "also defined at #/$defs/a"},
		{"$ref to no anchor", `{"properties":{"a":{"$ref":"#nope"}}}`, "#/properties/a/$ref", "points at no anchor"},
		{"$dynamicRef to no anchor", `{"properties":{"a":{"$dynamicRef":"#nope"}}}`, "#/properties/a/$dynamicRef", "points at no anchor"},
		{"$recursiveAnchor not a boolean", `{"$schema":"https://json-schema.org/draft/2019-09/schema","$recursiveAnchor":"yes"}`, "#/$recursiveAnchor", "must be a boolean"},
		{"a schema of another type", `{"properties":{"a":3,"b":{}}}`, "#/properties/a", "must be an object or a boolean, not an integer"},
		{"an array for a schema", `{"items":[]}`, "#/items", "must be an object or a boolean, not an array"},
		{"draft-07 anchor twice", `{"$schema":"http://json-schema.org/draft-07/schema#","definitions":{"a":{"$id":"#x"},"b":{"$id":"#x"}}}`, "#/definitions/b/$id", "also defined at #/definitions/a"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Compile([]byte(c.schema))
			var se *SchemaError
			if !errors.As(err, &se) {
				t.Fatalf("want a *SchemaError, got %v", err)
			}
			if se.Location != c.location || !strings.Contains(se.Reason, c.reason) {
				t.Errorf("got %q at %s; want %q at %s", se.Reason, se.Location, c.reason, c.location)
			}
		})
	}
}
