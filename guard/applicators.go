package guard

import (
	"github.com/mcpvalidate/mcpvalidate/guard/internal/jsontext"
	"slices"
)

// Applicators ($ref, allOf, anyOf, oneOf, not, if/then/else) look at a value more than
// once: each re-scans the value's bytes from its start, in one of the modes report.go
// describes (recording, quiet, counting).
//
// The work is bounded: every jump back to a value's start is counted with the bytes
// scanned, and once a call has scanned more than a few times its size, results are
// remembered per schema and position, so that no schema is checked twice at one place,
// however deeply applicators nest. A failure recorded in place (by an applicator, or by a
// schema an applicator applies) is remembered from the start, so that it is recorded once
// however often the value is reached.

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
		s.jump(start)
		passed := s.inPlace(sub, depth)
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
			if e := s.explain(n.anyOf, "anyOf", start, depth); end < 0 {
				end = e
			}
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
			if e := s.explain(n.oneOf, "oneOf", start, depth); end < 0 {
				end = e
			}
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

// inPlace checks the value at s.pos, where it starts, against sub, which an applicator
// applies in place. While recording, a schema without applicators is remembered too when
// it fails there, as applicators are (see remembered): another applicator may apply it at
// the same place, and its failures must be recorded once.
func (s *state) inPlace(sub *node, depth int) bool {
	sub = sub.target()
	if sub == nil || sub.applicators || s.quiet > 0 || s.counting > 0 {
		return s.value(sub, depth)
	}
	start := s.pos
	if len(s.memo) > 0 {
		if r, hit := s.memo[memoKey{sub, start}]; hit && s.recall(&r) {
			return r.flags&memoValid != 0
		}
	}
	if ok := s.value(sub, depth); ok || s.abort {
		return ok
	}
	s.recorded(sub, start)
	return false
}

// notValues describes a "not" schema that excludes a plain list of values.
func notValues(n *node) []string {
	if n.constant != nil {
		return []string{n.constantText}
	}
	return n.enumTexts
}

// test reports whether the value at start is valid against sub, recording nothing. On
// success s.pos is where the value ends.
func (s *state) test(sub *node, start, depth int) bool {
	if s.refusesFirstMember(sub, start) {
		return false
	}
	at := s.mark()
	s.jump(start)
	s.quiet++
	ok := s.value(sub, depth)
	s.quiet--
	s.restore(at)
	return ok
}

// A scanMark is where the stacks of the scan stood and what the report counted before a
// quiet check, which may stop early, leaving path segments, names and items behind.
type scanMark struct{ path, items, keys, index, count int }

func (s *state) mark() scanMark {
	return scanMark{len(s.path), len(s.items), len(s.keys), len(s.index), s.count}
}

func (s *state) restore(m scanMark) {
	s.path, s.items, s.keys, s.count = s.path[:m.path], s.items[:m.items], s.keys[:m.keys], m.count
	if len(s.index) > m.index {
		s.index = s.index[:m.index]
	}
}

// refusesFirstMember reports whether sub refuses the value at start without entering it:
// the value is an object whose first member name begins with a character that no name sub
// declares begins with, and sub allows no other member. This is how the alternatives of a
// tagged union that sub is not are told apart cheaply. Decoding keeps an unescaped first
// character, so one byte decides; a backslash or a control character decides nothing.
func (s *state) refusesFirstMember(sub *node, start int) bool {
	sub = sub.target()
	d := s.data
	if sub == nil || sub.firstBytes == nil || start >= len(d) || d[start] != '{' {
		return false
	}
	i := jsontext.SkipSpace(d, start+1)
	if i+1 >= len(d) || d[i] != '"' {
		return false
	}
	c := d[i+1]
	return c >= ' ' && c != '\\' && !sub.firstBytes[c]
}

// jump moves the scan to i: back to the start of a value to check it again, or past a value
// whose result is known. The work of the call, bytes scanned and jumps made, is s.pos
// until the first jump; each jump adds itself and the bytes its move will scan again, or
// takes off those it skips. Past the call's budget, results are remembered from then on.
func (s *state) jump(i int) {
	s.rescanned += s.pos + 1 - i
	s.pos = i
	if s.pos+s.rescanned > s.budget {
		s.remember = true
	}
}

const (
	rescanFree   = 64 // bytes and jumps a call may scan again before results are remembered,
	rescanFactor = 4  // and per byte of its arguments
	// A result that cost less than memoWorth bytes and jumps is remembered only while the
	// memo holds fewer than memoFree entries and one per memoSpacing bytes of arguments:
	// checking such a value again costs little, and the memo stays a fraction of the call.
	memoWorth   = 256
	memoFree    = 1024
	memoSpacing = 64
)

type memoKey struct {
	n   *node // nil: any value, when only syntax and member names are checked
	pos int
}

// memoResult is what checking a value against a schema gave. The verdict and, when the
// value is valid, its end are always known; a failure is known further as flags say.
type memoResult struct {
	end   int
	count int   // violations counted (memoCounted)
	types int32 // when counted: 1 + the index in s.typeLists of the types a violation at the value itself asked for; 0: none
	flags uint8
}

const (
	memoValid    = 1 << iota
	memoCounted  // count and types are known
	memoRecorded // the violations are recorded already
)

// remembered validates the value at s.pos, which is not space, against n (nil: any value),
// answering from the memo when it can.
func (s *state) remembered(n *node, depth int) bool {
	key := memoKey{n, s.pos}
	if len(s.memo) > 0 {
		if r, hit := s.memo[key]; hit && s.recall(&r) {
			return r.flags&memoValid != 0
		}
	}
	if s.counting > 0 && s.quiet == 0 {
		return s.counted(n, key, depth)
	}
	work := s.work()
	ok := s.evaluate(n, depth)
	// Before results are remembered, only applicators come here (see direct).
	if s.abort || !s.remember && (ok || s.quiet > 0) || !s.worth(work) {
		return ok
	}
	r := s.memo[key]
	switch {
	case ok:
		r.flags |= memoValid
	case s.quiet == 0:
		r.flags |= memoRecorded
	}
	s.keep(key, r, ok)
	return ok
}

// recorded remembers that the violations of the value at start against n are recorded:
// reached again, n records nothing more there. It is kept out of line, off the path of
// valid values.
//
//go:noinline
func (s *state) recorded(n *node, start int) {
	if key := (memoKey{n, start}); s.memoRoom() {
		r := s.memo[key]
		r.flags |= memoRecorded
		s.keep(key, r, false)
	}
}

// counted is remembered while counting: it also gathers the types asked for by violations
// at the value itself.
func (s *state) counted(n *node, key memoKey, depth int) bool {
	count, outer, work := s.count, s.types, s.work()
	s.types = typeCollector{level: len(s.path)}
	ok := s.evaluate(n, depth)
	types := s.types.names
	if s.types = outer; outer.level == len(s.path) {
		s.types.names = appendNew(s.types.names, types...)
	}
	if s.abort || !s.remember || !s.worth(work) {
		return ok
	}
	r := s.memo[key]
	r.flags |= memoCounted
	if ok {
		r.flags |= memoValid
	}
	r.count = s.count - count
	if types != nil {
		s.typeLists = append(s.typeLists, types)
		r.types = int32(len(s.typeLists))
	}
	s.keep(key, r, ok)
	return ok
}

// work returns the bytes scanned and jumps made so far in the call.
func (s *state) work() int {
	return s.pos + s.rescanned
}

// worth reports whether a result that took from work to now is worth remembering.
func (s *state) worth(work int) bool {
	return s.work()-work >= memoWorth || s.memoRoom()
}

// memoRoom reports whether the memo takes results that cost little.
func (s *state) memoRoom() bool {
	return len(s.memo) < memoFree+len(s.data)/memoSpacing
}

// keep remembers r, the result of the check that ended at s.pos.
func (s *state) keep(key memoKey, r memoResult, ok bool) {
	if ok || s.quiet == 0 {
		r.end = s.pos
	}
	if s.memo == nil {
		s.memo = make(map[memoKey]memoResult)
	}
	s.memo[key] = r
}

// recall answers a check from its remembered result r if that result is enough in the
// current mode, moving past the value when it is.
func (s *state) recall(r *memoResult) bool {
	switch {
	case r.flags&memoValid != 0:
	case s.quiet > 0:
		return true // the verdict is all a quiet check needs
	case s.counting > 0:
		if r.flags&memoCounted == 0 {
			return false
		}
		s.count += r.count
		if r.types > 0 && s.types.level == len(s.path) {
			s.types.names = appendNew(s.types.names, s.typeLists[r.types-1]...)
		}
	case r.flags&memoRecorded == 0:
		return false
	}
	s.jump(r.end)
	return true
}

// itemTypes lists the types that alternatives allowing arrays give their items, so that a
// type violation can say what the array holds; nil when none states them.
func itemTypes(alts []*node) []string {
	var out []string
	for _, a := range alts {
		a = a.target()
		if a == nil || a.types&tArray == 0 || a.items == nil {
			continue
		}
		it := a.items
		it = it.target()
		out = appendNew(out, it.typeNames...)
	}
	return out
}

// A typeCollector gathers, while alternatives are counted, the types asked for by the type
// violations of the value at one level of the path: an alternative that has one does not
// accept the value's type.
type typeCollector struct {
	level int // len(s.path) at the value; -1: none
	names []string
}

// explain reports why the value at start matches none of the alternatives: the violations
// of the alternative that came closest, or one violation when none stands out. Each
// alternative is first counted, recording nothing; only the closest one is checked again
// to record its violations. It returns where the value ends when a pass in the caller's
// mode found it, else -1.
func (s *state) explain(alts []*node, keyword string, start, depth int) int {
	end := -1
	type attempt struct {
		count int
		typed bool // the value has a type this alternative accepts
		keyed bool // a member that the alternative fixes by const or enum is present and valid
	}
	var b attempt
	best, ties := -1, 0
	mark := len(s.altTypes) // the types the alternatives ask for: s.altTypes[mark:]
	for i, sub := range alts {
		s.jump(start)
		count, outer := s.count, s.types
		s.types = typeCollector{level: len(s.path)}
		s.counting++
		s.value(sub, depth)
		s.counting--
		a := attempt{count: s.count - count, typed: s.types.names == nil}
		for _, t := range s.types.names {
			if !slices.Contains(s.altTypes[mark:], t) {
				s.altTypes = append(s.altTypes, t)
			}
		}
		s.count, s.types = count, outer
		if s.abort {
			s.altTypes = s.altTypes[:mark]
			return -1 // the syntax or depth violation is the whole answer
		}
		if s.counting > 0 && end < 0 {
			end = s.pos
		}
		a.keyed = a.typed && s.discriminated(sub, start, depth)
		switch {
		case best < 0 || better(a.keyed, a.typed, a.count, b.keyed, b.typed, b.count):
			best, b, ties = i, a, 0
		case a == b:
			ties++
		}
	}
	switch {
	case !b.typed:
		v := Violation{Kind: KindType, Keyword: "type", Got: jsonType(s.data, start)}
		if s.counting > 0 || s.listing() { // else only counted
			v.Types, v.Items = slices.Clone(s.altTypes[mark:]), itemTypes(alts)
		}
		s.fail(v)
	case ties > 0 && !b.keyed:
		s.fail(Violation{Kind: KindNoMatch, Keyword: keyword})
	case s.counting > 0:
		s.count += b.count
	default:
		s.jump(start)
		if s.value(alts[best], depth); !s.abort {
			end = s.pos
		}
	}
	s.altTypes = s.altTypes[:mark]
	return end
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

// appendNew adds to list the items it does not hold. Both hold no repeats; a list made from
// items alone shares their memory and cannot write into it.
func appendNew(list []string, items ...string) []string {
	if list == nil {
		return items[:len(items):len(items)]
	}
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
// It records nothing.
func (s *state) discriminated(sub *node, start, depth int) bool {
	sub = sub.target()
	if sub == nil || len(sub.props) == 0 || s.data[start] != '{' {
		return false
	}
	at := s.mark()
	s.quiet++
	found := s.pinned(sub, start, depth)
	s.quiet--
	s.restore(at)
	return found
}

// pinned does the work of discriminated, quietly, on an object scanned before.
func (s *state) pinned(sub *node, start, depth int) bool {
	s.jump(start + 1)
	for s.peek() == '"' {
		key, _ := s.readString()
		s.expect(':', "")
		s.skipWS()
		valueStart := s.pos
		if i := sub.lookup(key.Text(s.data, &s.buf)); i >= 0 {
			p := sub.props[i].node
			p = p.target()
			if p != nil && (p.constant != nil || p.enum != nil) {
				if s.test(p, valueStart, depth+1) {
					return true
				}
				s.jump(valueStart)
			}
		}
		if !s.value(nil, depth+1) {
			return false
		}
		if s.peek() == ',' {
			s.pos++
		}
	}
	return false
}
