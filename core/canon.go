package core

import (
	"bytes"
	"encoding/json"
	"slices"
)

// Equality in JSON Schema (enum, const, uniqueItems) ignores number spelling (1 equals 1.0)
// and member order. Both sides are reduced to one canonical text and compared as bytes:
// strings decoded and re-quoted, numbers as number.appendCanonical, members sorted by name.

// valueSet holds enum or const values for lookup by canonical text.
type valueSet struct {
	strs          map[string]bool // decoded string values
	nums          map[string]bool // canonical numbers
	others        map[string]bool // canonical arrays and objects
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

func newValueSet(vals []any) *valueSet {
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
			vs.others[string(canonicalTree(nil, v))] = true
		}
	}
	if len(vs.few) > fewStrings {
		vs.few = nil
	}
	return vs
}

// canonicalTree writes the canonical text of a parsed schema value.
func canonicalTree(b []byte, v any) []byte {
	switch v := v.(type) {
	case nil:
		return append(b, "null"...)
	case bool:
		if v {
			return append(b, "true"...)
		}
		return append(b, "false"...)
	case string:
		return appendJSONString(b, v)
	case json.Number:
		n, _ := parseNumber([]byte(v), nil)
		return n.appendCanonical(b)
	case []any:
		b = append(b, '[')
		for i, e := range v {
			if i > 0 {
				b = append(b, ',')
			}
			b = canonicalTree(b, e)
		}
		return append(b, ']')
	case *schemaObject:
		members := make([][]byte, len(v.keys))
		for i, k := range v.keys {
			m := appendJSONString(nil, k)
			m = append(m, ':')
			members[i] = canonicalTree(m, v.vals[i])
		}
		return appendMembers(b, members)
	}
	return b
}

func appendMembers(b []byte, members [][]byte) []byte {
	slices.SortFunc(members, bytes.Compare)
	b = append(b, '{')
	for i, m := range members {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, m...)
	}
	return append(b, '}')
}

// canonical writes the canonical text of the well-formed value at s.pos and moves past it.
func (s *state) canonical(b []byte) []byte {
	switch s.peek() {
	case '{':
		s.pos++
		var members [][]byte
		for s.peek() != '}' {
			t, _ := s.readString()
			m := appendJSONString(nil, string(t.text(s.data, &s.buf)))
			s.peek()
			s.pos++ // ':'
			m = append(m, ':')
			members = append(members, s.canonical(m))
			if s.peek() == ',' {
				s.pos++
			}
		}
		s.pos++
		return appendMembers(b, members)
	case '[':
		s.pos++
		b = append(b, '[')
		for first := true; s.peek() != ']'; first = false {
			if !first {
				b = append(b, ',')
			}
			b = s.canonical(b)
			if s.peek() == ',' {
				s.pos++
			}
		}
		s.pos++
		return append(b, ']')
	case '"':
		t, _ := s.readString()
		return appendJSONString(b, string(t.text(s.data, &s.buf)))
	case 't':
		s.pos += 4
		return append(b, "true"...)
	case 'f':
		s.pos += 5
		return append(b, "false"...)
	case 'n':
		s.pos += 4
		return append(b, "null"...)
	}
	lit, _ := s.readNumber()
	var n number
	n, s.nbuf = parseNumber(lit, s.nbuf)
	return n.appendCanonical(b)
}
