package regex

import (
	"regexp/syntax"
	"runtime"
	"strings"
	"testing"
)

// goCompiles is the verdict Valid stands for, regexp.Compile's, which fails exactly when
// parsing with the Perl flags fails: what follows the parse cannot fail.
func goCompiles(s string) bool {
	_, err := syntax.Parse(s, syntax.Perl)
	return err == nil
}

// regexCases exercise each rule of Go's regular expression syntax, valid and not.
var regexCases = []string{
	"", "a", "abc", ".", "^$", `\A\z`, `\b\B`, "a|b", "|", "a|", "(a)", "(?:a)", "()", "(?:)",
	// groups and flags
	"(?i)a", "(?i:a)", "(?im-sU:a)", "(?)", "(?-)", "(?i-)", "(?-i)", "(?i-s-m)", "(?x)", "(?i", "(?",
	"(?P<name>a)", "(?<name>a)", "(?P<>a)", "(?<>a)", "(?P<n", "(?<n", "(?P=n)", "(?P>n)", "(?<=a)", "(?<!a)",
	"(?'n'a)", "(?P<a-b>x)", "(?P<é>x)", "(?P<n>a)(?P<n>b)", "(?P<1>x)", "(?<x_1>y)", "(a", "a)", ")(", "(a|b", "((a)",
	// repetitions
	"a*", "a+", "a?", "a*?", "a+?", "a??", "a**", "a*+", "a*?*", "a?+", "*", "+a", "(*)", "(|*)", "|*", "()*", "(?:)*",
	"(?i)*", "a(?i)*", `a*\Q\E*`, `a\Q\E*`, "^*", "$+", `\b*`, `\z?`,
	"a{2}", "a{2,}", "a{2,3}", "a{,3}", "a{3,2}", "a{0}", "a{0,0}", "a{00}", "a{01}", "a{1000}", "a{1001}", "a{0,1001}",
	"a{100000000}", "a{99999999}", "a{2}{3}", "a{2}?", "a{2}??", "a{", "a{1", "a{1,", "a{1,2", "{", "{1}", "x{1}{",
	"a{ 1}", "a{1 }", "a{1,2,3}", "a{-1}",
	"(a{10}){100}", "(a{10}){101}", "(?:a{10}){101}", "(a{10}b{10}){100}", "(a{2}){0}", "((a{1000}){2}){0}",
	"(a{0}){1000}", "(a{0,}){1000}", "(a{2,}){501}", "(a{2,}){500}", "((a{10}){10}){10}", "((a{10}){10}){11}",
	"(a*){1000}", "(a{1}){1000}(b{1000})", "a{1000}b{1000}",
	// escapes
	`\`, `a\`, `\\`, `\.`, `\_`, `\-`, `\q`, `\C`, `\8`, `\1`, `\12`, `\18`, `\0`, `\08`, `\077`, `\0777`, `\x`, `\x1`,
	`\x41`, `\xg1`, `\x1g`, `\x{}`, `\x{41}`, `\x{110000}`, `\x{10FFFF}`, `\x{g}`, `\x{41`, `\a\f\t\n\r\v`, `\e`,
	`\Q`, `\Qab`, `\Qa*\E*`, `\Q\E`, `\Qa\Eb`, `\Q\\E`, `\Q(\E`, `\é`,
	// classes
	`\d\D\s\S\w\W`, `\pL`, `\PL`, `\p{L}`, `\p{^L}`, `\P{^L}`, `\p`, `\p{`, `\p{L`, `\p{}`, `\pN`, `\pZ`, `\pX`, `\pl`,
	`\p{Greek}`, `\p{greek}`, `\p{GREEK}`, `\p{Gr_eek}`, `\p{Old_Italic}`, `\p{Olditalic}`, `\p{Letter}`, `\p{Lc}`, `\p{LC}`,
	`\p{Any}`, `\p{any}`, `\p{Assigned}`, `\p{ASCII}`, `\p{L_}`, `\p{_L}`, `\p{Nd}`, `\p{Han}`, `\p{Nonexistent}`,
	`\p{Decimal_Number}`, `\p{decimalnumber}`, "[a]", "[ab-z]", "[^a]", "[]a]", "[]", "[^]a]", "[^]", "[a-]", "[-a]",
	"[a-b-c]", "[z-a]", "[a-a]", `[\b]`, `[\Q]`, `[\d-z]`, `[a-\d]`, `[\pL-z]`, `[a-\pL]`, `[\p{L}]`, `[\p{Foo}]`,
	"[[:alpha:]]", "[[:^alpha:]]", "[[:alpha:]-z]", "[[:foo:]]", "[[:alpha:]", "[:alpha:]", "[[:]]", "[[:a]", "[[:alpha:]a",
	"[a", "[a-", `[a\`, `[\`, `[a-\`, `[\x{41}-\x{5A}]`, `[\x{5A}-\x{41}]`, `[\101-\132]`, `[a-\n]`, "[é-è]", "[è-é]",
	// UTF-8
	"é", "a\xffb", "\xff", "[\xff]", `\p{` + "\xff}", "(?P<\xff>a)", "(?\xff)", `\Q` + "\xff" + `\E`, "\xed\xa0\x80",
}

// generatedRegexes returns n patterns built from the grammar's pieces, nested.
func generatedRegexes(n int) []string {
	x := uint64(7)
	next := func(k int) int {
		x = x*6364136223846793005 + 1442695040888963407
		return int((x >> 33) % uint64(k))
	}
	atoms := []string{"a", "b", ".", "^", "$", `\d`, `\pL`, `\p{Greek}`, "[a-z]", "[^x]", `[[:alpha:]\d-]`, `\x41`,
		`\Qa*\E`, `\b`, "é", `\.`, "(?i)", "{", "}", "]", `\z`, "[", `\`, "(?P<n>", ")"}
	reps := []string{"", "", "", "*", "+", "?", "*?", "{2}", "{0}", "{1,3}", "{2,}", "{10}", "{100}", "{0,0}", "{1000}",
		"{1001}", "**", "{3,2}"}
	var gen func(depth int) string
	gen = func(depth int) string {
		var b strings.Builder
		for k := next(5); k >= 0; k-- {
			switch c := next(10); {
			case c < 6 || depth > 6:
				b.WriteString(atoms[next(len(atoms))])
			case c < 8:
				b.WriteString([]string{"(", "(?:", "(?P<n>", "(?i:", "(?<x>"}[next(5)] + gen(depth+1) + ")")
			default:
				b.WriteString(gen(depth+1) + "|" + gen(depth+1))
			}
			b.WriteString(reps[next(len(reps))])
		}
		return b.String()
	}
	out := make([]string, n)
	for i := range out {
		out[i] = gen(0)
	}
	return out
}

// TestValidRegexAgreesWithGo: Valid gives regexp.Compile's verdict on patterns that
// exercise each rule of the syntax, and on generated ones.
func TestValidRegexAgreesWithGo(t *testing.T) {
	for _, p := range append(regexCases, generatedRegexes(3000)...) {
		if got, want := Valid(p), goCompiles(p); got != want {
			t.Errorf("Valid(%q) = %v, Go says %v", p, got, want)
		}
	}
}

// TestValidRegexAtGoLimits: around Go's limits on nesting, program size and class runes,
// Valid counts as Go's parser does on these shapes (each at a size where Go accepts
// and one where it refuses).
func TestValidRegexAtGoLimits(t *testing.T) {
	nest := func(open, inner, close string, n int) string {
		return strings.Repeat(open, n) + inner + strings.Repeat(close, n)
	}
	cases := []struct {
		name string
		at   func(n int) string
		ns   []int
	}{
		{"captures", func(n int) string { return nest("(", "a", ")", n) }, []int{999, 1000}},
		{"captures and literals", func(n int) string { return nest("(a", "", ")", n) }, []int{499, 500}},
		{"stars", func(n int) string { return "a" + nest("(?:", "", ")*", n) }, []int{998, 999}},
		{"alternations", func(n int) string { return nest("(a|", "b", ")", n) }, []int{499, 500}},
		{"flattened concatenations", func(n int) string { return nest("(?:.", "", ")", n) }, []int{1000}},
		{"literals handed up", func(n int) string { return nest("(?:a", "", ")", n) }, []int{4000, 5000}},
		{"class handed up", func(n int) string { return nest("(?:", `\pL`, ")", n) }, []int{8485, 8486}},
		{"program size", func(n int) string { return strings.Repeat("a{1000}", n) }, []int{3355, 3356}},
		{"one long literal", func(n int) string { return strings.Repeat("a", n) }, []int{4 << 20}},
	}
	for _, c := range cases {
		for _, n := range c.ns {
			p := c.at(n)
			if got, want := Valid(p), goCompiles(p); got != want {
				t.Errorf("%s ×%d: Valid = %v, Go says %v", c.name, n, got, want)
			}
		}
	}
}

// FuzzValidRegex compares Valid with regexp.Compile on patterns of up to 1,000 bytes,
// which cannot reach Go's limits.
func FuzzValidRegex(f *testing.F) {
	for _, p := range regexCases {
		f.Add(p)
	}
	f.Fuzz(func(t *testing.T, p string) {
		if len(p) > 1000 {
			return
		}
		if got, want := Valid(p), goCompiles(p); got != want {
			t.Fatalf("Valid(%q) = %v, Go says %v", p, got, want)
		}
	})
}

// TestValidRegexMemory: a pattern costs no memory but for its open groups, 8 bytes a byte
// at most, whatever its shape; Go's parser takes hundreds. (TestHostileFormats checks a
// megabyte through Validate.)
func TestValidRegexMemory(t *testing.T) {
	for _, unit := range []string{"a", "()", ".", "a*", `\pL`, "[[:", "(?:", "(?:.", "(a", "a{1000}", `\Q`, `\x{41}`, "a|"} {
		p := strings.Repeat(unit, (256<<10)/len(unit))
		Valid(p)
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		Valid(p)
		runtime.ReadMemStats(&after)
		if perByte := float64(after.TotalAlloc-before.TotalAlloc) / float64(len(p)); perByte > 9 {
			t.Errorf("%q repeated to 1 MB: %.1f bytes allocated per byte", unit, perByte)
		}
	}
}

// allocatedPerByte measures the bytes f allocates on its second run, per byte of an input of n bytes.
func allocatedPerByte(f func(), n int) float64 {
	f()
	return float64(allocated(f)) / float64(n)
}

// allocated measures the bytes one run of f allocates.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestValidRegexDeepButShort: strings with more open groups than kept inline cost next to
// nothing each, not a block of frames: a megabyte of them allocates under a byte per byte.
func TestValidRegexDeepButShort(t *testing.T) {
	if raceDetector {
		t.Skip("the race detector drops sync.Pool's items")
	}
	p := strings.Repeat("(", 17) + "a" + strings.Repeat(")", 17)
	n := (1 << 20) / len(p)
	perByte := allocatedPerByte(func() {
		for range n {
			Valid(p)
		}
	}, n*len(p))
	if perByte > 1 {
		t.Errorf("%d patterns of 17 groups: %.1f bytes allocated per byte", n, perByte)
	}
}
