package mcpvalidate

import (
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
			v, err := Compile([]byte(c.schema), WithFormatter(DetailedFormat))
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
