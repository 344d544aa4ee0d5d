package guard

import (
	"bytes"
	"github.com/mcpvalidate/mcpvalidate/guard/internal/jsontext"
	"slices"
	"strings"
	"testing"
)

// reportAt returns a report whose current path is the member names and item indexes of
// steps, read from args: a string step is a member name found in args, an int an index.
func reportAt(t *testing.T, args string, limit int, steps ...any) *report {
	t.Helper()
	r := &report{}
	r.reset([]byte(args), limit)
	for _, s := range steps {
		switch s := s.(type) {
		case string:
			i := bytes.Index(r.args, []byte(`"`+s+`"`))
			if i < 0 {
				t.Fatalf("%q not in the arguments", s)
			}
			r.path = append(r.path, seg{name: jsontext.String{Start: i + 1, End: i + 1 + len(s)}, index: -1})
		case int:
			r.path = append(r.path, seg{index: s})
		}
	}
	return r
}

func TestReportRecordsAtThePath(t *testing.T) {
	long := strings.Repeat("n", 70)
	args := `{"a":[{"` + long + `":{"b":1}}]}`
	for _, c := range []struct {
		name     string
		steps    []any
		member   string // recorded as a member of the value at the path, when not empty
		wantPath string
	}{
		{"the arguments", nil, "", ""},
		{"a member of the arguments", nil, "x", "x"},
		{"an item", []any{"a", 0}, "", "a[0]"},
		{"a member below an item", []any{"a", 0}, "x", "a[0].x"},
		{"below a long name", []any{"a", 0, long, "b"}, "", (Path{{Name: "a"}, {Index: 0, IsIndex: true}, {Name: long}, {Name: "b"}}).String()},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := reportAt(t, args, 20, c.steps...)
			r.record(&Violation{Kind: KindRequired, Keyword: "required"}, c.member, c.member != "", false)
			vs := r.result()
			if len(vs) != 1 || vs[0].Path.String() != c.wantPath || vs[0].Kind != KindRequired {
				t.Fatalf("recorded %+v, want one KindRequired at %q", vs, c.wantPath)
			}
		})
	}
}

// TestReportModes: what record keeps in each mode, and how many it counts.
func TestReportModes(t *testing.T) {
	typeAt := func(types ...string) *Violation { return &Violation{Kind: KindType, Keyword: "type", Types: types} }
	for _, c := range []struct {
		name      string
		set       func(r *report)
		wantOut   int
		wantCount int
		wantTypes []string
	}{
		{"recording", func(r *report) {}, 2, 2, nil},
		{"quiet", func(r *report) { r.quiet++ }, 0, 2, nil},
		{"counting gathers the types asked at its level", func(r *report) { r.counting++; r.types.level = 1 }, 0, 2, []string{"string", "number"}},
		{"counting at another level gathers none", func(r *report) { r.counting++; r.types.level = 0 }, 0, 2, nil},
		{"aborted", func(r *report) { r.stop(Violation{Kind: KindSyntax, Detail: "bad"}) }, 1, 1, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := reportAt(t, `{"a":1}`, 20, "a")
			c.set(r)
			r.record(typeAt("string"), "", false, false)
			r.record(typeAt("number", "string"), "", false, false)
			if len(r.out) != c.wantOut || r.count != c.wantCount || !slices.Equal(r.types.names, c.wantTypes) {
				t.Errorf("listed %d, counted %d, types %q; want %d, %d, %q", len(r.out), r.count, r.types.names, c.wantOut, c.wantCount, c.wantTypes)
			}
		})
	}
}

// TestReportLimit: past the limit, violations are counted in one of KindTruncated.
func TestReportLimit(t *testing.T) {
	for _, c := range []struct {
		limit, recorded int
		want            []Kind
		wantLeftOut     int
	}{
		{3, 2, []Kind{KindRequired, KindRequired}, 0},
		{3, 3, []Kind{KindRequired, KindRequired, KindRequired}, 0},
		{3, 4, []Kind{KindRequired, KindRequired, KindRequired, KindTruncated}, 1},
		{1, 10, []Kind{KindRequired, KindTruncated}, 9},
	} {
		r := reportAt(t, `{}`, c.limit)
		for range c.recorded {
			r.record(&Violation{Kind: KindRequired}, "x", true, false)
		}
		vs := r.result()
		var kinds []Kind
		for _, v := range vs {
			kinds = append(kinds, v.Kind)
		}
		if !slices.Equal(kinds, c.want) || vs[len(vs)-1].Kind == KindTruncated && vs[len(vs)-1].Count != c.wantLeftOut {
			t.Errorf("limit %d, %d recorded: %v, want %v with %d left out", c.limit, c.recorded, vs, c.want, c.wantLeftOut)
		}
	}
}

// TestReportFoundAgain: a violation found again by another pass over the same value is
// listed and counted once; one that differs in anything, or lies elsewhere, is not found again.
func TestReportFoundAgain(t *testing.T) {
	args := `{"a":{"b":1},"c":[1]}`
	first := Violation{Kind: KindEnum, Keyword: "enum", Values: []string{"1", "2"}}
	for _, c := range []struct {
		name   string
		steps  []any
		member string
		v      Violation
		want   int // violations listed in the end
	}{
		{"the same", []any{"a", "b"}, "", first, 1},
		{"other values", []any{"a", "b"}, "", Violation{Kind: KindEnum, Keyword: "enum", Values: []string{"1"}}, 2},
		{"another kind", []any{"a", "b"}, "", Violation{Kind: KindConst, Keyword: "const", Values: []string{"1", "2"}}, 2},
		{"the parent", []any{"a"}, "", first, 2},
		{"a member of the parent of the same name", []any{"a"}, "b", first, 1},
		{"an item", []any{"c", 0}, "", first, 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := reportAt(t, args, 20, "a", "b")
			r.record(&first, "", false, true)
			r.path = reportAt(t, args, 20, c.steps...).path
			v := c.v
			r.record(&v, c.member, c.member != "", true)
			if vs := r.result(); len(vs) != c.want || r.count != c.want {
				t.Errorf("listed %v, counted %d; want %d", vs, r.count, c.want)
			}
		})
	}
}

// TestReportMoveBack: moveBack puts the violations recorded last before those since mark.
func TestReportMoveBack(t *testing.T) {
	r := reportAt(t, `{}`, 20)
	for _, name := range []string{"a", "b", "c", "d", "e"} {
		r.record(&Violation{Kind: KindRequired}, name, true, false)
	}
	r.moveBack(1, 3)
	var got []string
	for _, v := range r.result() {
		got = append(got, v.Path.String())
	}
	if want := []string{"a", "d", "e", "b", "c"}; !slices.Equal(got, want) {
		t.Errorf("moveBack(1, 3): %q, want %q", got, want)
	}
}

// TestReportSharesLongNames: violations below a member name of 64 bytes or more share one
// copy of it; a shorter one is copied for each.
func TestReportSharesLongNames(t *testing.T) {
	for _, c := range []struct {
		name   string
		shared bool
	}{
		{strings.Repeat("x", 64), true},
		{strings.Repeat("x", 63), false},
	} {
		r := reportAt(t, `{"`+c.name+`":{}}`, 20, c.name)
		for range 3 {
			r.record(&Violation{Kind: KindRequired}, "m", true, false)
		}
		want := 3 * len(c.name)
		if c.shared {
			want = len(c.name)
		}
		if r.names.Len() != want {
			t.Errorf("%d-character name: %d bytes of names copied, want %d", len(c.name), r.names.Len(), want)
		}
		vs := r.result()
		if len(vs) != 3 || vs[2].Path[0].Name != c.name || vs[2].Path[1].Name != "m" {
			t.Errorf("%d-character name: paths %v", len(c.name), vs)
		}
	}
}
