package mcpvalidate

import (
	"encoding/json"
	"slices"
	"unsafe"
)

// A frozen value is a copy of one of a schema's values, as encoding/json decodes JSON or
// mcp-go's builder makes them, to tell on each call whether the value still holds what it
// held when the schema's text was made: a server may change a registered schema's maps and
// slices in place, and tools/list then shows the change.
type frozen struct {
	kind  frozenKind
	keys  []string // a map's keys
	items []frozen // a map's values, in the order of keys; a list's items
	strs  []string // a []string's
	value any      // a scalar; for frozenJSON, the value's JSON text, a string
	null  bool     // a nil map or list
}

type frozenKind uint8

const (
	frozenScalar  frozenKind = iota // nil, a string, a bool or a number of a basic type: compared with ==
	frozenMap                       // a map[string]any
	frozenList                      // an []any
	frozenStrings                   // a []string
	frozenJSON                      // any other value: compared by its JSON text, made again on each call
)

// frozenDepth is how deep freeze copies maps and lists; below, a value is kept as its JSON
// text, which encoding/json refuses to make for maps that hold themselves.
const frozenDepth = 256

// freeze copies v, depth maps and lists down, and adds the bytes the copy holds to *held.
func freeze(v any, depth int, held *int64) frozen {
	*held += int64(unsafe.Sizeof(frozen{}))
	if depth > frozenDepth {
		return frozenText(v, held)
	}
	switch v := v.(type) {
	case nil, bool, float64, float32, int, int64, int32, uint, uint64, uint32, json.Number:
		return frozen{value: v}
	case string:
		*held += int64(len(v))
		return frozen{value: v}
	case map[string]any:
		f := frozen{kind: frozenMap, null: v == nil, keys: make([]string, 0, len(v)), items: make([]frozen, 0, len(v))}
		for k, e := range v {
			*held += int64(unsafe.Sizeof(k)) + int64(len(k))
			f.keys = append(f.keys, k)
			f.items = append(f.items, freeze(e, depth+1, held))
		}
		return f
	case []any:
		f := frozen{kind: frozenList, null: v == nil, items: make([]frozen, len(v))}
		for i, e := range v {
			f.items[i] = freeze(e, depth+1, held)
		}
		return f
	case []string:
		*held += int64(unsafe.Sizeof("")) * int64(len(v))
		for _, s := range v {
			*held += int64(len(s))
		}
		return frozen{kind: frozenStrings, strs: slices.Clone(v)} // nil for nil
	}
	return frozenText(v, held)
}

// frozenText copies v as its JSON text.
func frozenText(v any, held *int64) frozen {
	text := jsonText(v)
	*held += int64(len(text))
	return frozen{kind: frozenJSON, value: text}
}

// holds reports whether v holds what f copied.
func (f *frozen) holds(v any) bool {
	switch f.kind {
	case frozenMap:
		m, ok := v.(map[string]any)
		return ok && (m == nil) == f.null && f.holdsMap(m)
	case frozenList:
		l, ok := v.([]any)
		if !ok || (l == nil) != f.null || len(l) != len(f.items) {
			return false
		}
		for i := range l {
			if !f.items[i].holds(l[i]) {
				return false
			}
		}
		return true
	case frozenStrings:
		l, ok := v.([]string)
		return ok && sameStrings(l, f.strs)
	case frozenJSON:
		return jsonText(v) == f.value
	}
	return v == f.value // a scalar of another type, or anything but a scalar, is not equal
}

// holdsMap reports whether m holds what the frozenMap f copied.
func (f *frozen) holdsMap(m map[string]any) bool {
	if len(m) != len(f.keys) {
		return false
	}
	for i, k := range f.keys {
		if e, ok := m[k]; !ok || !f.items[i].holds(e) {
			return false
		}
	}
	return true
}

// jsonText is v's JSON text, or its error's.
func jsonText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return "\x00" + err.Error()
	}
	return string(b)
}
