package guard

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"hash/maphash"
	"slices"
)

// Equality in JSON Schema (enum, const, uniqueItems) ignores number spelling (1 equals 1.0)
// and member order. Every value has a key that equal values share: a string's decoded text
// after a quote, a number as number.appendCanonical, a literal as written, an array as '['
// and its items' ids, an object as '{' and its members' name and value ids, sorted. A table
// gives each key an id, so a value compares as one number, and a value nested in many that
// are compared is read once, not once a level.

// valueSet holds enum or const values for lookup by key.
type valueSet struct {
	strs          map[string]bool // decoded string values
	nums          map[string]bool // canonical numbers
	others        map[string]bool // ids of arrays and objects, as valueKey writes them
	null, yes, no bool
	few           []string // the strings, when so few that comparing beats hashing; else nil
}

// has reports whether the set holds the value of type t with the given key (see setCheck).
func (vs *valueSet) has(t typeSet, key []byte) bool {
	switch t {
	case tString:
		return vs.hasString(key)
	case tNumber:
		return vs.nums[string(key)]
	case tBoolean:
		return key[0] == 't' && vs.yes || key[0] == 'f' && vs.no
	case tNull:
		return vs.null
	}
	return vs.others[string(key)]
}

const fewStrings = 8

// hasString reports whether the set holds the decoded string key.
func (vs *valueSet) hasString(key []byte) bool {
	if vs.few == nil {
		return vs.strs[string(key)]
	}
	for _, s := range vs.few {
		// The first byte rules most candidates out without a call to compare memory.
		if len(s) == len(key) && (len(s) == 0 || s[0] == key[0] && s[1:] == string(key[1:])) {
			return true
		}
	}
	return false
}

// newValueSet holds vals, giving ids in t to the arrays and objects among them.
func newValueSet(vals []any, t canonTable) *valueSet {
	vs := &valueSet{strs: map[string]bool{}, nums: map[string]bool{}, others: map[string]bool{}}
	for _, v := range vals {
		switch v := v.(type) {
		case nil:
			vs.null = true
		case bool:
			vs.yes = vs.yes || v
			vs.no = vs.no || !v
		case string:
			if !vs.strs[v] {
				vs.few = append(vs.few, v)
			}
			vs.strs[v] = true
		case json.Number:
			n, _ := parseNumber([]byte(v), nil)
			vs.nums[string(n.appendCanonical(nil))] = true
		default:
			vs.others[string(binary.LittleEndian.AppendUint32(nil, t.id(t.keyOf(nil, v))))] = true
		}
	}
	if len(vs.few) > fewStrings {
		vs.few = nil
	}
	return vs
}

// canonTable holds the ids of a schema's const and enum values, by key. Compiling fills it;
// calls only read it, and number their own values from its length on.
type canonTable map[string]uint32

// id returns the id of key, giving it the next one if it has none.
func (t canonTable) id(key []byte) uint32 {
	id, ok := t[string(key)]
	if !ok {
		id = uint32(len(t))
		t[string(key)] = id
	}
	return id
}

// size is about the bytes t holds: per entry its key, an allocation of its own, and the
// entry with its share of the map's spare room.
func (t canonTable) size() int64 {
	n := int64(48)
	for k := range t {
		n += mapEntryCost + stringSize(k)
	}
	return n
}

// keyOf writes the key of a parsed schema value, giving ids to the values inside it.
func (t canonTable) keyOf(b []byte, v any) []byte {
	switch v := v.(type) {
	case nil:
		return append(b, "null"...)
	case bool:
		if v {
			return append(b, "true"...)
		}
		return append(b, "false"...)
	case string:
		return append(append(b, '"'), v...)
	case json.Number:
		n, _ := parseNumber([]byte(v), nil)
		return n.appendCanonical(b)
	case []any:
		b = append(b, '[')
		for _, e := range v {
			b = binary.LittleEndian.AppendUint32(b, t.id(t.keyOf(nil, e)))
		}
		return b
	case *schemaObject:
		members := make([]uint64, len(v.keys))
		for i, k := range v.keys {
			members[i] = member(t.id(t.keyOf(nil, k)), t.id(t.keyOf(nil, v.vals[i])))
		}
		return appendMembers(b, members)
	}
	return b
}

// member is an object member's name and value ids, as one number for sorting.
func member(name, value uint32) uint64 { return uint64(name)<<32 | uint64(value) }

// appendMembers writes an object's key from its members, which it sorts.
func appendMembers(b []byte, members []uint64) []byte {
	slices.Sort(members)
	b = append(b, '{')
	for _, m := range members {
		b = binary.LittleEndian.AppendUint64(b, m)
	}
	return b
}

// equality is what a call knows of its values' ids: those of the schema's table, then its
// own.
type equality struct {
	schema  canonTable
	own     ownIDs
	known   map[int]identified // arrays and objects by their start
	items   []uint32           // ids of the items of the arrays being read
	members []uint64           // of the members of the objects being read
	key     []byte
	seen    []uint32 // for equalItems, zero between calls of it
}

type identified struct {
	end int
	id  uint32
}

// reset makes e ready for a call under the schema's table, keeping its memory.
func (e *equality) reset(schema canonTable) {
	e.schema = schema
	e.own.reset()
	clear(e.known)
}

// oversized reports whether a call made e grow past most entries.
func (e *equality) oversized(most int) bool {
	return len(e.own.ends) > most || len(e.known) > most || cap(e.items) > most || cap(e.members) > most ||
		cap(e.key) > most || cap(e.seen) > most
}

// id returns the id of key: the schema's if it has one, else the call's.
func (e *equality) id(key []byte) uint32 {
	if id, ok := e.schema[string(key)]; ok {
		return id
	}
	return uint32(len(e.schema) + e.own.index(key))
}

// ownIDs numbers the keys of a call that the schema's table does not hold, in a table of
// open addressing over the keys kept end to end: a map of strings would cost four times
// the arguments of an array of short numbers.
type ownIDs struct {
	seed  maphash.Seed
	keys  []byte
	ends  []int    // where each key ends in keys, by index
	slots []uint32 // 1 + the index of a key, or 0; at most three quarters are taken
}

func (t *ownIDs) reset() {
	if len(t.ends) > 0 {
		t.keys, t.ends = t.keys[:0], t.ends[:0]
		clear(t.slots)
	}
}

func (t *ownIDs) key(i int) []byte {
	start := 0
	if i > 0 {
		start = t.ends[i-1]
	}
	return t.keys[start:t.ends[i]]
}

// index returns the index of key, giving it the next one if it has none.
func (t *ownIDs) index(key []byte) int {
	if 4*(len(t.ends)+1) > 3*len(t.slots) {
		t.grow()
	}
	mask := len(t.slots) - 1
	for i := int(maphash.Bytes(t.seed, key)) & mask; ; i = (i + 1) & mask {
		if k := int(t.slots[i]) - 1; k < 0 {
			t.keys = append(room(t.keys, len(key)), key...)
			t.ends = append(grown(t.ends), len(t.keys))
			t.slots[i] = uint32(len(t.ends))
			return len(t.ends) - 1
		} else if bytes.Equal(t.key(k), key) {
			return k
		}
	}
}

// grow doubles the slots and places every key again.
func (t *ownIDs) grow() {
	if t.slots == nil {
		t.seed = maphash.MakeSeed()
	}
	t.slots = make([]uint32, max(64, 2*len(t.slots)))
	mask := len(t.slots) - 1
	for k := range t.ends {
		i := int(maphash.Bytes(t.seed, t.key(k))) & mask
		for t.slots[i] != 0 {
			i = (i + 1) & mask
		}
		t.slots[i] = uint32(k + 1)
	}
}

// scalar returns the id of a string, number or literal whose key is text after tag (if
// not 0).
func (e *equality) scalar(tag byte, text []byte) uint32 {
	e.key = e.key[:0]
	if tag != 0 {
		e.key = append(e.key, tag)
	}
	e.key = append(e.key, text...)
	return e.id(e.key)
}

// sized returns e.key emptied, with room for n bytes.
func (e *equality) sized(n int) []byte {
	if cap(e.key) < n {
		e.key = make([]byte, 0, max(n, 2*cap(e.key)))
	}
	return e.key[:0]
}

// identify returns the id of the well-formed value at s.pos and moves past it. An array
// or object with arrays or objects inside is read once a call: its id is kept by its
// start.
func (s *state) identify() uint32 {
	e := &s.eq
	s.skipWS()
	switch start := s.pos; s.data[start] {
	case '[', '{':
		if k, ok := e.known[start]; ok {
			s.pos = k.end
			return k.id
		}
		var id uint32
		var nested bool
		if s.data[start] == '[' {
			id, nested = s.identifyArray()
		} else {
			id, nested = s.identifyObject()
		}
		if nested { // one without arrays or objects inside costs as little to read again
			if e.known == nil {
				e.known = map[int]identified{}
			}
			e.known[start] = identified{s.pos, id}
		}
		return id
	case '"':
		t, _ := s.readString()
		return e.scalar('"', t.Text(s.data, &s.buf))
	case 't', 'f', 'n':
		lit := s.data[start : start+len(literals[s.data[start]])]
		s.pos += len(lit)
		return e.scalar(0, lit)
	}
	lit, _ := s.readNumber()
	var n number
	n, s.nbuf = parseNumber(lit, s.nbuf)
	s.buf = n.appendCanonical(s.buf[:0])
	return e.scalar(0, s.buf)
}

// literals are the words that start with t, f and n.
var literals = [256]string{'t': "true", 'f': "false", 'n': "null"}

// identifyArray returns the id of the array at s.pos, and whether it holds an array or
// an object.
func (s *state) identifyArray() (id uint32, nested bool) {
	e := &s.eq
	s.pos++ // '['
	mark := len(e.items)
	for s.peek() != ']' {
		nested = nested || container[s.data[s.pos]]
		e.items = append(grown(e.items), s.identify())
		if s.peek() == ',' {
			s.pos++
		}
	}
	s.pos++
	key := append(e.sized(1+4*(len(e.items)-mark)), '[')
	for _, id := range e.items[mark:] {
		key = binary.LittleEndian.AppendUint32(key, id)
	}
	e.items = e.items[:mark]
	return e.id(key), nested
}

// room returns b with room for n more bytes, doubled when it has not: append would make
// many keys cost up to five times their length.
func room(b []byte, n int) []byte {
	if cap(b)-len(b) >= n {
		return b
	}
	return append(make([]byte, 0, max(2*cap(b), len(b)+n)), b...)
}

// identifyObject returns the id of the object at s.pos, and whether it holds an array or
// an object.
func (s *state) identifyObject() (id uint32, nested bool) {
	e := &s.eq
	s.pos++ // '{'
	mark := len(e.members)
	for s.peek() != '}' {
		t, _ := s.readString()
		name := e.scalar('"', t.Text(s.data, &s.buf))
		s.peek()
		s.pos++ // ':'
		nested = nested || container[s.peek()]
		e.members = append(grown(e.members), member(name, s.identify()))
		if s.peek() == ',' {
			s.pos++
		}
	}
	s.pos++
	key := appendMembers(e.sized(1+8*(len(e.members)-mark)), e.members[mark:])
	e.members = e.members[:mark]
	return e.id(key), nested
}

// idOf returns the id of the value from start to s.pos. Reading it again is no jump (see
// state.jump): identify reads each byte a few times a call at most. After a syntax error
// the value may not be well-formed, and the call is refused for it: it has no id.
func (s *state) idOf(start int) uint32 {
	if s.abort {
		return 0
	}
	end := s.pos
	s.pos = start
	id := s.identify()
	s.pos = end
	return id
}

// valueKey returns the key under which a valueSet holds the array or object from start to
// s.pos: its id.
func (s *state) valueKey(start int) []byte {
	return binary.LittleEndian.AppendUint32(s.eq.sized(4), s.idOf(start))
}
