package guard

import (
	"github.com/mcpvalidate/mcpvalidate/guard/internal/jsontext"
	"strconv"
)

// The explaining pass: a validation's state and the check of a value against its schema's
// own keywords. Violations are recorded in report.go, objects are in object.go, arrays in
// array.go, applicators in applicators.go.

// state is one validation in progress. It is pooled: its slices keep their capacity.
type state struct {
	cursor   // the arguments, where the scan stands, a decoded string
	report   // the violations so far, and the path to the value being checked
	v        *Validator
	maxDepth int
	nbuf     []byte      // number digits
	keys     []memberKey // member names of the objects being scanned, for duplicates
	index    []int32     // hash tables over keys, for objects with many names
	items    []uint32    // ids of the items of the arrays with uniqueItems being scanned
	eq       equality    // ids of the values that const, enum and uniqueItems compare
	divisor  divisorWork // multipleOf's arithmetic beyond a word

	typeLists  [][]string             // memoResult.types
	rescanned  int                    // the work of the call beyond s.pos (see jump); > 0 after a jump
	budget     int                    // work beyond which results are remembered
	remember   bool                   // results are remembered: the work passed the budget
	memo       map[memoKey]memoResult // results by schema and position
	forEngine  bool                   // refuse numbers the full engine cannot take
	evaluators []*node                // the schemas that evaluate the values being checked for unevaluated*
	gathered   map[*node]uint32       // the last gather that added each schema to evaluators
	gathers    uint32                 // gathers begun
	altTypes   []string               // the types asked for by the alternatives being explained
}

// reset makes s ready to validate args for v, keeping the capacity its slices have.
func (s *state) reset(v *Validator, args []byte) {
	s.v, s.data, s.pos, s.maxDepth = v, args, 0, v.cfg.maxDepth
	s.report.reset(args, v.cfg.maxViolations)
	s.keys, s.items, s.index = s.keys[:0], s.items[:0], s.index[:0]
	s.eq.reset(v.values)
	s.forEngine, s.remember = false, false
	s.rescanned, s.budget = 0, rescanFree+rescanFactor*len(args)
	s.evaluators, s.altTypes, s.typeLists = s.evaluators[:0], s.altTypes[:0], s.typeLists[:0]
	if s.gathers = 0; len(s.gathered) > 0 {
		clear(s.gathered) // gather numbers start again at 1
	}
	if len(s.memo) > 0 {
		clear(s.memo)
	}
}

// oversized reports whether a call made s grow past what is worth keeping for the next.
func (s *state) oversized() bool {
	const most = 1 << 16
	return s.report.oversized(most) || cap(s.buf) > most || cap(s.nbuf) > most || cap(s.keys) > most ||
		cap(s.index) > most || cap(s.items) > most || len(s.memo) > most || cap(s.typeLists) > most ||
		cap(s.evaluators) > most || cap(s.altTypes) > most || len(s.gathered) > most || s.eq.oversized(most)
}

// end checks that nothing but space follows the arguments.
func (s *state) end() {
	if s.skipWS(); !s.abort && s.pos < len(s.data) {
		s.syntax("unexpected data after the arguments")
	}
}

// fail records a violation at the current path.
func (s *state) fail(v Violation) {
	s.record(&v, "", false, s.rescanned > 0)
}

// failMember records a violation about the member name of the current object.
func (s *state) failMember(name string, v Violation) {
	s.record(&v, name, true, s.rescanned > 0)
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
		if c := s.setCheck(n, tObject, s.valueKey(start)); c != passed {
			return c
		}
		return r
	case tString:
		tok, end, problem := jsontext.ScanString(s.data, s.pos)
		s.pos = end
		if problem != "" {
			s.syntax(problem)
			return failed
		}
		if n.types != 0 && n.types&tString == 0 {
			s.wrongType(n, "string")
			return wrongType
		}
		if n.stringCheck == anyString {
			return passed
		}
		return s.stringValue(n, tok)
	case tNumber:
		start := s.pos
		end, whole, problem := jsontext.ScanNumber(s.data, start)
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
// the canonical number, the literal true, false or null, or an array's or object's id
// (see valueKey).
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
func (s *state) stringValue(n *node, t jsontext.String) status {
	return s.refuse(n, n.stringKind(t.Text(s.data, &s.buf), !t.High && !t.Escaped))
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
	return s.exact(x).multipleOf(m, &s.divisor)
}

// runeCount counts the code points of valid UTF-8 (what jsontext.String.Text returns): every byte that
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

// The tokens of the arguments, read at s.pos: a syntax error stops the validation.

// syntax records the syntax error at s.pos as the whole answer.
func (s *state) syntax(detail string) {
	s.stop(Violation{Kind: KindSyntax, Detail: detail, Offset: s.pos})
}

// expect moves past the byte c, after any space, or records a syntax error.
func (s *state) expect(c byte, detail string) bool {
	if s.peek() != c {
		s.syntax(detail)
		return false
	}
	s.pos++
	return true
}

// readString reads a string token starting at its opening quote.
func (s *state) readString() (jsontext.String, bool) {
	t, end, problem := jsontext.ScanString(s.data, s.pos)
	s.pos = end
	if problem != "" {
		s.syntax(problem)
		return t, false
	}
	return t, true
}

// readNumber reads a number token and returns its literal.
func (s *state) readNumber() ([]byte, bool) {
	start := s.pos
	end, _, problem := jsontext.ScanNumber(s.data, start)
	s.pos = end
	if problem != "" {
		s.syntax(problem)
		return nil, false
	}
	return s.data[start:end], true
}

// readLiteral reads true, false or null.
func (s *state) readLiteral(word string) bool {
	if len(s.data)-s.pos < len(word) || string(s.data[s.pos:s.pos+len(word)]) != word {
		s.syntax("invalid literal")
		return false
	}
	s.pos += len(word)
	return true
}
