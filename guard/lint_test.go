package guard

import (
	"errors"
	"testing"
)

func TestLint(t *testing.T) {
	cases := []struct{ name, schema, rule, location string }{
		{"open object", `{"type":"object","properties":{"q":{"type":"string","maxLength":9}}}`, "open-object", "#"},
		{"email without a format", `{"type":"object","additionalProperties":false,"properties":{"customer_email":{"type":"string"}}}`, "unconstrained-identifier", "#/properties/customer_email"},
		{"date described but not stated", `{"type":"object","additionalProperties":false,"properties":{"start_date":{"type":"string","description":"Start date in YYYY-MM-DD format"}}}`, "unconstrained-identifier", "#/properties/start_date"},
		{"timestamp described but not stated", `{"type":"object","additionalProperties":false,"properties":{"createdAt":{"type":"string","description":"An RFC 3339 timestamp"}}}`, "unconstrained-identifier", "#/properties/createdAt"},
		{"commit SHA", `{"type":"object","additionalProperties":false,"properties":{"commitID":{"type":"string","description":"SHA of commit to review"}}}`, "unconstrained-identifier", "#/properties/commitID"},
		{"closed set listed in the description", `{"type":"object","additionalProperties":false,"properties":{"severity":{"type":"string","description":"One of 'low', 'medium' or 'high'"}}}`, "open-set", "#/properties/severity"},
		{"free-form map that constrains nothing", `{"type":"object","additionalProperties":false,"properties":{"inputs":{"type":"object","properties":{}}}}`, "open-map", "#/properties/inputs"},
		{"anchors that bind one alternative each", `{"type":"object","additionalProperties":false,"properties":{"code":{"type":"string","pattern":"^(A)|(B)$"}}}`, "loose-anchors", "#/properties/code/pattern"},
		{"tool without arguments, left open", `{"type":"object","properties":{}}`, "open-object", "#"},
		{"unbounded array", `{"type":"object","additionalProperties":false,"properties":{"tags":{"type":"array","items":{"type":"string","maxLength":9}}}}`, "unbounded-array", "#/properties/tags"},
		{"recursion", `{"type":"object","additionalProperties":false,"properties":{"f":{"$ref":"#/$defs/c"}},"$defs":{"c":{"type":"object","additionalProperties":false,"properties":{"not":{"$ref":"#/$defs/c"}}}}}`, "unbounded-recursion", "#/$defs/c/properties/not/$ref"},
		{"required but undeclared", `{"type":"object","additionalProperties":false,"properties":{"a":{"type":"boolean"}},"required":["a","b"]}`, "undeclared-required", "#/required"},
		{"enum value of the wrong type", `{"type":"object","additionalProperties":false,"properties":{"level":{"type":"string","enum":["low",2]}}}`, "enum-type", "#/properties/level/enum/1"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			advice, err := Lint([]byte(c.schema))
			if err != nil {
				t.Fatal(err)
			}
			if len(advice) != 1 || advice[0].Rule != c.rule || advice[0].Location != c.location {
				t.Errorf("want only %s at %s, got %v", c.rule, c.location, advice)
			}
		})
	}
}

// TestLintQuietOnLooseByDesign: schemas of real tools whose looseness is intended, where
// following advice would break the tool or state a grammar the values do not have.
func TestLintQuietOnLooseByDesign(t *testing.T) {
	cases := []struct{ name, schema string }{
		{"map with typed values", `{"type":"object","additionalProperties":false,"properties":{"fields":{"type":"object","additionalProperties":{"type":"string"}}}}`},
		{"map with constrained names", `{"type":"object","additionalProperties":false,"properties":{"labels":{"type":"object","propertyNames":{"pattern":"^[a-z]+$"},"properties":{}}}}`},
		{"opaque identifiers", `{"type":"object","additionalProperties":false,"properties":{"uid":{"type":"string"},"gist_id":{"type":"string","description":"The ID of the gist"},"node_id":{"type":"string","description":"The GraphQL node ID"}}}`},
		{"relative time", `{"type":"object","additionalProperties":false,"properties":{"eventTime":{"type":"string","description":"When, e.g. now-1h"},"what":{"type":"string"}}}`},
		{"closed-looking name, open values", `{"type":"object","additionalProperties":false,"properties":{"category":{"type":"string","description":"Filter by discussion category ID"}}}`},
		{"anchored alternatives", `{"type":"object","additionalProperties":false,"properties":{"a":{"type":"string","pattern":"^(?:A|B)$"},"b":{"type":"string","pattern":"^A$|^B$"},"c":{"type":"string","pattern":"A|B"}}}`},
		{"object whose alternatives declare its members", `{"type":"object","additionalProperties":false,"properties":{"field":{"type":"object","oneOf":[{"additionalProperties":false,"properties":{"id":{"type":"integer"}},"required":["id"]},{"additionalProperties":false,"properties":{"name":{"type":"string","maxLength":9}},"required":["name"]}]}}}`},
		{"members declared across allOf", `{"type":"object","allOf":[{"properties":{"a":{"type":"boolean"}}},{"properties":{"b":{"type":"boolean"}}}]}`},
		{"unique items from an enum", `{"type":"object","additionalProperties":false,"properties":{"fields":{"type":"array","uniqueItems":true,"items":{"enum":["name","size"]}}}}`},
		{"tuple without more items", `{"type":"object","additionalProperties":false,"properties":{"pair":{"type":"array","prefixItems":[{"type":"boolean"},{"type":"boolean"}],"items":false}}}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if advice, err := Lint([]byte(c.schema)); err != nil || len(advice) != 0 {
				t.Errorf("want no advice, got %v %v", advice, err)
			}
		})
	}
}

func TestLintQuietOnAStrictSchema(t *testing.T) {
	strict := `{"type":"object","additionalProperties":false,"required":["order_id","reason"],"properties":{
		"order_id":{"type":"string","pattern":"^ord_[a-zA-Z0-9]{20}$"},
		"amount_cents":{"type":"integer","minimum":1,"maximum":1000000},
		"reason":{"type":"string","enum":["duplicate_charge","cancellation","other"]},
		"ids":{"type":"array","maxItems":10,"items":{"type":"integer"}}}}`
	if advice, err := Lint([]byte(strict)); err != nil || len(advice) != 0 {
		t.Errorf("%v %v", advice, err)
	}
	var se *SchemaError
	if _, err := Lint([]byte(`{"type":"strnig"}`)); !errors.As(err, &se) {
		t.Errorf("a broken schema is an error: %v", err)
	}
}
