package guard

// Validating arguments that are already decoded, by encoding them in schema order.

import (
	"encoding/json"
	"github.com/mcpvalidate/mcpvalidate/guard/internal/jsontext"
	"math"
	"reflect"
	"slices"
	"strconv"
)

// ValidateValue checks arguments that are already decoded (map[string]any, []any, string,
// float64, json.Number, bool, nil, or anything encoding/json can marshal). Members are
// taken in the order of the schema's properties, then the remaining names sorted, so the
// violations come in a stable order.
func (v *Validator) ValidateValue(args any) []Violation {
	b, err := encodeOrdered(nil, args, v.root, 0)
	if err != nil {
		return []Violation{{Kind: KindOther, Detail: err.Error()}}
	}
	return v.Validate(b)
}

type valueError string

func (e valueError) Error() string { return string(e) }

// encodeOrdered writes a decoded value as JSON, members of each object in the order its
// schema declares them.
func encodeOrdered(b []byte, x any, n *node, depth int) ([]byte, error) {
	if depth > 10000 {
		return nil, valueError("the arguments nest too deeply to encode")
	}
	n = n.target()
	switch x := x.(type) {
	case nil:
		return append(b, "null"...), nil
	case bool:
		return strconv.AppendBool(b, x), nil
	case string:
		return appendJSONString(b, x), nil
	case json.Number:
		if !validNumber(x) {
			return nil, valueError("json.Number " + strconv.Quote(string(x)) + " is not a JSON number")
		}
		return append(b, x...), nil
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, valueError("the arguments hold NaN or an infinity, which JSON cannot carry")
		}
		return strconv.AppendFloat(b, x, 'g', -1, 64), nil
	case float32:
		return encodeOrdered(b, float64(x), n, depth)
	case int:
		return strconv.AppendInt(b, int64(x), 10), nil
	case int64:
		return strconv.AppendInt(b, x, 10), nil
	case []any:
		b = append(b, '[')
		for i, e := range x {
			if i > 0 {
				b = append(b, ',')
			}
			var err error
			if b, err = encodeOrdered(b, e, n.item(i), depth+1); err != nil {
				return nil, err
			}
		}
		return append(b, ']'), nil
	case map[string]any:
		b = append(b, '{')
		first := true
		for _, name := range memberOrder(x, n) {
			if !first {
				b = append(b, ',')
			}
			first = false
			b = appendJSONString(b, name)
			b = append(b, ':')
			var err error
			if b, err = encodeOrdered(b, x[name], n.memberSchema(name), depth+1); err != nil {
				return nil, err
			}
		}
		return append(b, '}'), nil
	}
	// Other Go values (structs, typed maps and slices) go through encoding/json once and
	// come back as plain values.
	raw, err := json.Marshal(x)
	if err != nil {
		return nil, valueError("the arguments cannot be encoded as JSON: " + err.Error())
	}
	if rv := reflect.ValueOf(x); rv.Kind() == reflect.Map || rv.Kind() == reflect.Slice || rv.Kind() == reflect.Struct || rv.Kind() == reflect.Pointer {
		var plain any
		if json.Unmarshal(raw, &plain) == nil {
			return encodeOrdered(b, plain, n, depth)
		}
	}
	return append(b, raw...), nil
}

// validNumber reports whether x is a JSON number literal, as json.Number does not promise.
func validNumber(x json.Number) bool {
	end, _, problem := jsontext.ScanNumber([]byte(x), 0)
	return problem == "" && end == len(x)
}

// memberOrder lists the names of m: first those n declares, in its order, then the rest sorted.
func memberOrder(m map[string]any, n *node) []string {
	names := make([]string, 0, len(m))
	declared := map[string]bool{}
	for _, name := range declaredNames(n, nil) {
		if _, ok := m[name]; ok && !declared[name] {
			declared[name] = true
			names = append(names, name)
		}
	}
	rest := make([]string, 0, len(m)-len(names))
	for name := range m {
		if !declared[name] {
			rest = append(rest, name)
		}
	}
	slices.Sort(rest)
	return append(names, rest...)
}

// declaredNames collects property names from n and the schemas it applies in place.
func declaredNames(n *node, seen map[*node]bool) []string {
	if n == nil || seen[n] {
		return nil
	}
	if seen == nil {
		seen = map[*node]bool{}
	}
	seen[n] = true
	var out []string
	for _, p := range n.props {
		out = append(out, p.name)
	}
	for _, sub := range append([]*node{n.ref}, append(append(n.allOf, n.anyOf...), n.oneOf...)...) {
		out = append(out, declaredNames(sub, seen)...)
	}
	return out
}
