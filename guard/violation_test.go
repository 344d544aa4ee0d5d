package guard

import "testing"

// TestPathLiterals reads paths written as users write them: a PathElem with a name is a
// member, one with IsIndex an item, the zero one the member with the empty name.
func TestPathLiterals(t *testing.T) {
	cases := []struct {
		path          Path
		text, pointer string
	}{
		{Path{{Name: "x"}}, "x", "/x"},
		{Path{{Name: "stops"}, {Index: 0, IsIndex: true}, {Name: "nights"}}, "stops[0].nights", "/stops/0/nights"},
		{Path{{Index: 2, IsIndex: true}}, "[2]", "/2"},
		{Path{{Name: "a"}, {}}, `a[""]`, "/a/"},
		{Path{{Name: "a/b~"}}, `["a/b~"]`, "/a~1b~0"},
	}
	for _, c := range cases {
		if got := c.path.String(); got != c.text {
			t.Errorf("%#v.String() = %q, want %q", c.path, got, c.text)
		}
		if got := c.path.Pointer(); got != c.pointer {
			t.Errorf("%#v.Pointer() = %q, want %q", c.path, got, c.pointer)
		}
	}
}
