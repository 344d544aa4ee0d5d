package guard

import (
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
)

// The runs and literal paths agree with the regexp engine, and are taken where they
// should be.
func TestPatternAgreesWithRegexp(t *testing.T) {
	cases := []struct {
		expr    string
		runs    bool
		literal bool
	}{
		{`^[a-z_]{1,32}$`, true, false}, {`^[A-Za-z0-9_-]+$`, true, false}, {`^\d*$`, true, false}, {`^[a-c]?$`, true, false},
		{`^[a-z]{2,}$`, true, false}, {`^[0-9]$`, true, false}, {`^\w{3}$`, true, false}, {`^a+$`, true, false}, {`^$`, true, false},
		{`^\d{4}-\d{2}-\d{2}$`, true, false}, {`^[A-Za-z0-9-]+/[A-Za-z0-9._-]+$`, true, false}, {`^\+?[1-9]\d{1,14}$`, true, false},
		{`^ord_[a-zA-Z0-9]{20}$`, true, false}, {`^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}$`, true, false}, {`^x{0}a$`, true, false},
		{`^[a-z]+[a-z0-9]$`, false, false}, {`^a*a$`, false, false}, {`^[a-z]*-?[a-z]+$`, false, false}, {`^[a-c]?b*c$`, false, false},
		{`^(?i)[a-k]+$`, false, false}, {`^[^a-z]+$`, false, false}, {`[a-z]+`, false, false}, {`^[a-z]+`, false, false},
		{`^.+$`, false, false}, {`(?m)^[a-z]+$`, false, false}, {`^[é-ü]+$`, false, false}, {`^(?i)ab$`, false, false},
		{`^[a-z]+|x$`, false, false}, {`^([a-z])+$`, false, false}, {`^[0-9]{5}(-[0-9]{4})?$`, false, false},
		{`^x-`, false, true}, {`ab`, false, true}, {`c$`, false, true}, {`^abc$`, false, true}, {`^a`, false, true},
		{`(?i)^ab`, false, false}, {`^é`, false, false}, {`^a|b`, false, false}, {`(?m)^a`, false, false}, {`^`, false, false},
	}
	inputs := []string{"", "a", "abc", "ab_c", "x-1", "zx-", "x", "ABC", "Abc", "a-b", "abcdefghijklmnopqrstuvwxyzabcdefg",
		"abcdefghijklmnopqrstuvwxyzabcdef", "123", "1", "é", "a\n", "\na", "k", "K", "\u212a", "x", "ab\xff",
		"2026-12-06", "2026-1-06", "owner/repo.go", "owner//repo", "/repo", "+4712345678", "4712345678", "+0123",
		"ord_abcdefghij0123456789", "ord_abcdefghij012345678", "0f9c2d4e-8b1a-4c3e", "0f9c2d4e-8b1a-9c3e", "aa", "ab-c", "-c"}
	for _, c := range cases {
		p, err := compilePattern(c.expr)
		if err != nil {
			t.Fatalf("%s: %v", c.expr, err)
		}
		if p.byRuns != c.runs || (p.lit != nil) != c.literal {
			t.Errorf("%s: runs used = %v, literal = %v; want %v, %v", c.expr, p.byRuns, p.lit != nil, c.runs, c.literal)
		}
		re := regexp.MustCompile(c.expr)
		for _, in := range inputs {
			if got, want := p.match([]byte(in)), re.MatchString(in); got != want {
				t.Errorf("%s on %q: got %v, regexp says %v", c.expr, in, got, want)
			}
		}
	}
}

// TestPatternRunsAgainstRegexp: patterns made at random of literals and classes, each
// perhaps repeated, match every string of a small alphabet up to five characters as Go's
// regexp does, whichever path they take.
func TestPatternRunsAgainstRegexp(t *testing.T) {
	atoms := []string{"a", "b", "-", "[a-c]", "[ab]", `\d`, "[0-9a]", "[^a]", "é", "."}
	quantifiers := []string{"", "*", "+", "?", "{2}", "{1,3}", "{2,}", "{0}", "+?"}
	alphabet := []string{"a", "b", "c", "-", "0", "1", "é"}
	var inputs []string
	var grow func(s string)
	grow = func(s string) {
		inputs = append(inputs, s)
		if len([]rune(s)) < 5 {
			for _, c := range alphabet {
				grow(s + c)
			}
		}
	}
	grow("")
	rng := rand.New(rand.NewPCG(1, 2))
	patterns, byRuns := 400, 0
	if testing.Short() {
		patterns = 100
	}
	for range patterns {
		expr := "^"
		for range 1 + rng.IntN(4) {
			expr += atoms[rng.IntN(len(atoms))] + quantifiers[rng.IntN(len(quantifiers))]
		}
		expr += "$"
		p, err := compilePattern(expr)
		if err != nil {
			t.Fatalf("%s: %v", expr, err)
		}
		if p.byRuns {
			byRuns++
		}
		re := regexp.MustCompile(expr)
		for _, in := range inputs {
			if got, want := p.match([]byte(in)), re.MatchString(in); got != want {
				t.Fatalf("%s on %q: got %v, regexp says %v", expr, in, got, want)
			}
		}
	}
	if byRuns < patterns/4 {
		t.Errorf("only %d patterns of %d took the runs", byRuns, patterns)
	}
}

// TestPatternRunsLong: patterns matched by runs decide strings of a megabyte as Go's
// regexp does, in one pass, whether they match or fail at the last byte.
func TestPatternRunsLong(t *testing.T) {
	long := strings.Repeat("a", 1<<20)
	for expr, ins := range map[string][]string{
		`^[a-z]+$`:                {long, long + "-", long[1:] + "é"},
		`^[a-z]+/[a-z0-9._-]+$`:   {long + "/" + long, long + "/" + long + "/", long},
		`^[a-z]{1,1000}-?[0-9]*$`: {"abc-" + strings.Repeat("7", 1<<20), long + "-1", "a--" + strings.Repeat("7", 1<<20)},
	} {
		p, err := compilePattern(expr)
		if err != nil || !p.byRuns {
			t.Fatalf("%s: runs %v, %v", expr, p != nil && p.byRuns, err)
		}
		re := regexp.MustCompile(expr)
		for i, in := range ins {
			if got, want := p.match([]byte(in)), re.MatchString(in); got != want {
				t.Errorf("%s on input %d (%d bytes): got %v, regexp says %v", expr, i, len(in), got, want)
			}
		}
	}
}

// BenchmarkPattern: patterns of tool schemas matched by runs against Go's regexp, on a
// string each matches.
func BenchmarkPattern(b *testing.B) {
	for _, c := range []struct{ name, expr, in string }{
		{"repo", `^[A-Za-z0-9-]+/[A-Za-z0-9._-]+$`, "mcpvalidate/mcpvalidate.go"},
		{"date", `^\d{4}-\d{2}-\d{2}$`, "2026-12-06"},
		{"phone", `^\+[1-9]\d{1,14}$`, "+4712345678"},
	} {
		p, err := compilePattern(c.expr)
		if err != nil || !p.byRuns {
			b.Fatalf("%s: runs %v, %v", c.expr, p != nil && p.byRuns, err)
		}
		in := []byte(c.in)
		b.Run(c.name+"/runs", func(b *testing.B) {
			for b.Loop() {
				if !p.match(in) {
					b.Fatal("no match")
				}
			}
		})
		b.Run(c.name+"/regexp", func(b *testing.B) {
			for b.Loop() {
				if !p.re.Match(in) {
					b.Fatal("no match")
				}
			}
		})
	}
}
