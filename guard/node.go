package guard

import (
	"encoding/binary"
	"math"
	"regexp/syntax"
	"unsafe"

	"github.com/mcpvalidate/mcpvalidate/guard/internal/jsontext"
)

// A compiled schema, a node, and how validation moves through it: to the schema that
// applies in its place, to a member's or an item's schema, to the schemas below it.

// node is one compiled schema. The zero node accepts everything.
type node struct {
	loc    string // JSON Pointer fragment, for messages about the schema itself
	reject bool   // the schema false

	types     typeSet
	typeNames []string // as the schema lists them

	enum         *valueSet
	enumTexts    []string
	constant     *valueSet
	constantText string

	minLength, maxLength int // -1 when absent
	pattern              *pattern
	format               string
	checkFormat          func(string) bool

	minimum, maximum, exclusiveMinimum, exclusiveMaximum, multipleOf *bound

	props      []prop
	propIndex  map[string]int // for objects with many properties
	patterns   []patternProp  // patternProperties, in schema order
	names      *node          // propertyNames: nil allows any name
	slots      []string       // member names tracked for presence
	slotIndex  map[string]int // position of each name in slots
	required   []int          // slots
	dependents []dependent
	additional *node // nil: any other member is allowed
	// firstBytes marks the first bytes of the declared names as written, when no other member
	// is allowed and every name is written without escapes; else nil.
	firstBytes *[256]bool
	minProps   int
	maxProps   int // -1 when absent
	// requiredOnly: at most 64 tracked names and no keyword on the whole object but required,
	// which then holds when the names present cover requiredMask.
	requiredOnly bool
	requiredMask uint64

	prefix     []*node
	items      *node  // nil: any further item is allowed
	extraItems string // the keyword of items: items, or additionalItems beside tuple items
	minItems   int
	maxItems   int // -1 when absent
	uniqueItem bool
	contains   *node
	// minContains and maxContains bound the items contains matches, when it is present;
	// -1 when absent, which for minContains means at least one.
	minContains, maxContains int

	ref                 *node
	allOf, anyOf, oneOf []*node
	not                 *node
	ifn, then, elsen    *node
	// bareIf is an if without then or else: it asserts nothing, but the members and items
	// it evaluates when it holds count for unevaluatedProperties and unevaluatedItems.
	bareIf *node
	// unevaluatedProperties and unevaluatedItems (unevaluated.go); nil when absent.
	// containsEvaluates: items that contains matches count as evaluated (2020-12).
	unevalProps, unevalItems *node
	containsEvaluates        bool

	keywords    keywordSet // that constrain anything (keywords.go)
	quick       bool       // the quick pass decides this schema and all below it (quick.go)
	union       []*node    // a tagged union's alternatives, which the quick pass tells apart
	tag         string     // the member whose value tells them apart, if not the type or first name
	scalar      typeSet    // the types of a schema of scalars, whose strings and numbers the quick pass checks directly
	refOnly     bool       // nothing but $ref applies: validation follows it directly
	inPlaceOnly bool       // no keyword but applicators: the value is scanned only through them
	applicators bool       // any of ref, allOf, anyOf, oneOf, not, if
	objectWork  bool       // any keyword that looks inside an object
	arrayWork   bool
	numberWork  bool // enum, const or a numeric bound
	intBounds   bool // no enum or const, and every numeric bound is a small integer
	stringCheck stringCheck
}

// stringCheck is what a node's keywords ask of a string.
type stringCheck uint8

const (
	anyString    stringCheck = iota // nothing
	enumString                      // that enum holds it
	lengthString                    // that its length is within minLength and maxLength
	kindString                      // more (const, a pattern, a format, or several): stringKind decides
)

// target is the schema that applies in n's place: n itself or, when nothing but a $ref
// applies, where the references lead; nil for nil.
func (n *node) target() *node {
	for n != nil && n.refOnly {
		n = n.ref
	}
	return n
}

type prop struct {
	// The member's head, the name as written with no escape, in its quotes, with the colon
	// after it, when it is at most 16 bytes long: its first 8 bytes and its last 8 (from
	// second on) as little-endian words, with masks for the bytes a head shorter than 8
	// fills. So the member expected next is recognised in two comparisons.
	words, masks [2]uint64
	second       int
	reach        int // at reads words when i < len(d)-reach: more than any input's length without a head
	node         *node
	slot         int
	quoted       string // name and its closing quote, when the name needs no escape; else ""
	name         string
}

func newProp(name string, sub *node, slot int) prop {
	p := prop{name: name, node: sub, slot: slot, reach: math.MaxInt}
	for i := 0; i < len(name); i++ {
		if !jsontext.Plain(name[i]) {
			return p
		}
	}
	p.quoted = name + `"`
	head := `"` + p.quoted + `:`
	if len(head) > 16 {
		return p
	}
	p.second = max(len(head)-8, 0)
	p.reach = p.second + 7
	for k, from := range [2]int{0, p.second} {
		for i := 0; i < 8 && from+i < len(head); i++ {
			p.words[k] |= uint64(head[from+i]) << (8 * i)
			p.masks[k] |= 0xff << (8 * i)
		}
	}
	return p
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

// expected returns the property declared after the last one seen: members tend to come
// in schema order.
func (n *node) expected(work bool, i int) *prop {
	if !work || i >= len(n.props) {
		return nil
	}
	return &n.props[i]
}

// at reports whether d[i:] begins with p's head. It is inlined, so the quick pass pays
// no call for a member; false may also mean that it cannot tell in two comparisons, for a
// name with no head or at the very end of d, and a caller then reads the name itself.
func (p *prop) at(d []byte, i int) bool {
	return i < len(d)-p.reach &&
		binary.LittleEndian.Uint64(d[i:])&p.masks[0] == p.words[0] &&
		binary.LittleEndian.Uint64(d[i+p.second:])&p.masks[1] == p.words[1]
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

// memberSchema is the schema of n's own keywords for the member name: its property, the
// first pattern that matches it, or additionalProperties; nil for any value.
func (n *node) memberSchema(name string) *node {
	if n == nil {
		return nil
	}
	if i := n.lookup([]byte(name)); i >= 0 {
		return n.props[i].node
	}
	if i := n.firstMatch([]byte(name), 0); i >= 0 {
		return n.patterns[i].node
	}
	return n.additional
}

// inPlace lists the schemas n applies to the value itself: $ref and the applicators.
func (n *node) inPlace() []*node {
	var out []*node
	if n.ref != nil {
		out = append(out, n.ref)
	}
	out = append(out, n.allOf...)
	out = append(out, n.anyOf...)
	out = append(out, n.oneOf...)
	for _, s := range []*node{n.not, n.ifn, n.then, n.elsen, n.bareIf} {
		if s != nil {
			out = append(out, s)
		}
	}
	return out
}

// inside lists the schemas n applies to the members and items of the value.
func (n *node) inside() []*node {
	var out []*node
	for _, p := range n.props {
		out = append(out, p.node)
	}
	for _, p := range n.patterns {
		out = append(out, p.node)
	}
	out = append(out, n.prefix...)
	for _, s := range []*node{n.additional, n.items, n.names, n.contains, n.unevalProps, n.unevalItems} {
		if s != nil {
			out = append(out, s)
		}
	}
	return out
}

// What compiled schemas hold, counted as they are compiled, so that a cache can keep them
// within a budget of memory (cache.go). The counts follow Go's layout: a string's or a
// slice's own bytes beside its header, a map's entries with their share of its buckets.
const (
	allocCost    = 16 // what Go adds to a small allocation, on average, rounding it up
	mapEntryCost = 64 // a map entry of a string key, with the map's spare room
)

// size returns about the bytes n holds, without the nodes below it.
func (n *node) size() int64 {
	size := int64(unsafe.Sizeof(*n)) + stringSize(n.loc) + stringSize(n.format) + stringSize(n.constantText) + stringSize(n.tag)
	size += stringsSize(n.typeNames) + stringsSize(n.enumTexts) + stringsSize(n.slots)
	size += valueSetSize(n.enum) + valueSetSize(n.constant) + n.pattern.size()
	for _, b := range []*bound{n.minimum, n.maximum, n.exclusiveMinimum, n.exclusiveMaximum, n.multipleOf} {
		if b != nil {
			size += int64(unsafe.Sizeof(*b)) + int64(cap(b.num.digits)) + stringSize(b.text)
		}
	}
	size += int64(cap(n.props)) * int64(unsafe.Sizeof(prop{}))
	for _, p := range n.props {
		size += stringSize(p.name) + stringSize(p.quoted)
	}
	size += int64(cap(n.patterns)) * int64(unsafe.Sizeof(patternProp{}))
	for _, p := range n.patterns {
		size += p.pattern.size()
	}
	size += mapEntryCost * int64(len(n.propIndex)+len(n.slotIndex))
	size += int64(cap(n.dependents)) * int64(unsafe.Sizeof(dependent{}))
	for _, d := range n.dependents {
		size += 8 * int64(cap(d.requires))
	}
	if n.firstBytes != nil {
		size += int64(len(n.firstBytes))
	}
	size += 8 * int64(cap(n.required)+cap(n.prefix)+cap(n.allOf)+cap(n.anyOf)+cap(n.oneOf)+cap(n.union))
	return size
}

func stringSize(s string) int64 {
	if s == "" {
		return 0
	}
	return allocCost + int64(len(s))
}

// stringsSize counts a slice of strings, each its own allocation.
func stringsSize(ss []string) int64 {
	size := int64(16 * cap(ss))
	for _, s := range ss {
		size += stringSize(s)
	}
	return size
}

// valueSetSize counts an enum's or a const's set: its maps' entries and their keys.
func valueSetSize(vs *valueSet) int64 {
	if vs == nil {
		return 0
	}
	size := int64(unsafe.Sizeof(*vs)) + stringsSize(vs.few)
	for _, m := range []map[string]bool{vs.strs, vs.nums, vs.others} {
		for k := range m {
			size += mapEntryCost + stringSize(k)
		}
	}
	return size
}

// size counts a compiled pattern: its tables and its regexp.
func (p *pattern) size() int64 {
	if p == nil {
		return 0
	}
	return int64(unsafe.Sizeof(*p)) + int64(cap(p.lit)) + int64(cap(p.runs))*int64(unsafe.Sizeof(run{})) + p.held
}

// programHeld returns about the bytes Go's regexp holds for the parsed pattern re: the
// Regexp and its program, about 96 bytes an instruction (measured). A pattern anchored at
// its start may also have a one-pass program, whose instructions each copy their class
// and add a table as long: a repeated class of many runes, such as ^\pL{1,100}, holds a
// megabyte that way. Whether Go builds one is not asked: it is counted.
func programHeld(re *syntax.Regexp) int64 {
	prog, err := syntax.Compile(re.Simplify())
	if err != nil {
		return 0 // what regexp.Compile refused holds nothing
	}
	onePass := prog.StartCond()&syntax.EmptyBeginText != 0
	held := int64(1024)
	for _, inst := range prog.Inst {
		held += 96
		if onePass {
			held += 64 + 16*int64(len(inst.Rune))
		}
	}
	return held
}
