package guard

import (
	"fmt"
	"strings"
	"testing"
)

// rootOf compiles schema and returns its root node.
func rootOf(t *testing.T, schema string) *node {
	t.Helper()
	v, err := Compile([]byte(schema))
	if err != nil {
		t.Fatal(err)
	}
	return v.root
}

// TestPropHead: a member's head (its name in quotes and the colon) is recognised where it
// starts and nowhere else; a name that needs an escape, or whose head passes 16 bytes, has
// no head, and at then says false, leaving the name to be read.
func TestPropHead(t *testing.T) {
	pad := strings.Repeat(" ", 16) // at reads 8 bytes at a time
	for _, c := range []struct {
		name, data string
		at         int
		want       bool
	}{
		{"a", `"a":1`, 0, true},
		{"a", `"b":1`, 0, false},
		{"a", `"ab":1`, 0, false},
		{"a", `"a" :1`, 0, false}, // a space before the colon: read as written
		{"a", `{"a":1`, 1, true},
		{"a", `{"a":1`, 0, false},
		{"location", `"location":"x"`, 0, true},
		{"location", `"locatiom":"x"`, 0, false},
		{"location", `"Location":"x"`, 0, false},
		{"abcdefghijkl", `"abcdefghijkl":1`, 0, true}, // a head of 15 bytes
		{"abcdefghijklm", `"abcdefghijklm":1`, 0, true},
		{"abcdefghijklmn", `"abcdefghijklmn":1`, 0, false}, // 17 bytes: no head
		{"a\"b", `"a\"b":1`, 0, false},                     // needs an escape: no head
		{"é", `"é":1`, 0, false},
	} {
		p := newProp(c.name, nil, 0)
		if got := p.at([]byte(c.data+pad), c.at); got != c.want {
			t.Errorf("prop %q at %d of %q: %v, want %v", c.name, c.at, c.data, got, c.want)
		}
	}
	// At the very end of the data, with fewer than 8 bytes to read, it cannot tell.
	if p := newProp("a", nil, 0); p.at([]byte(`"a":1`), 0) {
		t.Error(`prop "a" recognised with fewer bytes than a word`)
	}
}

// TestMemberSchema: a member's schema is its property's, else the first pattern's that
// matches its name, else additionalProperties'; with many properties, found by their index.
func TestMemberSchema(t *testing.T) {
	for _, many := range []bool{false, true} {
		var extra strings.Builder
		if many {
			for i := range 10 {
				fmt.Fprintf(&extra, `,"p%d":{"type":"null"}`, i)
			}
		}
		n := rootOf(t, `{"properties":{"a":{"type":"string"},"ab":{"type":"integer"}`+extra.String()+`},
			"patternProperties":{"^a":{"type":"boolean"},"b$":{"type":"array"}},
			"additionalProperties":{"type":"object"}}`)
		if many != (n.propIndex != nil) {
			t.Fatalf("%d properties indexed: %v", len(n.props), n.propIndex != nil)
		}
		for _, c := range []struct {
			name string
			want string // the type the member's schema asks for
		}{
			{"a", "string"},
			{"ab", "integer"},
			{"abc", "boolean"}, // the first pattern that matches, not the second
			{"b", "array"},
			{"c", "object"},
			{"", "object"},
		} {
			sub := n.memberSchema(c.name)
			if sub == nil || len(sub.typeNames) != 1 || sub.typeNames[0] != c.want {
				t.Errorf("%d properties: member %q gets %+v, want the %s schema", len(n.props), c.name, sub, c.want)
			}
		}
	}
	if sub := rootOf(t, `{"properties":{"a":{}}}`).memberSchema("b"); sub != nil {
		t.Errorf("an undeclared member where any is allowed: %+v, want nil", sub)
	}
	var none *node
	if none.memberSchema("a") != nil {
		t.Error("a nil node gives a member a schema")
	}
}

// TestItemSchema: prefixItems, then items, then nil for any item.
func TestItemSchema(t *testing.T) {
	for _, c := range []struct {
		schema string
		want   []string // the type each item's schema asks for; "" for any
	}{
		{`{"prefixItems":[{"type":"string"},{"type":"integer"}],"items":{"type":"null"}}`, []string{"string", "integer", "null", "null"}},
		{`{"prefixItems":[{"type":"string"}]}`, []string{"string", "", ""}},
		{`{"items":{"type":"boolean"}}`, []string{"boolean", "boolean"}},
		{`{"$schema":"http://json-schema.org/draft-07/schema#","items":[{"type":"string"}],"additionalItems":{"type":"number"}}`, []string{"string", "number"}},
	} {
		n := rootOf(t, c.schema)
		for i, want := range c.want {
			got := ""
			if sub := n.item(i); sub != nil && len(sub.typeNames) > 0 {
				got = sub.typeNames[0]
			}
			if got != want {
				t.Errorf("%s: item %d gets %q, want %q", c.schema, i, got, want)
			}
		}
	}
}

// TestTargetFollowsRefs: a schema of nothing but $ref stands for where its references lead.
func TestTargetFollowsRefs(t *testing.T) {
	n := rootOf(t, `{"$ref":"#/$defs/a","$defs":{"a":{"$ref":"#/$defs/b"},"b":{"type":"string"},
		"c":{"$ref":"#/$defs/b","minLength":1}}}`)
	if got := n.target(); got == n || len(got.typeNames) != 1 || got.typeNames[0] != "string" {
		t.Errorf("root's target: %+v, want the string schema", got)
	}
	c := rootOf(t, `{"$ref":"#/$defs/b","minLength":1,"$defs":{"b":{"type":"string"}}}`)
	if c.target() != c {
		t.Error("a $ref beside another keyword is followed past the schema")
	}
	var none *node
	if none.target() != nil {
		t.Error("a nil node's target is not nil")
	}
}

// TestSlots: declared names are found by lookup; names tracked for presence by slotOf,
// which the scan asks of a name lookup did not find, and which finds none when every
// tracked name is a property.
func TestSlots(t *testing.T) {
	n := rootOf(t, `{"properties":{"a":{}},"required":["a","b"],"dependentRequired":{"a":["c"]}}`)
	for _, c := range []struct {
		name         string
		prop, inSlot bool
	}{
		{"a", true, true},
		{"b", false, true},
		{"c", false, true},
		{"d", false, false},
	} {
		if got := n.lookup([]byte(c.name)) >= 0; got != c.prop {
			t.Errorf("lookup(%q): %v, want %v", c.name, got, c.prop)
		}
		if got := n.slotOf([]byte(c.name)) >= 0; got != c.inSlot {
			t.Errorf("slotOf(%q): %v, want %v", c.name, got, c.inSlot)
		}
	}
	declared := rootOf(t, `{"properties":{"a":{},"b":{}},"required":["a"]}`)
	if declared.slotOf([]byte("a")) >= 0 || declared.slotOf([]byte("c")) >= 0 {
		t.Error("slotOf found a name where every tracked name is a property")
	}
}

// TestInPlaceAndInside: the schemas a node applies to the value itself, and to its members
// and items.
func TestInPlaceAndInside(t *testing.T) {
	n := rootOf(t, `{"allOf":[{},{}],"anyOf":[{}],"oneOf":[{}],"not":{},"if":{},"then":{},"else":{},
		"properties":{"a":{},"b":{}},"patternProperties":{"x":{}},"additionalProperties":{},
		"prefixItems":[{}],"items":{},"contains":{},"propertyNames":{},
		"unevaluatedProperties":{},"unevaluatedItems":{}}`)
	if got := len(n.inPlace()); got != 8 {
		t.Errorf("%d schemas in place, want 8 (2 allOf, anyOf, oneOf, not, if, then, else)", got)
	}
	if got := len(n.inside()); got != 10 {
		t.Errorf("%d schemas inside, want 10 (2 properties, a pattern, prefixItems, additionalProperties, items, propertyNames, contains and both unevaluated)", got)
	}
}

// TestNodeSize: what a node is counted as holding grows with what it holds.
func TestNodeSize(t *testing.T) {
	enum := func(n int) string {
		vs := make([]string, n)
		for i := range vs {
			vs[i] = fmt.Sprintf(`"value-%d"`, i)
		}
		return `{"enum":[` + strings.Join(vs, ",") + `]}`
	}
	small, large := rootOf(t, enum(10)).size(), rootOf(t, enum(1000)).size()
	if perValue := float64(large-small) / 990; perValue < 30 || perValue > 400 {
		t.Errorf("an enum value counted as %.0f bytes, want between 30 and 400", perValue)
	}
	plain, patterned := rootOf(t, `{"type":"string"}`).size(), rootOf(t, `{"type":"string","pattern":"^(a|b)+c{1,50}$"}`).size()
	if patterned-plain < 1024 {
		t.Errorf("a pattern counted as %d bytes, want its program's", patterned-plain)
	}
}
