package guard

// The pattern keyword and patternProperties, matched by runs of byte classes or a
// comparison of bytes for the shapes tool schemas use most, else by Go's regexp.

import (
	"bytes"
	"regexp"
	"regexp/syntax"
	"unicode/utf8"
)

// A pattern is a compiled "pattern" keyword, or a pattern of patternProperties. Most
// patterns in tool schemas are anchored at both ends and made of ASCII literals and
// classes, each perhaps repeated, such as ^[a-z_]{1,32}$, ^\d{4}-\d{2}-\d{2}$ or
// ^[\w-]+/[\w.-]+$, or are an ASCII literal, anchored or not, such as ^x-; those are
// matched without the regexp engine, by runs of byte classes or by comparing bytes.
type pattern struct {
	re     *regexp.Regexp
	runs   []run // when byRuns
	byRuns bool
	lit    []byte // nil when the pattern is not such a literal
	// the literal is anchored at the start, at the end
	litStart, litEnd bool
	held             int64 // bytes the regexp holds (programHeld)
}

// A run is a class of ASCII bytes, a bit each, repeated between bounds; max < 0 when the
// run has no upper bound.
type run struct {
	class    [4]uint64
	min, max int
}

func (r *run) has(c byte) bool { return r.class[c>>6]&(1<<(c&63)) != 0 }

// add puts the characters from lo to hi in the class; false when one is not ASCII.
func (r *run) add(lo, hi rune) bool {
	if hi >= utf8.RuneSelf {
		return false
	}
	for c := lo; c <= hi; c++ {
		r.class[c>>6] |= 1 << (c & 63)
	}
	return true
}

func (r *run) overlaps(o *run) bool {
	return r.class[0]&o.class[0]|r.class[1]&o.class[1] != 0 // ASCII: the other words are empty
}

func compilePattern(expr string) (*pattern, error) {
	re, err := regexp.Compile(expr)
	if err != nil {
		return nil, err
	}
	p := &pattern{re: re}
	if tree, err := syntax.Parse(expr, syntax.Perl); err == nil {
		p.lit, p.litStart, p.litEnd = asciiLiteral(tree)
		if p.lit == nil {
			p.runs, p.byRuns = runsOf(tree)
		}
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

// runsOf recognises a pattern anchored at both ends whose body is a sequence of ASCII
// literals and classes, each perhaps repeated (C, C*, C+, C?, C{m,n}), that a greedy
// match decides: a run of varying length shares no byte with what may follow it, up to
// the first run that must match. It returns the runs, a literal's characters a run each.
func runsOf(re *syntax.Regexp) ([]run, bool) {
	if re.Op != syntax.OpConcat || len(re.Sub) < 2 ||
		re.Sub[0].Op != syntax.OpBeginText || re.Sub[len(re.Sub)-1].Op != syntax.OpEndText {
		return nil, false
	}
	var runs []run
	for _, sub := range re.Sub[1 : len(re.Sub)-1] {
		var ok bool
		if runs, ok = appendRuns(runs, sub); !ok {
			return nil, false
		}
	}
	for i := range runs {
		for j := i + 1; j < len(runs) && runs[i].min != runs[i].max; j++ {
			if runs[i].overlaps(&runs[j]) {
				return nil, false
			}
			if runs[j].min > 0 {
				break
			}
		}
	}
	return runs, true
}

// appendRuns appends the runs of re, one element of a sequence; false when it is not a
// literal or a class of ASCII characters, perhaps repeated.
func appendRuns(runs []run, re *syntax.Regexp) ([]run, bool) {
	if re.Flags&syntax.FoldCase != 0 && re.Op == syntax.OpLiteral {
		return nil, false
	}
	r := run{min: 1, max: 1}
	switch re.Op {
	case syntax.OpLiteral:
		for _, c := range re.Rune {
			one := run{min: 1, max: 1}
			if !one.add(c, c) {
				return nil, false
			}
			runs = append(runs, one)
		}
		return runs, true
	case syntax.OpStar:
		re, r.min, r.max = re.Sub[0], 0, -1
	case syntax.OpPlus:
		re, r.min, r.max = re.Sub[0], 1, -1
	case syntax.OpQuest:
		re, r.min, r.max = re.Sub[0], 0, 1
	case syntax.OpRepeat:
		re, r.min, r.max = re.Sub[0], re.Min, re.Max
	}
	switch {
	case re.Op == syntax.OpCharClass:
		for i := 0; i+1 < len(re.Rune); i += 2 {
			if !r.add(re.Rune[i], re.Rune[i+1]) {
				return nil, false
			}
		}
	case re.Op == syntax.OpLiteral && len(re.Rune) == 1 && re.Flags&syntax.FoldCase == 0:
		if !r.add(re.Rune[0], re.Rune[0]) {
			return nil, false
		}
	default:
		return nil, false
	}
	return append(runs, r), true
}

// match reports whether the pattern matches the decoded string b. A byte of a multi-byte
// sequence is never in an ASCII class, so on the fast paths bytes and characters agree.
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
	if !p.byRuns {
		return p.re.Match(b)
	}
	i := 0
	for k := range p.runs {
		r := &p.runs[k]
		n := 0
		for i < len(b) && n != r.max && r.has(b[i]) {
			i, n = i+1, n+1
		}
		if n < r.min {
			return false
		}
	}
	return i == len(b)
}

func (p *pattern) String() string { return p.re.String() }
