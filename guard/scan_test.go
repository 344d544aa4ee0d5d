package guard

import (
	"encoding/json"
	"testing"
)

// scanString agrees with encoding/json on which string literals are well formed.
func TestScanStringAgreesWithEncodingJSON(t *testing.T) {
	alphabet := []byte("ab\"\\/ubfnrt0123456789ABCDEFxyz \x00\x1f\x7f\x80\xc3\xa9\xff")
	seed := uint64(1)
	next := func(n int) int {
		seed = seed*6364136223846793005 + 1442695040888963407
		return int(seed>>33) % n
	}
	for range 200000 {
		lit := []byte{'"'}
		for range next(24) {
			lit = append(lit, alphabet[next(len(alphabet))])
		}
		if next(2) == 0 {
			lit = append(lit, '"')
		}
		want := -1 // where the first well-formed string ends; encoding/json allows invalid UTF-8
		for k := 2; k <= len(lit); k++ {
			if json.Valid(lit[:k]) {
				want = k
				break
			}
		}
		got, end, problem := -1, 0, ""
		if _, end, problem = scanString(lit, 0); problem == "" {
			got = end
		}
		if got != want {
			t.Fatalf("%q: scanString ends at %d (%q), encoding/json at %d", lit, end, problem, want)
		}
	}
}

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
