package guard

import (
	"fmt"
	"strconv"
	"strings"
)

// The generator of differential cases: a few bytes choose a schema, in one of the five
// dialects, and arguments that mostly follow it, then spell the arguments in the many ways
// JSON allows. It aims at what the quick pass decides alone: closed objects, member names
// that share their first 8 bytes or end near a word's edge, unions told apart by type, by
// first member name or by a tag member, and numbers at the edges of int64 and float64.

// genSource deals out bytes as small choices. Past the end every choice is 0, the simplest,
// so that any bytes make a case and the cases stay small.
type genSource struct {
	data []byte
	pos  int
}

// pick returns a choice in [0, n).
func (s *genSource) pick(n int) int {
	if s.pos >= len(s.data) {
		return 0
	}
	b := s.data[s.pos]
	s.pos++
	return int(b) % n
}

// odds reports true once in about n choices, never past the end.
func (s *genSource) odds(n int) bool {
	return s.pos < len(s.data) && s.pick(n) == n-1
}

// The dialects, with how each spells tuples, exclusive bounds and the place of definitions.
const (
	gDraft4 = iota
	gDraft6
	gDraft7
	gDraft2019
	gDraft2020
	dialects
)

var dialectURIs = [dialects]string{
	"http://json-schema.org/draft-04/schema#",
	"http://json-schema.org/draft-06/schema#",
	"http://json-schema.org/draft-07/schema#",
	"https://json-schema.org/draft/2019-09/schema",
	"https://json-schema.org/draft/2020-12/schema",
}

// Member names: 8-byte words shared, lengths around 5, 6, 13, 14 and 16 bytes (a head of
// quote, name, quote and colon fills one or two words), and names that need escaping.
var genNames = []string{
	"a", "b", "kind", "alpha", "alphb", "alphab", "alphac", "alphabe", "alphabet", "alphabetX",
	"alphabet_gamm", "alphabet_gamma", "alphabet_delta", "alphabet_gammaX", "alphabet_gammaXY",
	"alphabet_gammaXZ", "alphabet_deltaXY", "alphabet_gammaXYZ", "a/b", "é", "na\"me", "",
}

// Numbers at the edges: int64, 2^53, decimals that binary floats miss.
var genNumbers = []string{
	"0", "1", "-1", "2", "3", "5", "10", "0.1", "0.5", "1.5", "2.5", "-2.5", "0.3",
	"0.30000000000000004", "9007199254740991", "9007199254740992", "9007199254740993",
	"-9007199254740993", "9223372036854775806", "9223372036854775807", "9223372036854775808",
	"-9223372036854775807", "-9223372036854775808", "-9223372036854775809",
	"18446744073709551616", "9223372036854775807.5", "9223372036854775806.9",
	"100000000000000000000000000000",
}

var genDivisors = []string{"1", "2", "3", "0.1", "0.5", "2.5", "0.01", "0.3", "9007199254740992", "9223372036854775807"}

var genStrings = []string{"", "a", "ab", "abc", "abcde", "x/y", "é", "日本", "😀", "a😀", "\x01", "circle", "square"}

// Tags of tagged unions: some alike in their first bytes, one a prefix of another.
var genTags = []string{"circle", "square", "circlf", "c", "", "circle_with_a_long_tag"}

// A gNumber is a number as its text; gObject keeps members in order, and may repeat a name.
type (
	gNumber string
	gObject []gMember
	gMember struct {
		name string
		val  any
	}
)

// Schema kinds, the simplest first.
const (
	kAny = iota
	kString
	kInteger
	kNumber
	kBoolean
	kNull
	kObject
	kArray
	kEnum
	kConst
	kUnion
	kRef
	kFalse
	kinds
)

// A gSchema is a generated schema, written out by render for one dialect.
type gSchema struct {
	kind     int
	props    []gMember // of kObject: values are *gSchema
	required []string
	closed   bool
	items    *gSchema   // every item, or those past prefix
	prefix   []*gSchema // of a tuple
	noMore   bool       // a tuple with nothing past its prefix
	minItems int        // -1: none; of an object, minProperties
	maxItems int        // of an object, maxProperties
	minLen   int        // -1: none
	maxLen   int
	lower    string // minimum or exclusiveMinimum, as lowerKw says
	lowerKw  string
	upper    string
	upperKw  string
	divisor  string
	union    string // oneOf or anyOf
	alts     []*gSchema
	typed    string // the type a union also says, as written
	also     string // of a scalar kind: a second type name it takes
	open     bool   // draft-04's exclusive bound written false
	values   []any  // of kEnum and kConst
	ref      int    // of kRef: the index of its definition
	// Of kUnion and kRef: keywords beside oneOf, anyOf or $ref, which drafts before 2019-09
	// ignore beside $ref.
	beside *gSchema
}

// generator builds one case.
type generator struct {
	src     *genSource
	dialect int
	defs    []*gSchema
}

const genDepth = 3

func (g *generator) schema(depth int) *gSchema {
	k := g.src.pick(kinds)
	if depth >= genDepth && (k == kObject || k == kArray || k == kUnion || k == kRef) {
		k = kString
	}
	s := &gSchema{kind: k, minItems: -1, maxItems: -1, minLen: -1, maxLen: -1}
	if (k >= kString && k <= kNull || k == kEnum || k == kConst) && g.src.odds(5) {
		s.also = []string{"string", "integer", "number", "boolean", "null", "object", "array"}[g.src.pick(7)]
	}
	switch k {
	case kString:
		if g.src.odds(3) {
			s.minLen = g.src.pick(3)
		}
		if g.src.odds(3) {
			s.maxLen = g.src.pick(4)
		}
	case kInteger, kNumber:
		g.bounds(s)
	case kObject:
		g.object(s, depth)
	case kArray:
		g.array(s, depth)
	case kEnum:
		s.values = []any{g.value(1)}
		for n := g.src.pick(3); n > 0; n-- {
			g.addValue(s, g.value(1))
		}
	case kConst:
		s.values = []any{g.value(1)}
	case kUnion:
		g.unionOf(s, depth)
	case kRef:
		s.ref = g.define(depth)
	}
	if (k == kUnion || k == kRef) && g.src.odds(4) {
		s.typed = ""
		if s.beside = g.schema(genDepth); s.beside.kind == kString && g.src.odds(2) {
			s.beside = &gSchema{kind: kObject, minItems: -1, maxItems: -1, minLen: -1, maxLen: -1}
			g.object(s.beside, genDepth)
		}
	}
	return s
}

func (g *generator) bounds(s *gSchema) {
	if g.src.odds(2) {
		s.lower, s.lowerKw = genNumbers[g.src.pick(len(genNumbers))], []string{"minimum", "exclusiveMinimum"}[g.src.pick(2)]
	}
	if g.src.odds(2) {
		s.upper, s.upperKw = genNumbers[g.src.pick(len(genNumbers))], []string{"maximum", "exclusiveMaximum"}[g.src.pick(2)]
	}
	if g.src.odds(3) {
		s.divisor = genDivisors[g.src.pick(len(genDivisors))]
	}
	s.open = g.src.odds(4)
}

func (g *generator) object(s *gSchema, depth int) {
	s.closed = g.src.pick(3) != 0
	if g.src.odds(8) {
		s.minItems = g.src.pick(3)
	}
	if g.src.odds(8) {
		s.maxItems = g.src.pick(3)
	}
	for n := g.src.pick(5); n > 0; n-- {
		name := genNames[g.src.pick(len(genNames))]
		if s.prop(name) != nil {
			continue
		}
		s.props = append(s.props, gMember{name, g.schema(depth + 1)})
		if g.src.odds(2) {
			s.required = append(s.required, name)
		}
	}
}

func (s *gSchema) prop(name string) *gSchema {
	for _, p := range s.props {
		if p.name == name {
			return p.val.(*gSchema)
		}
	}
	return nil
}

func (g *generator) array(s *gSchema, depth int) {
	if g.src.odds(2) {
		for n := 1 + g.src.pick(3); n > 0; n-- {
			s.prefix = append(s.prefix, g.schema(depth+1))
		}
		s.noMore = g.src.odds(2)
	}
	if !s.noMore && g.src.pick(3) != 0 {
		s.items = g.schema(depth + 1)
	}
	if g.src.odds(4) {
		s.minItems = g.src.pick(3)
	}
	if g.src.odds(4) {
		s.maxItems = g.src.pick(4)
	}
}

// unionOf makes a oneOf or anyOf told apart by type, by first member name, or by a tag.
func (g *generator) unionOf(s *gSchema, depth int) {
	s.union = []string{"oneOf", "anyOf"}[g.src.pick(2)]
	n := 2 + g.src.pick(2)
	switch g.src.pick(3) {
	case 0: // any alternatives, mostly of different types
		for ; n > 0; n-- {
			s.alts = append(s.alts, g.schema(depth+1))
		}
	case 1: // closed objects, apart by their names
		s.typed = g.unionType()
		for ; n > 0; n-- {
			a := &gSchema{kind: kObject, minItems: -1, maxItems: -1, minLen: -1, maxLen: -1}
			g.object(a, depth+1)
			a.closed = !g.src.odds(5)
			s.alts = append(s.alts, g.maybeRef(a))
		}
	default: // objects with a tag member of const or enum strings
		s.typed = g.unionType()
		tag := []string{"kind", "alphabet_gamma", "a"}[g.src.pick(3)]
		for ; n > 0; n-- {
			a := &gSchema{kind: kObject, minItems: -1, maxItems: -1, minLen: -1, maxLen: -1}
			g.object(a, depth+1)
			t := &gSchema{kind: kConst, values: []any{genTags[g.src.pick(len(genTags))]}}
			if g.src.odds(3) {
				t.kind = kEnum
				g.addValue(t, genTags[g.src.pick(len(genTags))])
			}
			a.props = append([]gMember{{tag, g.maybeRef(t)}}, without(a.props, tag)...)
			if !g.src.odds(4) {
				a.required = append([]string{tag}, withoutName(a.required, tag)...)
			}
			s.alts = append(s.alts, g.maybeRef(a))
		}
	}
}

// unionType returns the type of a union of objects: none mostly, or one that takes other
// values too.
func (g *generator) unionType() string {
	if !g.src.odds(2) {
		return ""
	}
	return []string{`"object"`, `["object","null"]`, `["string","object"]`, `"number"`}[g.src.pick(4)]
}

func without(ms []gMember, name string) []gMember {
	var out []gMember
	for _, m := range ms {
		if m.name != name {
			out = append(out, m)
		}
	}
	return out
}

func withoutName(names []string, name string) []string {
	var out []string
	for _, n := range names {
		if n != name {
			out = append(out, n)
		}
	}
	return out
}

// maybeRef puts a union's alternative in the definitions now and then.
func (g *generator) maybeRef(a *gSchema) *gSchema {
	if !g.src.odds(4) {
		return a
	}
	g.defs = append(g.defs, a)
	return &gSchema{kind: kRef, ref: len(g.defs) - 1}
}

// define returns a definition to refer to: an earlier one, or a new one, so that
// definitions never loop.
func (g *generator) define(depth int) int {
	if len(g.defs) > 0 && g.src.odds(3) {
		return g.src.pick(len(g.defs))
	}
	d := g.schema(depth + 1)
	g.defs = append(g.defs, d)
	return len(g.defs) - 1
}

// addValue adds v to the values of an enum unless it holds v: draft-04 to draft-07 want
// them unique.
func (g *generator) addValue(s *gSchema, v any) {
	for _, w := range s.values {
		if plainText(w) == plainText(v) {
			return
		}
	}
	s.values = append(s.values, v)
}

// value makes a JSON value for enum and const, and for arguments that follow no schema.
func (g *generator) value(depth int) any {
	switch g.src.pick(8) {
	case 0:
		return gNumber(genNumbers[g.src.pick(len(genNumbers))])
	case 1:
		return genStrings[g.src.pick(len(genStrings))]
	case 2:
		return nil
	case 3:
		return g.src.odds(2)
	case 4:
		if depth > 2 {
			return []any{}
		}
		var arr []any
		for n := g.src.pick(3); n > 0; n-- {
			arr = append(arr, g.value(depth+1))
		}
		return arr
	case 5:
		if depth > 2 {
			return gObject{}
		}
		var obj gObject
		for n := g.src.pick(3); n > 0; n-- {
			name := genNames[g.src.pick(len(genNames))]
			if len(obj) == 0 || obj[len(obj)-1].name != name { // names once, as schemas must have them
				obj = append(obj, gMember{name, g.value(depth + 1)})
			}
		}
		return obj
	case 6:
		return gNumber(genDivisors[g.src.pick(len(genDivisors))])
	}
	return genTags[g.src.pick(len(genTags))]
}

// A genCase is a schema and arguments to judge.
type genCase struct {
	schema, args []byte
	maxDepth     int // WithMaxDepth's, or 0
	// oracleBlind tells that the schema has a const beside a $ref in draft-06 or draft-07:
	// santhosh-tekuri/jsonschema applies it, where those drafts ignore every keyword beside
	// $ref.
	oracleBlind bool
}

// generate makes a case from data.
func generate(data []byte) genCase {
	g := &generator{src: &genSource{data: data}}
	g.dialect = g.src.pick(dialects)
	maxDepth := 0
	if g.src.odds(8) {
		maxDepth = 1 + g.src.pick(4)
	}
	root := g.schema(0)
	if root.kind == kRef || root.kind == kFalse || g.src.pick(4) != 0 {
		root = &gSchema{kind: kObject, minItems: -1, maxItems: -1, minLen: -1, maxLen: -1}
		g.object(root, 0)
	}
	w := &schemaWriter{dialect: g.dialect, defs: g.defs, src: g.src}
	w.root(root, g.src.odds(3))
	a := &argsWriter{src: g.src, defs: g.defs, gen: g}
	a.value(root, 0)
	a.space()
	args := []byte(a.b.String())
	if g.src.odds(16) {
		args = g.mangle(args)
	}
	return genCase{[]byte(w.b.String()), args, maxDepth, w.oracleBlind}
}

// mangle cuts the arguments short, or puts a byte of JSON's syntax somewhere in them, which
// mostly leaves them malformed.
func (g *generator) mangle(args []byte) []byte {
	i := (g.src.pick(256)<<8 | g.src.pick(256)) % (len(args) + 1)
	const syntax = `"{}[],:\ 0-.eu`
	c := syntax[g.src.pick(len(syntax))]
	switch g.src.pick(3) {
	case 0:
		return args[:i]
	case 1:
		return append(args[:i:i], append([]byte{c}, args[i:]...)...)
	}
	if i < len(args) {
		args[i] = c
	}
	return args
}

// schemaWriter writes a schema in one dialect's spelling.
type schemaWriter struct {
	b           strings.Builder
	dialect     int
	defs        []*gSchema
	src         *genSource // respells names and values, as in arguments
	oracleBlind bool
}

func (w *schemaWriter) root(s *gSchema, bareDraft2020 bool) {
	w.b.WriteByte('{')
	if w.dialect != gDraft2020 || !bareDraft2020 {
		w.b.WriteString(`"$schema":` + strconv.Quote(dialectURIs[w.dialect]) + ",")
	}
	if len(w.defs) > 0 {
		w.b.WriteString(strconv.Quote(w.defsKeyword()) + ":{")
		for i, d := range w.defs {
			if i > 0 {
				w.b.WriteByte(',')
			}
			w.b.WriteString(`"d` + strconv.Itoa(i) + `":`)
			w.schema(d)
		}
		w.b.WriteString("},")
	}
	w.keywords(s)
	w.trim()
	w.b.WriteByte('}')
}

func (w *schemaWriter) defsKeyword() string {
	if w.dialect >= gDraft2019 {
		return "$defs"
	}
	return "definitions"
}

// trim drops a trailing comma.
func (w *schemaWriter) trim() {
	if s := w.b.String(); strings.HasSuffix(s, ",") {
		w.b.Reset()
		w.b.WriteString(s[:len(s)-1])
	}
}

func (w *schemaWriter) schema(s *gSchema) {
	switch {
	case s.kind == kAny && w.dialect != gDraft4:
		w.b.WriteString("true")
	case s.kind == kFalse && w.dialect != gDraft4:
		w.b.WriteString("false")
	default:
		w.b.WriteByte('{')
		w.keywords(s)
		w.trim()
		w.b.WriteByte('}')
	}
}

// keywords writes the keywords of s, each followed by a comma.
func (w *schemaWriter) keywords(s *gSchema) {
	switch s.kind {
	case kString:
		w.scalarType(s, "string")
		w.count("minLength", s.minLen)
		w.count("maxLength", s.maxLen)
	case kInteger, kNumber:
		w.scalarType(s, []string{"integer", "number"}[s.kind-kInteger])
		w.bound(s.lowerKw, "minimum", s.lower, s.open)
		w.bound(s.upperKw, "maximum", s.upper, s.open)
		if s.divisor != "" {
			w.kw("multipleOf", w.text(gNumber(s.divisor)))
		}
	case kBoolean:
		w.scalarType(s, "boolean")
	case kNull:
		w.scalarType(s, "null")
	case kObject:
		w.object(s)
	case kArray:
		w.array(s)
	case kEnum:
		w.also(s)
		w.kw("enum", w.text(s.values))
	case kConst:
		w.also(s)
		if w.dialect == gDraft4 {
			w.kw("enum", w.text(s.values))
		} else {
			w.kw("const", w.text(s.values[0]))
		}
	case kUnion:
		if s.typed != "" {
			w.kw("type", s.typed)
		}
		w.b.WriteString(strconv.Quote(s.union) + ":[")
		for i, a := range s.alts {
			if i > 0 {
				w.b.WriteByte(',')
			}
			w.schema(a)
		}
		w.b.WriteString("],")
		w.beside(s)
	case kRef:
		w.kw("$ref", strconv.Quote("#/"+w.defsKeyword()+"/d"+strconv.Itoa(s.ref)))
		w.beside(s)
		if (w.dialect == gDraft6 || w.dialect == gDraft7) && s.beside != nil && s.beside.kind == kConst {
			w.oracleBlind = true
		}
	case kFalse:
		w.kw("not", "{}")
	}
}

func (w *schemaWriter) beside(s *gSchema) {
	if s.beside != nil {
		w.keywords(s.beside)
	}
}

// also writes the type beside an enum or const.
func (w *schemaWriter) also(s *gSchema) {
	if s.also != "" {
		w.kw("type", strconv.Quote(s.also))
	}
}

// scalarType writes the type of a scalar kind, and the other type it takes.
func (w *schemaWriter) scalarType(s *gSchema, name string) {
	if s.also == "" || s.also == name {
		w.kw("type", strconv.Quote(name))
	} else {
		w.kw("type", "["+strconv.Quote(name)+","+strconv.Quote(s.also)+"]")
	}
}

func (w *schemaWriter) kw(name, text string) {
	w.b.WriteString(strconv.Quote(name) + ":" + text + ",")
}

func (w *schemaWriter) count(name string, n int) {
	if n >= 0 {
		w.kw(name, strconv.Itoa(n))
	}
}

// bound writes a lower or upper bound; draft-04 makes minimum or maximum exclusive with a
// boolean beside it, which open writes false.
func (w *schemaWriter) bound(kw, inclusive, n string, open bool) {
	switch {
	case n == "":
	case w.dialect != gDraft4:
		w.kw(kw, w.text(gNumber(n)))
	case kw == inclusive && !open:
		w.kw(inclusive, w.text(gNumber(n)))
	default:
		w.kw(inclusive, w.text(gNumber(n)))
		w.kw(strings.Replace(inclusive, "m", "exclusiveM", 1), strconv.FormatBool(kw != inclusive))
	}
}

func (w *schemaWriter) object(s *gSchema) {
	w.kw("type", `"object"`)
	if len(s.props) > 0 {
		w.b.WriteString(`"properties":{`)
		for i, p := range s.props {
			if i > 0 {
				w.b.WriteByte(',')
			}
			w.b.WriteString(w.text(p.name) + ":")
			w.schema(p.val.(*gSchema))
		}
		w.b.WriteString("},")
	}
	if len(s.required) > 0 {
		names := make([]any, len(s.required))
		for i, n := range s.required {
			names[i] = n
		}
		w.kw("required", w.text(names))
	}
	if s.closed {
		w.kw("additionalProperties", "false")
	}
	w.count("minProperties", s.minItems)
	w.count("maxProperties", s.maxItems)
}

func (w *schemaWriter) array(s *gSchema) {
	w.kw("type", `"array"`)
	more := "additionalItems"
	if len(s.prefix) > 0 {
		if w.dialect == gDraft2020 {
			w.b.WriteString(`"prefixItems":[`)
			more = "items"
		} else {
			w.b.WriteString(`"items":[`)
		}
		for i, p := range s.prefix {
			if i > 0 {
				w.b.WriteByte(',')
			}
			w.schema(p)
		}
		w.b.WriteString("],")
	} else {
		more = "items"
	}
	switch {
	case s.noMore:
		w.kw(more, "false")
	case s.items != nil:
		w.b.WriteString(strconv.Quote(more) + ":")
		w.schema(s.items)
		w.b.WriteByte(',')
	}
	w.count("minItems", s.minItems)
	w.count("maxItems", s.maxItems)
}

// text writes a value as arguments spell it.
func (w *schemaWriter) text(v any) string {
	a := &argsWriter{src: w.src}
	a.plain(v)
	return a.b.String()
}

// plainText writes a value the plain way.
func plainText(v any) string {
	a := &argsWriter{src: &genSource{}}
	a.plain(v)
	return a.b.String()
}

// argsWriter writes arguments for a schema, now and then off it, spelt in many ways.
type argsWriter struct {
	b    strings.Builder
	src  *genSource
	defs []*gSchema
	gen  *generator
}

// space writes white space now and then.
func (a *argsWriter) space() {
	if a.src.odds(4) {
		a.b.WriteString([]string{" ", "\n", "\t", "\r\n  ", " \t"}[a.src.pick(5)])
	}
}

// value writes arguments for s, mostly valid ones.
func (a *argsWriter) value(s *gSchema, depth int) {
	a.space()
	if a.src.odds(10) {
		a.plain(a.gen.value(1))
		return
	}
	switch s.kind {
	case kString:
		a.str(genStrings[a.src.pick(len(genStrings))])
	case kInteger, kNumber:
		a.number(a.near(s))
	case kBoolean:
		a.plain(a.src.odds(2))
	case kNull:
		a.b.WriteString("null")
	case kObject:
		a.object(s, depth)
	case kArray:
		a.array(s, depth)
	case kEnum, kConst:
		a.plain(s.values[a.src.pick(len(s.values))])
	case kUnion:
		a.value(s.alts[a.src.pick(len(s.alts))], depth)
	case kRef:
		a.value(a.defs[s.ref], depth)
	default:
		a.plain(a.gen.value(1))
	}
}

// near picks a number at or beside one of the bounds of s.
func (a *argsWriter) near(s *gSchema) string {
	switch a.src.pick(4) {
	case 1:
		if s.lower != "" {
			return s.lower
		}
	case 2:
		if s.upper != "" {
			return s.upper
		}
	case 3:
		if s.divisor != "" {
			return s.divisor
		}
	}
	return genNumbers[a.src.pick(len(genNumbers))]
}

func (a *argsWriter) object(s *gSchema, depth int) {
	var members []gMember
	for _, p := range s.props {
		required := false
		for _, r := range s.required {
			required = required || r == p.name
		}
		if required && !a.src.odds(12) || !required && a.src.pick(2) == 0 {
			members = append(members, p)
		}
	}
	if a.src.odds(6) {
		members = append(members, gMember{genNames[a.src.pick(len(genNames))], &gSchema{kind: kAny}})
	}
	if len(members) > 0 && a.src.odds(12) {
		members = append(members, members[a.src.pick(len(members))])
	}
	if a.src.odds(3) { // the members in another order: a tag after containers
		for i := len(members) - 1; i > 0; i-- {
			j := a.src.pick(i + 1)
			members[i], members[j] = members[j], members[i]
		}
	}
	a.b.WriteByte('{')
	for i, m := range members {
		if i > 0 {
			a.space()
			a.b.WriteByte(',')
		}
		a.space()
		a.str(m.name)
		a.space()
		a.b.WriteByte(':')
		a.value(m.val.(*gSchema), depth+1)
		a.space()
	}
	a.space()
	a.b.WriteByte('}')
}

func (a *argsWriter) array(s *gSchema, depth int) {
	n := len(s.prefix) + a.src.pick(3)
	if len(s.prefix) > 0 && a.src.odds(4) {
		n = a.src.pick(len(s.prefix))
	}
	a.b.WriteByte('[')
	for i := 0; i < n; i++ {
		if i > 0 {
			a.b.WriteByte(',')
		}
		item := s.items
		if i < len(s.prefix) {
			item = s.prefix[i]
		}
		if item == nil {
			item = &gSchema{kind: kAny}
		}
		a.value(item, depth+1)
		a.space()
	}
	a.space()
	a.b.WriteByte(']')
}

// plain writes a value of the generator's kinds, respelt as the source chooses; with an
// empty source, the plain way.
func (a *argsWriter) plain(v any) {
	switch v := v.(type) {
	case nil:
		a.b.WriteString("null")
	case bool:
		a.b.WriteString(strconv.FormatBool(v))
	case gNumber:
		a.number(string(v))
	case string:
		a.str(v)
	case []any:
		a.b.WriteByte('[')
		for i, e := range v {
			if i > 0 {
				a.b.WriteByte(',')
			}
			a.space()
			a.plain(e)
			a.space()
		}
		a.b.WriteByte(']')
	case gObject:
		a.b.WriteByte('{')
		for i, m := range v {
			if i > 0 {
				a.b.WriteByte(',')
			}
			a.space()
			a.str(m.name)
			a.b.WriteByte(':')
			a.space()
			a.plain(m.val)
		}
		a.space()
		a.b.WriteByte('}')
	}
}

// str writes a string, escaping some of its characters that need no escape: \u0061 for a,
// \/ for /, a surrogate pair for a character beyond the BMP.
func (a *argsWriter) str(s string) {
	a.b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			a.b.WriteString(`\` + string(r))
		case r < ' ':
			fmt.Fprintf(&a.b, `\u%04x`, r)
		case r == '/' && a.src.odds(2):
			a.b.WriteString(`\/`)
		case a.src.odds(6):
			if r > 0xffff {
				r -= 0x10000
				fmt.Fprintf(&a.b, `\u%04x\u%04x`, 0xd800+r>>10, 0xdc00+r&0x3ff)
			} else {
				fmt.Fprintf(&a.b, `\u%04X`, r)
			}
		default:
			a.b.WriteRune(r)
		}
	}
	a.b.WriteByte('"')
}

// number writes the decimal text n, or the same number spelt another way: -0, 1.0, 5e0,
// 1E+0, 0.15e1.
func (a *argsWriter) number(n string) {
	sign, digits := "", n
	if strings.HasPrefix(n, "-") {
		sign, digits = "-", n[1:]
	}
	whole, frac, _ := strings.Cut(digits, ".")
	digits = strings.TrimLeft(whole+frac, "0")
	exp := -len(frac)
	if digits == "" {
		digits, exp = "0", 0
		if a.src.odds(3) {
			sign = "-"
		}
	}
	e := []string{"e", "E", "e+", "E+"}
	switch a.src.pick(6) {
	case 1: // digits and an exponent, with a zero more
		if digits != "0" {
			digits, exp = digits+"0", exp-1
		}
		a.b.WriteString(sign + digits + e[a.src.pick(4)&1] + strconv.Itoa(exp))
	case 2: // all behind the point
		a.b.WriteString(sign + "0." + digits + exponent(e[a.src.pick(4)], exp+len(digits)))
	case 3: // digits and an exponent
		a.b.WriteString(sign + digits + exponent(e[a.src.pick(4)], exp))
	case 4: // a point and a zero more
		if exp >= 0 {
			a.b.WriteString(sign + digits + strings.Repeat("0", exp) + ".0")
		} else {
			a.b.WriteString(n + "0")
		}
	default:
		a.b.WriteString(n)
	}
}

func exponent(e string, n int) string {
	if n < 0 {
		e = e[:1]
	}
	return e + strconv.Itoa(n)
}
