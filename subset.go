package mcpvalidate

import (
	"bytes"
	"encoding/binary"
	"hash/maphash"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
)

// A Validator checks tool arguments against one compiled inputSchema. It is immutable and
// safe for concurrent use.
type Validator struct {
	root *node
	// objectRoot: only the root's own keywords apply to arguments that are an object, and
	// they allow one, so such arguments go straight to the object scanner.
	objectRoot bool
	cfg        config
	full       *fullEngine // set under WithFullEngine
	// The explaining pass allocates nothing on a valid call either: the state of a finished
	// call is kept for the next, one at hand for the common case of one call at a time, the
	// others in a pool. The quick pass needs no state.
	spare atomic.Pointer[state]
	pool  sync.Pool
}

// Compile compiles a tool's inputSchema (JSON Schema 2020-12; 2019-09, draft-07, draft-06
// and draft-04 when $schema names them). Errors are *SchemaError values naming the place.
func Compile(schema []byte, opts ...Option) (*Validator, error) {
	return compile(schema, newConfig(opts))
}

func compile(schema []byte, cfg config) (*Validator, error) {
	tree, err := parseSchema(schema)
	if err != nil {
		return nil, &SchemaError{Location: "#", Reason: "not valid JSON: " + err.Error()}
	}
	if cfg.fullEngine {
		full, err := compileFull(schema, tree, cfg)
		if err != nil {
			return nil, err
		}
		full.reason = "WithFullEngine is on"
		return &Validator{cfg: cfg, full: full}, nil
	}
	d := draft2020
	if o, ok := tree.(*object); ok {
		if s, ok := o.get("$schema"); ok {
			uri, _ := s.(string)
			dd, known := dialectOf(uri)
			if !known {
				return nil, &SchemaError{Location: "#/$schema", Reason: "unknown dialect " + strconv.Quote(uri) + ": use JSON Schema 2020-12, 2019-09, draft-07, draft-06 or draft-04"}
			}
			d = dd
		}
	}
	root, err := compileSubset(tree, cfg, d)
	if err != nil {
		return nil, err
	}
	v := &Validator{root: root, cfg: cfg}
	v.objectRoot = !root.applicators && !root.reject && root.enum == nil && root.constant == nil &&
		(root.types == 0 || root.types&tObject != 0)
	return v, nil
}

// FullEngine says why this schema is validated by the full JSON Schema engine rather than the
// subset (WithFullEngine), or returns "" when the subset handles it.
func (v *Validator) FullEngine() string {
	if v.full == nil {
		return ""
	}
	return v.full.reason
}

// Validate checks the arguments as they came over the wire. It returns nil when they are
// valid; otherwise the violations: at each object, first every missing required member in
// the order of "required", then the members in their order in args.
func (v *Validator) Validate(args []byte) []Violation {
	var vs []Violation
	switch {
	case v.full != nil:
		// Syntax, depth and duplicate names first: decoding for the engine would hide them.
		if vs = v.wellFormed(args, true); vs == nil {
			vs = v.full.validate(args, v.cfg.maxViolations)
		}
	case v.quickValid(args):
		return nil
	default:
		vs = v.check(args)
	}
	if vs != nil && v.cfg.hints {
		v.hint(args, vs)
	}
	return vs
}

// check is the explaining pass: it finds every violation, in order, with its path.
func (v *Validator) check(args []byte) []Violation {
	s := v.state(args)
	s.root()
	out := s.result()
	v.release(s)
	return out
}

// root checks the whole arguments against the whole schema.
func (s *state) root() {
	s.skipWS()
	if s.v.objectRoot && s.pos < len(s.data) && s.data[s.pos] == '{' {
		s.object(s.v.root, 0)
	} else {
		s.value(s.v.root, 0)
	}
	s.end()
}

// wellFormed checks only what holds for every schema: one JSON value, nested no deeper
// than the limit, with unique member names. forEngine also refuses numbers the full
// engine cannot take.
func (v *Validator) wellFormed(args []byte, forEngine bool) []Violation {
	s := v.state(args)
	s.forEngine = forEngine
	s.value(nil, 0)
	s.end()
	out := s.result()
	v.release(s)
	return out
}

func (v *Validator) state(args []byte) *state {
	s := v.spare.Swap(nil)
	if s == nil {
		s, _ = v.pool.Get().(*state)
	}
	if s == nil {
		s = &state{}
	}
	s.reset(v, args)
	return s
}

// release keeps a finished call's state for the next one, without the memory a large or
// hostile call made it grow.
func (v *Validator) release(s *state) {
	if s.oversized() {
		return
	}
	s.data = nil
	if len(s.typeLists) > 0 {
		clear(s.typeLists)
		s.typeLists = s.typeLists[:0]
	}
	if !v.spare.CompareAndSwap(nil, s) {
		v.pool.Put(s)
	}
}

// state is one validation in progress. It is pooled: its slices keep their capacity.
type state struct {
	v        *Validator
	data     []byte
	pos      int
	maxDepth int
	out      []Violation
	count    int  // violations found, including those beyond the limit
	quiet    int  // > 0 while only a verdict is needed (inside anyOf, oneOf, not, if)
	abort    bool // a syntax error or too deep: nothing more is checked
	path     []seg
	buf      []byte      // decoded string
	nbuf     []byte      // number digits
	keys     []memberKey // member names of the objects being scanned, for duplicates
	index    []int32     // hash tables over keys, for objects with many names
	items    [][2]int
	moved    []Violation // scratch for reordering
	// The paths and names of one call's violations are carved from shared blocks, made
	// anew for each call since the violations keep them. A member's name is copied once
	// per call, however many violations lie below it.
	slab     []PathElem
	names    strings.Builder
	segNames []segName // by level of the path: where the names were copied to

	counting    int                    // > 0 while violations are counted, not recorded (explain)
	types       typeCollector          // of the alternative being counted
	typeLists   [][]string             // memoResult.types
	recordedDup int                    // duplicate member names before this offset are recorded already
	rescanned   int                    // the work of the call beyond s.pos (see jump); > 0 after a jump
	budget      int                    // work beyond which results are remembered
	remember    bool                   // results are remembered: the work passed the budget
	memo        map[memoKey]memoResult // results by schema and position
	forEngine   bool                   // refuse numbers the full engine cannot take
	evaluators  []*node                // the schemas that evaluate the values being checked for unevaluated*
	gathered    map[*node]uint32       // the last gather that added each schema to evaluators
	gathers     uint32                 // gathers begun
	altTypes    []string               // the types asked for by the alternatives being explained
	order       []int                  // scratch: the member each violation of an object is about
}

// reset makes s ready to validate args for v, keeping the capacity its slices have.
func (s *state) reset(v *Validator, args []byte) {
	s.v, s.data, s.pos, s.maxDepth = v, args, 0, v.cfg.maxDepth
	s.out, s.count, s.quiet, s.abort = s.out[:0], 0, 0, false
	clear(s.segNames) // they hold the last call's names
	s.path, s.keys, s.items, s.index, s.segNames = s.path[:0], s.keys[:0], s.items[:0], s.index[:0], s.segNames[:0]
	s.slab = nil
	s.names.Reset()
	s.forEngine, s.remember, s.counting, s.recordedDup = false, false, 0, 0
	s.rescanned, s.budget = 0, rescanFree+rescanFactor*len(args)
	s.evaluators, s.altTypes, s.order = s.evaluators[:0], s.altTypes[:0], s.order[:0]
	if s.gathers = 0; len(s.gathered) > 0 {
		clear(s.gathered) // gather numbers start again at 1
	}
	s.types = typeCollector{level: -1}
	if len(s.memo) > 0 {
		clear(s.memo)
	}
}

// oversized reports whether a call made s grow past what is worth keeping for the next.
func (s *state) oversized() bool {
	const most = 1 << 16
	return cap(s.buf) > most || cap(s.nbuf) > most || cap(s.keys) > most || cap(s.index) > most || cap(s.items) > most ||
		cap(s.path) > most || cap(s.out) > most || len(s.memo) > most || cap(s.segNames) > most || cap(s.typeLists) > most ||
		cap(s.evaluators) > most || cap(s.altTypes) > most || cap(s.order) > most || len(s.gathered) > most
}

// segName is the copy in s.names of the long member name at one level of the path, whose
// token starts at start in the arguments; every violation below it shares that copy.
type segName struct {
	start int
	name  string
}

// seg is one step of the current path: a member name token or an array index. It holds
// no pointer, so keeping the path costs no write barrier.
type seg struct {
	name  str
	index int // -1 for a member
}

// end checks that nothing but space follows the arguments.
func (s *state) end() {
	if s.skipWS(); !s.abort && s.pos < len(s.data) {
		s.syntax("unexpected data after the arguments")
	}
}

// result returns the violations, applying the limit.
func (s *state) result() []Violation {
	if len(s.out) == 0 {
		return nil
	}
	limit := s.v.cfg.maxViolations
	n := min(len(s.out), limit)
	if s.count <= n {
		out := s.out // handed over whole: the next call starts a list of its own
		s.out = nil
		return out
	}
	out := make([]Violation, n, n+1)
	copy(out, s.out)
	return append(out, Violation{Kind: KindTruncated, Count: s.count - n})
}

// fail records a violation at the current path. Under quiet it only counts.
func (s *state) fail(v Violation) {
	s.record(&v, "", false)
}

// miss counts a violation under quiet, where fail would record nothing, without building it.
func (s *state) miss() {
	if !s.abort {
		s.count++
	}
}

// failMember records a violation about the member name of the current object.
func (s *state) failMember(name string, v Violation) {
	s.record(&v, name, true)
}

func (s *state) record(v *Violation, name string, isMember bool) {
	if s.abort {
		return // the syntax or depth violation is the whole answer
	}
	switch {
	case s.quiet > 0:
		s.count++
		return
	case s.counting > 0:
		s.count++
		if v.Kind == KindType && len(s.path) == s.types.level {
			s.types.names = appendNew(s.types.names, v.Types...)
		}
		return
	case len(s.out) > s.v.cfg.maxViolations:
		s.count++
		return
	case s.rescanned > 0 && s.listed(v, name, isMember):
		return // found again by another pass over the value (there is none before a first jump)
	}
	s.count++
	if s.out == nil {
		s.out = make([]Violation, 0, 4) // the answer itself, unless it is truncated
	}
	s.out = append(s.out, *v)
	s.out[len(s.out)-1].Path = s.currentPath(name, isMember)
}

// currentPath renders the path stack, followed by a member name if isMember.
func (s *state) currentPath(name string, isMember bool) Path {
	n := len(s.path)
	if isMember {
		n++
	}
	if n == 0 {
		return nil
	}
	if cap(s.slab)-len(s.slab) < n {
		s.slab = make([]PathElem, 0, max(n, 2*cap(s.slab), 4))
	}
	p := s.slab[len(s.slab) : len(s.slab)+n : len(s.slab)+n]
	s.slab = s.slab[:len(s.slab)+n]
	for i, e := range s.path {
		p[i] = PathElem{Index: e.index}
		if e.index < 0 {
			p[i].Name = s.segName(i)
		}
	}
	if isMember {
		p[n-1] = PathElem{Name: name, Index: -1}
	}
	return p
}

// segName returns the member name at level i of the path. A long name is copied only the
// first time, however many violations lie below it; a short one costs less to copy again
// than to look up.
func (s *state) segName(i int) string {
	tok := s.path[i].name
	long := tok.end-tok.start >= 64
	if long && i < len(s.segNames) && s.segNames[i].start == tok.start {
		return s.segNames[i].name
	}
	if s.names.Cap() == 0 {
		s.names.Grow(16)
	}
	from := s.names.Len()
	s.names.Write(tok.text(s.data, &s.buf))
	name := s.names.String()[from:]
	if long {
		for len(s.segNames) <= i {
			s.segNames = append(s.segNames, segName{start: -1})
		}
		s.segNames[i] = segName{tok.start, name}
	}
	return name
}

// segIs reports whether the member name at level i of the path is name, copying nothing.
func (s *state) segIs(i int, name string) bool {
	tok := s.path[i].name
	if i < len(s.segNames) && s.segNames[i].start == tok.start {
		return s.segNames[i].name == name
	}
	return string(tok.text(s.data, &s.buf)) == name
}

// listed reports whether the violation v, at the current path (followed by name if
// isMember), is listed already.
func (s *state) listed(v *Violation, name string, isMember bool) bool {
	for i := range s.out {
		o := &s.out[i]
		if o.Kind == v.Kind && o.Keyword == v.Keyword && o.Limit == v.Limit && o.Name == v.Name &&
			o.Count == v.Count && o.Detail == v.Detail && slices.Equal(o.Types, v.Types) &&
			slices.Equal(o.Values, v.Values) && slices.Equal(o.Indexes, v.Indexes) && s.atPath(o.Path, name, isMember) {
			return true
		}
	}
	return false
}

// atPath reports whether p is the current path, followed by name if isMember. Paths that
// differ mostly differ at the end, where it starts.
func (s *state) atPath(p Path, name string, isMember bool) bool {
	if isMember {
		if len(p) != len(s.path)+1 || p[len(p)-1].Name != name || p[len(p)-1].Index >= 0 {
			return false
		}
		p = p[:len(p)-1]
	}
	if len(p) != len(s.path) {
		return false
	}
	for i := len(p) - 1; i >= 0; i-- {
		e := s.path[i]
		if p[i].Index != e.index || e.index < 0 && !s.segIs(i, p[i].Name) {
			return false
		}
	}
	return true
}

// value validates the value at s.pos against n (nil accepts anything) and moves past it.
// It reports whether the value is valid; under quiet it may stop early on failure.
func (s *state) value(n *node, depth int) bool {
	n = n.target()
	if s.skipWS(); s.pos >= len(s.data) {
		s.syntax("unexpected end of input: a value is missing")
		return false
	}
	if s.direct(n) {
		return s.own(n, depth) == passed
	}
	if s.remember || len(s.memo) > 0 || s.counting > 0 {
		return s.remembered(n, depth)
	}
	// The common case: n has applicators, and nothing is remembered yet.
	start := s.pos
	if ok := s.evaluate(n, depth); ok || s.quiet > 0 || s.abort {
		return ok
	}
	s.recorded(n, start)
	return false
}

// direct reports whether the value at s.pos, which is not space, goes straight to n's own
// keywords (n nil: to the scanner): n has no applicators, and the value is a scalar, which
// costs its own length, or results are not being remembered.
func (s *state) direct(n *node) bool {
	return (n == nil || !n.applicators) && (!s.remember || !container[s.data[s.pos]])
}

// evaluate validates the value at s.pos, which is not space, against n (nil: any value).
func (s *state) evaluate(n *node, depth int) bool {
	if n == nil || !n.applicators {
		return s.own(n, depth) == passed
	}
	start, end := s.pos, -1 // end is found by the first complete pass over the value
	mark := len(s.out)
	r := passed
	if !n.inPlaceOnly {
		r = s.own(n, depth)
		if s.abort || r != passed && s.quiet > 0 {
			return false
		}
		if r == wrongType {
			return false // one violation per value: its type
		}
		end = s.pos
	}
	ok, end := s.applicators(n, start, end, depth)
	if s.abort || !ok && s.quiet > 0 {
		return false
	}
	if end < 0 {
		s.jump(start)
		if !s.skip(typeOfFirst(s.data[start]), depth) {
			return false
		}
		end = s.pos
	}
	if (n.unevalProps != nil || n.unevalItems != nil) && !s.unevaluated(n, start, depth, mark) {
		ok = false
		if s.abort || s.quiet > 0 {
			return false
		}
	}
	if s.pos != end {
		s.jump(end)
	}
	return ok && r == passed
}

// status is what checking a value's own keywords found.
type status uint8

const (
	passed status = iota
	failed
	wrongType
)

// typeOfFirst maps the first byte of a value to its JSON type.
func typeOfFirst(c byte) typeSet {
	return typesByFirst[c]
}

var typesByFirst = [256]typeSet{'{': tObject, '[': tArray, '"': tString, 't': tBoolean, 'f': tBoolean, 'n': tNull,
	'-': tNumber, '0': tNumber, '1': tNumber, '2': tNumber, '3': tNumber, '4': tNumber,
	'5': tNumber, '6': tNumber, '7': tNumber, '8': tNumber, '9': tNumber}

var container = [256]bool{'{': true, '[': true}

// own checks the keywords of n that look at the value itself, scanning it once.
func (s *state) own(n *node, depth int) status {
	c := s.data[s.pos]
	t := typeOfFirst(c)
	if t == 0 {
		s.syntax("expected a value")
		return failed
	}
	if n == nil {
		if !s.skip(t, depth) {
			return failed
		}
		return passed
	}
	if n.reject {
		s.fail(Violation{Kind: KindForbidden, Keyword: "false"})
		if s.quiet > 0 {
			return failed
		}
		s.skip(t, depth)
		return failed
	}
	switch t {
	case tObject, tArray:
		start := s.pos
		var r status
		if t == tObject {
			r = s.object(n, depth)
		} else {
			r = s.array(n, depth)
		}
		if r == wrongType || s.abort || n.enum == nil && n.constant == nil || r == failed && s.quiet > 0 {
			return r
		}
		end := s.pos
		s.jump(start)
		key := s.canonical(nil)
		s.jump(end)
		if c := s.setCheck(n, tObject, key); c != passed {
			return c
		}
		return r
	case tString:
		tok, end, problem := scanString(s.data, s.pos)
		s.pos = end
		if problem != "" {
			s.syntax(problem)
			return failed
		}
		if n.types != 0 && n.types&tString == 0 {
			s.wrongType(n, "string")
			return wrongType
		}
		if !n.stringWork {
			return passed
		}
		return s.stringValue(n, tok)
	case tNumber:
		start := s.pos
		end, whole, problem := scanNumber(s.data, start)
		s.pos = end
		if problem != "" {
			s.syntax(problem)
			return failed
		}
		if !n.numberWork && (n.types == 0 || n.types&tNumber != 0 || whole && n.types&tInteger != 0) {
			return passed
		}
		return s.numberValue(n, s.data[start:end])
	}
	word := "null"
	if c == 't' {
		word = "true"
	} else if c == 'f' {
		word = "false"
	}
	if !s.readLiteral(word) {
		return failed
	}
	if !s.typeOK(n, t) {
		return wrongType
	}
	if n.enum == nil && n.constant == nil {
		return passed
	}
	return s.setCheck(n, t, s.data[s.pos-len(word):s.pos])
}

func (s *state) typeOK(n *node, t typeSet) bool {
	if n.types == 0 || n.types&t != 0 {
		return true
	}
	s.wrongType(n, sentType[t])
	return false
}

// sentType names the type of a value that is not a number.
var sentType = map[typeSet]string{tObject: "object", tArray: "array", tString: "string", tBoolean: "boolean", tNull: "null"}

// wrongType records that the value, of the type got, has none of the types n allows.
func (s *state) wrongType(n *node, got string) {
	if s.quiet > 0 {
		s.miss()
		return
	}
	s.fail(Violation{Kind: KindType, Keyword: "type", Types: n.typeNames, Got: got})
}

// setCheck applies const and enum to a value of type t whose key is the decoded string,
// the canonical number or structure, or the literal true, false or null.
func (s *state) setCheck(n *node, t typeSet, key []byte) status {
	return s.refuse(n, n.setKind(t, key))
}

// refuse records the failure of n's keyword of kind k (see violation), if k is not 0.
func (s *state) refuse(n *node, k Kind) status {
	if k == 0 {
		return passed
	}
	if s.quiet > 0 {
		s.miss()
	} else {
		s.fail(n.violation(k))
	}
	return failed
}

// setKind returns KindConst or KindEnum when n's const or enum refuses the value of type t
// whose key is given as for setCheck, or 0.
func (n *node) setKind(t typeSet, key []byte) Kind {
	if n.constant != nil && !n.constant.has(t, key) {
		return KindConst
	}
	if n.enum != nil && !n.enum.has(t, key) {
		return KindEnum
	}
	return 0
}

// skip moves past any value, still checking its syntax, depth and member names.
// It reports whether the value is sound; under quiet it may stop early when it is not.
func (s *state) skip(t typeSet, depth int) bool {
	switch t {
	case tObject:
		return s.object(nil, depth) == passed
	case tArray:
		return s.array(nil, depth) == passed
	case tString:
		_, ok := s.readString()
		return ok
	case tNumber:
		lit, ok := s.readNumber()
		if ok && s.forEngine {
			var n number
			if n, s.nbuf = parseNumber(lit, s.nbuf); outOfEngineRange(n) {
				s.fail(Violation{Kind: KindOther, Detail: "the number's exponent is beyond ±" + strconv.Itoa(engineExpLimit) + ", more than this schema's validator takes"})
				return false
			}
		}
		return ok
	case tBoolean:
		if s.data[s.pos] == 't' {
			return s.readLiteral("true")
		}
		return s.readLiteral("false")
	case tNull:
		return s.readLiteral("null")
	}
	s.syntax("expected a value")
	return false
}

// stringValue applies n's string keywords to the string token t.
func (s *state) stringValue(n *node, t str) status {
	return s.refuse(n, n.stringKind(t.text(s.data, &s.buf), !t.high && !t.escaped))
}

// stringKind returns the kind of the first string keyword of n that text fails, or 0.
// ascii says that text has one byte per character.
func (n *node) stringKind(text []byte, ascii bool) Kind {
	if n.constant != nil && !n.constant.hasString(text) {
		return KindConst
	}
	if n.enum != nil && !n.enum.hasString(text) {
		return KindEnum
	}
	if n.minLength >= 0 || n.maxLength >= 0 {
		length := len(text)
		if !ascii {
			length = runeCount(text)
		}
		if n.minLength >= 0 && length < n.minLength {
			return KindMinLength
		}
		if n.maxLength >= 0 && length > n.maxLength {
			return KindMaxLength
		}
	}
	if n.pattern != nil && !n.pattern.match(text) {
		return KindPattern
	}
	if n.checkFormat != nil && !n.checkFormat(string(text)) {
		return KindFormat
	}
	return 0
}

// violation describes the failure of n's const, enum or string keyword of kind k.
func (n *node) violation(k Kind) Violation {
	switch k {
	case KindConst:
		return Violation{Kind: k, Keyword: "const", Values: []string{n.constantText}}
	case KindEnum:
		return Violation{Kind: k, Keyword: "enum", Values: n.enumTexts}
	case KindMinLength:
		return Violation{Kind: k, Keyword: "minLength", Limit: strconv.Itoa(n.minLength)}
	case KindMaxLength:
		return Violation{Kind: k, Keyword: "maxLength", Limit: strconv.Itoa(n.maxLength)}
	case KindPattern:
		return Violation{Kind: k, Keyword: "pattern", Limit: n.pattern.String()}
	}
	return Violation{Kind: KindFormat, Keyword: "format", Limit: n.format}
}

// numberValue applies n's type and numeric keywords to the number literal lit.
func (s *state) numberValue(n *node, lit []byte) status {
	x := numArg{lit: lit}
	x.small, x.isSmall = smallInt(lit)
	if n.types != 0 && n.types&tNumber == 0 {
		if integral := x.isSmall || s.integral(&x); n.types&tInteger == 0 || !integral {
			got := "number"
			if integral {
				got = "integer"
			}
			s.wrongType(n, got)
			return wrongType
		}
	}
	if n.enum != nil || n.constant != nil {
		key := s.exact(&x).appendCanonical(s.buf[:0])
		s.buf = key
		if r := s.setCheck(n, tNumber, key); r != passed {
			return r
		}
	}
	switch {
	case n.minimum != nil && s.cmpBound(&x, n.minimum) < 0:
		s.fail(Violation{Kind: KindMinimum, Keyword: "minimum", Limit: n.minimum.text})
	case n.exclusiveMinimum != nil && s.cmpBound(&x, n.exclusiveMinimum) <= 0:
		s.fail(Violation{Kind: KindExclusiveMinimum, Keyword: "exclusiveMinimum", Limit: n.exclusiveMinimum.text})
	case n.maximum != nil && s.cmpBound(&x, n.maximum) > 0:
		s.fail(Violation{Kind: KindMaximum, Keyword: "maximum", Limit: n.maximum.text})
	case n.exclusiveMaximum != nil && s.cmpBound(&x, n.exclusiveMaximum) >= 0:
		s.fail(Violation{Kind: KindExclusiveMaximum, Keyword: "exclusiveMaximum", Limit: n.exclusiveMaximum.text})
	case n.multipleOf != nil && !s.multiple(&x, n.multipleOf):
		s.fail(Violation{Kind: KindMultipleOf, Keyword: "multipleOf", Limit: n.multipleOf.text})
	default:
		return passed
	}
	return failed
}

// numArg is a number of the arguments: its literal, its value when the literal is a small
// integer, and its exact form, parsed only when needed.
type numArg struct {
	lit     []byte
	small   int64
	isSmall bool
	exactly number
	parsed  bool
}

func (s *state) exact(x *numArg) number {
	if !x.parsed {
		x.exactly, s.nbuf = parseNumber(x.lit, s.nbuf)
		x.parsed = true
	}
	return x.exactly
}

// integral reports whether x has no fractional part, without parsing it when it is short.
func (s *state) integral(x *numArg) bool {
	if m, frac, ok := smallDecimal(x.lit); ok && frac < len(pow10) {
		return m%pow10[frac] == 0
	}
	return s.exact(x).isInt()
}

func (s *state) cmpBound(x *numArg, b *bound) int {
	if x.isSmall && b.isInt {
		return cmpInt(x.small, b.small)
	}
	if m, frac, ok := smallDecimal(x.lit); ok && b.isInt && frac < len(pow10) {
		if scaled := b.small * pow10[frac]; scaled/pow10[frac] == b.small {
			return cmpInt(m, scaled)
		}
	}
	return s.exact(x).cmp(b.num)
}

func (s *state) multiple(x *numArg, m *bound) bool {
	if x.isSmall && m.isInt {
		return x.small%m.small == 0
	}
	return s.exact(x).multipleOf(m.num)
}

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
	work := n != nil && n.objectWork
	hasPatterns := work && len(n.patterns) > 0
	hasNames := work && n.names != nil
	s.pos++ // '{'
	mark := len(s.out)
	var seen bitset
	if work {
		seen.init(len(n.slots))
	}
	names := memberNames{start: len(s.keys)}
	next := 0 // the property expected next: members tend to come in schema order
	ok := true
	members := 0
	d := s.data
	if i := skipSpace(d, s.pos); i < len(d) && d[i] == '}' {
		s.pos = i + 1
	} else {
		s.path = append(s.path, seg{index: -1}) // named anew by each member
		top := len(s.path) - 1
		for {
			if i >= len(d) || d[i] != '"' {
				s.pos = i
				s.syntax("expected a member name in double quotes")
				return failed
			}
			var key str
			var j int
			p := n.expected(work, next)
			if p != nil && p.at(d, i) {
				// The common case, a declared member in schema order, needs no scan.
				key, j = str{start: i + 1, end: i + len(p.quoted)}, i+1+len(p.quoted)
			} else {
				var problem string
				if key, j, problem = scanString(d, i); problem != "" {
					s.pos = j
					s.syntax(problem)
					return failed
				}
				if p != nil && (key.escaped || p.name != string(d[key.start:key.end])) {
					p = nil
				}
			}
			if i = skipSpace(d, j); i >= len(d) || d[i] != ':' {
				s.pos = i
				s.syntax("expected ':' after a member name")
				return failed
			}
			s.pos = skipSpace(d, i+1)
			members++
			s.path[top].name = key
			valueMark := len(s.out)
			if p != nil && !seen.has(p.slot) {
				seen.set(p.slot)
				next++
				var good bool
				start := s.pos
				if s.pos < len(d) && s.direct(p.node) {
					good = s.own(p.node, depth+1) == passed
				} else {
					good = s.value(p.node, depth+1)
				}
				if hasPatterns && (good || s.quiet == 0) && !s.abort {
					good = s.patterned(n, key, n.firstMatch(key.text(d, &s.buf), 0), start, depth) && good
				}
				if !good {
					ok = false
					if s.quiet > 0 || s.abort {
						return failed
					}
				}
			} else if !s.member(n, work, key, &seen, &names, &next, depth) {
				ok = false
				if s.quiet > 0 || s.abort {
					return failed // test() restores the path and the names
				}
			}
			if hasNames && !s.nameValid(n.names, key, depth+1) {
				ok = false
				if s.refuseName(valueMark); s.quiet > 0 {
					return failed
				}
			}
			if i = skipSpace(d, s.pos); i < len(d) && d[i] == '}' {
				s.pos = i + 1
				s.path = s.path[:top]
				break
			}
			if i >= len(d) || d[i] != ',' {
				s.pos = i
				s.syntax("expected ',' or '}' after an object member")
				return failed
			}
			i = skipSpace(d, i+1)
		}
	}
	s.keys = s.keys[:names.start]
	if names.size > 0 {
		s.index = s.index[:names.base]
	}
	if work && (!n.requiredOnly || seen.small&n.requiredMask != n.requiredMask) && !s.closeObject(n, &seen, members, mark) {
		ok = false
	}
	if ok {
		return passed
	}
	return failed
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

// moveBack moves the violations recorded from tail on to mark, before those recorded since.
func (s *state) moveBack(mark, tail int) {
	s.moved = append(s.moved[:0], s.out[tail:]...)
	s.out = slices.Insert(s.out[:tail], mark, s.moved...)
	clear(s.moved)
}

// expected returns the property declared after the last one seen: members tend to come
// in schema order.
func (n *node) expected(work bool, i int) *prop {
	if !work || i >= len(n.props) {
		return nil
	}
	return &n.props[i]
}

// at reports whether the member name starting at d[i], its opening quote, is p's.
func (p *prop) at(d []byte, i int) bool {
	if p.short && i+17 <= len(d) {
		return binary.LittleEndian.Uint64(d[i+1:])&p.masks[0] == p.words[0] &&
			binary.LittleEndian.Uint64(d[i+9:])&p.masks[1] == p.words[1]
	}
	e := i + 1 + len(p.quoted)
	return p.quoted != "" && e <= len(d) && string(d[i+1:e]) == p.quoted
}

// member validates one member's value; the path already names it.
func (s *state) member(n *node, work bool, key str, seen *bitset, names *memberNames, next *int, depth int) bool {
	name := key.text(s.data, &s.buf)
	idx := -1
	if work {
		idx = n.lookup(name) // the member expected next took the short path in object
		*next = idx + 1
	}
	if idx >= 0 {
		p := &n.props[idx]
		if seen.has(p.slot) {
			// A declared name joins the names of the object when it first repeats.
			if s.find(key, names) < 0 {
				s.keys[len(s.keys)-1].repeated = true
				s.duplicated(key)
			}
			s.value(nil, depth+1)
			return false
		}
		seen.set(p.slot)
		start := s.pos
		ok := s.value(p.node, depth+1)
		if len(n.patterns) > 0 && (ok || s.quiet == 0) && !s.abort {
			ok = s.patterned(n, key, n.firstMatch(key.text(s.data, &s.buf), 0), start, depth) && ok
		}
		return ok
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
	if work {
		if slot := n.slotOf(name); slot >= 0 {
			seen.set(slot)
		}
	}
	if j := s.find(key, names); j >= 0 {
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
			ok = s.patterned(n, key, n.firstMatch(key.text(s.data, &s.buf), matched+1), start, depth) && ok
		}
		return ok
	}
	return s.value(sub, depth+1)
}

// firstMatch returns the index of the first of n's patterns from i on that matches the
// member name, or -1.
func (n *node) firstMatch(name []byte, i int) int {
	for ; n != nil && i < len(n.patterns); i++ {
		if n.patterns[i].pattern.match(name) {
			return i
		}
	}
	return -1
}

// patterned checks the member value at start, which a first pass has just scanned, again
// against the schemas of n's patterns from i on (i < 0: none) that match the member name
// key. It reports whether the value is valid against them; s.pos ends past the value.
func (s *state) patterned(n *node, key str, i, start, depth int) bool {
	ok, end := true, s.pos
	for ; i >= 0; i = n.firstMatch(key.text(s.data, &s.buf), i+1) {
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
func (s *state) nameValid(names *node, key str, depth int) bool {
	names = names.target()
	switch {
	case names == nil:
		return true
	case names.applicators:
		at := s.pos
		ok := s.test(names, key.start-1, depth) // the name's token is a string value
		s.jump(at)
		return ok
	case names.reject || names.types != 0 && names.types&tString == 0:
		return false
	case !names.stringWork:
		return true
	}
	return names.stringKind(key.text(s.data, &s.buf), !key.high && !key.escaped) == 0
}

// lookup finds a declared property by name.
func (n *node) lookup(name []byte) int {
	if n.propIndex != nil {
		if i, ok := n.propIndex[string(name)]; ok {
			return i
		}
		return -1
	}
	for i := range n.props {
		if n.props[i].name == string(name) {
			return i
		}
	}
	return -1
}

// slotOf finds a tracked name that is not a property (named only by required or dependentRequired).
func (n *node) slotOf(name []byte) int {
	if len(n.slots) == len(n.props) {
		return -1
	}
	if i, ok := n.slotIndex[string(name)]; ok {
		return i
	}
	return -1
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

func newMemberKey(t str) memberKey {
	return memberKey{start: t.start, end: t.end, escaped: t.escaped, high: t.high}
}

func (k memberKey) token() str {
	return str{start: k.start, end: k.end, escaped: k.escaped, high: k.high}
}

var nameSeed = maphash.MakeSeed()

// find returns the index in s.keys of the earlier member of the object named key, or -1
// after adding key to the object's names.
func (s *state) find(key str, names *memberNames) int {
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
func (s *state) nameHash(key str) uint32 {
	return uint32(maphash.Bytes(nameSeed, key.text(s.data, &s.buf)))
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
func (s *state) duplicated(key str) {
	if s.quiet == 0 && s.counting == 0 {
		if key.start < s.recordedDup {
			return
		}
		s.recordedDup = key.start + 1
	}
	s.fail(Violation{Kind: KindDuplicate})
}

func (s *state) sameName(a, b str) bool {
	if !a.escaped && !b.escaped && !a.high && !b.high {
		return bytes.Equal(s.data[a.start:a.end], s.data[b.start:b.end])
	}
	var other []byte
	x := a.text(s.data, &other)
	y := b.text(s.data, &s.buf)
	return bytes.Equal(x, y)
}

func (s *state) tooDeep() {
	if s.abort {
		return
	}
	v := Violation{Kind: KindTooDeep, Count: s.maxDepth}
	v.Path = s.currentPath("", false)
	s.abort = true
	s.out = append(s.out[:0], v)
	s.count = 1
}

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

// runeCount counts the code points of valid UTF-8 (what str.text returns): every byte that
// does not continue a sequence starts one.
func runeCount(b []byte) int {
	n := 0
	for _, c := range b {
		if c&0xc0 != 0x80 {
			n++
		}
	}
	return n
}
