package guard

import (
	"bytes"
	"github.com/mcpvalidate/mcpvalidate/guard/internal/jsontext"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// This file adds to a refusal's violations what DetailedFormat tells besides what the
// schema asks: the allowed value or declared name close to what was sent, the name sent in
// place of a missing required one, and whether a member may be left out (the type sent,
// Violation.Got, the engines record as they fail).
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
	nearSent    = 200    // names sent in one object compared with its missing required names, at most
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

	// The object whose missing required names were last paired with names sent in it,
	// and the pairs, by slot; its missing names come one after the other.
	paired      bool
	pairedAt    Path
	pairedNode  *node
	pairedNames map[int]string // by slot
	compared    int            // pairs of a missing name and a name sent
}

// hint fills Near, Declared, Optional and Sent where they apply. Arguments that are not
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
	case KindRequired:
		if len(x.Path) == 0 || x.Path[len(x.Path)-1].IsIndex {
			return
		}
		object := x.Path[:len(x.Path)-1]
		if !h.paired || !slices.Equal(h.pairedAt, object) {
			h.paired, h.pairedAt, h.pairedNames = true, object, nil
			if h.pairedNode = h.v.nodeAt(object); h.pairedNode != nil {
				h.pairedNames = h.pairSent(h.pairedNode, object)
			}
		}
		if h.pairedNames != nil {
			x.Sent = h.pairedNames[h.pairedNode.slotIndex[x.Path[len(x.Path)-1].Name]]
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
	i := jsontext.SkipSpace(args, 0)
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
		if !f(key.Text(args, &c.buf), c.pos) {
			return
		}
		c.skipValue()
	}
}

// nearValue returns the allowed string (as its JSON text) that the string at the
// arguments' byte at matches but for case and surrounding spaces, or "".
func (h *hints) nearValue(at int, allowed []string) string {
	t, _, _ := jsontext.ScanString(h.args, at)
	var buf []byte
	sent := string(bytes.TrimSpace(t.Text(h.args, &buf)))
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
			decoded = jsontext.DecodeString([]byte(text), decoded[:0])
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

// A sentName is a name sent in an object that the object's schema does not expect: no
// property, required name or pattern names it.
type sentName struct {
	name, key  [2]int32 // the name, in pairSent's names, and its key, in its keys
	best, ties int32    // the closeness of the closest missing name, and how many are as close
}

// Closeness of a missing required name and a name sent, by their keys (see nameKey).
const (
	sameKey = iota // the same words: case, '_', '-' and camel case aside
	oneEdit        // one letter added, dropped or changed, in a key of at least 4 letters
	notNear
)

// pairSent pairs the missing required names of the object at p, whose schema is n, with
// the names sent in it that the schema does not expect, and returns the name sent for each
// missing name it pairs, by slot. A missing name and a name sent are paired when each is
// the other's one closest (see closeness), and no other name the schema declares is as
// close to the name sent. A name that a closed object's unexpected-member
// hint already pairs with a declared one is left to it. It reads the object once and
// compares the first nearSent unexpected names with each missing name; when the work runs
// out before every missing name is compared, which pairs are unambiguous is unknown, and
// it pairs none.
func (h *hints) pairSent(n *node, p Path) map[int]string {
	if len(n.required) == 0 {
		return nil
	}
	at, ok := h.valueAt(p)
	if !ok || h.args[at] != '{' {
		return nil
	}
	present := make([]bool, len(n.slots))
	var (
		names []byte
		keys  []rune
		sent  []sentName
		key   [nearNames]rune
	)
	end := at
	eachMember(h.args, at, func(name []byte, i int) bool {
		end = i
		if slot, ok := n.slotIndex[string(name)]; ok {
			present[slot] = true
			return true
		}
		if len(sent) == nearSent || n.firstMatch(name, 0) >= 0 {
			return true
		}
		k, ok := nameKey(name, &key)
		if !ok {
			return true
		}
		sent = append(sent, sentName{
			name: [2]int32{int32(len(names)), int32(len(names) + len(name))},
			key:  [2]int32{int32(len(keys)), int32(len(keys) + k)},
			best: notNear,
		})
		if len(keys)+k > cap(keys) { // doubled, not by a quarter as append grows long slices
			keys = append(make([]rune, 0, 2*cap(keys)+nearNames), keys...)
		}
		names = append(names, name...)
		keys = append(keys, key[:k]...)
		return true
	})
	if h.work -= end - at; h.work < 0 || len(sent) == 0 {
		return nil
	}
	type choice struct{ slot, sent, closeness, ties int32 }
	choices := make([]choice, 0, len(n.required))
	for _, slot := range n.required {
		if present[slot] {
			continue
		}
		k, ok := nameKey(n.slots[slot], &key)
		if !ok {
			continue
		}
		c := choice{slot: int32(slot), closeness: notNear}
		for j := range sent {
			s := &sent[j]
			d, cost := closeness(key[:k], keys[s.key[0]:s.key[1]])
			h.compared++
			if h.work -= cost; h.work < 0 {
				return nil
			}
			switch {
			case d < c.closeness:
				c.sent, c.closeness, c.ties = int32(j), d, 1
			case d == c.closeness:
				c.ties++
			}
			switch {
			case d < s.best:
				s.best, s.ties = d, 1
			case d == s.best && d < notNear:
				s.ties++
			}
		}
		if c.closeness < notNear && c.ties == 1 {
			choices = append(choices, c)
		}
	}
	var paired map[int]string
	closed := n.additional != nil && n.additional.reject
	for _, c := range choices {
		s := sent[c.sent]
		if s.best != c.closeness || s.ties != 1 {
			continue
		}
		if h.trackedAsClose(n, int(c.slot), keys[s.key[0]:s.key[1]], c.closeness) {
			continue
		}
		name := string(names[s.name[0]:s.name[1]])
		if closed && h.nearName(name, n, at) != "" { // its own violation names a declared name
			continue
		}
		if paired == nil {
			paired = map[int]string{}
		}
		paired[int(c.slot)] = name
	}
	return paired
}

// trackedAsClose reports whether a name the object schema n declares or requires, other
// than the one at slot, is as close to the key of a name sent as that one is (closeness
// d), or whether the work ran out before it could tell.
func (h *hints) trackedAsClose(n *node, slot int, sent []rune, d int32) bool {
	var key [nearNames]rune
	for i, name := range n.slots {
		if i == slot {
			continue
		}
		k, ok := nameKey(name, &key)
		if h.work -= len(name); !ok {
			continue
		}
		c, cost := closeness(key[:k], sent)
		if h.work -= cost; h.work < 0 || c <= d {
			return true
		}
	}
	return false
}

// nameKey writes the words of name into out: its letters in lower case, without '_' and
// '-', so that pull_number, pull-number, PullNumber and pullNumber have one key. It returns
// the key's length, or false when name has more than nearNames runes or no other letter.
func nameKey[T string | []byte](name T, out *[nearNames]rune) (int, bool) {
	n := 0
	for i, runes := 0, 0; i < len(name); runes++ {
		if runes == nearNames {
			return 0, false
		}
		r, size := rune(name[i]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRuneInString(string(name[i:min(i+utf8.UTFMax, len(name))]))
		}
		i += size
		if r != '_' && r != '-' {
			out[n], n = unicode.ToLower(r), n+1
		}
	}
	return n, n > 0
}

// closeness tells how close the keys of a missing name and of a name sent are, and the
// steps it took to tell.
func closeness(missing, sent []rune) (int32, int) {
	if len(missing)-len(sent) > 1 || len(sent)-len(missing) > 1 {
		return notNear, 1
	}
	i := 0 // the first letter that differs
	for i < len(missing) && i < len(sent) && missing[i] == sent[i] {
		i++
	}
	cost := 1 + i
	if i == len(missing) && i == len(sent) {
		return sameKey, cost
	}
	if len(missing) < 4 {
		return notNear, cost
	}
	a, b := missing[i:], sent[i:]
	switch {
	case len(a) == len(b): // one letter changed
		a, b = a[1:], b[1:]
	case len(a) > len(b): // one dropped
		a = a[1:]
	default: // one added
		b = b[1:]
	}
	cost += len(a)
	if slices.Equal(a, b) {
		return oneEdit, cost
	}
	return notNear, cost
}
