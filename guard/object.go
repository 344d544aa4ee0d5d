package guard

import (
	"bytes"
	"github.com/mcpvalidate/mcpvalidate/guard/internal/jsontext"
	"hash/maphash"
	"slices"
	"strconv"
)

// The explaining pass over an object: members in one scan, with their names checked for
// repeats, then the keywords on the whole object.

// object scans an object member by member. n may be nil: any member is allowed, but names
// must still be unique.
func (s *state) object(n *node, depth int) status {
	if depth >= s.maxDepth {
		s.tooDeep()
		return failed
	}
	if n != nil && !s.typeOK(n, tObject) {
		if s.quiet > 0 {
			return wrongType
		}
		s.object(nil, depth)
		return wrongType
	}
	o := objectScan{n: n, work: n != nil && n.objectWork, names: memberNames{start: len(s.keys)}, depth: depth}
	if o.work {
		o.seen.init(len(n.slots))
	}
	s.pos++ // '{'
	mark := len(s.out)
	ok, done := s.members(&o)
	if !done {
		return failed // test() restores the path and the names
	}
	s.keys = s.keys[:o.names.start]
	if o.names.size > 0 {
		s.index = s.index[:o.names.base]
	}
	if o.work && (!n.requiredOnly || o.seen.small&n.requiredMask != n.requiredMask) && !s.closeObject(n, &o.seen, o.members, mark) {
		ok = false
	}
	if ok {
		return passed
	}
	return failed
}

// An objectScan is one object being scanned: its schema and what its members have shown.
type objectScan struct {
	n       *node // nil: any member is allowed
	work    bool  // n has keywords on members (objectWork)
	seen    bitset
	names   memberNames
	next    int // the property expected next: members tend to come in schema order
	members int
	depth   int
}

// members scans the members of the object at s.pos, past its '{', and its '}'. It reports
// whether they are valid, and whether the scan reached the end: a syntax error, or a
// failure under quiet, stops it early.
func (s *state) members(o *objectScan) (ok, done bool) {
	d := s.data
	i := jsontext.SkipSpace(d, s.pos)
	if i < len(d) && d[i] == '}' {
		s.pos = i + 1
		return true, true
	}
	s.path = append(s.path, seg{index: -1}) // named anew by each member
	top := len(s.path) - 1
	ok = true
	for {
		key, p, read := s.memberName(o, i)
		if !read {
			return false, false
		}
		o.members++
		s.path[top].name = key
		valueMark := len(s.out)
		var valid bool
		if p != nil && !o.seen.has(p.slot) {
			o.next++
			valid = s.declared(o, p, key)
		} else {
			valid = s.member(o, key)
		}
		if !valid {
			ok = false
			if s.quiet > 0 || s.abort {
				return false, false
			}
		}
		if o.work && o.n.names != nil && !s.nameValid(o.n.names, key, o.depth+1) {
			ok = false
			if s.refuseName(valueMark); s.quiet > 0 {
				return false, false
			}
		}
		if i = jsontext.SkipSpace(d, s.pos); i < len(d) && d[i] == '}' {
			s.pos = i + 1
			s.path = s.path[:top]
			return ok, true
		}
		if i >= len(d) || d[i] != ',' {
			s.pos = i
			s.syntax("expected ',' or '}' after an object member")
			return false, false
		}
		i = jsontext.SkipSpace(d, i+1)
	}
}

// memberName reads the member name at d[i] and the colon after it, leaving s.pos at the
// value. p is the property expected next if the name is its own.
func (s *state) memberName(o *objectScan, i int) (key jsontext.String, p *prop, ok bool) {
	d := s.data
	if i >= len(d) || d[i] != '"' {
		s.pos = i
		s.syntax("expected a member name in double quotes")
		return jsontext.String{}, nil, false
	}
	var j int
	p = o.n.expected(o.work, o.next)
	if p != nil && p.at(d, i) {
		// The common case, a declared member in schema order, needs no scan.
		key, j = jsontext.String{Start: i + 1, End: i + len(p.quoted)}, i+1+len(p.quoted)
	} else {
		var problem string
		if key, j, problem = jsontext.ScanString(d, i); problem != "" {
			s.pos = j
			s.syntax(problem)
			return jsontext.String{}, nil, false
		}
		if p != nil && (key.Escaped || p.name != string(d[key.Start:key.End])) {
			p = nil
		}
	}
	if i = jsontext.SkipSpace(d, j); i >= len(d) || d[i] != ':' {
		s.pos = i
		s.syntax("expected ':' after a member name")
		return jsontext.String{}, nil, false
	}
	s.pos = jsontext.SkipSpace(d, i+1)
	return key, p, true
}

// declared validates the value of the member key, the first of its name, which is the
// property p.
func (s *state) declared(o *objectScan, p *prop, key jsontext.String) bool {
	o.seen.set(p.slot)
	var ok bool
	start := s.pos
	if s.pos < len(s.data) && s.direct(p.node) {
		ok = s.own(p.node, o.depth+1) == passed
	} else {
		ok = s.value(p.node, o.depth+1)
	}
	if len(o.n.patterns) > 0 && (ok || s.quiet == 0) && !s.abort {
		ok = s.patterned(o.n, key, o.n.firstMatch(key.Text(s.data, &s.buf), 0), start, o.depth) && ok
	}
	return ok
}

// closeObject applies the keywords that need the whole object: required, dependentRequired,
// minProperties and maxProperties. Missing members go first, in the order of "required",
// before the members' own violations, which start at mark.
func (s *state) closeObject(n *node, seen *bitset, members, mark int) bool {
	ok := true
	tail := len(s.out)
	for _, slot := range n.required {
		if !seen.has(slot) {
			ok = false
			s.failMember(n.slots[slot], Violation{Kind: KindRequired, Keyword: "required"})
		}
	}
	for _, d := range n.dependents {
		if !seen.has(d.slot) {
			continue
		}
		for _, slot := range d.requires {
			if !seen.has(slot) {
				ok = false
				s.failMember(n.slots[slot], Violation{Kind: KindDependentRequired, Keyword: d.keyword, Name: n.slots[d.slot]})
			}
		}
	}
	if tail > mark && len(s.out) > tail {
		s.moveBack(mark, tail) // the missing members before the members' violations
	}
	if members < n.minProps {
		ok = false
		s.fail(Violation{Kind: KindMinProperties, Keyword: "minProperties", Limit: strconv.Itoa(n.minProps)})
	}
	if n.maxProps >= 0 && members > n.maxProps {
		ok = false
		s.fail(Violation{Kind: KindMaxProperties, Keyword: "maxProperties", Limit: strconv.Itoa(n.maxProps)})
	}
	return ok
}

// member validates the value of the member key, when it is not the property expected
// next; the path already names it.
func (s *state) member(o *objectScan, key jsontext.String) bool {
	n, depth := o.n, o.depth
	name := key.Text(s.data, &s.buf)
	idx := -1
	if o.work {
		idx = n.lookup(name)
		o.next = idx + 1
	}
	if idx >= 0 {
		p := &n.props[idx]
		if o.seen.has(p.slot) {
			// A declared name joins the names of the object when it first repeats.
			if s.find(key, &o.names) < 0 {
				s.keys[len(s.keys)-1].repeated = true
				s.duplicated(key)
			}
			s.value(nil, depth+1)
			return false
		}
		return s.declared(o, p, key)
	}
	var sub *node
	matched := -1 // the first pattern that matches the name
	if n != nil {
		if len(n.patterns) > 0 {
			matched = n.firstMatch(name, 0)
		}
		if matched < 0 {
			sub = n.additional // only for members no property or pattern names
		}
	}
	if sub != nil && sub.reject && s.quiet > 0 {
		s.miss() // refused whether or not the name is repeated
		return false
	}
	if o.work {
		if slot := n.slotOf(name); slot >= 0 {
			o.seen.set(slot)
		}
	}
	if j := s.find(key, &o.names); j >= 0 {
		if k := &s.keys[j]; !k.repeated {
			k.repeated = true
			s.duplicated(key)
		}
		s.value(nil, depth+1)
		return false
	}
	if sub != nil && sub.reject {
		s.fail(Violation{Kind: KindAdditional, Keyword: "additionalProperties"})
		if s.quiet == 0 {
			s.value(nil, depth+1)
		}
		return false
	}
	if matched >= 0 {
		start := s.pos
		ok := s.value(n.patterns[matched].node, depth+1)
		if (ok || s.quiet == 0) && !s.abort {
			ok = s.patterned(n, key, n.firstMatch(key.Text(s.data, &s.buf), matched+1), start, depth) && ok
		}
		return ok
	}
	return s.value(sub, depth+1)
}

// patterned checks the member value at start, which a first pass has just scanned, again
// against the schemas of n's patterns from i on (i < 0: none) that match the member name
// key. It reports whether the value is valid against them; s.pos ends past the value.
func (s *state) patterned(n *node, key jsontext.String, i, start, depth int) bool {
	ok, end := true, s.pos
	for ; i >= 0; i = n.firstMatch(key.Text(s.data, &s.buf), i+1) {
		s.jump(start)
		if !s.value(n.patterns[i].node, depth+1) {
			ok = false
			if s.quiet > 0 || s.abort {
				return false
			}
		}
	}
	if s.pos != end {
		s.jump(end)
	}
	return ok
}

// namesViolation is the failure of propertyNames, at the path of the member refused.
var namesViolation = Violation{Kind: KindOther, Keyword: "propertyNames", Detail: namesDetail}

const namesDetail = "the member name does not satisfy propertyNames"

// refuseName records that propertyNames refuses the name of the member whose value was
// just checked, as the full engine orders it: after the violations of the value itself,
// recorded from mark on, and before those of the values inside it.
func (s *state) refuseName(mark int) {
	tail := len(s.out)
	if s.fail(namesViolation); len(s.out) == tail {
		return
	}
	for i := mark; i < tail; i++ {
		if len(s.out[i].Path) > len(s.path) {
			s.moveBack(i, tail)
			return
		}
	}
}

// nameValid reports whether the member name key is valid against names, the schema of
// propertyNames, as a string value; it records nothing. s.pos stays where it is.
func (s *state) nameValid(names *node, key jsontext.String, depth int) bool {
	names = names.target()
	switch {
	case names == nil:
		return true
	case names.applicators:
		at := s.pos
		ok := s.test(names, key.Start-1, depth) // the name's token is a string value
		s.jump(at)
		return ok
	case names.reject || names.types != 0 && names.types&tString == 0:
		return false
	case names.stringCheck == anyString:
		return true
	}
	return names.stringKind(key.Text(s.data, &s.buf), !key.High && !key.Escaped) == 0
}

// memberNames holds the undeclared member names of one object, and the declared ones
// that repeat, to find repeated names: the tokens s.keys[start:], compared directly while
// they are few, then through a hash table of their indexes, s.index[base:base+size], which
// lies above the tables of the objects that hold this one. Names are never copied,
// however often a value is scanned.
type memberNames struct {
	start      int
	base, size int
}

// A memberKey is a member name of an object being scanned: its token, flattened.
type memberKey struct {
	start, end    int
	escaped, high bool
	repeated      bool   // the name appeared again and was reported
	hash          uint32 // of the decoded name, once the object has a table
}

func newMemberKey(t jsontext.String) memberKey {
	return memberKey{start: t.Start, end: t.End, escaped: t.Escaped, high: t.High}
}

func (k memberKey) token() jsontext.String {
	return jsontext.String{Start: k.start, End: k.end, Escaped: k.escaped, High: k.high}
}

var nameSeed = maphash.MakeSeed()

// find returns the index in s.keys of the earlier member of the object named key, or -1
// after adding key to the object's names.
func (s *state) find(key jsontext.String, names *memberNames) int {
	const direct = 16
	if names.size == 0 {
		others := s.keys[names.start:]
		for j, k := range others {
			if s.sameName(k.token(), key) {
				return names.start + j
			}
		}
		s.keys = append(s.keys, newMemberKey(key))
		if len(others)+1 == direct {
			s.reindex(names, 4*direct)
		}
		return -1
	}
	table := s.index[names.base : names.base+names.size]
	mask := uint32(names.size - 1)
	h := s.nameHash(key)
	for i := h & mask; ; i = (i + 1) & mask {
		if table[i] == 0 {
			table[i] = int32(len(s.keys) - names.start + 1)
			break
		}
		if j := names.start + int(table[i]) - 1; s.keys[j].hash == h && s.sameName(s.keys[j].token(), key) {
			return j
		}
	}
	k := newMemberKey(key)
	k.hash = h
	s.keys = append(s.keys, k)
	if n := len(s.keys) - names.start; 2*n > names.size {
		s.reindex(names, 2*names.size)
	}
	return -1
}

// nameHash hashes the decoded member name key.
func (s *state) nameHash(key jsontext.String) uint32 {
	return uint32(maphash.Bytes(nameSeed, key.Text(s.data, &s.buf)))
}

// reindex builds the object's table anew with size slots. The object's table, if any, is
// the last one: the tables of the values in it are gone when its names are checked.
func (s *state) reindex(names *memberNames, size int) {
	base := len(s.index)
	if names.size > 0 {
		base = names.base
	}
	above := base + names.size
	s.index = slices.Grow(s.index[:above], size)[:above+size]
	table := s.index[above:]
	clear(table)
	mask := uint32(size - 1)
	for k := range s.keys[names.start:] {
		key := &s.keys[names.start+k]
		if names.size == 0 {
			key.hash = s.nameHash(key.token())
		}
		i := key.hash & mask
		for table[i] != 0 {
			i = (i + 1) & mask
		}
		table[i] = int32(k + 1)
	}
	copy(s.index[base:], table)
	s.index = s.index[:base+size]
	names.base, names.size = base, size
}

// duplicated records that the member name token key repeats an earlier name of its object,
// for the first time. Passes over a value made again while recording find its duplicates
// again; but every recording pass covers what it reaches in full, from left to right, and
// a quiet pass that succeeds proves there is none, so a duplicate before the last one
// recorded was recorded.
func (s *state) duplicated(key jsontext.String) {
	if s.quiet == 0 && s.counting == 0 {
		if key.Start < s.recordedDup {
			return
		}
		s.recordedDup = key.Start + 1
	}
	s.fail(Violation{Kind: KindDuplicate})
}

func (s *state) sameName(a, b jsontext.String) bool {
	if !a.Escaped && !b.Escaped && !a.High && !b.High {
		return bytes.Equal(s.data[a.Start:a.End], s.data[b.Start:b.End])
	}
	var other []byte
	x := a.Text(s.data, &other)
	y := b.Text(s.data, &s.buf)
	return bytes.Equal(x, y)
}

func (s *state) tooDeep() {
	if !s.abort {
		s.stop(Violation{Kind: KindTooDeep, Count: s.maxDepth, Path: s.currentPath("", false)})
	}
}

// bitset records which tracked member names an object holds.
type bitset struct {
	small uint64
	big   []uint64
}

func (b *bitset) init(n int) {
	if n > 64 {
		b.big = make([]uint64, (n+63)/64)
	}
}

func (b *bitset) set(i int) {
	if b.big != nil {
		b.big[i>>6] |= 1 << (i & 63)
		return
	}
	b.small |= 1 << (i & 63)
}

func (b *bitset) has(i int) bool {
	if b.big != nil {
		return b.big[i>>6]&(1<<(i&63)) != 0
	}
	return b.small&(1<<(i&63)) != 0
}
