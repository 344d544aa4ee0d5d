package guard

import (
	"regexp"
	"testing"
)

// The byte-table and literal paths agree with the regexp engine, and are taken where they
// should be.
func TestPatternAgreesWithRegexp(t *testing.T) {
	cases := []struct {
		expr    string
		fast    bool
		literal bool
	}{
		{`^[a-z_]{1,32}$`, true, false}, {`^[A-Za-z0-9_-]+$`, true, false}, {`^\d*$`, true, false}, {`^[a-c]?$`, true, false},
		{`^[a-z]{2,}$`, true, false}, {`^[0-9]$`, true, false}, {`^\w{3}$`, true, false},
		{`^(?i)[a-k]+$`, false, false}, {`^[^a-z]+$`, false, false}, {`[a-z]+`, false, false}, {`^[a-z]+`, false, false},
		{`^a+$`, false, false}, {`^.+$`, false, false}, {`(?m)^[a-z]+$`, false, false}, {`^[é-ü]+$`, false, false}, {`^$`, false, false},
		{`^[a-z]+|x$`, false, false}, {`^([a-z])+$`, false, false},
		{`^x-`, false, true}, {`ab`, false, true}, {`c$`, false, true}, {`^abc$`, false, true}, {`^a`, false, true},
		{`(?i)^ab`, false, false}, {`^é`, false, false}, {`^a|b`, false, false}, {`(?m)^a`, false, false}, {`^`, false, false},
	}
	inputs := []string{"", "a", "abc", "ab_c", "x-1", "zx-", "x", "ABC", "Abc", "a-b", "abcdefghijklmnopqrstuvwxyzabcdefg",
		"abcdefghijklmnopqrstuvwxyzabcdef", "123", "1", "é", "a\n", "\na", "k", "K", "\u212a", "x", "ab\xff"}
	for _, c := range cases {
		p, err := compilePattern(c.expr)
		if err != nil {
			t.Fatalf("%s: %v", c.expr, err)
		}
		if (p.class != nil) != c.fast || (p.lit != nil) != c.literal {
			t.Errorf("%s: byte table used = %v, literal = %v; want %v, %v", c.expr, p.class != nil, p.lit != nil, c.fast, c.literal)
		}
		re := regexp.MustCompile(c.expr)
		for _, in := range inputs {
			if got, want := p.match([]byte(in)), re.MatchString(in); got != want {
				t.Errorf("%s on %q: got %v, regexp says %v", c.expr, in, got, want)
			}
		}
	}
}
