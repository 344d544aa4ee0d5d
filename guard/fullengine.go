package guard

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"slices"
	"strconv"
	"strings"

	"github.com/mcpvalidate/mcpvalidate/guard/internal/engine"
	"github.com/mcpvalidate/mcpvalidate/guard/internal/jsontext"
)

// The full engine (santhosh-tekuri/jsonschema, linked by importing package fullengine)
// validates schemas under WithFullEngine, and is the oracle the conformance tests hold the
// subset to. Its failures become the same Violations, in the same order: required members
// first, then the arguments' own order.

type fullEngine struct {
	schema engine.Schema
	tree   any // the parsed schema, members in order, for what the engine's failures leave out
}

// The full engine turns numbers into big.Rat values: an exponent of a few million costs it
// seconds, and beyond that it fails. Such numbers are refused before it sees them.
const engineExpLimit = 10000

func outOfEngineRange(n number) bool {
	return !n.isZero() && (n.exp > engineExpLimit || n.exp < -engineExpLimit)
}

// hugeNumber finds a number in the parsed schema that the full engine cannot take.
func hugeNumber(v any, ptr string) error {
	switch v := v.(type) {
	case json.Number:
		if n, _ := parseNumber([]byte(v), nil); outOfEngineRange(n) {
			return schemaErr(ptr, "the number's exponent is beyond ±%d, more than the full engine takes", engineExpLimit)
		}
	case []any:
		for i, e := range v {
			if err := hugeNumber(e, ptr+"/"+strconv.Itoa(i)); err != nil {
				return err
			}
		}
	case *schemaObject:
		for i, k := range v.keys {
			if err := hugeNumber(v.vals[i], ptr+"/"+escapePointer(k)); err != nil {
				return err
			}
		}
	}
	return nil
}

// compileFull compiles schema, parsed as tree, for the full engine, and returns its check.
func compileFull(schema []byte, tree any, cfg config) (check func(args []byte, limit int) []Violation, err error) {
	if engine.Full == nil {
		return nil, &SchemaError{Location: "#", Reason: "the full JSON Schema engine is not in this program: import github.com/mcpvalidate/mcpvalidate/guard/fullengine"}
	}
	if err := hugeNumber(tree, ""); err != nil {
		return nil, err
	}
	defer func() {
		if r := recover(); r != nil {
			check, err = nil, &SchemaError{Location: "#", Reason: fmt.Sprintf("the full JSON Schema engine failed on the schema: %v", r)}
		}
	}()
	var dialect any
	if o, ok := tree.(*schemaObject); ok {
		dialect = o.member("$schema")
	}
	sch, err := engine.Full(schema, engine.Options{AssertFormat: cfg.assertFormat, DropRefSiblings: refOverridesDrafts6And7(dialect)})
	var cycle *engine.CycleError
	switch {
	case errors.As(err, &cycle):
		return nil, &SchemaError{Location: cycle.Location, Reason: "$ref loops back to this schema without descending into the arguments; validation would never end"}
	case err != nil:
		return nil, &SchemaError{Location: "#", Reason: err.Error()}
	}
	return (&fullEngine{schema: sch, tree: tree}).validate, nil
}

// refOverridesDrafts6And7 reports whether the dialect $schema names is draft-06 or
// draft-07: there a $ref overrides the keywords beside it, and the engine applies those
// the two drafts added all the same.
func refOverridesDrafts6And7(schema any) bool {
	uri, _ := schema.(string)
	d, ok := dialectOf(uri)
	return ok && (d == draft6 || d == draft7)
}

// validate runs the engine on args, which the scanner has found well-formed. Its cost
// beyond the engine's own is linear in the size of args and in the number of failures the
// engine reports: failures are kept as references into the engine's error tree, placed by
// one walk over args, and only the limit first become Violations.
func (f *fullEngine) validate(args []byte, limit int) []Violation {
	doc := decode(args)
	failure, panicked := f.schema.Validate(doc)
	if panicked {
		return []Violation{{Kind: KindOther, Detail: "the full JSON Schema engine failed on these arguments"}}
	}
	if failure == nil {
		return nil
	}
	r := &findings{next: map[step]int32{}, containers: 1, doc: doc}
	r.collect(failure, 0, 0)
	for i := range r.found {
		r.found[i].seq = int32(i)
	}
	r.placeAll(args)
	slices.SortFunc(r.found, compare)
	n := min(len(r.found), limit)
	vs := make([]Violation, n, n+1)
	for i := range vs {
		vs[i] = r.found[i].violation(doc, f.tree)
	}
	if len(r.found) > n {
		vs = append(vs, Violation{Kind: KindTruncated, Count: len(r.found) - n})
	}
	return vs
}

// decode builds from well-formed arguments the value the engine takes, the one
// encoding/json decodes with UseNumber. Numbers and strings without escapes share one copy
// of the arguments; arrays and maps are made at their final size.
func decode(args []byte) any {
	d := &decoder{c: cursor{data: args}, text: string(args)}
	return d.value()
}

type decoder struct {
	c     cursor
	text  string
	items []any // of the arrays and objects being decoded
	names []string
}

func (d *decoder) value() any {
	s := &d.c
	switch s.peek() {
	case '{':
		mark := len(d.names)
		for name := range s.eachMember() {
			d.names = append(grown(d.names), d.token(name))
			d.items = append(grown(d.items), d.value())
		}
		names := d.names[mark:]
		vals := d.items[len(d.items)-len(names):]
		m := make(map[string]any, len(names))
		for i, name := range names {
			m[name] = vals[i]
		}
		clear(names)
		clear(vals)
		d.names, d.items = d.names[:mark], d.items[:len(d.items)-len(vals)]
		return m
	case '[':
		mark := len(d.items)
		for range s.eachItem() {
			d.items = append(grown(d.items), d.value())
		}
		arr := slices.Clone(d.items[mark:])
		clear(d.items[mark:])
		d.items = d.items[:mark]
		if arr == nil {
			arr = []any{}
		}
		return arr
	case '"':
		t, end, _ := jsontext.ScanString(s.data, s.pos)
		s.pos = end
		return d.token(t)
	case 't':
		s.pos += len("true")
		return true
	case 'f':
		s.pos += len("false")
		return false
	case 'n':
		s.pos += len("null")
		return nil
	}
	start := s.pos
	s.pos, _, _ = jsontext.ScanNumber(s.data, start)
	return json.Number(d.text[start:s.pos])
}

// token returns the decoded string token t: a slice of the one copy of the arguments when
// it needs no decoding.
func (d *decoder) token(t jsontext.String) string {
	if t.Verbatim(d.c.data) {
		return d.text[t.Start:t.End]
	}
	return string(t.Text(d.c.data, &d.c.buf))
}

// findings gathers the engine's failures and where they stand in the arguments.
type findings struct {
	doc    any    // the decoded arguments
	digits []byte // an item's index, written out
	found  []finding
	// The objects and arrays that hold failures form a trie of the engine's location
	// tokens: container 0 is the arguments themselves; next leads to a member or item.
	next       map[step]int32
	containers int32
	start      []int   // where each container starts in the arguments
	first      []int32 // once sorted, container c's findings are found[first[c]:first[c+1]]
}

type step struct {
	from int32
	tok  string
}

// A finding is one violation, not yet built: the engine's error and, when the error names
// several members (missing, undeclared), which one. It is about the member or item token
// of container place, or about place itself when it has no token.
type finding struct {
	err   *engine.Failure
	item  int32 // index into the error's member names, or -1
	place int32
	seq   int32 // order in the engine's tree, which breaks ties
	pos   int   // where the value stands in the arguments, once placed
}

func (f *finding) token() (string, bool) {
	switch f.err.Kind {
	case engine.Required, engine.DependentRequired, engine.Dependency:
		return "", false
	case engine.AdditionalProperties, engine.PropertyNames:
		return f.err.Names[f.item], true
	case engine.AdditionalItems:
		return strconv.Itoa(int(f.item)), true
	}
	loc := f.err.InstanceLocation
	if len(loc) == 0 {
		return "", false
	}
	return loc[len(loc)-1], true
}

// at returns the container reached from container c by the tokens of loc.
func (r *findings) at(c int32, loc []string) int32 {
	for _, tok := range loc {
		d, ok := r.next[step{c, tok}]
		if !ok {
			d = r.containers
			r.containers++
			r.next[step{c, tok}] = d
		}
		c = d
	}
	return c
}

// grown doubles a full slice, so that a long list costs twice its size, where append
// would make it cost up to five times.
func grown[S ~[]E, E any](s S) S {
	if len(s) < cap(s) {
		return s
	}
	t := make(S, len(s), max(2*len(s), 8))
	copy(t, s)
	return t
}

func (r *findings) add(e *engine.Failure, item int, c int32) {
	r.found = append(grown(r.found), finding{err: e, item: int32(item), place: c})
}

// collect gathers the failures under e. The first depth tokens of its location lead to
// container base. Where the engine explains a failed anyOf or oneOf by every alternative,
// only the alternative with the fewest failures is kept.
func (r *findings) collect(e *engine.Failure, base int32, depth int) {
	loc := e.InstanceLocation
	if len(loc) < depth {
		base, depth = 0, 0
	}
	// Causes and the failure of the value itself start from the value's container, so that
	// only values that hold failures become containers.
	outer, outerDepth := int32(0), 0
	if len(loc) > 0 {
		outer, outerDepth = r.at(base, loc[depth:len(loc)-1]), len(loc)-1
	}
	here := func() int32 { return r.at(base, loc[depth:]) }
	switch e.Kind {
	case engine.Group:
		for _, cause := range e.Causes {
			r.collect(cause, outer, outerDepth)
		}
	case engine.AnyOf, engine.OneOf:
		if len(e.Indexes) > 1 {
			r.add(e, -1, outer)
			break
		}
		// Each alternative's failures are gathered after the best so far, then moved down
		// in its place or dropped.
		start, best := len(r.found), -1
		for _, cause := range e.Causes {
			mark := len(r.found)
			r.collect(cause, outer, outerDepth)
			if n := len(r.found) - mark; best < 0 || n < best {
				r.found = append(r.found[:start], r.found[mark:]...)
				best = n
				if n == 0 {
					best = -1
				}
			} else {
				r.found = r.found[:mark]
			}
		}
		if best < 0 {
			r.add(e, -1, outer)
		}
	case engine.Required, engine.DependentRequired, engine.Dependency, engine.AdditionalProperties:
		r.addEach(e, len(e.Names), here())
	case engine.AdditionalItems:
		// One failure of the array: one finding per item beyond those allowed.
		_, v := instancePath(loc, r.doc)
		arr, _ := v.([]any)
		for i := len(arr) - e.N; i < len(arr); i++ {
			r.add(e, i, here())
		}
	case engine.PropertyNames:
		r.add(e, 0, here())
	default:
		r.add(e, -1, outer)
	}
}

func (r *findings) addEach(e *engine.Failure, n int, c int32) {
	for i := range n {
		r.add(e, i, c)
	}
}

// placeAll notes where each finding's value stands, in one walk over the arguments.
// Findings are first grouped by container, then by token, so that the walk finds those of
// each member or item by binary search.
func (r *findings) placeAll(args []byte) {
	slices.SortFunc(r.found, func(a, b finding) int {
		if c := cmp.Compare(a.place, b.place); c != 0 {
			return c
		}
		ta, oka := a.token()
		tb, okb := b.token()
		switch {
		case oka == okb:
			return tokenCompare(ta, tb)
		case oka:
			return 1
		}
		return -1
	})
	r.first = make([]int32, r.containers+1)
	for _, f := range r.found {
		r.first[f.place+1]++
	}
	for c := 1; c < len(r.first); c++ {
		r.first[c] += r.first[c-1]
	}
	r.start = make([]int, r.containers)
	s := &cursor{data: args}
	if s.peek() != 0 {
		r.walk(s, 0)
	}
}

// walk moves s past one value, container c of the trie, or no container when c < 0.
func (r *findings) walk(s *cursor, c int32) {
	var own []finding
	if c >= 0 {
		r.start[c] = s.pos
		own = r.found[r.first[c]:r.first[c+1]]
		for len(own) > 0 {
			if _, ok := own[0].token(); ok {
				break
			}
			own[0].pos = s.pos
			if own[0].item >= 0 {
				own[0].pos++ // a missing member: just inside the object
			}
			own = own[1:]
		}
	}
	switch s.peek() {
	case '{':
		for name := range s.eachMember() {
			r.walk(s, r.enter(c, own, name.Text(s.data, &s.buf), s.pos))
		}
	case '[':
		for i := range s.eachItem() {
			r.digits = strconv.AppendInt(r.digits[:0], int64(i), 10)
			r.walk(s, r.enter(c, own, r.digits, s.pos))
		}
	default:
		s.skipValue()
	}
}

// enter places the findings of container c about its member or item tok, whose value
// starts at pos, and returns the container of that value, or -1.
func (r *findings) enter(c int32, own []finding, tok []byte, pos int) int32 {
	if c < 0 {
		return -1
	}
	i, found := slices.BinarySearchFunc(own, tok, func(f finding, tok []byte) int {
		t, _ := f.token()
		return tokenCompare(t, tok)
	})
	for ; found && i < len(own); i++ {
		if t, _ := own[i].token(); t != string(tok) {
			break
		}
		own[i].pos = pos
	}
	if d, ok := r.next[step{c, string(tok)}]; ok {
		return d
	}
	return -1
}

// tokenCompare orders tokens so that array indexes, written in decimal, sort as numbers.
func tokenCompare[B string | []byte](a string, b B) int {
	if len(a) != len(b) {
		return cmp.Compare(len(a), len(b))
	}
	switch {
	case a < string(b):
		return -1
	case a > string(b):
		return 1
	}
	return 0
}

// compare orders failures by where their value stands in the arguments; a missing member
// sorts just inside its parent, before the parent's members. At the same place the shorter
// path comes first, then the order in the engine's tree.
func compare(a, b finding) int {
	return cmp.Or(cmp.Compare(a.pos, b.pos), cmp.Compare(a.depth(), b.depth()), cmp.Compare(a.seq, b.seq))
}

// depth is the length of the violation's path.
func (f *finding) depth() int {
	if f.item >= 0 {
		return len(f.err.InstanceLocation) + 1
	}
	return len(f.err.InstanceLocation)
}

// schemaAt returns the schema object of the document tree that the engine's schema URL
// names, or nil when it is not a place in the document itself (a metaschema the engine
// knows; it gives the places of subschemas under an $id from the document's root).
func schemaAt(tree any, schemaURL string) *schemaObject {
	ptr, ok := strings.CutPrefix(schemaURL, engine.URL+"#")
	if !ok {
		return nil
	}
	v, _, _ := atPointer(tree, ptr)
	o, _ := v.(*schemaObject)
	return o
}

// violation builds the Violation of a finding; tree is the parsed schema, from which the
// texts the subset gives are taken: types in the schema's order, bounds as written.
func (f *finding) violation(doc, tree any) Violation {
	e := f.err
	path, value := instancePath(e.InstanceLocation, doc)
	m := &mapping{f: f, tree: tree, o: schemaAt(tree, e.SchemaURL), refused: value}
	v := Violation{Kind: KindOther, Path: path, Keyword: e.Keyword}
	if !m.object(&v) && !m.array(&v) && !m.value(&v) && !m.text(&v) && !m.number(&v) && !m.applicator(&v) {
		v.Detail = "does not satisfy the schema's " + strconv.Quote(v.Keyword) + " keyword"
	}
	return v
}

// A mapping is a finding on its way to a Violation. Each of its methods maps the engine's
// kinds of one group of keywords, and says whether the finding's kind is one of them.
type mapping struct {
	f       *finding
	tree    any           // the parsed schema
	o       *schemaObject // the schema object whose keyword failed; nil in a metaschema
	refused any           // the value at the finding's path
}

// withName extends the path of an object by the member name.
func withName(path Path, name string) Path {
	return append(path, PathElem{Name: strings.Clone(name)})
}

// object maps required, dependencies, additionalProperties, propertyNames and the
// member counts.
func (m *mapping) object(v *Violation) bool {
	switch e := m.f.err; e.Kind {
	case engine.Required:
		v.Kind, v.Path = KindRequired, withName(v.Path, e.Names[m.f.item])
	case engine.DependentRequired:
		v.Kind, v.Keyword, v.Name = KindDependentRequired, "dependentRequired", e.Prop
		v.Path = withName(v.Path, e.Names[m.f.item])
	case engine.Dependency:
		v.Kind, v.Keyword, v.Name = KindDependentRequired, "dependencies", e.Prop
		v.Path = withName(v.Path, e.Names[m.f.item])
	case engine.AdditionalProperties:
		v.Kind, v.Path = KindAdditional, withName(v.Path, e.Names[m.f.item])
	case engine.PropertyNames:
		v.Detail, v.Path = namesDetail, withName(v.Path, e.Names[0])
	case engine.MinProperties:
		v.Kind, v.Limit = KindMinProperties, strconv.Itoa(e.N)
	case engine.MaxProperties:
		v.Kind, v.Limit = KindMaxProperties, strconv.Itoa(e.N)
	default:
		return false
	}
	return true
}

// array maps the item counts, uniqueItems, additionalItems and contains.
func (m *mapping) array(v *Violation) bool {
	switch e := m.f.err; e.Kind {
	case engine.MinItems:
		v.Kind, v.Limit = KindMinItems, strconv.Itoa(e.N)
	case engine.MaxItems:
		v.Kind, v.Limit = KindMaxItems, strconv.Itoa(e.N)
	case engine.UniqueItems:
		v.Kind, v.Indexes = KindUniqueItems, []int{e.Indexes[0], e.Indexes[1]}
	case engine.AdditionalItems:
		arr, _ := m.refused.([]any)
		v.Kind, v.Limit = KindAdditionalItem, strconv.Itoa(len(arr)-e.N)
		v.Path = append(v.Path, PathElem{Index: int(m.f.item), IsIndex: true})
	case engine.Contains:
		v.Detail = containsViolation(v.Keyword, 1).Detail
	case engine.MinContains:
		v.Detail = containsViolation(v.Keyword, e.N).Detail
	case engine.MaxContains:
		v.Detail = containsViolation(v.Keyword, e.N).Detail
	default:
		return false
	}
	return true
}

// value maps type, enum and const.
func (m *mapping) value(v *Violation) bool {
	switch e := m.f.err; e.Kind {
	case engine.Type:
		v.Kind, v.Types, v.Got = KindType, e.Types, jsonTypeOf(m.refused) // the engine's Got does not tell whole numbers apart
		if names := typeNames(m.o.member("type")); names != nil {
			v.Types = names
		}
	case engine.Enum:
		v.Kind, v.Values = KindEnum, texts(e.Values...)
		if list, ok := m.o.member("enum").([]any); ok {
			v.Values = schemaTexts(list)
		}
	case engine.Const:
		v.Kind, v.Values = KindConst, texts(e.Values...)
		if c, ok := m.o.get("const"); ok {
			v.Values = []string{jsonText(c)}
		}
	default:
		return false
	}
	return true
}

// text maps minLength, maxLength, pattern and format.
func (m *mapping) text(v *Violation) bool {
	switch e := m.f.err; e.Kind {
	case engine.MinLength:
		v.Kind, v.Limit = KindMinLength, strconv.Itoa(e.N)
	case engine.MaxLength:
		v.Kind, v.Limit = KindMaxLength, strconv.Itoa(e.N)
	case engine.Pattern:
		v.Kind, v.Limit = KindPattern, e.Text
	case engine.Format:
		v.Kind, v.Limit = KindFormat, e.Text
	default:
		return false
	}
	return true
}

// number maps minimum, maximum, their exclusive bounds and multipleOf.
func (m *mapping) number(v *Violation) bool {
	switch m.f.err.Kind {
	case engine.Minimum:
		v.Kind = KindMinimum
	case engine.Maximum:
		v.Kind = KindMaximum
	case engine.ExclusiveMinimum:
		v.Kind = KindExclusiveMinimum
	case engine.ExclusiveMaximum:
		v.Kind = KindExclusiveMaximum
	case engine.MultipleOf:
		v.Kind = KindMultipleOf
	default:
		return false
	}
	v.Limit = m.bound(v.Keyword, m.f.err.Bound)
	return true
}

// draft04Bound gives the bound that draft-04's exclusiveMinimum or exclusiveMaximum, when
// true, makes exclusive.
var draft04Bound = map[string]string{"exclusiveMinimum": "minimum", "exclusiveMaximum": "maximum"}

// bound returns the limit of the number keyword as the schema writes it, or the engine's
// want as a decimal where the schema object is not at hand.
func (m *mapping) bound(keyword string, want *big.Rat) string {
	if n, ok := m.o.member(keyword).(json.Number); ok {
		return string(n)
	}
	if inclusive, ok := draft04Bound[keyword]; ok && m.o.member(keyword) == true {
		if n, ok := m.o.member(inclusive).(json.Number); ok {
			return string(n)
		}
	}
	return ratText(want)
}

// applicator maps the failures of anyOf, oneOf, not, false schemas and $ref loops.
func (m *mapping) applicator(v *Violation) bool {
	switch e := m.f.err; e.Kind {
	case engine.AnyOf:
		v.Kind = KindNoMatch
	case engine.OneOf:
		v.Kind = KindNoMatch
		if len(e.Indexes) > 1 {
			v.Kind, v.Indexes = KindManyMatch, e.Indexes
		}
	case engine.Not:
		m.not(v)
	case engine.FalseSchema:
		m.falseSchema(v)
	case engine.RefCycle:
		v.Detail = "the schema loops here without descending into the arguments"
	default:
		return false
	}
	return true
}

// not describes the schema under "not" when it is a plain type or value list.
func (m *mapping) not(v *Violation) {
	v.Kind, v.Keyword = KindNot, "not"
	not, ok := m.o.member("not").(*schemaObject)
	if !ok {
		return
	}
	v.Types = typeNames(not.member("type"))
	if c, ok := not.get("const"); ok {
		v.Values = []string{jsonText(c)}
	} else if list, ok := not.member("enum").([]any); ok {
		v.Values = schemaTexts(list)
	}
}

// falseSchema tells which keyword's false schema refused the value.
func (m *mapping) falseSchema(v *Violation) {
	url := m.f.err.SchemaURL
	switch {
	case strings.HasSuffix(url, "/unevaluatedProperties"):
		v.Kind, v.Keyword = KindAdditional, "unevaluatedProperties"
	case strings.HasSuffix(url, "/unevaluatedItems"):
		v.Kind, v.Keyword = KindAdditionalItem, "unevaluatedItems"
	case strings.HasSuffix(url, "/items"): // 2020-12's items false, past prefixItems
		prefix, _ := schemaAt(m.tree, strings.TrimSuffix(url, "/items")).member("prefixItems").([]any)
		v.Kind, v.Keyword, v.Limit = KindAdditionalItem, "items", strconv.Itoa(len(prefix))
	default:
		v.Kind, v.Keyword = KindForbidden, "false"
	}
}

// member returns the value of the member k of o, or nil, also when o is nil.
func (o *schemaObject) member(k string) any {
	v, _ := o.get(k)
	return v
}

// typeNames lists the names of a type keyword's value, as the schema writes them.
func typeNames(v any) []string {
	switch v := v.(type) {
	case string:
		return []string{v}
	case []any:
		names := make([]string, 0, len(v))
		for _, t := range v {
			if s, ok := t.(string); ok {
				names = append(names, s)
			}
		}
		return names
	}
	return nil
}

// instancePath turns the engine's location into a Path, telling indexes from names by
// looking at the decoded arguments. It leaves room for one more element. Names are copied:
// the decoded arguments share one string, which a kept Violation must not hold.
func instancePath(loc []string, doc any) (Path, any) {
	if len(loc) == 0 {
		return nil, doc
	}
	p := make(Path, 0, len(loc)+1)
	cur := doc
	for _, tok := range loc {
		switch c := cur.(type) {
		case []any:
			i, _ := strconv.Atoi(tok)
			p = append(p, PathElem{Index: i, IsIndex: true})
			if i >= 0 && i < len(c) {
				cur = c[i]
			}
		case map[string]any:
			p = append(p, PathElem{Name: strings.Clone(tok)})
			cur = c[tok]
		default:
			p = append(p, PathElem{Name: strings.Clone(tok)})
		}
	}
	return p, cur
}

// schemaTexts writes the values of the parsed schema as the schema has them, members in
// their order, as the subset does.
func schemaTexts(vals []any) []string {
	out := make([]string, len(vals))
	for i, v := range vals {
		out[i] = jsonText(v)
	}
	return out
}

// texts writes the engine's values, where the schema's are not at hand.
func texts(vals ...any) []string {
	out := make([]string, len(vals))
	for i, v := range vals {
		b, _ := json.Marshal(v)
		out[i] = string(b)
	}
	return out
}

// ratText writes a bound as the shortest exact decimal, or as a fraction when none exists.
func ratText(r *big.Rat) string {
	if r.IsInt() {
		return r.Num().String()
	}
	for prec := 1; prec <= 40; prec++ {
		s := r.FloatString(prec)
		if back, ok := new(big.Rat).SetString(s); ok && back.Cmp(r) == 0 {
			return s
		}
	}
	return r.RatString()
}
