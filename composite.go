package mcpvalidate

import "slices"

// Applicators ($ref, allOf, anyOf, oneOf, not, if/then/else) look at a value more than
// once: each re-scans the value's bytes from start.

// applicators checks n's applicators against the value at start. end is where the value
// ends, or -1 when not known yet; it returns the verdict and the end if some complete pass
// over the value found it, so that a schema made only of applicators never scans twice.
func (s *state) applicators(n *node, start, end, depth int) (bool, int) {
	ok := true
	found := func(passed bool) {
		if end < 0 && (passed || s.quiet == 0) && !s.abort {
			end = s.pos
		}
	}
	inPlace := func(sub *node) {
		s.count1()
		s.pos = start
		passed := s.value(sub, depth)
		found(passed)
		ok = ok && passed
	}
	if n.ref != nil {
		inPlace(n.ref)
	}
	for _, sub := range n.allOf {
		if !ok && s.quiet > 0 {
			return false, end
		}
		inPlace(sub)
	}
	if !ok && s.quiet > 0 {
		return false, end
	}
	if len(n.anyOf) > 0 {
		matched := false
		for _, sub := range n.anyOf {
			if matched = s.test(sub, start, depth); matched {
				found(true)
				break
			}
		}
		if !matched {
			ok = false
			if s.quiet > 0 {
				return false, end
			}
			s.explain(n.anyOf, "anyOf", start, depth)
		}
	}
	if len(n.oneOf) > 0 {
		matches, first := 0, [2]int{}
		for i, sub := range n.oneOf {
			if !s.test(sub, start, depth) {
				continue
			}
			found(true)
			if matches < 2 {
				first[matches] = i
			}
			if matches++; matches == 2 && s.quiet > 0 {
				break
			}
		}
		switch {
		case matches == 0:
			ok = false
			if s.quiet > 0 {
				return false, end
			}
			s.explain(n.oneOf, "oneOf", start, depth)
		case matches > 1:
			ok = false
			s.fail(Violation{Kind: KindManyMatch, Keyword: "oneOf", Indexes: []int{first[0], first[1]}})
		}
	}
	if n.not != nil && s.test(n.not, start, depth) {
		found(true)
		ok = false
		s.fail(Violation{Kind: KindNot, Keyword: "not", Types: n.not.typeNames, Values: notValues(n.not)})
	}
	if n.ifn != nil {
		sub := n.elsen
		if s.test(n.ifn, start, depth) {
			found(true)
			sub = n.then
		}
		if sub != nil && (ok || s.quiet == 0) {
			inPlace(sub)
		}
	}
	return ok, end
}

// notValues describes a "not" schema that excludes a plain list of values.
func notValues(n *node) []string {
	if n.konst != nil {
		return []string{n.konstText}
	}
	return n.enumTexts
}

// test reports whether the value at start is valid against sub, recording nothing. On
// success s.pos is where the value ends.
func (s *state) test(sub *node, start, depth int) bool {
	s.count1()
	if s.refusesFirstMember(sub, start) {
		return false
	}
	path, items, keys, count := len(s.path), len(s.items), len(s.keys), s.count
	s.quiet++
	s.pos = start
	ok := s.value(sub, depth)
	s.quiet--
	s.path, s.items, s.keys, s.count = s.path[:path], s.items[:items], s.keys[:keys], count
	return ok
}

// refusesFirstMember reports whether sub refuses the value at start without entering it:
// the value is an object whose first member name begins with a character that no name sub
// declares begins with, and sub allows no other member. This is how the alternatives of a
// tagged union that sub is not are told apart cheaply. Decoding keeps an unescaped first
// character, so one byte decides; a backslash or a control character decides nothing.
func (s *state) refusesFirstMember(sub *node, start int) bool {
	for sub != nil && sub.refOnly {
		sub = sub.ref
	}
	d := s.data
	if sub == nil || sub.leads == nil || start >= len(d) || d[start] != '{' {
		return false
	}
	i := skipSpace(d, start+1)
	if i+1 >= len(d) || d[i] != '"' {
		return false
	}
	c := d[i+1]
	return c >= ' ' && c != '\\' && !sub.leads[c]
}

// count1 counts one value checked again in place. Past a budget that grows with the
// arguments, results are remembered per schema and position: applicators that reach the
// same schema at the same place more than once, nested in each other, then cost linear
// time rather than exponential, while ordinary schemas never pay for the memo.
func (s *state) count1() {
	if s.applied++; s.applied > memoAfter+len(s.data)/4 && !s.remember {
		s.remember = true
		if s.memo == nil {
			s.memo = make(map[memoKey]memoResult)
		}
	}
}

type memoKey struct {
	n   *node
	pos int
}

// memoResult is what checking a value against a schema gave. A verdict found under quiet
// has no violations (full is false); it can answer a later check only if it passed.
type memoResult struct {
	ok    bool
	end   int
	full  bool
	vs    []Violation
	count int
}

// remembered validates like evaluate, answering from the memo when it can.
func (s *state) remembered(n *node, depth int) bool {
	key := memoKey{n, s.pos}
	if r, hit := s.memo[key]; hit && (r.ok || r.full || s.quiet > 0) {
		if s.quiet == 0 {
			for _, v := range r.vs {
				if len(s.out) <= s.v.cfg.maxViolations {
					s.out = append(s.out, v)
				}
			}
			s.count += r.count
		}
		if r.ok || r.full {
			s.pos = r.end
		}
		return r.ok
	}
	mark, count := len(s.out), s.count
	ok := s.evaluate(n, depth)
	if s.abort {
		return ok
	}
	r := memoResult{ok: ok, end: s.pos, full: s.quiet == 0}
	if r.full {
		r.vs, r.count = slices.Clone(s.out[mark:]), s.count-count
	}
	s.memo[key] = r
	return ok
}

const (
	memoAfter     = 64   // values checked again in place, beyond len(args)/4, before results are remembered
	explainBudget = 1000 // alternatives re-run to explain failures in one call
)

// explain reports why a value matches none of the alternatives: the violations of the
// alternative that came closest, or one violation when none stands out.
func (s *state) explain(alts []*node, keyword string, start, depth int) {
	if s.abort {
		return
	}
	type attempt struct {
		vs    []Violation
		count int
		typed bool // the value has a type this alternative accepts
		keyed bool // a member that the alternative fixes by const or enum is present and valid
	}
	if s.explained += len(alts); s.explained > explainBudget {
		s.fail(Violation{Kind: KindNoMatch, Keyword: keyword}) // too costly to say more
		return
	}
	mark, count := len(s.out), s.count
	here := len(s.path)
	best := -1
	var tries []attempt
	var types []string
	for i, sub := range alts {
		s.pos = start
		if s.value(sub, depth); s.abort {
			return // the syntax or depth violation is the whole answer: keep it
		}
		a := attempt{vs: append([]Violation(nil), s.out[mark:]...), count: s.count - count, typed: true}
		s.out, s.count = s.out[:mark], count
		for _, v := range a.vs {
			if v.Kind == KindType && len(v.Path) == here {
				a.typed = false
				types = appendNew(types, v.Types...)
			}
		}
		a.keyed = a.typed && s.discriminated(sub, start, depth)
		tries = append(tries, a)
		if best < 0 || better(a.keyed, a.typed, a.count, tries[best].keyed, tries[best].typed, tries[best].count) {
			best = i
		}
	}
	b := tries[best]
	tie := false
	for i, a := range tries {
		if i != best && a.keyed == b.keyed && a.typed == b.typed && a.count == b.count {
			tie = true
		}
	}
	switch {
	case !b.typed:
		s.fail(Violation{Kind: KindType, Keyword: "type", Types: types})
	case tie && !b.keyed:
		s.fail(Violation{Kind: KindNoMatch, Keyword: keyword})
	default:
		for _, v := range b.vs {
			s.count++
			if len(s.out) <= s.v.cfg.maxViolations {
				s.out = append(s.out, v)
			}
		}
		s.count += b.count - len(b.vs)
	}
}

func better(keyed, typed bool, count int, bKeyed, bTyped bool, bCount int) bool {
	if keyed != bKeyed {
		return keyed
	}
	if typed != bTyped {
		return typed
	}
	return count < bCount
}

func appendNew(list []string, items ...string) []string {
	for _, it := range items {
		found := false
		for _, l := range list {
			found = found || l == it
		}
		if !found {
			list = append(list, it)
		}
	}
	return list
}

// discriminated reports whether the object at start has a member that sub pins down with
// const or enum and whose value sub accepts: the mark of the alternative the caller meant.
func (s *state) discriminated(sub *node, start, depth int) bool {
	for sub != nil && sub.refOnly {
		sub = sub.ref
	}
	if sub == nil || len(sub.props) == 0 {
		return false
	}
	s.pos = start
	if s.peek() != '{' {
		return false
	}
	s.pos++
	for s.peek() == '"' {
		key, _ := s.readString()
		s.expect(':', "")
		s.skipWS()
		valueStart := s.pos
		if i := sub.lookup(key.text(s.data, &s.buf)); i >= 0 {
			p := sub.props[i].node
			for p != nil && p.refOnly {
				p = p.ref
			}
			if p != nil && (p.konst != nil || p.enum != nil) && s.test(p, valueStart, depth+1) {
				return true
			}
		}
		s.pos = valueStart
		s.skip(kindOf(s.data[s.pos]), depth+1)
		if s.peek() == ',' {
			s.pos++
		}
	}
	return false
}
