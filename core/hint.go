package core

import (
	"bytes"
	"unicode"
	"unicode/utf8"
)

// This file adds to a refusal's violations what DetailedFormat tells besides what the
// schema asks: the allowed value or declared name close to what was sent, and whether a
// member may be left out (the type sent, Violation.Got, the engines record as they fail).
// It runs on refused calls only, after either engine, when the formatter is
// DetailedFormat, and reads the arguments again along each violation's path; it never
// copies a value of the arguments into a violation.

const (
	nearNames   = 64     // names longer than this, in runes, are not compared for "did you mean"
	fewDeclared = 8      // a closed object declaring at most this many names lists them
	nearValues  = 10_000 // allowed values compared with a string sent, at most
	nearProps   = 200    // declared names compared with an unexpected one, at most
)

// hint fills Near, Declared and Optional where they apply. Arguments that are not
// well-formed get no hints: their violation is the whole answer.
func (v *Validator) hint(args []byte, vs []Violation) {
	for _, x := range vs {
		if x.Kind == KindSyntax || x.Kind == KindTooDeep {
			return
		}
	}
	for i := range vs {
		x := &vs[i]
		switch x.Kind {
		case KindType:
			if x.Got == "null" && len(x.Path) > 0 && !x.Path[len(x.Path)-1].IsIndex {
				parent := v.nodeAt(x.Path[:len(x.Path)-1])
				x.Optional = parent != nil && !parent.requires(x.Path[len(x.Path)-1].Name)
			}
		case KindEnum:
			if at, ok := valueAt(args, x.Path); ok && args[at] == '"' {
				x.Near = nearValue(args, at, x.Values)
			}
		case KindAdditional:
			parent := v.nodeAt(x.Path[:len(x.Path)-1])
			if parent == nil {
				continue
			}
			if len(parent.props) <= fewDeclared {
				x.Declared = make([]string, len(parent.props))
				for i, p := range parent.props {
					x.Declared[i] = p.name
				}
			}
			if at, ok := valueAt(args, x.Path[:len(x.Path)-1]); ok && args[at] == '{' {
				x.Near = nearName(x.Path[len(x.Path)-1].Name, parent, args, at)
			}
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

// nearValue returns the allowed string (as its JSON text) that the string at args[i]
// matches but for case and surrounding spaces, or "".
func nearValue(args []byte, i int, allowed []string) string {
	t, _, _ := scanString(args, i)
	var buf []byte
	sent := bytes.TrimSpace(t.text(args, &buf))
	var decoded []byte
	for _, a := range allowed[:min(len(allowed), nearValues)] {
		if len(a) < 2 || a[0] != '"' {
			continue
		}
		text := []byte(a[1 : len(a)-1])
		if bytes.IndexByte(text, '\\') >= 0 {
			decoded = decodeString(text, decoded[:0])
			text = decoded
		}
		if bytes.EqualFold(sent, text) {
			return a
		}
	}
	return ""
}

// nearName returns the name that the object schema n declares, that the object at args[i]
// does not hold, and that is close enough to name to be what was meant: the same but for
// case, or a few letters apart (at most one edit in four). It compares name with the first
// nearProps declared names, and reads the object once.
func nearName(name string, n *node, args []byte, i int) string {
	ln := utf8.RuneCountInString(name)
	if ln > nearNames {
		return ""
	}
	near := map[string]int{} // candidate name -> distance
	for _, p := range n.props[:min(len(n.props), nearProps)] {
		lp := utf8.RuneCountInString(p.name)
		most := max(1, lp/4)
		if lp > nearNames || ln-lp > most || lp-ln > most {
			continue
		}
		if d := editDistance(name, p.name); d <= most {
			near[p.name] = d
		}
	}
	if len(near) == 0 {
		return ""
	}
	eachMember(args, i, func(member []byte, _ int) bool {
		delete(near, string(member))
		return len(near) > 0
	})
	best, bestDist := "", nearNames
	for _, p := range n.props[:min(len(n.props), nearProps)] { // in declared order, for ties
		if d, ok := near[p.name]; ok && d < bestDist {
			best, bestDist = p.name, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance between a and b in runes, ignoring case; both
// are at most nearNames runes long.
func editDistance(a, b string) int {
	var ra, rb [nearNames]rune
	la, lb := 0, 0
	for _, r := range a {
		ra[la], la = unicode.ToLower(r), la+1
	}
	for _, r := range b {
		rb[lb], lb = unicode.ToLower(r), lb+1
	}
	var rows [2][nearNames + 1]int
	prev, cur := &rows[0], &rows[1]
	for j := 0; j <= lb; j++ {
		prev[j] = j
	}
	for i := 1; i <= la; i++ {
		cur[0] = i
		for j := 1; j <= lb; j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[lb]
}
