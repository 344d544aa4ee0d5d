package proxy

import (
	"bytes"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/mcpvalidate/mcpvalidate/guard/internal/jsontext"
)

// This file reads JSON-RPC messages without decoding them: the members the proxy decides
// on, as slices of the line it passes on unchanged.

// A message is one JSON-RPC message: the members the proxy reads, as slices of its bytes.
type message struct {
	id     []byte // the raw id; nil when absent
	method string // "" when absent or not a string
	params []byte
	result []byte
	err    []byte
	// ambiguous: one of the members above appears twice, or under a name that differs only
	// in case (which Go's encoding/json, among others, reads as the same member), so
	// servers may read different values from the proxy.
	ambiguous bool
	// methods are every value of a member named "method" in any case, when ambiguous.
	methods []string
	// call is params read as a tools/call's, when read with the message (checkedMessage):
	// then called is true, and calls whether params is an object naming a tool.
	call          callParams
	called, calls bool
}

// isRequest reports whether m is a request or a notification (it has a method).
func (m *message) isRequest() bool { return m.method != "" }

// names reports whether any method the message may be read as is method.
func (m *message) names(method string) bool {
	if m.method == method {
		return true
	}
	for _, x := range m.methods {
		if x == method {
			return true
		}
	}
	return false
}

// parseMessage reads b, one JSON value known to be valid, as a JSON-RPC message; ok is
// false when it is not an object.
func parseMessage(b []byte) (m message, ok bool) {
	var spelled [2]string
	methods := spelled[:0] // every method, of any spelling: kept when they make m ambiguous
	ok = members(b, func(name string, v []byte) { methods = m.take(name, v, methods) })
	if m.ambiguous {
		m.methods = slices.Clone(methods)
	}
	return m, ok
}

// checkedMessage is parseMessage for b not yet known to be valid, read once: valid reports
// whether b is one JSON value, without which m and ok mean nothing. An object's params,
// when it is an object, is read as a tools/call's on the way (m.called).
func checkedMessage(b []byte) (m message, ok, valid bool) {
	var spelled [2]string
	methods := spelled[:0]
	i := jsontext.SkipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return m, false, jsontext.Valid(b)
	}
	end := checkedObject(b, i, func(name string, i int) int {
		end := -1
		if name == "params" && b[i] == '{' {
			var c callParams
			var named, tasked bool
			end = checkedObject(b, i, func(name string, i int) int {
				end := jsontext.ValidValue(b, i)
				if end >= 0 {
					c.take(name, b[i:end], &named, &tasked)
				}
				return end
			})
			m.call, m.called, m.calls = c, true, named
		} else {
			end = jsontext.ValidValue(b, i)
		}
		if end >= 0 {
			methods = m.take(name, b[i:end], methods)
		}
		return end
	})
	if m.ambiguous {
		m.methods = slices.Clone(methods)
	}
	return m, true, end >= 0 && jsontext.SkipSpace(b, end) == len(b)
}

// take reads the member name of the value v into m, and returns methods with the method
// it names, if it does, in any case.
func (m *message) take(name string, v []byte, methods []string) []string {
	var slot *[]byte
	switch name {
	case "id":
		slot = &m.id
	case "params":
		slot = &m.params
	case "result":
		slot = &m.result
	case "error":
		slot = &m.err
	case "method":
		s, _ := stringValue(v)
		if len(methods) > 0 {
			m.ambiguous = true
		}
		m.method = s
		return append(methods, s)
	default:
		for _, k := range [...]string{"id", "params", "result", "error", "method"} {
			if strings.EqualFold(name, k) {
				m.ambiguous = true
				if k == "method" {
					s, _ := stringValue(v)
					methods = append(methods, s)
				}
			}
		}
		return methods
	}
	if *slot != nil {
		m.ambiguous = true
	}
	*slot = v
	return methods
}

// callParams are the members of a tools/call's params the proxy reads.
type callParams struct {
	name      string
	arguments []byte // nil when absent
	task      []byte // params.task: a task-augmented call; nil when absent or null
	meta      []byte // params._meta
	ambiguous bool
	answers   bool // params give inputResponses, in any case
}

func parseCallParams(b []byte) (p callParams, ok bool) {
	var named, tasked bool
	ok = members(b, func(name string, v []byte) { p.take(name, v, &named, &tasked) })
	return p, ok && named
}

// paramsOf returns m's params read as a tools/call's, as parseCallParams reads them.
func paramsOf(m *message) (callParams, bool) {
	if m.called {
		return m.call, m.calls
	}
	return parseCallParams(m.params)
}

// take reads the member name of the value v into p; named and tasked tell whether a name
// and a task were read before.
func (p *callParams) take(name string, v []byte, named, tasked *bool) {
	switch name {
	case "name":
		if *named {
			p.ambiguous = true
		}
		*named = true
		var isString bool
		if p.name, isString = stringValue(v); !isString {
			p.ambiguous = true
		}
	case "arguments":
		if p.arguments != nil {
			p.ambiguous = true
		}
		p.arguments = v
	case "task":
		if *tasked {
			p.ambiguous = true
		}
		*tasked = true
		if string(v) != "null" {
			p.task = v
		}
	case "_meta":
		p.meta = v
	default:
		if strings.EqualFold(name, "name") || strings.EqualFold(name, "arguments") || strings.EqualFold(name, "task") {
			p.ambiguous = true
		}
		p.answers = p.answers || strings.EqualFold(name, "inputResponses")
	}
}

// member returns the value of the member name of the object b, or nil.
func member(b []byte, name string) []byte {
	var found []byte
	members(b, func(n string, v []byte) {
		if n == name {
			found = v
		}
	})
	return found
}

// memberFold returns the value of the member of the object b named name in any case, as
// Go's encoding/json reads it; twice when more than one member is so named.
func memberFold(b []byte, name string) (v []byte, twice bool) {
	members(b, func(n string, value []byte) {
		if strings.EqualFold(n, name) {
			twice = twice || v != nil
			v = value
		}
	})
	return v, twice
}

// members calls fn with each member of the JSON object b, a valid JSON value, in order,
// its name decoded; it returns false when b is not an object.
func members(b []byte, fn func(name string, value []byte)) bool {
	i := jsontext.SkipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return false
	}
	i = jsontext.SkipSpace(b, i+1)
	for i < len(b) && b[i] != '}' {
		t, end, _ := jsontext.ScanString(b, i)
		name := stringOf(b, t)
		i = jsontext.SkipSpace(b, end)
		i = jsontext.SkipSpace(b, i+1) // the colon
		end = jsontext.SkipValue(b, i)
		fn(name, b[i:end])
		i = jsontext.SkipSpace(b, end)
		if i < len(b) && b[i] == ',' {
			i = jsontext.SkipSpace(b, i+1)
		}
	}
	return true
}

// checkedObject checks the object that starts at b[i], not yet known to be valid, and
// returns its end; -1 when it is not one. value checks and reads each member's value,
// from b[i] to the end it returns (-1 when it is not one valid JSON value), in order, as
// members reads them; it may have been called before the object is found not to be one.
func checkedObject(b []byte, i int, value func(name string, i int) (end int)) int {
	i = jsontext.SkipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return i + 1
	}
	for i < len(b) && b[i] == '"' {
		t, end, problem := jsontext.ScanString(b, i)
		if problem != "" {
			return -1
		}
		name := stringOf(b, t)
		if i = jsontext.SkipSpace(b, end); i >= len(b) || b[i] != ':' {
			return -1
		}
		if i = jsontext.SkipSpace(b, i+1); i >= len(b) {
			return -1
		}
		if end = value(name, i); end < 0 {
			return -1
		}
		switch i = jsontext.SkipSpace(b, end); {
		case i < len(b) && b[i] == ',':
			i = jsontext.SkipSpace(b, i+1)
		case i < len(b) && b[i] == '}':
			return i + 1
		default:
			return -1
		}
	}
	return -1
}

// elements calls fn with each element of the JSON array b, a valid JSON value; it returns
// false when b is not an array.
func elements(b []byte, fn func(value []byte)) bool {
	i := jsontext.SkipSpace(b, 0)
	if i >= len(b) || b[i] != '[' {
		return false
	}
	i = jsontext.SkipSpace(b, i+1)
	for i < len(b) && b[i] != ']' {
		end := jsontext.SkipValue(b, i)
		fn(b[i:end])
		i = jsontext.SkipSpace(b, end)
		if i < len(b) && b[i] == ',' {
			i = jsontext.SkipSpace(b, i+1)
		}
	}
	return true
}

// stringValue decodes v when it is a JSON string, as encoding/json does: escapes
// decoded, invalid UTF-8 replaced by U+FFFD.
func stringValue(v []byte) (string, bool) {
	if len(v) < 2 || v[0] != '"' {
		return "", false
	}
	t, end, problem := jsontext.ScanString(v, 0)
	if problem != "" || end != len(v) {
		return "", false
	}
	return stringOf(v, t), true
}

// stringOf returns the string token t of b, decoded: a constant, uncopied, when it is one
// of common's.
func stringOf(b []byte, t jsontext.String) string {
	if t.Verbatim(b) {
		raw := b[t.Start:t.End]
		if s, ok := common(raw); ok {
			return s
		}
		return string(raw)
	}
	var buf []byte
	return string(t.Text(b, &buf))
}

// common returns the member name or method raw as a constant when it is one that MCP's
// messages spell over and over: taken so rather than copied, it costs no allocation. A
// switch, which the compiler turns into a search by length, costs a third of a map's
// lookup.
func common(raw []byte) (string, bool) {
	switch string(raw) {
	case "jsonrpc":
		return "jsonrpc", true
	case "2.0":
		return "2.0", true
	case "id":
		return "id", true
	case "method":
		return "method", true
	case "params":
		return "params", true
	case "result":
		return "result", true
	case "error":
		return "error", true
	case "code":
		return "code", true
	case "message":
		return "message", true
	case "data":
		return "data", true
	case "name":
		return "name", true
	case "arguments":
		return "arguments", true
	case "_meta":
		return "_meta", true
	case "task":
		return "task", true
	case "progressToken":
		return "progressToken", true
	case "cursor":
		return "cursor", true
	case "nextCursor":
		return "nextCursor", true
	case "content":
		return "content", true
	case "structuredContent":
		return "structuredContent", true
	case "isError":
		return "isError", true
	case "type":
		return "type", true
	case "text":
		return "text", true
	case "tools":
		return "tools", true
	case "resultType":
		return "resultType", true
	case "taskId":
		return "taskId", true
	case "status":
		return "status", true
	case "requestId":
		return "requestId", true
	case "protocolVersion":
		return "protocolVersion", true
	case "capabilities":
		return "capabilities", true
	case "serverInfo":
		return "serverInfo", true
	case "clientInfo":
		return "clientInfo", true
	case "tools/call":
		return "tools/call", true
	case "tools/list":
		return "tools/list", true
	case "initialize":
		return "initialize", true
	case "ping":
		return "ping", true
	case "notifications/initialized":
		return "notifications/initialized", true
	case "notifications/cancelled":
		return "notifications/cancelled", true
	case "notifications/progress":
		return "notifications/progress", true
	case "notifications/tools/list_changed":
		return "notifications/tools/list_changed", true
	}
	return "", false
}

// idKey is the key of a JSON-RPC id in the proxy's tables: a string id and a number id
// with the same digits differ, and a number is the integer servers read (1.0 and 1e0
// are 1, and answered so).
func idKey(id []byte) string {
	var room [32]byte
	return string(appendIDKey(room[:0], id))
}

// appendIDKey appends idKey(id) to b.
func appendIDKey(b, id []byte) []byte {
	if len(id) >= 2 && id[0] == '"' {
		if t, end, problem := jsontext.ScanString(id, 0); problem == "" && end == len(id) {
			b = append(b, '"')
			if t.Verbatim(id) {
				return append(b, id[t.Start:t.End]...)
			}
			return jsontext.DecodeString(id[t.Start:t.End], b)
		}
	}
	id = bytes.TrimSpace(id)
	if !plainInteger(id) {
		if n, ok := numberID(id); ok {
			return strconv.AppendInt(b, n, 10)
		}
	}
	return append(b, id...)
}

// maxID bounds the number ids the proxy passes on: from 2^53, a float64 (JavaScript's
// numbers, Go's any) holds no longer every integer, and servers read another id.
const maxID = 1 << 53

// numberID returns the integer the number id equals; false when id is not a number, or
// one servers read as another (a fraction, which go-sdk truncates, or from maxID on).
func numberID(id []byte) (int64, bool) {
	f, err := strconv.ParseFloat(string(id), 64)
	if err != nil || f != math.Trunc(f) || math.Abs(f) >= maxID {
		return 0, false
	}
	return int64(f), true
}

// plainInteger reports whether id is an integer written as idKey keys it: digits,
// perhaps after a minus, without a leading zero, at most 15 (below maxID).
func plainInteger(id []byte) bool {
	d := bytes.TrimPrefix(id, []byte("-"))
	if len(d) == 0 || len(d) > 15 || d[0] == '0' && (len(d) > 1 || len(d) < len(id)) {
		return false
	}
	for _, c := range d {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// readableID reports whether id, a request's, is one every server reads as the proxy
// does: a string, or a number that is an integer below maxID.
func readableID(id []byte) bool {
	if _, ok := stringValue(id); ok {
		return true
	}
	id = bytes.TrimSpace(id)
	if plainInteger(id) {
		return true // as most ids are: no number to parse
	}
	_, ok := numberID(id)
	return ok
}

// isTrue reports whether v is the JSON literal true.
func isTrue(v []byte) bool { return string(bytes.TrimSpace(v)) == "true" }

// ambiguousIn reports whether the object b has a member named one of names twice, or
// under a name that differs from it only in case.
func ambiguousIn(b []byte, names ...string) bool {
	seen := 0
	ambiguous := false
	members(b, func(n string, _ []byte) {
		for i, name := range names {
			if strings.EqualFold(n, name) {
				if n != name || seen&(1<<i) != 0 {
					ambiguous = true
				}
				seen |= 1 << i
			}
		}
	})
	return ambiguous
}
