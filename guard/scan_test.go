package guard

import (
	"testing"
)

// Every proper prefix of a well-formed call is one syntax violation, never a panic or a pass.
func TestTruncatedArguments(t *testing.T) {
	schemas := []string{weatherSchema, `{}`,
		`{"properties":{"a":{"type":"array","items":{"type":"object","properties":{"b":{"type":"string"}}}}}}`,
		`{"oneOf":[{"properties":{"location":{}},"additionalProperties":false},{"properties":{"a":{}},"additionalProperties":false}]}`}
	docs := []string{`{"location": "Paris", "days": 2, "units": "c"}`, `{"location":"Paris","days":2}`,
		`{ "a" : [ {"b":"x\"y"} , {"b" : "\u00e9"}, {"c": [1, true, null]} ] }`}
	for _, schema := range schemas {
		v, err := Compile([]byte(schema))
		if err != nil {
			t.Fatal(err)
		}
		for _, doc := range docs {
			if vs := v.Validate([]byte(doc)); len(vs) > 0 && vs[0].Kind == KindSyntax {
				t.Fatalf("%s: whole call refused as syntax: %v", doc, vs)
			}
			for i := range len(doc) {
				vs := v.Validate([]byte(doc[:i]))
				if len(vs) != 1 || vs[0].Kind != KindSyntax || vs[0].Offset > i {
					t.Errorf("schema %s, args %q: got %+v, want one syntax violation at or before %d", schema, doc[:i], vs, i)
				}
			}
		}
	}
}
