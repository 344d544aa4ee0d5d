package core

import (
	"bytes"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// This file adds to a refusal's violations what DetailedFormat tells besides what the
// schema asks: the allowed value or declared name close to what was sent, and whether a
// member may be left out (the type sent, Violation.Got, the engines record as they fail).
// It runs on refused calls only, after either engine, under WithHints, and reads the
// arguments again along each violation's path; it never copies a value of the arguments
// into a violation.
//
// The work is bounded per refusal, not only per comparison: a hint that would take more
// than what is left of hintWork plus a few steps a byte of the arguments is not looked
// for, so twenty unexpected names against two hundred long declared ones cost about what
// one costs.

const (
	nearNames   = 64     // names longer than this, in runes, are not compared for "did you mean"
	fewDeclared = 8      // a closed object declaring at most this many names lists them
	nearValues  = 10_000 // allowed values compared with a string sent, at most
	nearProps   = 200    // declared names compared with an unexpected one, at most
	// hintWork is what one refusal's hints may spend, in steps (a cell of an edit
	// distance, a byte compared or read), besides hintWorkPerByte steps per byte of the
	// arguments: a millisecond or two. Finding a typo among 200 names of 25 letters that
	// differ in their last three takes about 70,000.
	hintWork        = 1 << 18
	hintWorkPerByte = 8
)

// hints is one refusal's hints in the making.
type hints struct {
	v      *Validator
	args   []byte
	work   int    // steps left
	stated []Path // the objects whose declared names a violation states already
}

// hint fills Near, Declared and Optional where they apply. Arguments that are not
// well-formed get no hints: their violation is the whole answer.
func (v *Validator) hint(args []byte, vs []Violation) {
	for _, x := range vs {
		if x.Kind == KindSyntax || x.Kind == KindTooDeep {
			return
		}
	}
	h := hints{v: v, args: args, work: hintWork + hintWorkPerByte*len(args)}
	for i := range vs {
		h.add(&vs[i])
	}
}

func (h *hints) add(x *Violation) {
	switch x.Kind {
	case KindType:
		if x.Got == "null" && len(x.Path) > 0 && !x.Path[len(x.Path)-1].IsIndex {
			parent := h.v.nodeAt(x.Path[:len(x.Path)-1])
			x.Optional = parent != nil && !parent.requires(x.Path[len(x.Path)-1].Name)
		}
	case KindEnum:
		if at, ok := h.valueAt(x.Path); ok && h.args[at] == '"' {
			x.Near = h.nearValue(at, x.Values)
		}
	case KindAdditional:
		object := x.Path[:len(x.Path)-1]
		parent := h.v.nodeAt(object)
		if parent == nil {
			return
		}
		if at, ok := h.valueAt(object); ok && h.args[at] == '{' {
			x.Near = h.nearName(x.Path[len(x.Path)-1].Name, parent, at)
		}
		if x.Near != "" || len(parent.props) > fewDeclared || slices.ContainsFunc(h.stated, func(p Path) bool { return slices.Equal(p, object) }) {
			return
		}
		h.stated = append(h.stated, object)
		x.Declared = make([]string, len(parent.props))
		for i, p := range parent.props {
			x.Declared[i] = p.name
		}
	}
}

// nodeAt follows p from the root schema through properties and items, or returns nil where
// the schema applies others in place (allOf, anyOf, …) or is the full engine's.
func (v *Validator) nodeAt(p Path) *node {
	n := v.root
	for _, e := range p {
		n = n.target()
		if n == nil || n.applicators {
			return nil
		}
		if e.IsIndex {
			n = n.item(e.Index)
		} else {
			n = n.memberSchema(e.Name)
		}
	}
	n = n.target()
	if n != nil && n.applicators {
		return nil
	}
	return n
}

// requires reports whether the object schema n requires the member name.
func (n *node) requires(name string) bool {
	slot, ok := n.slotIndex[name]
	if !ok {
		return false
	}
	for _, r := range n.required {
		if r == slot {
			return true
		}
	}
	return false
}

// valueAt returns where the value at p starts in the arguments, charging the bytes read,
// unless no work is left.
func (h *hints) valueAt(p Path) (int, bool) {
	if h.work <= 0 {
		return 0, false
	}
	at, ok := valueAt(h.args, p)
	h.work -= at
	return at, ok
}

// valueAt returns where the value at p starts in args, which are well-formed.
func valueAt(args []byte, p Path) (int, bool) {
	i := skipSpace(args, 0)
	for _, e := range p {
		if i >= len(args) {
			return 0, false
		}
		var found bool
		if e.IsIndex {
			i, found = itemAt(args, i, e.Index)
		} else {
			i, found = memberAt(args, i, e.Name)
		}
		if !found {
			return 0, false
		}
	}
	return i, i < len(args)
}

func itemAt(args []byte, i, index int) (int, bool) {
	if args[i] != '[' {
		return 0, false
	}
	c := cursor{data: args, pos: i}
	for k := range c.eachItem() {
		if k == index {
			return c.pos, true
		}
		c.skipValue()
	}
	return 0, false
}

func memberAt(args []byte, i int, name string) (int, bool) {
	found := -1
	eachMember(args, i, func(n []byte, at int) bool {
		if len(n) == len(name) && string(n) == name {
			found = at
		}
		return found < 0
	})
	return found, found >= 0
}

// eachMember calls f with the decoded name (valid until f returns) and the value's start
// of each member of the object at args[i], while f returns true.
func eachMember(args []byte, i int, f func(name []byte, at int) bool) {
	if args[i] != '{' {
		return
	}
	c := cursor{data: args, pos: i}
	for key := range c.eachMember() {
		if !f(key.text(args, &c.buf), c.pos) {
			return
		}
		c.skipValue()
	}
}

// nearValue returns the allowed string (as its JSON text) that the string at the
// arguments' byte at matches but for case and surrounding spaces, or "".
func (h *hints) nearValue(at int, allowed []string) string {
	t, _, _ := scanString(h.args, at)
	var buf []byte
	sent := string(bytes.TrimSpace(t.text(h.args, &buf)))
	runes := utf8.RuneCountInString(sent) // what case folding keeps
	var decoded []byte
	for _, a := range allowed[:min(len(allowed), nearValues)] {
		if len(a)-2 < runes || a[0] != '"' { // too short to decode to as many runes
			continue
		}
		if h.work -= len(a); h.work < 0 {
			return ""
		}
		text := a[1 : len(a)-1]
		if strings.IndexByte(text, '\\') >= 0 {
			decoded = decodeString([]byte(text), decoded[:0])
			text = string(decoded)
		}
		if strings.EqualFold(sent, text) {
			return a
		}
	}
	return ""
}

// nearName returns the name that the object schema n declares, that the object at the
// arguments' byte at does not hold, and that is close enough to name to be what was meant:
// the same but for case, or a few letters apart (at most one edit in four). It compares
// name with the first nearProps declared names, and reads the object once, if some are
// close.
func (h *hints) nearName(name string, n *node, at int) string {
	var sent, declared [nearNames]rune
	ln, ok := lowerRunes(name, &sent)
	if !ok {
		return ""
	}
	var letters bag
	letters.count(sent[:ln], 1)
	near := map[string]int{} // candidate name -> distance
	for _, p := range n.props[:min(len(n.props), nearProps)] {
		if h.work -= len(p.name); h.work < 0 {
			return ""
		}
		lp, ok := lowerRunes(p.name, &declared)
		most := max(1, lp/4)
		if !ok || ln-lp > most || lp-ln > most || letters.apart(declared[:lp]) > most {
			continue
		}
		if h.work -= ln * min(lp, 2*most+1); h.work < 0 {
			return ""
		}
		if d := editDistance(sent[:ln], declared[:lp], most); d <= most {
			near[p.name] = d
		}
	}
	if len(near) == 0 {
		return ""
	}
	end := at
	eachMember(h.args, at, func(member []byte, i int) bool {
		delete(near, string(member))
		end = i
		return len(near) > 0
	})
	h.work -= end - at
	best, bestDist := "", nearNames
	for _, p := range n.props[:min(len(n.props), nearProps)] { // in declared order, for ties
		if d, ok := near[p.name]; ok && d < bestDist {
			best, bestDist = p.name, d
		}
	}
	return best
}

// lowerRunes writes s in lower case into out and returns its length in runes, or false
// when it has more than nearNames.
func lowerRunes(s string, out *[nearNames]rune) (int, bool) {
	n := 0
	for _, r := range s {
		if n == nearNames {
			return 0, false
		}
		out[n], n = unicode.ToLower(r), n+1
	}
	return n, true
}

// A bag counts a name's letters in 64 bins. Each edit changes by at most one how many
// letters one name has more of than another, and how many fewer, so the larger of the two
// is a lower bound on the edit distance that costs no table.
type bag [64]int8

func (b *bag) count(rs []rune, by int8) {
	for _, r := range rs {
		b[r&63] += by
	}
}

// apart returns the lower bound on the edit distance from b's name to rs.
func (b *bag) apart(rs []rune) int {
	d := *b
	d.count(rs, -1)
	more, fewer := 0, 0
	for _, c := range d {
		if c > 0 {
			more += int(c)
		} else {
			fewer -= int(c)
		}
	}
	return max(more, fewer)
}

// editDistance is the Levenshtein distance between a and b, or most+1 when it is more than
// most; both are at most nearNames runes long. Only the cells within most of the diagonal
// can lead to a distance of at most most, so only they are computed.
func editDistance(a, b []rune, most int) int {
	far := most + 1
	if len(a)-len(b) > most || len(b)-len(a) > most {
		return far
	}
	var rows [2][nearNames + 2]int
	prev, cur := &rows[0], &rows[1]
	for j := 0; j <= len(b); j++ {
		prev[j] = min(j, far)
	}
	for i := 1; i <= len(a); i++ {
		lo, hi := max(1, i-most), min(len(b), i+most)
		cur[lo-1] = far
		if lo == 1 {
			cur[0] = min(i, far)
		}
		least := cur[lo-1]
		for j := lo; j <= hi; j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost, far)
			least = min(least, cur[j])
		}
		cur[hi+1] = far   // beyond the band, for the next row
		if least > most { // no later row comes back under it
			return far
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
