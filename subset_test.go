package mcpvalidate

import (
	"strings"
	"testing"
)

const weatherSchema = `{"type":"object","properties":{"location":{"type":"string"},"days":{"type":"integer"},
"units":{"type":"string","enum":["c","f"]}},"required":["location"],"additionalProperties":false}`

func TestSeedContract(t *testing.T) {
	v, err := Compile([]byte(weatherSchema))
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct{ args, want string }{
		{`{"days": 2.5, "units": "k", "x": 1}`, "missing required property 'location'|property 'days' must be integer|property 'units' must be one of ['c', 'f']|unexpected property 'x'"},
		{`{"location": "Paris", "days": 2}`, ""},
		{`{"location": "Paris", "days": true}`, "property 'days' must be integer"},
		{`{"location": "Paris", "days": "two"}`, "property 'days' must be integer"},
	}
	for _, c := range cases {
		got := strings.Join(Messages(v.Validate([]byte(c.args)), nil), "|")
		if got != c.want {
			t.Errorf("%s:\n got %q\nwant %q", c.args, got, c.want)
		}
	}
}
