package mcpvalidate

import (
	"reflect"
	"strings"
	"testing"
)

// TestFullEngineViolations: each kind of failure the full engine reports becomes the
// violation the subset gives for it, message for message.
func TestFullEngineViolations(t *testing.T) {
	cases := []struct{ name, schema, args string }{
		{"required", `{"required":["a","b"]}`, `{"b":1}`},
		{"dependentRequired", `{"dependentRequired":{"a":["b"]}}`, `{"a":1}`},
		{"dependencies", `{"$schema":"http://json-schema.org/draft-07/schema#","dependencies":{"a":["b"]}}`, `{"a":1}`},
		{"additionalProperties", `{"properties":{"a":{}},"additionalProperties":false}`, `{"a":1,"b":2,"c":3}`},
		{"type", `{"properties":{"a":{"type":["string","null"]},"b":{"type":"integer"}}}`, `{"a":1,"b":1.5}`},
		{"enum and const", `{"properties":{"a":{"enum":["x",1,null,{"k":[true]}]},"b":{"const":2.50}}}`, `{"a":"y","b":2}`},
		{"format", `{"properties":{"a":{"format":"email"}}}`, `{"a":"nope"}`},
		{"lengths and pattern", `{"properties":{"a":{"minLength":3},"b":{"maxLength":1},"c":{"pattern":"^\\d+$"}}}`, `{"a":"é","b":"ab","c":"x"}`},
		{"bounds", `{"properties":{"a":{"minimum":1.5},"b":{"maximum":-2},"c":{"exclusiveMinimum":0},"d":{"exclusiveMaximum":1e2},"e":{"multipleOf":0.25}}}`,
			`{"a":1,"b":0,"c":0,"d":100,"e":0.3}`},
		{"items", `{"properties":{"a":{"minItems":2},"b":{"maxItems":0},"c":{"uniqueItems":true},"d":{"prefixItems":[{}],"items":false}}}`,
			`{"a":[1],"b":[1],"c":[1,{"x":1},1.0],"d":[1,2,3]}`},
		{"members", `{"properties":{"a":{"minProperties":2},"b":{"maxProperties":0}}}`, `{"a":{"x":1},"b":{"y":2}}`},
		{"false and not", `{"properties":{"a":false,"b":{"not":{"type":"string"}},"c":{"not":{"enum":[1,2]}}}}`, `{"a":1,"b":"s","c":2}`},
		{"propertyNames", `{"propertyNames":{"maxLength":2}}`, `{"abc":1}`},
		{"contains", `{"properties":{"a":{"contains":{"type":"string"}},"b":{"contains":{"const":1},"maxContains":1}}}`, `{"a":[1],"b":[1,1]}`},
		// Where no alternative accepts the value's type, the subset lists the types of them
		// all and the full engine those of the first: the one explanation left apart.
		{"oneOf", `{"properties":{"b":{"oneOf":[{"minimum":0},{"maximum":5}]},"c":{"oneOf":[{"minimum":5},{"type":"object","required":["x"]}]}}}`,
			`{"b":3,"c":1}`},
		{"unevaluated", `{"properties":{"a":{"unevaluatedProperties":false},"b":{"prefixItems":[{}],"unevaluatedItems":false}}}`,
			`{"a":{"x":1},"b":[1,2]}`},
		{"additionalItems", `{"$schema":"http://json-schema.org/draft-07/schema#","items":[{}],"additionalItems":false}`, `[1,2,3]`},
		{"many, then cut", `{"items":{"type":"string"}}`, `[` + strings.TrimSuffix(strings.Repeat("0,", 30), ",") + `]`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			opts := []Option{WithFormatAssertion()}
			sub, err := Compile([]byte(c.schema), opts...)
			if err != nil {
				t.Fatal(err)
			}
			full, err := Compile([]byte(c.schema), append(opts, WithFullEngine())...)
			if err != nil {
				t.Fatal(err)
			}
			ours, theirs := sub.Validate([]byte(c.args)), full.Validate([]byte(c.args))
			if ours == nil {
				t.Fatal("the subset accepts the arguments")
			}
			if !reflect.DeepEqual(ours, theirs) {
				t.Errorf("\nsubset %q\nfull   %q\n%+v\n%+v", Messages(ours, nil), Messages(theirs, nil), ours, theirs)
			}
		})
	}
}

func TestFullEngineFallback(t *testing.T) {
	v, err := Compile([]byte(`{"type":"object","properties":{"tags":{"items":{"const":"x"}}}}`), WithFullEngine())
	if err != nil {
		t.Fatal(err)
	}
	if v.full == nil {
		t.Fatal("the full engine should be in charge under WithFullEngine")
	}
	if got := strings.Join(Messages(v.Validate([]byte(`{"tags":["a"]}`)), nil), " | "); got != "property 'tags[0]' must equal 'x'" {
		t.Errorf("got %q", got)
	}
	if vs := v.Validate([]byte(`{"tags":["a"],"tags":["x"]}`)); len(vs) != 1 || vs[0].Kind != KindDuplicate {
		t.Errorf("duplicates must be refused before decoding: %+v", vs)
	}
}
