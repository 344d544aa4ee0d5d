package guard

import (
	"math/big"
	"reflect"
	"strings"
	"testing"

	_ "github.com/mcpvalidate/mcpvalidate/guard/fullengine" // WithFullEngine, in every test of the package
	"github.com/mcpvalidate/mcpvalidate/guard/internal/engine"
)

// memberPath is the path through the members named, from the outside in.
func memberPath(names ...string) Path {
	p := Path{}
	for _, n := range names {
		p = append(p, PathElem{Name: n})
	}
	return p
}

func itemPath(p Path, i int) Path { return append(p, PathElem{Index: i, IsIndex: true}) }

var fullEngineCases = []struct {
	name, schema, args string
	want               []Violation
	subset             string // why the subset reports otherwise
}{
	{name: "required", schema: `{"required":["a","b"]}`, args: `{"b":1}`, want: []Violation{
		{Kind: KindRequired, Path: memberPath("a"), Keyword: "required"},
	}},
	{name: "dependentRequired", schema: `{"dependentRequired":{"a":["b"]}}`, args: `{"a":1}`, want: []Violation{
		{Kind: KindDependentRequired, Path: memberPath("b"), Keyword: "dependentRequired", Name: "a"},
	}},
	{name: "dependencies", schema: `{"$schema":"http://json-schema.org/draft-07/schema#","dependencies":{"a":["b"]}}`, args: `{"a":1}`, want: []Violation{
		{Kind: KindDependentRequired, Path: memberPath("b"), Keyword: "dependencies", Name: "a"},
	}},
	{name: "additionalProperties", schema: `{"properties":{"a":{}},"additionalProperties":false}`, args: `{"a":1,"b":2,"c":3}`, want: []Violation{
		{Kind: KindAdditional, Path: memberPath("b"), Keyword: "additionalProperties"},
		{Kind: KindAdditional, Path: memberPath("c"), Keyword: "additionalProperties"},
	}},
	{name: "type", schema: `{"properties":{"a":{"type":["string","null"]},"b":{"type":"integer"}}}`, args: `{"a":1,"b":1.5}`, want: []Violation{
		{Kind: KindType, Path: memberPath("a"), Keyword: "type", Types: []string{"string", "null"}, Got: "integer"},
		{Kind: KindType, Path: memberPath("b"), Keyword: "type", Types: []string{"integer"}, Got: "number"},
	}},
	{name: "enum and const", schema: `{"properties":{"a":{"enum":["x",1,null,{"k":[true]}]},"b":{"const":2.50}}}`, args: `{"a":"y","b":2}`, want: []Violation{
		{Kind: KindEnum, Path: memberPath("a"), Keyword: "enum", Values: []string{`"x"`, "1", "null", `{"k":[true]}`}},
		{Kind: KindConst, Path: memberPath("b"), Keyword: "const", Values: []string{"2.50"}},
	}},
	{name: "enum and const as written", schema: `{"properties":{"a":{"enum":[{"z":1,"a":"<"}]},"b":{"const":{"z":1,"a":2}},"c":{"not":{"enum":[{"b":1}]}}}}`, args: `{"a":1,"b":1,"c":{"b":1}}`, want: []Violation{
		{Kind: KindEnum, Path: memberPath("a"), Keyword: "enum", Values: []string{`{"z":1,"a":"<"}`}},
		{Kind: KindConst, Path: memberPath("b"), Keyword: "const", Values: []string{`{"z":1,"a":2}`}},
		{Kind: KindNot, Path: memberPath("c"), Keyword: "not", Values: []string{`{"b":1}`}},
	}},
	{name: "format", schema: `{"properties":{"a":{"format":"email"}}}`, args: `{"a":"nope"}`, want: []Violation{
		{Kind: KindFormat, Path: memberPath("a"), Keyword: "format", Limit: "email"},
	}},
	{name: "lengths and pattern", schema: `{"properties":{"a":{"minLength":3},"b":{"maxLength":1},"c":{"pattern":"^\\d+$"}}}`, args: `{"a":"é","b":"ab","c":"x"}`, want: []Violation{
		{Kind: KindMinLength, Path: memberPath("a"), Keyword: "minLength", Limit: "3"},
		{Kind: KindMaxLength, Path: memberPath("b"), Keyword: "maxLength", Limit: "1"},
		{Kind: KindPattern, Path: memberPath("c"), Keyword: "pattern", Limit: `^\d+$`},
	}},
	{name: "bounds", schema: `{"properties":{"a":{"minimum":1.5},"b":{"maximum":-2},"c":{"exclusiveMinimum":0},"d":{"exclusiveMaximum":1e2},"e":{"multipleOf":0.25}}}`,
		args: `{"a":1,"b":0,"c":0,"d":100,"e":0.3}`, want: []Violation{
			{Kind: KindMinimum, Path: memberPath("a"), Keyword: "minimum", Limit: "1.5"},
			{Kind: KindMaximum, Path: memberPath("b"), Keyword: "maximum", Limit: "-2"},
			{Kind: KindExclusiveMinimum, Path: memberPath("c"), Keyword: "exclusiveMinimum", Limit: "0"},
			{Kind: KindExclusiveMaximum, Path: memberPath("d"), Keyword: "exclusiveMaximum", Limit: "1e2"},
			{Kind: KindMultipleOf, Path: memberPath("e"), Keyword: "multipleOf", Limit: "0.25"},
		}},
	// draft-04's exclusive bounds are booleans beside minimum and maximum, which give the
	// limit as written.
	{name: "draft-04 bounds", schema: `{"$schema":"http://json-schema.org/draft-04/schema#","properties":{"a":{"minimum":1e1,"exclusiveMinimum":true},"b":{"maximum":5.0,"exclusiveMaximum":true},"c":{"minimum":5.0,"exclusiveMinimum":false}}}`,
		args: `{"a":10,"b":5,"c":4}`, want: []Violation{
			{Kind: KindExclusiveMinimum, Path: memberPath("a"), Keyword: "exclusiveMinimum", Limit: "1e1"},
			{Kind: KindExclusiveMaximum, Path: memberPath("b"), Keyword: "exclusiveMaximum", Limit: "5.0"},
			{Kind: KindMinimum, Path: memberPath("c"), Keyword: "minimum", Limit: "5.0"},
		}},
	{name: "items", schema: `{"properties":{"a":{"minItems":2},"b":{"maxItems":0},"c":{"uniqueItems":true},"d":{"prefixItems":[{}],"items":false}}}`,
		args: `{"a":[1],"b":[1],"c":[1,{"x":1},1.0],"d":[1,2,3]}`, want: []Violation{
			{Kind: KindMinItems, Path: memberPath("a"), Keyword: "minItems", Limit: "2"},
			{Kind: KindMaxItems, Path: memberPath("b"), Keyword: "maxItems", Limit: "0"},
			{Kind: KindUniqueItems, Path: memberPath("c"), Keyword: "uniqueItems", Indexes: []int{0, 2}},
			{Kind: KindAdditionalItem, Path: itemPath(memberPath("d"), 1), Keyword: "items", Limit: "1"},
			{Kind: KindAdditionalItem, Path: itemPath(memberPath("d"), 2), Keyword: "items", Limit: "1"},
		}},
	{name: "members", schema: `{"properties":{"a":{"minProperties":2},"b":{"maxProperties":0}}}`, args: `{"a":{"x":1},"b":{"y":2}}`, want: []Violation{
		{Kind: KindMinProperties, Path: memberPath("a"), Keyword: "minProperties", Limit: "2"},
		{Kind: KindMaxProperties, Path: memberPath("b"), Keyword: "maxProperties", Limit: "0"},
	}},
	{name: "false and not", schema: `{"properties":{"a":false,"b":{"not":{"type":"string"}},"c":{"not":{"enum":[1,2]}},"d":{"not":{"const":"x"}},"e":{"not":true}}}`,
		args: `{"a":1,"b":"s","c":2,"d":"x","e":1}`, want: []Violation{
			{Kind: KindForbidden, Path: memberPath("a"), Keyword: "false"},
			{Kind: KindNot, Path: memberPath("b"), Keyword: "not", Types: []string{"string"}},
			{Kind: KindNot, Path: memberPath("c"), Keyword: "not", Values: []string{"1", "2"}},
			{Kind: KindNot, Path: memberPath("d"), Keyword: "not", Values: []string{`"x"`}},
			{Kind: KindNot, Path: memberPath("e"), Keyword: "not"},
		}},
	{name: "propertyNames", schema: `{"propertyNames":{"maxLength":2}}`, args: `{"abc":1}`, want: []Violation{
		{Kind: KindOther, Path: memberPath("abc"), Keyword: "propertyNames", Detail: namesDetail},
	}},
	{name: "contains", schema: `{"properties":{"a":{"contains":{"type":"string"}},"b":{"contains":{"const":1},"maxContains":1},"c":{"contains":{"const":1},"minContains":2}}}`,
		args: `{"a":[1],"b":[1,1],"c":[1,0]}`, want: []Violation{
			{Kind: KindOther, Path: memberPath("a"), Keyword: "contains", Detail: "must contain an item that matches the schema under contains"},
			{Kind: KindOther, Path: memberPath("b"), Keyword: "maxContains", Detail: "must contain at most 1 item that match the schema under contains"},
			{Kind: KindOther, Path: memberPath("c"), Keyword: "minContains", Detail: "must contain at least 2 items that match the schema under contains"},
		}},
	// Where no alternative accepts the value's type, the subset lists the types of them
	// all and the full engine those of the first: the one explanation left apart.
	{name: "oneOf", schema: `{"properties":{"b":{"oneOf":[{"minimum":0},{"maximum":5}]},"c":{"oneOf":[{"minimum":5},{"type":"object","required":["x"]}]}}}`,
		args: `{"b":3,"c":1}`, want: []Violation{
			{Kind: KindManyMatch, Path: memberPath("b"), Keyword: "oneOf", Indexes: []int{0, 1}},
			{Kind: KindMinimum, Path: memberPath("c"), Keyword: "minimum", Limit: "5"},
		}},
	{name: "unevaluated", schema: `{"properties":{"a":{"unevaluatedProperties":false},"b":{"prefixItems":[{}],"unevaluatedItems":false}}}`,
		args: `{"a":{"x":1},"b":[1,2]}`, want: []Violation{
			{Kind: KindAdditional, Path: memberPath("a", "x"), Keyword: "unevaluatedProperties"},
			{Kind: KindAdditionalItem, Path: itemPath(memberPath("b"), 1), Keyword: "unevaluatedItems"},
		}},
	{name: "additionalItems", schema: `{"$schema":"http://json-schema.org/draft-07/schema#","items":[{}],"additionalItems":false}`, args: `[1,2,3]`, want: []Violation{
		{Kind: KindAdditionalItem, Path: itemPath(nil, 1), Keyword: "additionalItems", Limit: "1"},
		{Kind: KindAdditionalItem, Path: itemPath(nil, 2), Keyword: "additionalItems", Limit: "1"},
	}},
	{name: "many, then cut", schema: `{"items":{"type":"string"}}`, args: `[` + strings.TrimSuffix(strings.Repeat("0,", 30), ",") + `]`,
		want: func() []Violation {
			var vs []Violation
			for i := range 20 {
				vs = append(vs, Violation{Kind: KindType, Path: itemPath(nil, i), Keyword: "type", Types: []string{"string"}, Got: "integer"})
			}
			return append(vs, Violation{Kind: KindTruncated, Count: 10})
		}()},
	{name: "loop met inside", schema: `{"properties":{"a":{"$ref":"#/$defs/d"}},"$defs":{"d":{"$anchor":"x","$ref":"#x"}}}`, args: `{"a":1}`,
		want: []Violation{
			{Kind: KindOther, Path: memberPath("a"), Detail: "the schema loops here without descending into the arguments"},
		}, subset: "the subset refuses the schema"},
	// The engine knows the metaschemas; their keywords are not in the schema's tree, so
	// types come in the engine's order and bounds as it writes them.
	{name: "metaschema", schema: `{"properties":{"s":{"$ref":"https://json-schema.org/draft/2020-12/schema"}}}`, args: `{"s":{"minLength":-1,"not":5}}`,
		want: []Violation{
			{Kind: KindMinimum, Path: memberPath("s", "minLength"), Keyword: "minimum", Limit: "0"},
			{Kind: KindType, Path: memberPath("s", "not"), Keyword: "type", Types: []string{"boolean", "object"}, Got: "integer"},
		}, subset: "the subset fetches no other document, and refuses the schema"},
}

// TestFullEngineViolations: each kind of failure the full engine reports becomes the
// violation given here, and the subset gives the same, message for message, unless subset
// says why it does not.
func TestFullEngineViolations(t *testing.T) {
	for _, c := range fullEngineCases {
		t.Run(c.name, func(t *testing.T) {
			opts := []CompileOption{WithFormatAssertion()}
			full, err := Compile([]byte(c.schema), append(opts, WithFullEngine())...)
			if err != nil {
				t.Fatal(err)
			}
			theirs := full.Validate([]byte(c.args))
			if !reflect.DeepEqual(theirs, c.want) {
				t.Errorf("full engine\ngot  %+v\nwant %+v", theirs, c.want)
			}
			sub, err := Compile([]byte(c.schema), opts...)
			var ours []Violation
			if err == nil {
				ours = sub.Validate([]byte(c.args))
			}
			if same := err == nil && reflect.DeepEqual(ours, theirs); same != (c.subset == "") {
				t.Errorf("the subset agrees: %v, but should: %v (%s)\nsubset %q (%v)\nfull   %q", same, c.subset == "", c.subset,
					Messages(ours, nil), err, Messages(theirs, nil))
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

// TestFullEngineUnproducedKinds: kinds the engine never hands to the mapping here, which
// it still maps: anyOf and oneOf without alternatives to explain them (the engine explains
// every failed alternative), and a keyword it has no closer kind for (content keywords,
// which it asserts only when told to).
func TestFullEngineUnproducedKinds(t *testing.T) {
	cases := []struct {
		failure engine.Failure
		want    Violation
	}{
		{engine.Failure{Kind: engine.AnyOf, Keyword: "anyOf"}, Violation{Kind: KindNoMatch, Keyword: "anyOf"}},
		{engine.Failure{Kind: engine.OneOf, Keyword: "oneOf"}, Violation{Kind: KindNoMatch, Keyword: "oneOf"}},
		{engine.Failure{Kind: engine.Other, Keyword: "contentEncoding"}, Violation{Kind: KindOther, Keyword: "contentEncoding", Detail: `does not satisfy the schema's "contentEncoding" keyword`}},
	}
	for _, c := range cases {
		c.failure.SchemaURL = engine.URL + "#"
		f := &finding{err: &c.failure, item: -1}
		if got := f.violation(nil, nil); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: got %+v, want %+v", c.failure.Keyword, got, c.want)
		}
	}
}

// TestRatText: a bound the schema does not write (a metaschema's) is written as the
// shortest exact decimal, or as a fraction when none has at most 40 digits.
func TestRatText(t *testing.T) {
	cases := []struct {
		r    *big.Rat
		want string
	}{
		{big.NewRat(-3, 1), "-3"},
		{big.NewRat(1, 8), "0.125"},
		{big.NewRat(-5, 2), "-2.5"},
		{big.NewRat(1, 3), "1/3"},
		{new(big.Rat).SetFrac(big.NewInt(1), new(big.Int).Exp(big.NewInt(10), big.NewInt(41), nil)), "1/100000000000000000000000000000000000000000"},
	}
	for _, c := range cases {
		if got := ratText(c.r); got != c.want {
			t.Errorf("ratText(%v) = %q, want %q", c.r, got, c.want)
		}
	}
}

// TestFullEngineIgnoresRefSiblings: in draft-06 and draft-07 a $ref overrides the keywords
// beside it, under WithFullEngine as in the subset, whichever keyword sits there and
// wherever the $ref is.
func TestFullEngineIgnoresRefSiblings(t *testing.T) {
	for _, draft := range []string{"draft-06", "draft-07"} {
		for _, sibling := range []string{`"const":"x"`, `"propertyNames":false`, `"contains":false`,
			`"if":true,"then":false`, `"enum":["x"]`} {
			schema := `{"$schema":"http://json-schema.org/` + draft + `/schema#","definitions":{"s":{"type":["string","array","object"]}},
"properties":{"k":{"$ref":"#/definitions/s",` + sibling + `}},"items":[{"allOf":[{"$ref":"#/definitions/s",` + sibling + `}]}]}`
			for _, args := range []string{`{"k":"y"}`, `{"k":["y"]}`, `{"k":{"y":1}}`} {
				subset, full := compiled(t, schema), compiled(t, schema, WithFullEngine())
				if a, b := subset.Validate([]byte(args)), full.Validate([]byte(args)); a != nil || b != nil {
					t.Errorf("%s, %s, %s: subset %v, full engine %v; want both to accept", draft, sibling, args, Messages(a, nil), Messages(b, nil))
				}
			}
		}
	}
	// In 2019-09 and later, keywords beside $ref apply, in both engines.
	schema := `{"properties":{"k":{"$ref":"#/$defs/s","const":"x"}},"$defs":{"s":{"type":"string"}}}`
	if vs := compiled(t, schema, WithFullEngine()).Validate([]byte(`{"k":"y"}`)); vs == nil {
		t.Error("2020-12: the full engine ignores a const beside $ref")
	}
}

func compiled(t *testing.T, schema string, opts ...CompileOption) *Validator {
	t.Helper()
	v, err := Compile([]byte(schema), opts...)
	if err != nil {
		t.Fatalf("%s: %v", schema, err)
	}
	return v
}
