package guard

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
)

// nestedSchema applies keyword (its text) at every level of arrays nested under "a".
func nestedSchema(keyword string) string {
	return `{"type":"object","properties":{"a":{"$ref":"#/$defs/n"}},"$defs":{"n":{"items":{"$ref":"#/$defs/n"},` + keyword + `}}}`
}

// nestedArgs builds {"a": …} of about size bytes: arrays nested levels deep, each holding
// the next and its own level's number, the innermost holding distinct numbers, or a
// repeated one at its end when dup is set.
func nestedArgs(size, levels int, dup bool) []byte {
	var b strings.Builder
	b.WriteString(`{"a":`)
	b.WriteString(strings.Repeat("[", levels))
	for i := 0; b.Len() < size-8*levels; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(levels + i))
	}
	if dup {
		b.WriteString(",0," + strconv.Itoa(levels))
	} else {
		b.WriteString(",0")
	}
	b.WriteString("]")
	for l := levels - 1; l > 0; l-- {
		b.WriteString("," + strconv.Itoa(l) + "]")
	}
	b.WriteString("}")
	return []byte(b.String())
}

// canonCases are keywords that compare whole values, at every level of nestedArgs.
var canonCases = []struct {
	name, keyword string
	dup, valid    bool
	eachItem      bool // refuses each number too, with allocations of its own
}{
	{"uniqueItems", `"uniqueItems":true`, false, true, false},
	{"uniqueItems refused", `"uniqueItems":true`, true, false, false},
	{"not const", `"not":{"const":[[1],2]}`, false, true, false},
	{"const refused", `"const":[[1],2]`, false, false, true},
	{"enum refused", `"enum":[[1],{"b":[2]},3]`, true, false, true},
}

// TestCanonicalNestedAllocs: at 60 levels of nesting, comparing whole values allocates
// for the tables of ids, not once an item and a level.
func TestCanonicalNestedAllocs(t *testing.T) {
	for _, c := range canonCases {
		if c.eachItem {
			continue
		}
		v, err := Compile([]byte(nestedSchema(c.keyword)))
		if err != nil {
			t.Fatal(err)
		}
		args := nestedArgs(64<<10, 60, c.dup)
		if allocs := testing.AllocsPerRun(3, func() { v.Validate(args) }); allocs > 100 {
			t.Errorf("%s: %.0f allocations", c.name, allocs)
		}
	}
}

// TestCanonicalAtScale: comparing whole values costs memory linear in the arguments, at
// every level of nesting, valid or refused: per byte, no more at 1 MB than at 64 KB, and
// less than 20 bytes.
func TestCanonicalAtScale(t *testing.T) {
	if testing.Short() {
		t.Skip("full tier: runs without -short")
	}
	for _, levels := range []int{60, 2000} {
		for _, c := range canonCases {
			v, err := Compile([]byte(nestedSchema(c.keyword)), WithMaxDepth(levels+2))
			if err != nil {
				t.Fatal(err)
			}
			var perByte [2]float64
			for i, size := range []int{64 << 10, 1 << 20} {
				var vs []Violation
				perByte[i], vs = validatedPerByte(v, nestedArgs(size, levels, c.dup))
				if (vs == nil) != c.valid {
					t.Fatalf("%s, %d levels: %d KB: %d violations", c.name, levels, size>>10, len(vs))
				}
			}
			t.Logf("%s, %d levels: %.1f B/B at 64 KB, %.1f B/B at 1 MB", c.name, levels, perByte[0], perByte[1])
			if perByte[1] > 20 || perByte[1] > 1.5*perByte[0]+1 {
				t.Errorf("%s, %d levels: %.1f B/B at 64 KB, %.1f B/B at 1 MB", c.name, levels, perByte[0], perByte[1])
			}
		}
	}
}

// BenchmarkUniqueItemsSlope: uniqueItems at each of 60 levels of nested arrays, valid and
// refused, by the size of the arguments.
func BenchmarkUniqueItemsSlope(b *testing.B) {
	v, err := Compile([]byte(nestedSchema(`"uniqueItems":true`)))
	if err != nil {
		b.Fatal(err)
	}
	for _, dup := range []bool{false, true} {
		for _, size := range []int{1 << 10, 64 << 10, 1 << 20} {
			args := nestedArgs(size, 60, dup)
			b.Run(fmt.Sprintf("refused=%v/%dKB", dup, size>>10), func(b *testing.B) {
				b.SetBytes(int64(len(args)))
				b.ReportAllocs()
				for b.Loop() {
					v.Validate(args)
				}
			})
		}
	}
}

// TestEquality: const, enum and uniqueItems agree on which values are equal, however they
// are spelled or nested, whichever keyword reads a value first.
func TestEquality(t *testing.T) {
	pairs := []struct {
		a, b  string
		equal bool
	}{
		{`1`, `1.0`, true},
		{`0`, `-0.0e5`, true},
		{`1e2`, `100`, true},
		{`1`, `"1"`, false},
		{`"\u0041"`, `"A"`, true},
		{`null`, `"null"`, false},
		{`true`, `"true"`, false},
		{`true`, `false`, false},
		{`[1,2]`, `[2,1]`, false},
		{`[1,2]`, `[1,2,2]`, false},
		{`[]`, `{}`, false},
		{`[[]]`, `[{}]`, false},
		{`{"a":1,"b":[1.0]}`, `{"b":[1],"a":1}`, true},
		{`{"a":1}`, `{"a":1,"b":2}`, false},
		{`{"a":"b"}`, `{"b":"a"}`, false},
		{`{"x":[1,{"y":"z"}]}`, "{ \"x\" : [ 1.00 , { \"y\" : \"\\u007a\" } ] }", true},
		{`[{"a":[1]},{"a":[2]}]`, `[{"a":[1]},{"a":[2.0]}]`, true},
	}
	for _, p := range pairs {
		for _, c := range []struct {
			schema, args string
			refused      bool // when the two are equal
		}{
			{`{"properties":{"v":{"const":` + p.a + `}}}`, `{"v":` + p.b + `}`, false},
			{`{"properties":{"v":{"enum":["other",` + p.a + `]}}}`, `{"v":` + p.b + `}`, false},
			{`{"properties":{"v":{"uniqueItems":true}}}`, `{"v":[` + p.a + `,` + p.b + `]}`, true},
			{`{"properties":{"v":{"uniqueItems":true}}}`, `{"v":[[` + p.a + `],[` + p.b + `]]}`, true},
			{`{"properties":{"v":{"uniqueItems":true,"items":{"const":` + p.a + `}}}}`, `{"v":[` + p.b + `]}`, false},
			{`{"properties":{"v":{"uniqueItems":true,"items":{"uniqueItems":true},"const":[[` + p.a + `]]}}}`, `{"v":[[` + p.b + `]]}`, false},
		} {
			v, err := Compile([]byte(c.schema))
			if err != nil {
				t.Fatal(err)
			}
			if refused := v.Validate([]byte(c.args)) != nil; refused != (p.equal == c.refused) {
				t.Errorf("%s against %s: refused %v", c.args, c.schema, refused)
			}
		}
	}
}
