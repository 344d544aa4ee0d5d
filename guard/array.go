package guard

import (
	"github.com/mcpvalidate/mcpvalidate/guard/internal/jsontext"
	"strconv"
)

// The explaining pass over an array: items in one scan, then the keywords on the whole
// array.

func (s *state) array(n *node, depth int) status {
	if depth >= s.maxDepth {
		s.tooDeep()
		return failed
	}
	if n != nil && !s.typeOK(n, tArray) {
		if s.quiet > 0 {
			return wrongType
		}
		s.array(nil, depth)
		return wrongType
	}
	a := arrayScan{n: n, depth: depth, unique: n != nil && n.uniqueItem, ids: len(s.items)}
	if n != nil && n.contains != nil {
		a.need = n.minContains
		if n.maxContains >= 0 || a.need < 0 {
			a.need = max(a.need, n.maxContains+1, 1)
		}
	}
	s.pos++ // '['
	mark := len(s.out)
	ok, done := s.elements(&a)
	if !done {
		return failed
	}
	if n != nil && !s.closeArray(&a, mark) {
		ok = false
	}
	if ok {
		return passed
	}
	return failed
}

// An arrayScan is one array being scanned: its schema and what its items have shown.
type arrayScan struct {
	n       *node // nil: any item is allowed
	depth   int
	count   int  // items
	matched int  // items valid against contains
	need    int  // the matches that decide the bounds: counting stops there
	unique  bool // the items' ids are kept, from s.items[ids:]
	ids     int
}

// elements scans the items of the array at s.pos, past its '[', and its ']'. It reports
// whether they are valid, and whether the scan reached the end: a syntax error, or a
// failure under quiet, stops it early.
func (s *state) elements(a *arrayScan) (ok, done bool) {
	if s.peek() == ']' {
		s.pos++
		return true, true
	}
	n, d := a.n, s.data
	s.path = append(s.path, seg{}) // numbered anew by each item
	top := len(s.path) - 1
	ok = true
	for {
		sub := n.item(a.count)
		s.path[top].index = a.count
		itemStart := s.pos
		if sub != nil && sub.reject && a.count >= len(n.prefix) {
			ok = false
			s.fail(Violation{Kind: KindAdditionalItem, Keyword: n.extraItems, Limit: strconv.Itoa(len(n.prefix))})
			if s.quiet > 0 {
				return false, false
			}
			s.value(nil, a.depth+1)
		} else if !s.value(sub, a.depth+1) {
			ok = false
			if s.quiet > 0 || s.abort {
				return false, false
			}
		}
		if a.matched < a.need && s.contained(n.contains, itemStart, a.depth+1) {
			a.matched++
		}
		if a.unique {
			s.items = append(grown(s.items), s.idOf(itemStart))
		}
		a.count++
		i := jsontext.SkipSpace(d, s.pos)
		if i < len(d) && d[i] == ']' {
			s.pos = i + 1
			s.path = s.path[:top]
			return ok, true
		}
		if i >= len(d) || d[i] != ',' {
			s.pos = i
			s.syntax("expected ',' or ']' after an array item")
			return false, false
		}
		s.pos = jsontext.SkipSpace(d, i+1)
	}
}

// closeArray applies the keywords that need the whole array: minItems, maxItems,
// uniqueItems and the bounds of contains, whose failures go before those of the items,
// which start at mark.
func (s *state) closeArray(a *arrayScan, mark int) bool {
	n, ok := a.n, true
	if a.count < n.minItems {
		ok = false
		s.fail(Violation{Kind: KindMinItems, Keyword: "minItems", Limit: strconv.Itoa(n.minItems)})
	}
	if n.maxItems >= 0 && a.count > n.maxItems {
		ok = false
		s.fail(Violation{Kind: KindMaxItems, Keyword: "maxItems", Limit: strconv.Itoa(n.maxItems)})
	}
	if a.unique {
		if i, j, dup := s.equalItems(s.items[a.ids:]); dup {
			ok = false
			s.fail(Violation{Kind: KindUniqueItems, Keyword: "uniqueItems", Indexes: []int{i, j}})
		}
		s.items = s.items[:a.ids]
	}
	if n.contains != nil {
		tail := len(s.out)
		if v, refused := n.tooFew(a.matched); refused {
			ok = false
			s.fail(v)
		}
		if n.maxContains >= 0 && a.matched > n.maxContains {
			ok = false
			s.fail(containsViolation("maxContains", n.maxContains))
		}
		if tail > mark && len(s.out) > tail {
			s.moveBack(mark, tail)
		}
	}
	return ok
}

// contained reports whether the item at start, which a first pass has just scanned, is
// valid against the schema of contains, recording nothing; s.pos ends past the item.
func (s *state) contained(sub *node, start, depth int) bool {
	end := s.pos
	ok := s.test(sub, start, depth)
	if s.pos != end {
		s.jump(end)
	}
	return ok
}

// tooFew returns the failure of contains or minContains for an array in which matched items
// match contains, and whether they are too few.
func (n *node) tooFew(matched int) (Violation, bool) {
	switch {
	case n.minContains >= 0:
		return containsViolation("minContains", n.minContains), matched < n.minContains
	case matched == 0:
		return containsViolation("contains", 1), true
	}
	return Violation{}, false
}

// containsViolation is the failure of keyword, contains (want 1), minContains or
// maxContains (want their bound), at the array's path.
func containsViolation(keyword string, want int) Violation {
	v := Violation{Kind: KindOther, Keyword: keyword}
	switch keyword {
	case "contains":
		v.Detail = "must contain an item that matches the schema under contains"
	case "minContains":
		v.Detail = "must contain at least " + plural(want, "item") + " that match the schema under contains"
	default:
		v.Detail = "must contain at most " + plural(want, "item") + " that match the schema under contains"
	}
	return v
}

// equalItems finds the first item equal to an earlier one, given the items' ids, and that
// earlier one.
func (s *state) equalItems(ids []uint32) (int, int, bool) {
	seen := s.eq.seen // by id: 1 + the index of the item that has it, or 0
	defer func() {
		for _, id := range ids {
			seen[id] = 0
		}
	}()
	for j, id := range ids {
		if int(id) >= len(seen) {
			more := make([]uint32, max(int(id)+1, 2*len(seen)))
			copy(more, seen)
			seen, s.eq.seen = more, more
		}
		if seen[id] > 0 {
			ids = ids[:j] // the items marked
			return int(seen[id] - 1), j, true
		}
		seen[id] = uint32(j) + 1
	}
	return 0, 0, false
}
