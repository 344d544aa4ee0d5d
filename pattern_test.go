package mcpvalidate

import (
	"regexp"
	"testing"
)

// The byte-table path agrees with the regexp engine, and is taken where it should be.
func TestPatternAgreesWithRegexp(t *testing.T) {
	cases := []struct {
		expr string
		fast bool
	}{
		{`^[a-z_]{1,32}$`, true}, {`^[A-Za-z0-9_-]+$`, true}, {`^\d*$`, true}, {`^[a-c]?$`, true},
		{`^[a-z]{2,}$`, true}, {`^[0-9]$`, true}, {`^\w{3}$`, true},
		{`^(?i)[a-k]+$`, false}, {`^[^a-z]+$`, false}, {`[a-z]+`, false}, {`^[a-z]+`, false},
		{`^a+$`, false}, {`^.+$`, false}, {`(?m)^[a-z]+$`, false}, {`^[é-ü]+$`, false}, {`^$`, false},
		{`^[a-z]+|x$`, false}, {`^([a-z])+$`, false},
	}
	inputs := []string{"", "a", "abc", "ab_c", "Abc", "a-b", "abcdefghijklmnopqrstuvwxyzabcdefg",
		"abcdefghijklmnopqrstuvwxyzabcdef", "123", "1", "é", "a\n", "\na", "k", "K", "\u212a", "x", "ab\xff"}
	for _, c := range cases {
		p, err := compilePattern(c.expr)
		if err != nil {
			t.Fatalf("%s: %v", c.expr, err)
		}
		if (p.class != nil) != c.fast {
			t.Errorf("%s: byte table used = %v, want %v", c.expr, p.class != nil, c.fast)
		}
		re := regexp.MustCompile(c.expr)
		for _, in := range inputs {
			if got, want := p.match([]byte(in)), re.MatchString(in); got != want {
				t.Errorf("%s on %q: got %v, regexp says %v", c.expr, in, got, want)
			}
		}
	}
}
