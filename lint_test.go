package mcpvalidate

import (
	"errors"
	"testing"
)

func TestLint(t *testing.T) {
	cases := []struct{ name, schema, rule, location string }{
		{"outside the subset", `{"type":"object","additionalProperties":false,"properties":{"m":{"type":"object","additionalProperties":false,"unevaluatedProperties":false}}}`, "outside-subset", "#/properties/m/unevaluatedProperties"},
		{"open object", `{"type":"object","properties":{"q":{"type":"string","maxLength":9}}}`, "open-object", "#"},
		{"identifier without a grammar", `{"type":"object","additionalProperties":false,"properties":{"customer_id":{"type":"string"}}}`, "unconstrained-identifier", "#/properties/customer_id"},
		{"date without a format", `{"type":"object","additionalProperties":false,"properties":{"createdAt":{"type":"string"}}}`, "unconstrained-identifier", "#/properties/createdAt"},
		{"closed-looking set left open", `{"type":"object","additionalProperties":false,"properties":{"severity":{"type":"string"}}}`, "open-set", "#/properties/severity"},
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
