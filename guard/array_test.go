package guard

import "testing"

func TestArrayItems(t *testing.T) {
	for _, c := range []struct {
		name, schema, args, want string
	}{
		{"items", `{"items":{"type":"integer"}}`, `[1,"a",2,null]`, "type at /1 | type at /3"},
		{"empty", `{"items":{"type":"integer"},"minItems":0}`, `[ ]`, ""},
		{"prefixItems, then items", `{"prefixItems":[{"type":"string"}],"items":{"type":"integer"}}`, `["a",1,"b"]`, "type at /2"},
		{"no item past the prefix", `{"prefixItems":[{},{}],"items":false}`, `[1,2,3,4]`, "additional-item(2) at /2 | additional-item(2) at /3"},
		{"draft-07 additionalItems", `{"$schema":"http://json-schema.org/draft-07/schema#","items":[{}],"additionalItems":false}`, `[1,2]`, "additional-item(1) at /1"},
		{"minItems", `{"minItems":3}`, `[1,2]`, "min-items(3) at "},
		{"maxItems", `{"maxItems":1}`, `[1,2]`, "max-items(1) at "},
		{"uniqueItems", `{"uniqueItems":true}`, `[1,{"a":[2]},3,{"a":[2.0]},1]`, "unique-items[1 3] at "},
		{"uniqueItems, all apart", `{"uniqueItems":true}`, `[1,"1",[1],{"1":1},true,null]`, ""},
		{"contains", `{"contains":{"type":"string"}}`, `[1,2]`, "other(contains) at "},
		{"contains, one matches", `{"contains":{"type":"string"}}`, `[1,"a"]`, ""},
		{"minContains", `{"contains":{"type":"string"},"minContains":2}`, `["a",1]`, "other(minContains) at "},
		{"maxContains", `{"contains":{"type":"string"},"maxContains":1}`, `["a","b",1]`, "other(maxContains) at "},
		{"minContains 0 allows none", `{"contains":{"type":"string"},"minContains":0}`, `[1]`, ""},
		{"contains' failures go before the items', the bounds' after", `{"items":{"type":"integer"},"maxItems":1,"contains":{"const":5}}`, `["a",1]`,
			"other(contains) at  | type at /0 | max-items(1) at "},
		{"nested arrays", `{"items":{"items":{"type":"boolean"}}}`, `[[true],[false,0]]`, "type at /1/1"},
		{"an array where another type is asked, its items still scanned", `{"properties":{"a":{"type":"object"}}}`, `{"a":[1,{"x":1,"x":2}]}`, "type at /a | duplicate at /a/1/x"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := found(t, c.schema, c.args); got != c.want {
				t.Errorf("%s\n against %s:\n got %q\nwant %q", c.args, c.schema, got, c.want)
			}
		})
	}
}

func TestArraySyntax(t *testing.T) {
	v, err := Compile([]byte(`{"items":{"type":"integer"}}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, args := range []string{`[1 2]`, `[1,`, `[1`} {
		vs := v.Validate([]byte(args))
		if len(vs) != 1 || vs[0].Kind != KindSyntax {
			t.Errorf("%s: %+v, want one syntax violation", args, vs)
		}
	}
	if vs := v.Validate([]byte(`[1 2]`)); len(vs) != 1 || vs[0].Detail != "expected ',' or ']' after an array item" {
		t.Errorf("[1 2]: %+v", vs)
	}
}

// TestContainsWording: the words of each contains failure, with its bound.
func TestContainsWording(t *testing.T) {
	for _, c := range []struct {
		keyword string
		want    int
		detail  string
	}{
		{"contains", 1, "must contain an item that matches the schema under contains"},
		{"minContains", 1, "must contain at least 1 item that match the schema under contains"},
		{"minContains", 3, "must contain at least 3 items that match the schema under contains"},
		{"maxContains", 2, "must contain at most 2 items that match the schema under contains"},
	} {
		if v := containsViolation(c.keyword, c.want); v.Kind != KindOther || v.Keyword != c.keyword || v.Detail != c.detail {
			t.Errorf("containsViolation(%s, %d) = %+v, want %q", c.keyword, c.want, v, c.detail)
		}
	}
}

// TestEqualItemsFindsTheFirstRepeat: of the ids of an array's items, the first that
// repeats an earlier one, and that one; the table it marks them in is left clear.
func TestEqualItemsFindsTheFirstRepeat(t *testing.T) {
	s := &state{}
	for _, c := range []struct {
		ids  []uint32
		i, j int
		dup  bool
	}{
		{[]uint32{1, 2, 3}, 0, 0, false},
		{[]uint32{1, 2, 1}, 0, 2, true},
		{[]uint32{5, 7, 7, 5}, 1, 2, true},
		{[]uint32{300, 2, 300}, 0, 2, true}, // past the table's size
		{nil, 0, 0, false},
	} {
		i, j, dup := s.equalItems(c.ids)
		if i != c.i || j != c.j || dup != c.dup {
			t.Errorf("equalItems(%v) = %d, %d, %v; want %d, %d, %v", c.ids, i, j, dup, c.i, c.j, c.dup)
		}
		for id, mark := range s.eq.seen {
			if mark != 0 {
				t.Fatalf("after equalItems(%v), id %d left marked", c.ids, id)
			}
		}
	}
}
