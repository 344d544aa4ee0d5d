package guard

// unevaluatedProperties and unevaluatedItems apply to the members and items of a value that
// no schema applied to it in place has evaluated. They run after a node's other keywords:
// gather finds the schemas that evaluate the value (the node itself, and below it every
// schema applied in place that the value satisfies), then one pass over the value's members
// or items checks those none of them evaluates.

// unevaluated applies n's unevaluatedProperties or unevaluatedItems to the value at start,
// which its other keywords have checked, recording their violations from s.out[mark:]. It
// reports whether the value is valid against them; s.pos ends past the value.
func (s *state) unevaluated(n *node, start, depth, mark int) bool {
	object := s.data[start] == '{'
	if object && n.unevalProps == nil || !object && (s.data[start] != '[' || n.unevalItems == nil) {
		return true
	}
	from := len(s.evaluators)
	s.gathers++
	all := s.gather(n, s.gathers, from, start, depth, object)
	ok := true
	if !all && !s.abort {
		s.jump(start)
		if object {
			ok = s.unevaluatedMembers(n, from, depth, mark)
		} else {
			ok = s.unevaluatedItems(n, from, depth)
		}
	}
	s.evaluators = s.evaluators[:from]
	return ok
}

// gather adds to s.evaluators[mark:] n and the schemas n applies in place that hold for the
// value at start, each once (s.gathered[m] is this gather's number g once m is added), and
// reports whether one of them evaluates every member (object) or item. When no alternative
// of anyOf or oneOf holds, the value is refused already, and every alternative counts: what
// is reported unevaluated then is what none declares.
func (s *state) gather(n *node, g uint32, mark, start, depth int, object bool) bool {
	if n == nil || s.gathered[n] == g {
		return false
	}
	if s.gathered == nil {
		s.gathered = map[*node]uint32{}
	}
	s.gathered[n] = g
	top := len(s.evaluators) == mark
	s.evaluators = append(s.evaluators, n)
	if object && (n.additional != nil || !top && n.unevalProps != nil) ||
		!object && (n.items != nil || !top && n.unevalItems != nil) {
		return true
	}
	if s.gather(n.ref, g, mark, start, depth, object) {
		return true
	}
	for _, sub := range n.allOf {
		if s.gather(sub, g, mark, start, depth, object) {
			return true
		}
	}
	for _, alts := range [][]*node{n.anyOf, n.oneOf} {
		held := false
		for _, sub := range alts {
			if s.test(sub, start, depth) {
				held = true
				if s.gather(sub, g, mark, start, depth, object) {
					return true
				}
			}
		}
		if held || s.abort {
			continue
		}
		for _, sub := range alts {
			if s.gather(sub, g, mark, start, depth, object) {
				return true
			}
		}
	}
	if n.ifn != nil {
		if s.test(n.ifn, start, depth) {
			return s.gather(n.ifn, g, mark, start, depth, object) || s.gather(n.then, g, mark, start, depth, object)
		}
		return s.gather(n.elsen, g, mark, start, depth, object)
	}
	return n.bareIf != nil && s.test(n.bareIf, start, depth) && s.gather(n.bareIf, g, mark, start, depth, object)
}

// unevaluatedMembers checks the members of the object at s.pos that none of the schemas
// s.evaluators[mark:] evaluates against n's unevaluatedProperties. The violations it records
// join those recorded for the object from s.out[recorded:] in the order of the members.
func (s *state) unevaluatedMembers(n *node, mark, depth, recorded int) bool {
	ok := true
	s.path = append(s.path, seg{index: -1})
	top := len(s.path) - 1
	earlier := len(s.out) - recorded // violations recorded before this pass
	base := len(s.order)             // this object's s.order[base:], above those holding it
	for i := range earlier {
		member := -1 // about a member the object lacks
		if p := s.out[recorded+i].Path; len(p) <= top {
			member = 1<<31 - 1 // about the object itself
		}
		s.order = append(s.order, member)
	}
	defer func() { s.order = s.order[:base] }()
	member := -1
	for key := range s.eachMember() {
		member++
		s.path[top].name = key
		name := key.Text(s.data, &s.buf)
		for i := range earlier {
			if p := s.out[recorded+i].Path; s.order[base+i] < 0 && !p[top].IsIndex && p[top].Name == string(name) {
				s.order[base+i] = member
			}
		}
		evaluated := false
		for _, m := range s.evaluators[mark:] {
			if evaluated = m.lookup(name) >= 0 || m.firstMatch(name, 0) >= 0; evaluated {
				break
			}
		}
		before := len(s.out)
		switch {
		case evaluated:
			s.value(nil, depth+1)
		case !s.leftover(n.unevalProps, Violation{Kind: KindAdditional, Keyword: "unevaluatedProperties"}, depth+1):
			ok = false
			if s.quiet > 0 || s.abort {
				return false
			}
		}
		for range len(s.out) - before {
			s.order = append(s.order, member)
		}
	}
	s.path = s.path[:top]
	if order := s.order[base:]; earlier > 0 && len(order) > earlier && len(order) == len(s.out)-recorded {
		sortByMember(s.out[recorded:], order)
	}
	return ok
}

// leftover checks the member or item at s.pos, which no schema evaluates, against sub, the
// schema of unevaluatedProperties or unevaluatedItems; refused is the failure of sub false.
// It reports whether the value is valid; under quiet it may stop early.
func (s *state) leftover(sub *node, refused Violation, depth int) bool {
	if !sub.reject {
		return s.value(sub, depth)
	}
	if s.fail(refused); s.quiet == 0 {
		s.value(nil, depth)
	}
	return false
}

// sortByMember orders the violations of an object by the member each is about, keeping the
// order of those about one member: a stable insertion sort, on a list no longer than the
// limit of violations.
func sortByMember(vs []Violation, member []int) {
	for i := 1; i < len(vs); i++ {
		for j := i; j > 0 && member[j-1] > member[j]; j-- {
			member[j-1], member[j] = member[j], member[j-1]
			vs[j-1], vs[j] = vs[j], vs[j-1]
		}
	}
}

// unevaluatedItems checks the items of the array at s.pos that none of the schemas
// s.evaluators[mark:] evaluates against n's unevaluatedItems: those past the longest
// prefixItems that no contains matches (from 2020-12 on).
func (s *state) unevaluatedItems(n *node, mark, depth int) bool {
	prefix := 0
	for _, m := range s.evaluators[mark:] {
		prefix = max(prefix, len(m.prefix))
	}
	ok := true
	s.path = append(s.path, seg{})
	top := len(s.path) - 1
	for i := range s.eachItem() {
		s.path[top].index = i
		item := s.pos
		evaluated := i < prefix
		for _, m := range s.evaluators[mark:] {
			if evaluated || !n.containsEvaluates {
				break
			}
			if m.contains != nil {
				evaluated = s.test(m.contains, item, depth+1)
				s.jump(item)
			}
		}
		switch {
		case evaluated:
			s.value(nil, depth+1)
		case !s.leftover(n.unevalItems, Violation{Kind: KindAdditionalItem, Keyword: "unevaluatedItems"}, depth+1):
			ok = false
			if s.quiet > 0 || s.abort {
				return false
			}
		}
	}
	s.path = s.path[:top]
	return ok
}
