package testsuite

import (
	"strings"
	"testing"
)

func TestModestNumbers(t *testing.T) {
	cases := []struct {
		data string
		want bool
	}{
		{`[1, -2.5, 1e2, 1E-300, 1e+400, 18446744073709551616]`, true},
		{`{"a":[1e9999]}`, true},
		{`{"a":[1e10001]}`, false},
		{`-1.5E-99999999`, false},
		{`1e99999999999999999999`, false},
		{`"1e99999999"`, true},
	}
	for _, c := range cases {
		if got := ModestNumbers([]byte(c.data)); got != c.want {
			t.Errorf("ModestNumbers(%s) = %v, want %v", c.data, got, c.want)
		}
	}
}

func TestPlainJSON(t *testing.T) {
	deep := func(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }
	cases := []struct {
		data string
		want bool
	}{
		{`{"a":1,"b":{"a":2},"c":[{"a":3},{"a":4}]}`, true},
		{`{"a":1,"a":2}`, false},
		{`{"x":{"a":[],"b":{},"a":null}}`, false},
		{`[{"a":1},{"a":1}]`, true},
		{`{"a\u0062":1,"ab":2}`, false},
		{`{"a":"a","b":"b"}`, true},
		{`{}`, true},
		{`"a"`, true},
		{deep(64), true},
		{deep(64 + 1), false},
		{`{"a":` + deep(64-1) + `}`, true},
		{`{"a":` + deep(64) + `}`, false},
	}
	for _, c := range cases {
		if got := PlainJSON([]byte(c.data), 64); got != c.want {
			t.Errorf("PlainJSON(%.80s) = %v, want %v", c.data, got, c.want)
		}
	}
}
