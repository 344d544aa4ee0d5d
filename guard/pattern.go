package guard

// The pattern keyword and patternProperties, matched through a byte table or a comparison
// of bytes for the shapes tool schemas use most, else by Go's regexp.

import (
	"bytes"
	"regexp"
	"regexp/syntax"
	"unicode/utf8"
)

// A pattern is a compiled "pattern" keyword, or a pattern of patternProperties. Most
// patterns in tool schemas are one ASCII character class repeated between bounds and
// anchored at both ends, such as ^[a-z_]{1,32}$, or an ASCII literal, anchored or not, such
// as ^x-; those are matched without the regexp engine, through a byte table or by comparing
// bytes.
type pattern struct {
	re       *regexp.Regexp
	class    *[256]bool // nil when the pattern is not such a run
	min, max int        // the run's bounds; max < 0 when it has none
	lit      []byte     // nil when the pattern is not such a literal
	// the literal is anchored at the start, at the end
	litStart, litEnd bool
	held             int64 // bytes the regexp holds (programHeld)
}

func compilePattern(expr string) (*pattern, error) {
	re, err := regexp.Compile(expr)
	if err != nil {
		return nil, err
	}
	p := &pattern{re: re}
	if tree, err := syntax.Parse(expr, syntax.Perl); err == nil {
		p.class, p.min, p.max = classRun(tree)
		p.lit, p.litStart, p.litEnd = asciiLiteral(tree)
		p.held = programHeld(tree)
	}
	return p, nil
}

// asciiLiteral recognises L, ^L, L$ and ^L$ where L is a case-sensitive literal of ASCII
// characters, and returns L and which ends are anchored.
func asciiLiteral(re *syntax.Regexp) (lit []byte, start, end bool) {
	subs := []*syntax.Regexp{re}
	if re.Op == syntax.OpConcat {
		subs = re.Sub
	}
	if len(subs) > 0 && subs[0].Op == syntax.OpBeginText {
		start, subs = true, subs[1:]
	}
	if len(subs) > 0 && subs[len(subs)-1].Op == syntax.OpEndText {
		end, subs = true, subs[:len(subs)-1]
	}
	if len(subs) != 1 || subs[0].Op != syntax.OpLiteral || subs[0].Flags&syntax.FoldCase != 0 {
		return nil, false, false
	}
	for _, r := range subs[0].Rune {
		if r >= utf8.RuneSelf {
			return nil, false, false
		}
		lit = append(lit, byte(r))
	}
	return lit, start, end
}

// classRun recognises ^C$, ^C*$, ^C+$, ^C?$ and ^C{m,n}$ where C is a class of ASCII
// characters, and returns C as a byte table with the bounds of the run.
func classRun(re *syntax.Regexp) (*[256]bool, int, int) {
	if re.Op != syntax.OpConcat || len(re.Sub) != 3 ||
		re.Sub[0].Op != syntax.OpBeginText || re.Sub[2].Op != syntax.OpEndText {
		return nil, 0, 0
	}
	run, min, max := re.Sub[1], 1, 1
	switch run.Op {
	case syntax.OpStar:
		run, min, max = run.Sub[0], 0, -1
	case syntax.OpPlus:
		run, min, max = run.Sub[0], 1, -1
	case syntax.OpQuest:
		run, min, max = run.Sub[0], 0, 1
	case syntax.OpRepeat:
		run, min, max = run.Sub[0], run.Min, run.Max
	}
	if run.Op != syntax.OpCharClass {
		return nil, 0, 0
	}
	var table [256]bool
	for i := 0; i+1 < len(run.Rune); i += 2 {
		if run.Rune[i+1] >= utf8.RuneSelf {
			return nil, 0, 0
		}
		for r := run.Rune[i]; r <= run.Rune[i+1]; r++ {
			table[r] = true
		}
	}
	return &table, min, max
}

// match reports whether the pattern matches the decoded string b. A byte of a multi-byte
// sequence is never in an ASCII class, so on the fast path bytes and characters agree.
func (p *pattern) match(b []byte) bool {
	if p.lit != nil {
		switch {
		case p.litStart && p.litEnd:
			return bytes.Equal(b, p.lit)
		case p.litStart:
			return bytes.HasPrefix(b, p.lit)
		case p.litEnd:
			return bytes.HasSuffix(b, p.lit)
		}
		return bytes.Contains(b, p.lit)
	}
	if p.class == nil {
		return p.re.Match(b)
	}
	if len(b) < p.min || p.max >= 0 && len(b) > p.max {
		return false
	}
	for _, c := range b {
		if !p.class[c] {
			return false
		}
	}
	return true
}

func (p *pattern) String() string { return p.re.String() }
