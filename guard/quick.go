package guard

import (
	"bytes"
	"github.com/mcpvalidate/mcpvalidate/guard/internal/jsontext"
	"maps"
	"slices"
	"unicode/utf8"
)

// The quick pass only tells that arguments are valid. It covers the shape most tool calls
// take: objects of declared members, arrays, and scalars under plain keywords. It keeps
// nothing but the call stack, so a valid call needs no pooled state, no path and no list
// of names. It gives up on whatever it does not decide alone (any violation, an escaped
// member name or a second undeclared one, a number that needs exact arithmetic) and then
// the explaining pass (explaining.go) checks the arguments from the start. Of the applicators
// it takes a lone $ref, and a oneOf or anyOf whose alternatives a value's type, an
// object's first member name or the value of a tag member tells apart, a tagged union
// (see alternative and tagged); schemas with any other never reach it (see markQuick).

// quick is one run of the quick pass over the arguments d.
type quick struct {
	d        []byte
	maxDepth int
}

// quickValid reports whether the quick pass finds args valid. false decides nothing.
func (v *Validator) quickValid(args []byte) bool {
	if !v.root.quick {
		return false
	}
	q := quick{d: args, maxDepth: v.cfg.maxDepth}
	i, ok := q.value(v.root, jsontext.SkipSpace(args, 0), 0)
	return ok && jsontext.SkipSpace(args, i) == len(args)
}

// value checks the value at d[i], which is not space, and returns where it ends.
func (q *quick) value(n *node, i, depth int) (int, bool) {
	n = n.target()
	d := q.d
	if i >= len(d) || n != nil && (!n.quick || n.reject) {
		return 0, false
	}
	c := d[i]
	t := typeOfFirst(c)
	if n != nil && n.types != 0 && n.types&t == 0 && t != tNumber {
		return 0, false
	}
	if n != nil && n.union != nil {
		if n.types != 0 && n.types&t == 0 { // a number that may not be whole (see taggedUnion)
			return 0, false
		}
		if n = q.alternative(n, i); n == nil {
			return 0, false
		}
		return q.value(n, i, depth)
	}
	switch t {
	case tObject:
		if n == nil {
			return 0, false // any members: names are tracked only by the explaining pass
		}
		return q.object(n, i, depth)
	case tArray:
		return q.array(n, i, depth)
	case tString:
		return q.str(n, i)
	case tNumber:
		return q.number(n, i)
	case tBoolean, tNull:
		word := "null"
		if c == 't' {
			word = "true"
		} else if c == 'f' {
			word = "false"
		}
		end := i + len(word)
		if end > len(d) || string(d[i:end]) != word {
			return 0, false
		}
		return end, n == nil || n.setKind(t, d[i:end]) == 0
	}
	return 0, false
}

// nested checks the value at d[i] of a member or an item, which n (nil: any value) is the
// schema of. Under a schema of scalars, a string without escapes, a number and a boolean
// are read here, without value's dispatch and the calls it makes: every call spills what
// the loop holds in registers. Anything else goes through value.
func (q *quick) nested(n *node, i, depth int) (int, bool) {
	d := q.d
	if n == nil || n.scalar == 0 || i >= len(d) {
		return q.value(n, i, depth)
	}
	switch c := d[i]; {
	case c == '"' && n.scalar&tString != 0:
		e := jsontext.PlainRun(d, i+1)
		if e >= len(d) || d[e] != '"' {
			return q.str(n, i)
		}
		text := d[i+1 : e] // plain, so ASCII: a byte is a character
		switch n.stringCheck {
		case anyString:
			return e + 1, true
		case enumString:
			return e + 1, n.enum.hasString(text)
		case lengthString:
			return e + 1, len(text) >= n.minLength && (n.maxLength < 0 || len(text) <= n.maxLength)
		}
		return e + 1, n.stringKind(text, true) == 0
	case (c-'0' < 10 || c == '-') && n.scalar&(tNumber|tInteger) != 0:
		j := i
		if c == '-' {
			j++
		}
		start, x := j, int64(0)
		for ; j < len(d) && d[j]-'0' < 10 && j-start < 18; j++ {
			x = x*10 + int64(d[j]-'0')
		}
		if !shortWhole(d, start, j) {
			return q.number(n, i)
		}
		if c == '-' {
			x = -x
		}
		return j, !n.numberWork || n.quickBounds(x) // n.scalar: n takes numbers
	case (c == 't' || c == 'f') && n.scalar&tBoolean != 0 && n.enum == nil && n.constant == nil:
		if end := booleanEnd(d, i); end > 0 {
			return end, true
		}
	}
	return q.value(n, i, depth)
}

// shortWhole reports whether the digits d[start:j] are the whole of a number literal that
// is whole and fits in 18 digits, with no leading zero.
func shortWhole(d []byte, start, j int) bool {
	return j > start && (d[start] != '0' || j == start+1) &&
		(j == len(d) || d[j]-'0' >= 10 && d[j] != '.' && d[j]|0x20 != 'e')
}

// booleanEnd returns where the true or false at d[i] ends, or -1.
func booleanEnd(d []byte, i int) int {
	switch {
	case i+4 <= len(d) && string(d[i:i+4]) == "true":
		return i + 4
	case i+5 <= len(d) && string(d[i:i+5]) == "false":
		return i + 5
	}
	return -1
}

// str checks the string at d[i] against n (nil: any string).
func (q *quick) str(n *node, i int) (int, bool) {
	d := q.d
	tok, end, problem := jsontext.ScanString(d, i)
	if problem != "" || tok.Escaped {
		return 0, false
	}
	if n == nil || n.stringCheck == anyString {
		return end, true
	}
	text := d[tok.Start:tok.End]
	if tok.High && !utf8.Valid(text) {
		return 0, false
	}
	return end, n.stringKind(text, !tok.High) == 0
}

// number checks the number at d[i] against n (nil: any number).
func (q *quick) number(n *node, i int) (int, bool) {
	end, whole, problem := jsontext.ScanNumber(q.d, i)
	if problem != "" {
		return 0, false
	}
	return end, n == nil || n.quickNumber(q.d[i:end], whole)
}

// alternative returns the one alternative of the union n that the value at d[i] may
// satisfy, every other refusing it unseen: by its type, or, for an object, because the
// alternative allows no member but those it declares and does not declare the object's
// first member (told by its first byte, then by its whole name). When that leaves one,
// the union holds exactly when it does, for oneOf as for anyOf; nil when it leaves none
// or more than one.
func (q *quick) alternative(n *node, i int) *node {
	if n.tag != "" {
		return q.tagged(n, i)
	}
	d := q.d
	t := typeOfFirst(d[i])
	first, j := -1, 0 // the first byte of the object's first member name at d[j], when it decides
	if t == tObject {
		if j = jsontext.SkipSpace(d, i+1); j+1 < len(d) && d[j] == '"' && d[j+1] >= ' ' && d[j+1] != '\\' {
			first = int(d[j+1])
		}
	}
	var only *node
	many := false
	for _, a := range n.union {
		if a.reject || a.types != 0 && a.types&t == 0 && !(t == tNumber && a.types&tInteger != 0) ||
			first >= 0 && a.firstBytes != nil && !a.firstBytes[first] {
			continue
		}
		if only != nil {
			many = true
			break
		}
		only = a
	}
	if !many {
		return only
	}
	if first < 0 { // no member, or a first name that is escaped: nothing tells them apart
		return nil
	}
	tok, _, problem := jsontext.ScanString(d, j)
	if problem != "" || tok.Escaped || tok.High {
		return nil
	}
	name := d[tok.Start:tok.End]
	// Alternatives whose names begin alike: one that allows only its own members and does
	// not declare the first member's name refuses the object.
	only = nil
	for _, a := range n.union {
		if a.reject || a.types != 0 && a.types&t == 0 || a.firstBytes != nil && a.lookup(name) < 0 {
			continue
		}
		if only != nil {
			return nil
		}
		only = a
	}
	return only
}

// tagged returns the one alternative of the union n whose tag member's strings hold the
// value of that member in the object at d[i], every other refusing the object for it; nil
// when the member is not found among the scalar members before any container member, or
// its value is not a plain string, or no alternative or more than one takes it. It reads
// only the members before the tag, and none inside another value, so that nested unions
// read each byte once.
func (q *quick) tagged(n *node, i int) *node {
	d := q.d
	if d[i] != '{' {
		return nil
	}
	for i = jsontext.SkipSpace(d, i+1); i < len(d) && d[i] == '"'; {
		key, end, problem := jsontext.ScanString(d, i)
		if problem != "" || key.Escaped {
			return nil
		}
		if i = jsontext.SkipSpace(d, end); i >= len(d) || d[i] != ':' {
			return nil
		}
		if i = jsontext.SkipSpace(d, i+1); i >= len(d) {
			return nil
		}
		if string(d[key.Start:key.End]) == n.tag {
			return q.taggedBy(n, i)
		}
		switch typeOfFirst(d[i]) {
		case tString:
			_, i, problem = jsontext.ScanString(d, i)
		case tNumber:
			i, _, problem = jsontext.ScanNumber(d, i)
		case tBoolean, tNull:
			for i < len(d) && d[i] >= 'a' && d[i] <= 'z' {
				i++
			}
		default:
			return nil // a container: the tag is not read past it
		}
		if problem != "" {
			return nil
		}
		if i = jsontext.SkipSpace(d, i); i >= len(d) || d[i] != ',' {
			return nil
		}
		i = jsontext.SkipSpace(d, i+1)
	}
	return nil
}

// taggedBy returns the one alternative of n whose tag member takes the string at d[i].
func (q *quick) taggedBy(n *node, i int) *node {
	d := q.d
	if i >= len(d) || d[i] != '"' {
		return nil
	}
	tok, _, problem := jsontext.ScanString(d, i)
	if problem != "" || tok.Escaped || tok.High {
		return nil
	}
	text := d[tok.Start:tok.End]
	var only *node
	for _, a := range n.union {
		tag := a.props[a.lookup([]byte(n.tag))].node.target()
		if set := tag.enum; tag.constant != nil && !tag.constant.hasString(text) || set != nil && !set.hasString(text) {
			continue
		}
		if only != nil {
			return nil
		}
		only = a
	}
	return only
}

// quickNumber decides a number literal against n when small integers suffice.
func (n *node) quickNumber(lit []byte, whole bool) bool {
	if !n.numberWork {
		return n.types == 0 || n.types&tNumber != 0 || whole && n.types&tInteger != 0
	}
	x, small := smallInt(lit)
	return small && n.quickBounds(x)
}

// quickBounds decides the whole number x against n's numeric keywords.
func (n *node) quickBounds(x int64) bool {
	return n.intBounds && (n.types == 0 || n.types&(tNumber|tInteger) != 0) &&
		(n.minimum == nil || x >= n.minimum.small) &&
		(n.maximum == nil || x <= n.maximum.small) &&
		(n.exclusiveMinimum == nil || x > n.exclusiveMinimum.small) &&
		(n.exclusiveMaximum == nil || x < n.exclusiveMaximum.small) &&
		(n.multipleOf == nil || x%n.multipleOf.small == 0)
}

// object checks the object at d[i] against n, whose tracked names fit in one word.
func (q *quick) object(n *node, i, depth int) (int, bool) {
	if depth >= q.maxDepth || n.enum != nil || n.constant != nil {
		return 0, false
	}
	d := q.d
	var seen uint64
	next := 0      // the property expected next: members tend to come in schema order
	extra := false // an undeclared member was met
	if i = jsontext.SkipSpace(d, i+1); i < len(d) && d[i] == '}' {
		return i + 1, n.requiredMask == 0
	}
	props := n.props
	for {
		var slot int
		var sub *node
		if next < len(props) && props[next].at(d, i) {
			p := &props[next]
			slot, sub, next = p.slot, p.node, next+1
			i += 2 + len(p.quoted)
		} else if slot, sub, i = q.member(n, i, &next, &extra); i < 0 {
			return 0, false
		}
		if slot >= 0 {
			bit := uint64(1) << (uint(slot) & 63) // requiredOnly: every slot is below 64
			if seen&bit != 0 {
				return 0, false
			}
			seen |= bit
		}
		var ok bool
		if i, ok = q.nested(sub, jsontext.SkipSpace(d, i), depth+1); !ok {
			return 0, false
		}
		if i = jsontext.SkipSpace(d, i); i < len(d) && d[i] == '}' {
			return i + 1, seen&n.requiredMask == n.requiredMask
		}
		if i >= len(d) || d[i] != ',' {
			return 0, false
		}
		i = jsontext.SkipSpace(d, i+1)
	}
}

// member reads the member name at d[i] that is not the property expected next, and the
// colon after it. It returns the name's slot, or -1 when n does not track it; the schema
// for the member's value (nil: any value); and where the colon ends, or -1 when the quick
// pass cannot tell. An open object may hold one undeclared member here: with a second,
// names would need comparing.
func (q *quick) member(n *node, i int, next *int, extra *bool) (slot int, sub *node, end int) {
	if i >= len(q.d) || q.d[i] != '"' {
		return 0, nil, -1
	}
	key, end, problem := jsontext.ScanString(q.d, i)
	if problem != "" || key.Escaped {
		return 0, nil, -1
	}
	if end = jsontext.SkipSpace(q.d, end); end >= len(q.d) || q.d[end] != ':' {
		return 0, nil, -1
	}
	end++
	name := q.d[key.Start:key.End]
	if k := n.lookup(name); k >= 0 {
		*next = k + 1
		return n.props[k].slot, n.props[k].node, end
	}
	// Invalid UTF-8 decodes to U+FFFD, so such a name might still be a declared one.
	if key.High || n.additional != nil || *extra {
		return 0, nil, -1
	}
	if slot = n.slotOf(name); slot < 0 {
		*extra = true
	}
	return slot, nil, end
}

// array checks the array at d[i] against n (nil allows any items).
func (q *quick) array(n *node, i, depth int) (int, bool) {
	if depth >= q.maxDepth || n != nil && (n.enum != nil || n.constant != nil) {
		return 0, false
	}
	d := q.d
	count := 0
	unique := n != nil && n.uniqueItem
	var seen [maxQuickUnique][]byte // under uniqueItems, the items so far, each plain (plainItem)
	if i = jsontext.SkipSpace(d, i+1); i < len(d) && d[i] == ']' {
		i++
	} else {
		for {
			start := i
			var ok bool
			if i, ok = q.nested(n.item(count), i, depth+1); !ok {
				return 0, false
			}
			if unique {
				item := d[start:i]
				if count == maxQuickUnique || !plainItem(item) || slices.ContainsFunc(seen[:count], func(b []byte) bool { return bytes.Equal(b, item) }) {
					return 0, false // past what the quick pass compares, or equal: the explaining pass says
				}
				seen[count] = item
			}
			count++
			if i = jsontext.SkipSpace(d, i); i < len(d) && d[i] == ']' {
				i++
				break
			}
			if i >= len(d) || d[i] != ',' {
				return 0, false
			}
			i = jsontext.SkipSpace(d, i+1)
		}
	}
	return i, n == nil || count >= n.minItems && (n.maxItems < 0 || count <= n.maxItems)
}

// maxQuickUnique bounds the items of an array under uniqueItems that the quick pass
// compares, each with those before it.
const maxQuickUnique = 16

// plainItem reports whether an array's item, as sent, equals another item exactly when
// their texts are the same: a string without escapes, an integer written plainly (not
// -0), true, false or null.
func plainItem(item []byte) bool {
	switch c := item[0]; {
	case c == '"':
		return bytes.IndexByte(item, '\\') < 0
	case c == 't' || c == 'f' || c == 'n':
		return true
	case string(item) == "-0":
		return false
	}
	for i := 0; i < len(item); i++ {
		if c := item[i]; (c < '0' || c > '9') && !(i == 0 && c == '-') {
			return false
		}
	}
	return true
}

// quickKeywords are the keywords the quick pass decides: a schema with any other is left to
// the explaining pass, so that a keyword the quick pass does not know is never ignored.
var quickKeywords = keywordsOf("type", "enum", "const", "minLength", "maxLength", "pattern", "format",
	"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf",
	"properties", "required", "additionalProperties", "prefixItems", "items", "minItems", "maxItems", "uniqueItems",
	"minContains", "maxContains", // without contains they mean nothing
	"$ref", "$dynamicRef", "$recursiveRef", "$anchor", "$dynamicAnchor", "$recursiveAnchor", "$schema",
	"oneOf", "anyOf") // only as a tagged union (taggedUnion)

// markQuick sets quick on the nodes that the quick pass can decide with everything below
// them: only quickKeywords, no applicator but a lone reference or a tagged union, at most
// 64 tracked member names and no keyword on the whole object but required, and no schema
// for undeclared members but false.
func markQuick(nodes map[string]*node) {
	for _, n := range nodes {
		n.union = taggedUnion(n)
		n.quick = n.keywords&^quickKeywords == 0 && (!n.applicators || n.refOnly || n.union != nil) && n.requiredOnly &&
			(n.additional == nil || n.additional.reject)
	}
	below := func(n *node) bool {
		if n.refOnly && (n.ref == nil || !n.ref.quick) {
			return false
		}
		for _, a := range n.union {
			if !a.quick {
				return false
			}
		}
		for _, p := range n.props {
			if !p.node.quick {
				return false
			}
		}
		for _, s := range n.prefix {
			if !s.quick {
				return false
			}
		}
		return n.items == nil || n.items.quick
	}
	for changed := true; changed; {
		changed = false
		for _, n := range nodes {
			if n.quick && !below(n) {
				n.quick, changed = false, true
			}
		}
	}
	for _, n := range nodes {
		// A schema of scalars, whose strings and numbers member checks directly.
		n.scalar = 0
		if n.quick && !n.applicators && !n.reject && n.types&(tObject|tArray) == 0 {
			if n.scalar = n.types; n.types == 0 {
				if _, strs := onlyStrings(n); strs {
					n.scalar = tString
				}
			}
		}
	}
}

// taggedUnion returns the alternatives of n, each where its lone $refs lead, when n is
// nothing but a type and a oneOf or an anyOf whose alternatives, two by two, take
// different types, or allow objects only of their declared members, whose names begin
// differently (alternative tells them apart on sight); or which all declare a tag member
// (tagOf, setting n.tag).
func taggedUnion(n *node) []*node {
	alts := n.oneOf
	if len(alts) == 0 {
		alts = n.anyOf
	}
	if n.keywords&^unionKeywords != 0 || len(n.oneOf) > 0 && len(n.anyOf) > 0 || len(alts) < 2 ||
		n.types&tInteger != 0 && n.types&tNumber == 0 {
		return nil
	}
	targets := make([]*node, len(alts))
	byType := true
	for i, a := range alts {
		if targets[i] = a.target(); targets[i] == nil ||
			n.types != 0 && targets[i].types != 0 && numbersAsOne(n.types)&numbersAsOne(targets[i].types) == 0 {
			return nil // an alternative that never holds where the union does: no telling apart helps
		}
		for _, b := range targets[:i] {
			byType = byType && apart(targets[i], b)
		}
	}
	if byType {
		return targets
	}
	if n.tag = tagOf(targets); n.tag != "" {
		return targets
	}
	return nil
}

// unionKeywords are those a tagged union may have: the type it takes, checked on the
// value's first byte, and its alternatives.
var unionKeywords = keywordsOf("type", "oneOf", "anyOf", "$anchor", "$dynamicAnchor", "$recursiveAnchor", "$schema")

// tagOf returns the name of a member that every alternative, an object, declares with a
// const or an enum of strings, no string in two of them, so that the member's value tells
// the alternatives apart: their tag. "" when there is none.
func tagOf(alts []*node) string {
	if alts[0].types != tObject {
		return ""
	}
next:
	for _, p := range alts[0].props {
		taken := map[string]bool{}
		for _, a := range alts {
			k := a.lookup([]byte(p.name))
			if a.types != tObject || k < 0 {
				continue next
			}
			strs, ok := onlyStrings(a.props[k].node.target())
			if !ok {
				continue next
			}
			for _, s := range strs {
				if taken[s] {
					continue next
				}
				taken[s] = true
			}
		}
		return p.name
	}
	return ""
}

// onlyStrings returns the strings n's const or enum allows, when it allows nothing else.
func onlyStrings(n *node) ([]string, bool) {
	if n == nil || n.enum != nil && n.constant != nil {
		return nil, false
	}
	set := n.enum
	if n.constant != nil {
		set = n.constant
	}
	if set == nil || len(set.nums)+len(set.others) > 0 || set.null || set.yes || set.no || len(set.strs) == 0 {
		return nil, false
	}
	return slices.Collect(maps.Keys(set.strs)), true
}

// apart reports whether no value gets past both a's and b's checks in alternative: they
// take different types, or only objects of their own members, of which they declare none
// in common.
func apart(a, b *node) bool {
	if a == nil || b == nil {
		return false
	}
	if ta, tb := numbersAsOne(a.types), numbersAsOne(b.types); ta != 0 && tb != 0 && ta&tb == 0 {
		return true
	}
	if a.firstBytes == nil || b.firstBytes == nil || a.types != tObject || b.types != tObject {
		return false
	}
	for _, p := range a.props {
		if b.lookup([]byte(p.name)) >= 0 {
			return false
		}
	}
	return true
}

// numbersAsOne widens a type set that takes integers or numbers to both: a number's first
// byte does not tell whether it is whole.
func numbersAsOne(t typeSet) typeSet {
	if t&(tNumber|tInteger) != 0 {
		t |= tNumber | tInteger
	}
	return t
}
