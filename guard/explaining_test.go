package guard

import (
	"strings"
	"testing"
)

// TestOwnKeywords runs the explaining pass alone (the quick pass never decides these) on
// each type of value against the keywords that look at the value itself.
func TestOwnKeywords(t *testing.T) {
	draft7 := `"$schema":"http://json-schema.org/draft-07/schema#",`
	for _, c := range []struct {
		name, schema, args, want string
		got                      string // the type a KindType violation says was sent
	}{
		{"any value", `{}`, `[{"a":null},1.5e3,"x",true]`, "", ""},
		{"false", `false`, `1`, "forbidden at ", ""},
		{"a string for a number", `{"type":"number"}`, `"1"`, "type at ", "string"},
		{"a whole number for a string", `{"type":"string"}`, `2`, "type at ", "integer"},
		{"a fraction for an integer", `{"type":"integer"}`, `2.5`, "type at ", "number"},
		{"2.0 is an integer", `{"type":"integer"}`, `2.0`, "", ""},
		{"an object for an array", `{"type":"array"}`, `{}`, "type at ", "object"},
		{"null for a boolean", `{"type":"boolean"}`, `null`, "type at ", "null"},
		{"one of the types", `{"type":["string","null"]}`, `null`, "", ""},
		{"const", `{"const":"a"}`, `"b"`, "const at ", ""},
		{"const as decoded", `{"const":"a"}`, `"\u0061"`, "", ""},
		{"const on a number, as its value", `{"const":1}`, `1.0`, "", ""},
		{"const on an object, members in any order", `{"const":{"a":1,"b":[2]}}`, `{"b":[2.0],"a":1}`, "", ""},
		{"enum on an array", `{"enum":[[1,2],"x"]}`, `[2,1]`, "enum at ", ""},
		{"enum on a literal", `{"enum":[true,null]}`, `false`, "enum at ", ""},
		{"minLength counts characters", `{"minLength":3}`, `"日本"`, "min-length(3) at ", ""},
		{"maxLength counts characters", `{"maxLength":2}`, `"日本"`, "", ""},
		{"maxLength", `{"maxLength":2}`, `"abc"`, "max-length(2) at ", ""},
		{"pattern", `{"pattern":"^[a-z]+$"}`, `"ab1"`, "pattern(^[a-z]+$) at ", ""},
		{"format, asserted in draft-07", `{` + draft7 + `"format":"date"}`, `"2024-02-30"`, "format(date) at ", ""},
		{"format, an annotation in 2020-12", `{"format":"date"}`, `"2024-02-30"`, "", ""},
		{"the first string keyword that fails", `{"enum":["abcd"],"maxLength":2}`, `"xyz"`, "enum at ", ""},
		{"minimum", `{"minimum":1.5}`, `1.4999`, "minimum(1.5) at ", ""},
		{"exclusiveMinimum", `{"exclusiveMinimum":0}`, `0`, "exclusive-minimum(0) at ", ""},
		{"maximum", `{"maximum":10}`, `1e1`, "", ""},
		{"maximum, exactly", `{"maximum":10}`, `10.000000000000000000001`, "maximum(10) at ", ""},
		{"exclusiveMaximum", `{"exclusiveMaximum":10}`, `10.0`, "exclusive-maximum(10) at ", ""},
		{"multipleOf, in decimals", `{"multipleOf":0.1}`, `0.3`, "", ""},
		{"not a multiple", `{"multipleOf":0.1}`, `0.35`, "multiple-of(0.1) at ", ""},
		{"a huge integer", `{"type":"integer","minimum":0}`, `123456789012345678901234567890`, "", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			v, err := Compile([]byte(c.schema))
			if err != nil {
				t.Fatal(err)
			}
			vs := v.violations([]byte(c.args))
			if got := describe(vs); got != c.want {
				t.Errorf("%s against %s: %q, want %q", c.args, c.schema, got, c.want)
			}
			if c.got != "" && (len(vs) != 1 || vs[0].Got != c.got) {
				t.Errorf("%s against %s: %+v, want the type sent said to be %s", c.args, c.schema, vs, c.got)
			}
		})
	}
}

// TestExplainingSyntax: a syntax error is the whole answer, with where it is.
func TestExplainingSyntax(t *testing.T) {
	v, err := Compile([]byte(`{"properties":{"a":{"type":"string"},"b":{}}}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args   string
		detail string
		offset int
	}{
		{``, "unexpected end of input: a value is missing", 0},
		{`{"a":1,"b":tru}`, "invalid literal", 11},
		{`{"a":1,"b":nul}`, "invalid literal", 11},
		{`{"a":1,"b":x}`, "expected a value", 11},
		{`{"a":1} {}`, "unexpected data after the arguments", 8},
		{`{"a":1,"b":}`, "expected a value", 11},
	} {
		vs := v.violations([]byte(c.args))
		if len(vs) != 1 || vs[0].Kind != KindSyntax || vs[0].Detail != c.detail || vs[0].Offset != c.offset {
			t.Errorf("%q: %+v, want only %q at %d", c.args, vs, c.detail, c.offset)
		}
	}
}

// TestTooDeep: arguments nested past the limit are refused at the level where it is passed.
func TestTooDeep(t *testing.T) {
	v, err := Compile([]byte(`{}`), WithMaxDepth(3))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args string
		want string
	}{
		{`[[[1]]]`, ""},
		{`[[[[1]]]]`, "too-deep at /0/0/0"},
		{`{"a":{"b":{"c":{}}}}`, "too-deep at /a/b/c"},
		{`[[[[1` + strings.Repeat("]", 4), "too-deep at /0/0/0"},
	} {
		if got := describe(v.violations([]byte(c.args))); got != c.want {
			t.Errorf("%s: %q, want %q", c.args, got, c.want)
		}
	}
}

func TestRuneCount(t *testing.T) {
	for _, c := range []struct {
		s    string
		want int
	}{
		{"", 0}, {"abc", 3}, {"é", 1}, {"日本語", 3}, {"a😀b", 3}, {"\u0000", 1},
	} {
		if got := runeCount([]byte(c.s)); got != c.want {
			t.Errorf("runeCount(%q) = %d, want %d", c.s, got, c.want)
		}
	}
}
