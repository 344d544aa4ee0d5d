package mcpvalidate

import "strconv"

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
	s.pos++ // '['
	d := s.data
	ok := true
	count := 0
	unique := n != nil && n.uniqueItem
	itemsStart := len(s.items)
	mark := len(s.out)
	matched := 0 // items valid against contains
	need := 0    // the matches that decide the bounds: counting stops there
	if n != nil && n.contains != nil {
		need = n.minContains
		if n.maxContains >= 0 || need < 0 {
			need = max(need, n.maxContains+1, 1)
		}
	}
	if s.peek() == ']' {
		s.pos++
	} else {
		s.path = append(s.path, seg{}) // numbered anew by each item
		top := len(s.path) - 1
		for {
			sub := n.item(count)
			s.path[top].index = count
			itemStart := s.pos
			if sub != nil && sub.reject && count >= len(n.prefix) {
				ok = false
				s.fail(Violation{Kind: KindAdditionalItem, Keyword: n.extraItems, Limit: strconv.Itoa(len(n.prefix))})
				if s.quiet > 0 {
					return failed
				}
				s.value(nil, depth+1)
			} else if !s.value(sub, depth+1) {
				ok = false
				if s.quiet > 0 || s.abort {
					return failed
				}
			}
			if matched < need && s.contained(n.contains, itemStart, depth+1) {
				matched++
			}
			if unique {
				s.items = append(s.items, [2]int{itemStart, s.pos})
			}
			count++
			i := skipSpace(d, s.pos)
			if i < len(d) && d[i] == ']' {
				s.pos = i + 1
				s.path = s.path[:top]
				break
			}
			if i >= len(d) || d[i] != ',' {
				s.pos = i
				s.syntax("expected ',' or ']' after an array item")
				return failed
			}
			s.pos = skipSpace(d, i+1)
		}
	}
	if n == nil {
		if ok {
			return passed
		}
		return failed
	}
	if count < n.minItems {
		ok = false
		s.fail(Violation{Kind: KindMinItems, Keyword: "minItems", Limit: strconv.Itoa(n.minItems)})
	}
	if n.maxItems >= 0 && count > n.maxItems {
		ok = false
		s.fail(Violation{Kind: KindMaxItems, Keyword: "maxItems", Limit: strconv.Itoa(n.maxItems)})
	}
	if unique {
		if i, j, dup := s.equalItems(s.items[itemsStart:]); dup {
			ok = false
			s.fail(Violation{Kind: KindUniqueItems, Keyword: "uniqueItems", Indexes: []int{i, j}})
		}
		s.items = s.items[:itemsStart]
	}
	if n.contains != nil {
		// As the full engine has them: before the violations of the items.
		tail := len(s.out)
		if v, refused := n.tooFew(matched); refused {
			ok = false
			s.fail(v)
		}
		if n.maxContains >= 0 && matched > n.maxContains {
			ok = false
			s.fail(containsViolation("maxContains", n.maxContains))
		}
		if tail > mark && len(s.out) > tail {
			s.moveBack(mark, tail)
		}
	}
	if ok {
		return passed
	}
	return failed
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

// item returns the schema of item i of an array checked against n (nil: any item).
func (n *node) item(i int) *node {
	switch {
	case n == nil:
		return nil
	case i < len(n.prefix):
		return n.prefix[i]
	}
	return n.items
}

// equalItems finds the first two equal items among the given spans.
func (s *state) equalItems(spans [][2]int) (int, int, bool) {
	end := s.pos
	defer s.jump(end)
	keys := make(map[string]int, len(spans))
	for i, sp := range spans {
		s.jump(sp[0])
		k := string(s.canonical(nil))
		if j, ok := keys[k]; ok {
			return j, i, true
		}
		keys[k] = i
	}
	return 0, 0, false
}
