package core

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/mcpvalidate/mcpvalidate/internal/tier"
)

func TestDetailedFormat(t *testing.T) {
	weather := `{"type":"object","additionalProperties":false,"required":["location"],"properties":{
		"location":{"type":"string"},"days":{"type":"integer"},"units":{"enum":["celsius","fahrenheit"]},"limit":{"type":"integer"}}}`
	nested := `{"type":"object","properties":{"customer":{"type":"object","additionalProperties":false,"properties":{
		"address":{"type":"string"},"name":{"type":"string"}}}}}`
	wide := `{"type":"object","additionalProperties":false,"properties":{"a1":{},"a2":{},"a3":{},"a4":{},"a5":{},"a6":{},"a7":{},"a8":{},"a9":{}}}`
	full := `{"type":"object","properties":{"n":{"type":"integer"}},"unevaluatedProperties":false}`
	many := closedObject(200, func(i int) string { return fmt.Sprintf("customer_address_line_%03d", i) })
	cases := []struct{ name, schema, args, want string }{
		{"the type sent", weather, `{"location":"zzz","days":"zzz2"}`, "property 'days' must be integer, not string"},
		{"a fraction for an integer", weather, `{"location":"zzz","days":2.5}`, "property 'days' must be integer, not number"},
		{"a boolean for an integer", weather, `{"location":"zzz","days":true}`, "property 'days' must be integer, not boolean"},
		{"null for an optional member", weather, `{"location":"zzz","limit":null}`, "property 'limit' must be integer, not null (leave it out: it is optional)"},
		{"null for a required member", weather, `{"location":null}`, "property 'location' must be string, not null"},
		{"an enum value in another case", weather, `{"location":"zzz","units":"Celsius"}`, "property 'units' must be one of ['celsius', 'fahrenheit'] (did you mean 'celsius'?)"},
		{"an enum value with spaces", weather, `{"location":"zzz","units":" fahrenheit "}`, "property 'units' must be one of ['celsius', 'fahrenheit'] (did you mean 'fahrenheit'?)"},
		{"an enum value not close", weather, `{"location":"zzz","units":"kelvin"}`, "property 'units' must be one of ['celsius', 'fahrenheit']"},
		{"a misspelt name", weather, `{"loction":"zzz"}`, "missing required property 'location' | unexpected property 'loction' (did you mean 'location'?)"},
		{"a name in another case", weather, `{"location":"zzz","Days":2}`, "unexpected property 'Days' (did you mean 'days'?)"},
		{"a misspelt name whose declared name is used", weather, `{"location":"zzz","loction":"zzz"}`,
			"unexpected property 'loction' (the properties are 'location', 'days', 'units', 'limit')"},
		{"the declared names once per object", weather, `{"location":"zzz","x":1,"y":2}`,
			"unexpected property 'x' (the properties are 'location', 'days', 'units', 'limit') | unexpected property 'y'"},
		{"the declared names after a near one", weather, `{"location":"zzz","dys":1,"y":2}`,
			"unexpected property 'dys' (did you mean 'days'?) | unexpected property 'y' (the properties are 'location', 'days', 'units', 'limit')"},
		{"a typo of one of 200 names", many, `{"customer_address_lnie_117":1}`,
			"unexpected property 'customer_address_lnie_117' (did you mean 'customer_address_line_117'?)"},
		{"a misspelt nested name", nested, `{"customer":{"adress":"zzz"}}`, "unexpected property 'customer.adress' (did you mean 'customer.address'?)"},
		{"an object that declares many names", wide, `{"b":1}`, "unexpected property 'b'"},
		{"a long name is not compared", weather, `{"location":"zzz","` + strings.Repeat("d", 70) + `":1}`,
			`unexpected property "` + strings.Repeat("d", 32) + `"…(22 characters not shown)…"` + strings.Repeat("d", 16) + `"` + " (the properties are 'location', 'days', 'units', 'limit')"},
		{"the full engine", full, `{"n":"zzz"}`, "property 'n' must be integer, not string"},
		{"bad JSON gets no hints", weather, `{"days":"zzz",`, "arguments are not valid JSON: expected a member name in double quotes at offset 14"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			opts := []Option{WithFormatter(DetailedFormat), WithHints()}
			if c.schema == full {
				opts = append(opts, WithFullEngine())
			}
			v, err := Compile([]byte(c.schema), opts...)
			if err != nil {
				t.Fatal(err)
			}
			got := strings.Join(Messages(v.Validate([]byte(c.args)), DetailedFormat), " | ")
			if got != c.want {
				t.Errorf("\n got %q\nwant %q", got, c.want)
			}
			if strings.Contains(got, "zzz") {
				t.Errorf("a value sent is quoted: %q", got)
			}
		})
	}
}

// TestEditDistance: the banded distance is the plain Levenshtein distance, capped at
// most+1.
func TestEditDistance(t *testing.T) {
	naive := func(a, b []rune) int {
		prev := make([]int, len(b)+1)
		for j := range prev {
			prev[j] = j
		}
		for i := 1; i <= len(a); i++ {
			cur := make([]int, len(b)+1)
			cur[0] = i
			for j := 1; j <= len(b); j++ {
				c := 1
				if a[i-1] == b[j-1] {
					c = 0
				}
				cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+c)
			}
			prev = cur
		}
		return prev[len(b)]
	}
	words := []string{"", "a", "ab", "ba", "abc", "acb", "location", "loction", "lcoation", "days", "dys", "dayss", "customer_address_line_117", "customer_address_lnie_117", "xyzxyzxyz", "zyxzyxzyx", "aaaaab", "baaaaa"}
	for _, x := range words {
		for _, y := range words {
			a, b := []rune(x), []rune(y)
			for most := 1; most < 10; most++ {
				want := min(naive(a, b), most+1)
				if got := editDistance(a, b, most); got != want {
					t.Errorf("%q %q most %d: got %d want %d", x, y, most, got, want)
				}
			}
		}
	}
}

// TestHintsUnderAnyFormatter: hints are asked for, not guessed from the formatter, so a
// formatter that wraps DetailedFormat tells them too.
func TestHintsUnderAnyFormatter(t *testing.T) {
	wrapped := func(v Violation) string { return "» " + DetailedFormat(v) }
	g := New(WithFormatter(wrapped), WithHints())
	s := g.Bind("weather", nil, []byte(weatherSchema), nil)
	vd := g.Check(&Call{Tool: "weather"}, s, []byte(`{"locaton":"x"}`), nil)
	if want := refusalPrefix + "» missing required property 'location'; » unexpected property 'locaton' (did you mean 'location'?)"; vd.Text() != want {
		t.Errorf("got %q, want %q", vd.Text(), want)
	}
}

// closedObject is the schema of an object that allows only the n names name(i).
func closedObject(n int, name func(int) string) string {
	var b strings.Builder
	b.WriteString(`{"type":"object","additionalProperties":false,"properties":{`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `%q:{}`, name(i))
	}
	b.WriteString("}}")
	return b.String()
}

// TestHintWorkIsBounded: unexpected names that are each close to every one of 200 long
// declared names cost no more, for 80 of them, than for 10: the hints' work is bounded
// per refusal, not per name.
func TestHintWorkIsBounded(t *testing.T) {
	tier.Full(t)
	long := func(tag string) func(int) string {
		return func(i int) string { return strings.Repeat("a", 52) + fmt.Sprintf("%s%07d", tag, i) }
	}
	v, err := Compile([]byte(closedObject(200, long("0"))), WithHints(), WithMaxViolations(100))
	if err != nil {
		t.Fatal(err)
	}
	perRefusal := func(n int) float64 {
		names := make([]string, n)
		for i := range names {
			names[i] = fmt.Sprintf(`%q:1`, long("x")(i))
		}
		args := []byte("{" + strings.Join(names, ",") + "}")
		if vs := v.Validate(args); len(vs) != n || vs[0].Kind != KindAdditional {
			t.Fatalf("%d violations, want %d of kind additional", len(vs), n)
		}
		r := testing.Benchmark(func(b *testing.B) {
			for b.Loop() {
				v.Validate(args)
			}
		})
		return float64(r.T) / float64(r.N)
	}
	few, many := perRefusal(10), perRefusal(80)
	if many > 3*few {
		t.Errorf("a refusal with 80 unexpected names costs %.1f times one with 10", many/few)
	}
}

// The default wording is the contract's, hints or not.
func TestHintsLeaveTheDefaultWording(t *testing.T) {
	got := check(t, weatherSchema, `{"days": "2", "units": "C", "locaton": 1}`)
	want := "missing required property 'location' | property 'days' must be integer | property 'units' must be one of ['c', 'f'] | unexpected property 'locaton'"
	if got != want {
		t.Errorf("\n got %q\nwant %q", got, want)
	}
}

// hintArgs builds about size bytes of arguments for hintSchema: every declared member,
// each with a long string, then misspelt names, each one edit from a declared name that is
// present, so that every declared name is a candidate the object must be read for.
func hintArgs(size int) []byte {
	var b strings.Builder
	b.WriteString("{")
	value := strings.Repeat("v", max(1, size/1000-16))
	for i := range 1000 {
		fmt.Fprintf(&b, `"field_%04d":"%s",`, i, value)
	}
	for i := range 25 {
		fmt.Fprintf(&b, `"fiel_%04d":1,`, i)
	}
	b.WriteString(`"days":"x"}`)
	return []byte(b.String())
}

var hintSchema = func() string {
	var b strings.Builder
	b.WriteString(`{"type":"object","additionalProperties":false,"properties":{"days":{"type":"integer"}`)
	for i := range 1000 {
		fmt.Fprintf(&b, `,"field_%04d":{"type":"string"}`, i)
	}
	b.WriteString("}}")
	return b.String()
}()

// TestHintsAtScale: on a megabyte of arguments whose every unexpected name is close to
// many declared names, all present, the hints read the object once a violation, allocate
// no more than the arguments' size, and suggest nothing wrong.
func TestHintsAtScale(t *testing.T) {
	v, err := Compile([]byte(hintSchema), WithFormatter(DetailedFormat), WithHints())
	if err != nil {
		t.Fatal(err)
	}
	args := hintArgs(1 << 20)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	vs := v.Validate(args)
	runtime.ReadMemStats(&after)
	if allocated := after.TotalAlloc - before.TotalAlloc; allocated > uint64(len(args)) {
		t.Errorf("%d bytes allocated for %d bytes of arguments", allocated, len(args))
	}
	msgs := Messages(vs, DetailedFormat)
	if len(msgs) != 21 || msgs[0] != "unexpected property 'fiel_0000'" || msgs[20] != "and 6 more violations" {
		t.Errorf("got %d messages: %q … %q", len(msgs), msgs[0], msgs[len(msgs)-1])
	}
}

// BenchmarkHintsSlope: the hints' cost per byte of arguments from 64 KB to 1 MB.
func BenchmarkHintsSlope(b *testing.B) {
	v, err := Compile([]byte(hintSchema), WithFormatter(DetailedFormat), WithHints())
	if err != nil {
		b.Fatal(err)
	}
	for _, size := range []int{64 << 10, 1 << 20} {
		args := hintArgs(size)
		b.Run(fmt.Sprintf("%dKB", size>>10), func(b *testing.B) {
			b.SetBytes(int64(len(args)))
			b.ReportAllocs()
			for b.Loop() {
				v.Validate(args)
			}
		})
	}
}
