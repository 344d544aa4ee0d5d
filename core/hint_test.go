package core

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
)

func TestDetailedFormat(t *testing.T) {
	weather := `{"type":"object","additionalProperties":false,"required":["location"],"properties":{
		"location":{"type":"string"},"days":{"type":"integer"},"units":{"enum":["celsius","fahrenheit"]},"limit":{"type":"integer"}}}`
	nested := `{"type":"object","properties":{"customer":{"type":"object","additionalProperties":false,"properties":{
		"address":{"type":"string"},"name":{"type":"string"}}}}}`
	wide := `{"type":"object","additionalProperties":false,"properties":{"a1":{},"a2":{},"a3":{},"a4":{},"a5":{},"a6":{},"a7":{},"a8":{},"a9":{}}}`
	full := `{"type":"object","properties":{"n":{"type":"integer"}},"unevaluatedProperties":false}`
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
		{"a misspelt nested name", nested, `{"customer":{"adress":"zzz"}}`, "unexpected property 'customer.adress' (did you mean 'customer.address'?)"},
		{"an object that declares many names", wide, `{"b":1}`, "unexpected property 'b'"},
		{"a long name is not compared", weather, `{"location":"zzz","` + strings.Repeat("d", 70) + `":1}`,
			`unexpected property "` + strings.Repeat("d", 32) + `"…(22 characters not shown)…"` + strings.Repeat("d", 16) + `"` + " (the properties are 'location', 'days', 'units', 'limit')"},
		{"the full engine", full, `{"n":"zzz"}`, "property 'n' must be integer, not string"},
		{"bad JSON gets no hints", weather, `{"days":"zzz",`, "arguments are not valid JSON: expected a member name in double quotes at offset 14"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			opts := []Option{WithFormatter(DetailedFormat)}
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

// The default wording is the seed contract's, hints or not.
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
	v, err := Compile([]byte(hintSchema), WithFormatter(DetailedFormat))
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
	v, err := Compile([]byte(hintSchema), WithFormatter(DetailedFormat))
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
