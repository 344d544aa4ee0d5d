package guard

import (
	"fmt"
	"strings"
	"testing"
)

// found compiles schema and returns the violations of args, as describe writes them.
func found(t *testing.T, schema, args string) string {
	t.Helper()
	v, err := Compile([]byte(schema))
	if err != nil {
		t.Fatalf("compile %s: %v", schema, err)
	}
	return describe(v.Validate([]byte(args)))
}

// describe writes violations as "kind at pointer", joined by " | ", with what tells
// violations of a kind apart after the kind: the member that requires the missing one,
// the limit, the count left out, the keyword of KindOther, or the indexes.
func describe(vs []Violation) string {
	var out []string
	for _, x := range vs {
		s := x.Kind.String()
		switch {
		case x.Name != "":
			s += "(" + x.Name + ")"
		case x.Limit != "":
			s += "(" + x.Limit + ")"
		case x.Kind == KindTruncated:
			s += fmt.Sprintf("(%d)", x.Count)
		case x.Kind == KindOther:
			s += "(" + x.Keyword + ")"
		case x.Indexes != nil:
			s += fmt.Sprint(x.Indexes)
		}
		out = append(out, s+" at "+x.Path.Pointer())
	}
	return strings.Join(out, " | ")
}

// manyNames returns an object of n members named m0, m1… and then the members of tail.
func manyNames(n int, tail string) string {
	var b strings.Builder
	b.WriteString("{")
	for i := range n {
		fmt.Fprintf(&b, `"m%d":%d,`, i, i)
	}
	return b.String() + tail + "}"
}

// manyRequired returns a schema that requires n members named m0, m1…
func manyRequired(n int) string {
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf(`"m%d"`, i)
	}
	return `{"required":[` + strings.Join(names, ",") + `]}`
}

func TestObjectMembers(t *testing.T) {
	closed := `{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"integer"}},"required":["a"],"additionalProperties":false}`
	for _, c := range []struct {
		name, schema, args, want string
	}{
		{"declared members in schema order", closed, `{"a":"x","b":1}`, ""},
		{"in another order", closed, `{"b":1,"a":"x"}`, ""},
		{"a declared member's value", closed, `{"a":1,"b":"x"}`, "type at /a | type at /b"},
		{"undeclared member", closed, `{"a":"x","c":1}`, "additional at /c"},
		{"missing members go first", closed, `{"b":"x","c":1}`, "required at /a | type at /b | additional at /c"},
		{"a declared name repeated", closed, `{"a":"x","a":"y"}`, "duplicate at /a"},
		{"a name sent three times is reported once", `{"properties":{"a":{}}}`, `{"c":1,"c":2,"c":3}`, "duplicate at /c"},
		{"names repeat as decoded", `{}`, `{"a":1,"\u0061":2}`, "duplicate at /a"},
		{"a repeat among many names", `{}`, manyNames(100, `"m57":0`), "duplicate at /m57"},
		{"no repeat among many names", `{}`, manyNames(100, `"m100":0`), ""},
		{"repeats in nested objects are their own", `{}`, `{"a":{"x":1},"b":{"x":1},"x":{"a":1,"a":2}}`, "duplicate at /x/a"},
		{"any member, names still unique", `{"type":"object"}`, `{"a":1,"a":1}`, "duplicate at /a"},
		{"patternProperties", `{"patternProperties":{"^n_":{"type":"number"},"_s$":{"type":"string"}},"additionalProperties":false}`,
			`{"n_1":1,"n_s":2,"x_s":"y","z":0}`, "type at /n_s | additional at /z"},
		{"a declared member also matched by a pattern", `{"properties":{"n_a":{"minimum":0}},"patternProperties":{"^n_":{"maximum":5}}}`,
			`{"n_a":-1,"n_b":9}`, "minimum(0) at /n_a | maximum(5) at /n_b"},
		{"propertyNames", `{"propertyNames":{"maxLength":3}}`, `{"abc":1,"abcd":2}`, "other(propertyNames) at /abcd"},
		{"propertyNames after the value's own, before what lies inside it", `{"propertyNames":{"pattern":"^[a-z]+$"},"additionalProperties":{"type":"object","properties":{"x":{"type":"string"}}}}`,
			`{"A":{"x":1}}`, "other(propertyNames) at /A | type at /A/x"},
		{"dependentRequired", `{"dependentRequired":{"card":["cvc","expiry"]}}`, `{"card":"1","cvc":"2"}`, "dependent-required(card) at /expiry"},
		{"dependentRequired, its trigger absent", `{"dependentRequired":{"card":["cvc"]}}`, `{"cvc":"2"}`, ""},
		{"minProperties", `{"minProperties":2}`, `{"a":1}`, "min-properties(2) at "},
		{"maxProperties", `{"maxProperties":1}`, `{"a":1,"b":2}`, "max-properties(1) at "},
		{"more than 64 required names", manyRequired(70), manyNames(69, `"x":0`), "required at /m69"},
		{"not an object", closed, `["a"]`, "type at "},
		{"an object where another type is asked, its names still checked", `{"properties":{"o":{"type":"string"}}}`, `{"o":{"a":1,"a":2}}`, "type at /o | duplicate at /o/a"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := found(t, c.schema, c.args); got != c.want {
				t.Errorf("%s\n against %s:\n got %q\nwant %q", c.args, c.schema, got, c.want)
			}
		})
	}
}

func TestObjectSyntax(t *testing.T) {
	for _, c := range []struct{ args, detail string }{
		{`{"a" 1}`, "expected ':' after a member name"},
		{`{a:1}`, "expected a member name in double quotes"},
		{`{"a":1 "b":2}`, "expected ',' or '}' after an object member"},
		{`{"a":1,}`, "expected a member name in double quotes"},
	} {
		v, err := Compile([]byte(`{"properties":{"a":{},"b":{}}}`))
		if err != nil {
			t.Fatal(err)
		}
		vs := v.Validate([]byte(c.args))
		if len(vs) != 1 || vs[0].Kind != KindSyntax || vs[0].Detail != c.detail {
			t.Errorf("%s: %+v, want one syntax violation %q", c.args, vs, c.detail)
		}
	}
}

// TestBitset: a set of tracked names, in one word up to 64 and in several past it.
func TestBitset(t *testing.T) {
	for _, n := range []int{1, 64, 65, 200} {
		var b bitset
		b.init(n)
		for i := 0; i < n; i += 3 {
			b.set(i)
		}
		for i := range n {
			if got, want := b.has(i), i%3 == 0; got != want {
				t.Fatalf("%d names: has(%d) = %v, want %v", n, i, got, want)
			}
		}
	}
}
