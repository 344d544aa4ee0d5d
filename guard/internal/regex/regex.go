// Package regex tells whether Go's regexp package accepts a pattern, without building
// it: [Valid] is the check of JSON Schema's "regex" format, kept linear in the pattern's
// length and bounded in memory.
//
// The full engine's answer to the "regex" format is whether Go's regexp.Compile accepts
// the string. regexp/syntax builds the expression's tree as it parses: a few hundred bytes
// per byte of pattern, 5 KB for each \pL, and, inside a class, a search of the rest of the
// pattern for ":]" after every "[:", which makes "[" followed by many "[:" quadratic (256
// KB took 2.5 s). Valid follows the same grammar in one pass over the string, with a stack
// of open groups as its only memory: 32 bytes a group.
//
// Its verdict is Go's on every pattern that stays well within Go's limits on nesting
// (1,000 levels of tree), program size (3.3 million instructions) and class runes (33
// million), which no pattern of 1,000 bytes or fewer can reach. Near them it counts the
// tree as Go's parser builds it: nested concatenations and alternations flattened,
// one-character alternatives merged into a class, a literal or a class counted again each
// time a group hands it up. It does not follow Go's factoring of alternatives that share a
// prefix, nor its merging of the overlapping parts of a bracketed class: within a few
// percent of a limit, it may refuse a pattern that Go accepts, or the other way round.
package regex

import (
	"regexp/syntax"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

const (
	regexMaxHeight = 1000           // regexp/syntax's maxHeight
	regexMaxSize   = 128 << 20 / 40 // its maxSize, in instructions
	regexMaxRunes  = 128 << 20 / 4  // its maxRunes
	regexMaxRepeat = 1000           // the largest count a repetition may have
)

// Valid reports whether regexp.Compile accepts s.
func Valid(s string) bool {
	r := regexScan{s: s, repeats: 1, colon: -1, brace: -1, angle: -1}
	ok := r.scan()
	r.outer.release()
	return ok
}

// regexScan is one pass of Valid.
type regexScan struct {
	s          string
	i          int
	cur        regexGroup // the innermost open group, or the whole pattern
	outer      regexStack // the groups around it, the whole pattern first
	captures   int        // open capturing groups
	fold       bool       // the case-folding flag, (?i)
	lastRepeat bool       // the previous token was a repetition

	// Go's limits, counted as the pattern is written.
	height  int
	size    int64
	nodes   int64
	repeats int64 // product of every repetition count
	runes   int64

	// Go's parser searches the rest of the pattern for ":]" after "[:", for "}" after
	// "\p{" and for ">" after "(?<": the positions found, so that no byte is searched twice.
	colon, brace, angle int
}

// regexStack holds the open groups around the innermost one, in blocks that never move, so
// that deep nesting costs the size of its groups once.
type regexStack struct {
	n      int
	first  [16]regexFrame
	blocks []*regexBlock // groups from 16 on
}

type regexBlock [1024]regexFrame

// regexBlocks keeps the blocks of finished scans: without it a string with 17 open groups
// would cost a 32 KB block, 900 bytes per byte of an array of such strings. A scan gives
// back at most regexKeptBlocks, so that the pool holds little more than the scans running.
var regexBlocks = sync.Pool{New: func() any { return new(regexBlock) }}

const regexKeptBlocks = 4

func (st *regexStack) at(i int) *regexFrame {
	if i < len(st.first) {
		return &st.first[i]
	}
	i -= len(st.first)
	return &st.blocks[i/len(regexBlock{})][i%len(regexBlock{})]
}

func (st *regexStack) push(f regexFrame) {
	if i := st.n - len(st.first); i >= 0 && i/len(regexBlock{}) == len(st.blocks) {
		st.blocks = append(st.blocks, regexBlocks.Get().(*regexBlock))
	}
	st.n++
	*st.at(st.n - 1) = f
}

// release gives the blocks back to the pool; frames are written before they are read, so
// what a block holds does not matter.
func (st *regexStack) release() {
	for _, b := range st.blocks[:min(len(st.blocks), regexKeptBlocks)] {
		regexBlocks.Put(b)
	}
}

func (st *regexStack) pop() regexFrame {
	st.n--
	return *st.at(st.n)
}

// regexFrame is a group waiting for the group inside it to close: what a regexGroup holds
// but its last item, which the inner group will follow.
type regexFrame struct {
	capture, fold, altMerg bool
	items                  uint8 // 0, 1, or 2 for more
	empties, alts, run     int32
	alt, before            regexKids
}

// suspend keeps g in a frame while a group inside it is open.
func (g *regexGroup) suspend() regexFrame {
	return regexFrame{g.capture, g.fold, g.altMerg, uint8(min(g.items, 2)), g.empties, g.alts, g.run,
		g.alt, g.before.add(g.last, regexConcat)}
}

func (f regexFrame) resume() regexGroup {
	return regexGroup{capture: f.capture, fold: f.fold, altMerg: f.altMerg, items: int32(f.items),
		empties: f.empties, alts: f.alts, run: f.run, alt: f.alt, before: f.before}
}

// regexGroup is an open group and what has been parsed in it: finished alternatives, then
// the current concatenation, whose last item a repetition applies to. Non-capturing groups
// opened one inside the other with nothing between share one regexGroup.
type regexGroup struct {
	capture bool
	fold    bool      // the case-folding flag outside the group
	altMerg bool      // the last alternative is one Go merges with a next of the same sort
	empties int32     // empty non-capturing groups around this one, in the same regexGroup
	alts    int32     // finished alternatives, neighbours merged into one class counting once
	alt     regexKids // their children
	items   int32     // items of the concatenation, a run of literals counting as one
	run     int32     // length of the run of literals the concatenation ends with
	lastRun int32     // length of its last literal node, which a repetition applies to
	before  regexKids // the items before the last
	last    regexSub
}

// regexSub describes a subexpression as Go's tree holds it: its height, the product of
// the repetition counts nested in it (what repeatIsValid checks), its compiled size, the
// runes of its node when it is a literal or a class (Go counts them each time the node is
// pushed on its parse stack), and its kind: Go flattens a concatenation into an enclosing
// one, an alternation likewise, and merges adjacent literals. Sizes and runes stop one
// past Go's limits.
type regexSub struct {
	height int16
	reps   int16
	op     regexOp
	size   int32
	runes  int32
}

type regexOp uint8

const (
	regexOther regexOp = iota
	regexConcat
	regexAlternate
	regexLiteral
	regexClass // a class or any character
)

// classLike reports whether Go merges sub with a neighbouring alternative of the same sort
// into one class: a class, any character, or a literal of one character.
func (sub regexSub) classLike() bool {
	return sub.op == regexClass || sub.op == regexLiteral && sub.runes == 1
}

var regexAtom = regexSub{height: 1, size: 1}

// regexKids sums up the children of a node of Go's tree.
type regexKids struct {
	height int16 // of the tallest: never far past the limit of 1,000, which stops the scan
	reps   int16
	size   int32
}

// sizeOf caps a program size one past Go's limit.
func sizeOf(n int64) int32 { return int32(min(n, regexMaxSize+1)) }

// add adds sub to the children of a node of kind op. A child of the same kind is
// flattened: its own children become the node's.
func (k regexKids) add(sub regexSub, op regexOp) regexKids {
	h := sub.height
	if sub.op == op {
		h--
	}
	return regexKids{max(k.height, h), max(k.reps, sub.reps), sizeOf(int64(k.size) + int64(sub.size))}
}

func (r *regexScan) scan() bool {
	for r.i < len(r.s) {
		repeat, ok := r.token()
		if !ok {
			return false
		}
		r.lastRepeat = repeat
	}
	if r.outer.n > 0 {
		return false // a group is never closed
	}
	r.finish(&r.cur)
	return r.withinLimits()
}

// token reads one token; it reports whether the token was a repetition, and whether it
// was well-formed.
func (r *regexScan) token() (repeat, ok bool) {
	s, g := r.s, &r.cur
	switch c := s[r.i]; c {
	case '(':
		if r.i+1 < len(s) && s[r.i+1] == '?' {
			return false, r.perlGroup()
		}
		r.i++
		return false, r.open(true, r.fold)
	case '|':
		r.i++
		r.alternative(g, r.concat(g))
		return false, true
	case ')':
		r.i++
		return false, r.close()
	case '^', '$', '.':
		r.i++
		r.atom(0, c == '.')
		return false, true
	case '[':
		return false, r.class()
	case '*', '+', '?':
		r.i++
		return true, r.repetition(c, 0, 0)
	case '{':
		lo, hi, end, ok := regexRepeat(s, r.i)
		if !ok {
			r.i++
			r.literal()
			return false, true
		}
		if lo < 0 || lo > regexMaxRepeat || hi > regexMaxRepeat || hi >= 0 && lo > hi {
			return false, false
		}
		r.i = end
		return true, r.repetition('{', lo, hi)
	case '\\':
		return false, r.escape()
	}
	_, size := utf8.DecodeRuneInString(s[r.i:])
	if size == 1 && s[r.i] >= utf8.RuneSelf {
		return false, false // invalid UTF-8
	}
	r.i += size
	r.literal()
	return false, true
}

// perlGroup reads a group that starts with "(?": named, non-capturing or a change of flags.
func (r *regexScan) perlGroup() bool {
	t := r.s[r.i:]
	startsWithP := len(t) > 4 && t[2] == 'P' && t[3] == '<'
	if startsWithP || len(t) > 3 && t[2] == '<' {
		start := r.i + 3
		if startsWithP {
			start++
		}
		end := r.find(&r.angle, r.i, ">")
		if end < 0 || !validCaptureName(r.s[start:end]) {
			return false
		}
		r.i = end + 1
		return r.open(true, r.fold)
	}
	r.i += 2
	fold, sign, sawFlag := r.fold, 1, false
	for r.i < len(r.s) {
		c, size := utf8.DecodeRuneInString(r.s[r.i:])
		if c == utf8.RuneError && size == 1 {
			return false
		}
		r.i += size
		switch c {
		case 'i':
			fold = sign > 0
			sawFlag = true
		case 'm', 's', 'U':
			sawFlag = true
		case '-':
			if sign < 0 {
				return false
			}
			sign, sawFlag = -1, false
		case ':', ')':
			if sign < 0 && !sawFlag {
				return false
			}
			if c == ':' {
				return r.open(false, fold)
			}
			r.fold = fold // for the rest of the group: nothing to repeat
			return true
		default:
			return false
		}
	}
	return false
}

// validCaptureName is regexp/syntax's isValidCaptureName: [A-Za-z0-9_]+.
func validCaptureName(name string) bool {
	if name == "" {
		return false
	}
	for i := 0; i < len(name); i++ {
		if c := name[i]; c != '_' && !isAlnum(c) {
			return false
		}
	}
	return true
}

func isAlnum(c byte) bool {
	return '0' <= c && c <= '9' || 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z'
}

// find returns the index of the first sep at or after from, or -1. *at keeps the last
// answer (len(r.s) for none), which stands as long as it is not before from: the searches
// Go's parser repeats from every position cost one pass here.
func (r *regexScan) find(at *int, from int, sep string) int {
	if *at < from {
		*at = len(r.s)
		if k := strings.Index(r.s[from:], sep); k >= 0 {
			*at = from + k
		}
	}
	if *at == len(r.s) {
		return -1
	}
	return *at
}

// open opens a group; fold is the case-folding flag inside it.
func (r *regexScan) open(capture, fold bool) bool {
	if capture {
		// Each capturing group is a level of the tree: more than the limit open at once
		// either nest too deeply when closed or are never closed.
		if r.captures++; r.captures > regexMaxHeight {
			return false
		}
	}
	top := &r.cur
	if !capture && r.outer.n > 0 && !top.capture && top.items == 0 && top.alts == 0 && top.fold == r.fold && fold == r.fold {
		top.empties++
		return true
	}
	r.outer.push(top.suspend())
	r.cur = regexGroup{capture: capture, fold: r.fold}
	r.fold = fold
	return true
}

func (r *regexScan) close() bool {
	if r.outer.n == 0 {
		return false // unexpected )
	}
	g := &r.cur
	sub := r.finish(g)
	r.fold = g.fold
	capture := g.capture
	if g.empties > 0 {
		g.empties-- // g is now the enclosing group, empty until sub
	} else {
		r.cur = r.outer.pop().resume()
	}
	switch {
	case capture:
		r.captures--
		r.push(&r.cur, r.node(regexSub{height: sub.height + 1, reps: sub.reps, size: sizeOf(int64(sub.size) + 2)}))
	case sub.op == regexLiteral:
		r.literals(sub.size)
	default:
		r.runes += int64(sub.runes) // pushed again
		r.push(&r.cur, sub)
	}
	return r.withinLimits()
}

// concat ends the current concatenation of g and returns it.
func (r *regexScan) concat(g *regexGroup) regexSub {
	var sub regexSub
	switch {
	case g.items == 0:
		sub = r.node(regexAtom) // empty match
	case g.items == 1 && g.run > 0:
		sub = regexSub{height: 1, size: sizeOf(int64(g.run)), runes: g.run, op: regexLiteral}
	case g.items == 1:
		sub = g.last
	default:
		kids := g.before.add(g.last, regexConcat)
		sub = r.node(regexSub{height: kids.height + 1, reps: kids.reps, size: kids.size, op: regexConcat})
	}
	if g.items == 1 {
		r.runes += int64(sub.runes) // the one item is pushed again
	}
	g.items, g.run, g.lastRun, g.before, g.last = 0, 0, 0, regexKids{}, regexSub{}
	return sub
}

// alternative adds a finished alternative to g's alternation.
func (r *regexScan) alternative(g *regexGroup, sub regexSub) {
	if g.alts > 0 && g.altMerg && sub.classLike() {
		return // merged into the class before
	}
	g.alt = g.alt.add(sub, regexAlternate)
	g.alts++
	g.altMerg = sub.classLike()
}

// finish ends the group's alternation and returns it.
func (r *regexScan) finish(g *regexGroup) regexSub {
	sub := r.concat(g)
	if g.alts == 0 {
		r.runes += int64(sub.runes) // the one alternative is pushed again
		return sub
	}
	r.alternative(g, sub)
	if g.alts == 1 {
		return regexSub{height: 1, size: 1, op: regexClass} // all merged into one class
	}
	return r.node(regexSub{height: g.alt.height + 1, reps: g.alt.reps, size: sizeOf(int64(g.alt.size) + int64(g.alts-1)), op: regexAlternate})
}

// node counts one node of Go's tree.
func (r *regexScan) node(sub regexSub) regexSub {
	sub.size = max(sub.size, 1)
	r.nodes++
	r.height = max(r.height, int(sub.height))
	r.size = max(r.size, int64(sub.size))
	return sub
}

// withinLimits applies Go's limits to what has been counted. Go checks the program size
// only once its node count times the product of repetition counts reaches the limit.
func (r *regexScan) withinLimits() bool {
	if r.height > regexMaxHeight || r.runes > regexMaxRunes {
		return false
	}
	return r.size <= regexMaxSize || r.nodes*r.repeats < regexMaxSize
}

// push appends an item other than a literal to the current concatenation of g.
func (r *regexScan) push(g *regexGroup, sub regexSub) {
	g.before = g.before.add(g.last, regexConcat)
	g.last = sub
	g.items++
	g.run, g.lastRun = 0, 0
}

// atom adds a one-node item: a class of runes runes, or an empty-width assertion.
func (r *regexScan) atom(runes int64, class bool) {
	r.runes += runes
	sub := r.node(regexAtom)
	sub.runes = int32(min(runes, regexMaxRunes+1))
	if class {
		sub.op = regexClass
	}
	r.push(&r.cur, sub)
}

// literal adds one literal character.
func (r *regexScan) literal() { r.literals(1) }

// literals adds a literal node of n characters: Go merges adjacent literal nodes, but a
// repetition applies to the last one alone.
func (r *regexScan) literals(n int32) {
	g := &r.cur
	r.runes += int64(n)
	if g.run == 0 {
		r.push(g, r.node(regexAtom))
	} else {
		g.before = g.before.add(g.last, regexConcat)
	}
	g.last = regexSub{height: 1, size: sizeOf(int64(n))}
	g.run = int32(min(int64(g.run)+int64(n), regexMaxRunes+1))
	g.lastRun = n
}

// repetition applies *, +, ?, or {lo,hi} (op '{', hi -1 for none) to the last item,
// after an optional ? that makes it non-greedy.
func (r *regexScan) repetition(op byte, lo, hi int) bool {
	if r.i < len(r.s) && r.s[r.i] == '?' {
		r.i++
	}
	g := &r.cur
	if r.lastRepeat || g.items == 0 {
		return false // a repetition of a repetition, or of nothing
	}
	if g.run > g.lastRun {
		g.items++ // the last literal node leaves the run
	}
	g.run, g.lastRun = 0, 0
	sub := g.last
	rep := regexSub{height: sub.height + 1, reps: sub.reps}
	size := int64(sub.size)
	switch {
	case op == '*' || op == '{' && hi == -1 && lo == 0:
		size += 2
	case op == '+' || op == '?':
		size++
	case hi == -1:
		size = 1 + int64(lo)*size
	default:
		size = int64(hi)*size + int64(hi-lo)
	}
	rep.size = sizeOf(size)
	if op == '{' {
		n := hi
		if n < 0 {
			n = lo
		}
		if f := int64(max(n, 1)); f > regexMaxSize/r.repeats {
			r.repeats = regexMaxSize
		} else {
			r.repeats *= f
		}
		// What repeatIsValid checks: the counts of nested repetitions multiply.
		switch {
		case hi == 0:
			rep.reps = 0
		case n > 0:
			rep.reps = int16(min(n*max(int(sub.reps), 1), regexMaxRepeat+1))
		}
		if (lo >= 2 || hi >= 2) && rep.reps > regexMaxRepeat {
			return false
		}
	}
	g.last = r.node(rep)
	return r.withinLimits()
}

// regexRepeat reads {lo}, {lo,} (hi -1) or {lo,hi} at s[i] as regexp/syntax's
// parseRepeat does; a count too large to read makes lo -1.
func regexRepeat(s string, i int) (lo, hi, end int, ok bool) {
	if lo, i, ok = regexInt(s, i+1); !ok || i >= len(s) {
		return 0, 0, 0, false
	}
	if s[i] != ',' {
		hi = lo
	} else {
		i++
		if i >= len(s) {
			return 0, 0, 0, false
		}
		if s[i] == '}' {
			hi = -1
		} else if hi, i, ok = regexInt(s, i); !ok {
			return 0, 0, 0, false
		} else if hi < 0 {
			lo = -1
		}
	}
	if i >= len(s) || s[i] != '}' {
		return 0, 0, 0, false
	}
	return lo, hi, i + 1, true
}

// regexInt reads a decimal number without leading zeros; one of 10^8 or more reads as -1.
func regexInt(s string, i int) (n, end int, ok bool) {
	if i >= len(s) || s[i] < '0' || s[i] > '9' || s[i] == '0' && i+1 < len(s) && '0' <= s[i+1] && s[i+1] <= '9' {
		return 0, i, false
	}
	for ; i < len(s) && '0' <= s[i] && s[i] <= '9'; i++ {
		if n >= 1e8 {
			n = -1
		}
		if n >= 0 {
			n = n*10 + int(s[i]-'0')
		}
	}
	return n, i, true
}

// escape reads a token that starts with a backslash, outside a class.
func (r *regexScan) escape() bool {
	s := r.s
	if r.i+1 < len(s) {
		switch s[r.i+1] {
		case 'A', 'b', 'B', 'z':
			r.i += 2
			r.atom(0, false)
			return true
		case 'C':
			return false // any byte: not supported
		case 'Q':
			lit, _, found := strings.Cut(s[r.i+2:], `\E`)
			if !utf8.ValidString(lit) {
				return false
			}
			for range lit {
				r.literal()
			}
			r.i += 2 + len(lit)
			if found {
				r.i += 2
			}
			return true
		}
	}
	if runes, ok, is := r.classEscape(); is {
		if ok {
			r.atom(runes, true)
		}
		return ok
	}
	if _, ok := r.charEscape(); !ok {
		return false
	}
	r.literal()
	return true
}

// classEscape reads \pX, \p{Name}, \PX, \P{Name} or a Perl class (\d, \s, \w and their
// negations) at r.i. is says whether one starts there; ok whether it is well-formed;
// runes counts the class's runes.
func (r *regexScan) classEscape() (runes int64, ok, is bool) {
	s := r.s
	if r.i+1 >= len(s) || s[r.i] != '\\' {
		return 0, false, false
	}
	switch s[r.i+1] {
	case 'd', 'D', 's', 'S', 'w', 'W':
		r.i += 2
		return 10, true, true
	case 'p', 'P':
	default:
		return 0, false, false
	}
	neg := s[r.i+1] == 'P'
	t := s[r.i+2:]
	c, size := utf8.DecodeRuneInString(t)
	if c == utf8.RuneError && size == 1 {
		return 0, false, true
	}
	var name string
	if c != '{' {
		name = t[:size]
		r.i += 2 + size
	} else {
		end := r.find(&r.brace, r.i+3, "}")
		if end < 0 {
			return 0, false, true
		}
		name = s[r.i+3 : end]
		if !utf8.ValidString(name) {
			return 0, false, true
		}
		r.i = end + 1
	}
	if name != "" && name[0] == '^' {
		neg, name = !neg, name[1:]
	}
	var buf [32]byte
	canon, ok := canonicalClass(name, buf[:0])
	if !ok || !knownClass(canon) {
		return 0, false, true
	}
	return classSize(canon, neg, r.fold), true, true
}

// charEscape reads an escaped character at r.i, as regexp/syntax's parseEscape does.
func (r *regexScan) charEscape() (rune, bool) {
	s := r.s
	t := r.i + 1
	if t >= len(s) {
		return 0, false // trailing backslash
	}
	c, size := utf8.DecodeRuneInString(s[t:])
	if c == utf8.RuneError && size == 1 {
		return 0, false
	}
	t += size
	octal := func(v rune, t int) (rune, bool) {
		for k := 1; k < 3 && t < len(s) && '0' <= s[t] && s[t] <= '7'; k++ {
			v = v*8 + rune(s[t]-'0')
			t++
		}
		r.i = t
		return v, true
	}
	switch {
	case c < utf8.RuneSelf && !isAlnum(byte(c)):
		r.i = t
		return c, true
	case '1' <= c && c <= '7':
		if t >= len(s) || s[t] < '0' || s[t] > '7' {
			return 0, false // a backreference: not supported
		}
		return octal(c-'0', t)
	case c == '0':
		return octal(0, t)
	case c == 'x':
		return r.hexEscape(t)
	}
	switch c {
	case 'a':
		c = '\a'
	case 'f':
		c = '\f'
	case 'n':
		c = '\n'
	case 'r':
		c = '\r'
	case 't':
		c = '\t'
	case 'v':
		c = '\v'
	default:
		return 0, false
	}
	r.i = t
	return c, true
}

// hexEscape reads the digits of \xHH or \x{H...} starting at s[t].
func (r *regexScan) hexEscape(t int) (rune, bool) {
	if t >= len(r.s) {
		return 0, false
	}
	next := func() (rune, bool) { // the rune at t, if there is a valid one
		c, size := utf8.DecodeRuneInString(r.s[t:])
		t += size
		return c, size > 0 && (c != utf8.RuneError || size > 1)
	}
	c, _ := next()
	if c == '{' {
		var v rune
		digits := 0
		for {
			c, ok := next()
			if !ok {
				return 0, false
			}
			if c == '}' {
				break
			}
			d := unhex(c)
			if d < 0 {
				return 0, false
			}
			if v = v*16 + d; v > unicode.MaxRune {
				return 0, false
			}
			digits++
		}
		r.i = t
		return v, digits > 0
	}
	c2, _ := next()
	x, y := unhex(c), unhex(c2)
	if x < 0 || y < 0 {
		return 0, false
	}
	r.i = t
	return x*16 + y, true
}

func unhex(c rune) rune {
	switch {
	case '0' <= c && c <= '9':
		return c - '0'
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10
	}
	return -1
}

// class reads a bracketed class at r.i, as regexp/syntax's parseClass does.
func (r *regexScan) class() bool {
	s := r.s
	r.i++
	var runes int64
	if r.i < len(s) && s[r.i] == '^' {
		r.i++
		runes += 2
	}
	for first := true; r.i >= len(s) || s[r.i] != ']' || first; first = false {
		if r.i+2 < len(s) && s[r.i] == '[' && s[r.i+1] == ':' {
			if end := r.find(&r.colon, r.i+2, ":]"); end >= 0 {
				if !posixClasses[s[r.i:end+2]] {
					return false
				}
				r.i = end + 2
				runes += 12
				continue
			}
		}
		if n, ok, is := r.classEscape(); is {
			if !ok {
				return false
			}
			runes += n
			continue
		}
		lo, ok := r.classChar()
		if !ok {
			return false
		}
		if r.i+1 < len(s) && s[r.i] == '-' && s[r.i+1] != ']' {
			r.i++
			hi, ok := r.classChar()
			if !ok || hi < lo {
				return false
			}
		}
		runes += 2
	}
	r.i++ // ]
	r.atom(runes, true)
	return true
}

// classChar reads one character of a class, escaped or not.
func (r *regexScan) classChar() (rune, bool) {
	s := r.s
	if r.i >= len(s) {
		return 0, false // missing ]
	}
	if s[r.i] == '\\' {
		return r.charEscape()
	}
	c, size := utf8.DecodeRuneInString(s[r.i:])
	if c == utf8.RuneError && size == 1 {
		return 0, false
	}
	r.i += size
	return c, true
}

var posixClasses = map[string]bool{}

func init() {
	for _, name := range []string{"alnum", "alpha", "ascii", "blank", "cntrl", "digit", "graph", "lower", "print", "punct", "space", "upper", "word", "xdigit"} {
		posixClasses["[:"+name+":]"] = true
		posixClasses["[:^"+name+":]"] = true
	}
}

// canonicalClass writes a Unicode class name as regexp/syntax looks it up: without the
// characters _, - and space, the first letter upper case and the others lower case. It
// fails when the result would not fit in buf, longer than any class name.
func canonicalClass(name string, buf []byte) ([]byte, bool) {
	first := true
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case c == '_' || c == '-' || c == ' ':
			continue
		case first:
			if 'a' <= c && c <= 'z' {
				c -= 'a' - 'A'
			}
			first = false
		case 'A' <= c && c <= 'Z':
			c += 'a' - 'A'
		}
		if len(buf) == cap(buf) {
			return nil, false
		}
		buf = append(buf, c)
	}
	return buf, true
}

// knownClass reports whether regexp/syntax knows the class of a canonical name: Any,
// Assigned, ASCII, a category, a script or a category alias.
func knownClass(canon []byte) bool {
	switch string(canon) {
	case "Any", "Assigned", "Ascii", "Lc":
		return true
	}
	return unicode.Categories[string(canon)] != nil || unicode.Scripts[string(canon)] != nil ||
		categoryAliases()[string(canon)] != ""
}

var categoryAliases = sync.OnceValue(func() map[string]string {
	m := make(map[string]string, len(unicode.CategoryAliases))
	for alias, name := range unicode.CategoryAliases {
		if canon, ok := canonicalClass(alias, make([]byte, 0, 64)); ok {
			m[string(canon)] = name
		}
	}
	return m
})

type classKey struct {
	canon     string
	neg, fold bool
}

// classSizes holds the number of runes regexp/syntax gives each class it has been asked
// about; they are few (the known classes, negated or not, case-folded or not).
var classSizes struct {
	sync.RWMutex
	m map[classKey]int64
}

// classSize returns the number of runes of \p{canon}, negated or case-folded, as Go's
// parser counts them against its limit: the parser is asked once per class.
func classSize(canon []byte, neg, fold bool) int64 {
	classSizes.RLock()
	n, ok := classSizes.m[classKey{string(canon), neg, fold}]
	classSizes.RUnlock()
	if ok {
		return n
	}
	classSizes.Lock()
	defer classSizes.Unlock()
	expr := `\p{` + string(canon) + `}`
	if neg {
		expr = `\P{` + string(canon) + `}`
	}
	if fold {
		expr = `(?i)` + expr
	}
	if re, err := syntax.Parse(expr, syntax.Perl); err == nil {
		n = int64(len(re.Rune))
	}
	if classSizes.m == nil {
		classSizes.m = map[classKey]int64{}
	}
	classSizes.m[classKey{string(canon), neg, fold}] = n
	return n
}
