package proxy

import (
	"bytes"
	"encoding/base64"
	"net/http"
	"strconv"
	"strings"
	"sync"
)

// From MCP 2026-07-28, a request over streamable HTTP mirrors parts of its body in
// headers (Mcp-Method, Mcp-Name, and Mcp-Param-{Name} for the arguments a tool's
// inputSchema marks with x-mcp-header), so that load balancers and gateways can route on
// them. The proxy checks the body: a header that says otherwise would let what routes or
// runs the call read another one than the proxy checked. The proxy refuses such a
// request, as the specification asks of whatever reads the body: 400 Bad Request and
// the HeaderMismatch error. A header that is absent mirrors nothing and is the server's
// to require.

// headerMismatch is the JSON-RPC code of MCP's HeaderMismatch error.
const headerMismatch = -32020

// mirrors are a request's headers that may mirror its body, and whether the proxy
// refused one of its messages for a header that did not.
type mirrors struct {
	h          http.Header
	mismatched bool
}

// mirrorHeader reports whether the header name (canonical) mirrors a part of the body.
func mirrorHeader(name string) bool {
	return name == "Mcp-Method" || name == "Mcp-Name" || strings.HasPrefix(name, paramPrefix)
}

const paramPrefix = "Mcp-Param-"

// request returns why the Mcp-Method and Mcp-Name headers disagree with the request m,
// "" when they agree or are absent.
func (ms *mirrors) request(m *message) string {
	if ms == nil {
		return ""
	}
	if v, why := ms.one("Mcp-Method", false); why != "" {
		return why
	} else if v != nil && *v != m.method {
		return "the Mcp-Method header names another method than the body"
	}
	v, why := ms.one("Mcp-Name", true)
	if why != "" || v == nil {
		return why
	}
	name, ok := stringValue(member(m.params, "name"))
	if !ok {
		name, ok = stringValue(member(m.params, "uri"))
	}
	if !ok || name != *v {
		return "the Mcp-Name header names another tool, prompt or resource than the body"
	}
	return ""
}

// arguments returns why the Mcp-Param-{Name} headers disagree with the arguments args of
// a call of t, "" when they agree. A header no property of t's inputSchema is marked for
// is not the proxy's to read.
func (ms *mirrors) arguments(t *tool, args []byte) string {
	if ms == nil || t == nil {
		return ""
	}
	for _, p := range t.in.mirrored() {
		v, why := ms.one(paramPrefix+p.header, true)
		if why != "" {
			return why
		}
		if v == nil {
			continue
		}
		arg := args
		for _, name := range p.path {
			var twice bool
			if arg, twice = memberFold(arg, name); twice {
				return "the argument the " + paramPrefix + p.header + " header mirrors appears twice, or in two cases"
			}
		}
		if !sameArgument(arg, *v) {
			return "the " + paramPrefix + p.header + " header gives another value than the arguments"
		}
	}
	return ""
}

// one returns the value of the header name, which the front let come once at most; nil
// when absent. decode: the value may be given in Base64 as =?base64?…?=. why says what is
// wrong with it.
func (ms *mirrors) one(name string, decode bool) (v *string, why string) {
	vs := ms.h.Values(name)
	if len(vs) == 0 {
		return nil, ""
	}
	s := vs[0]
	if decode && strings.HasPrefix(s, "=?base64?") && strings.HasSuffix(s, "?=") && len(s) >= len("=?base64??=") {
		b, err := base64.StdEncoding.DecodeString(s[len("=?base64?") : len(s)-len("?=")])
		if err != nil {
			return nil, "the " + name + " header is not valid Base64"
		}
		s = string(b)
	}
	return &s, ""
}

// sameArgument reports whether the header value h mirrors the argument arg: a string as
// it is, an integer in decimal (compared as a number), a boolean as true or false.
func sameArgument(arg []byte, h string) bool {
	arg = bytes.TrimSpace(arg)
	if len(arg) == 0 {
		return false
	}
	switch arg[0] {
	case '"':
		s, ok := stringValue(arg)
		return ok && s == h
	case 't', 'f':
		return string(arg) == h
	case 'n':
		return false
	}
	if !plainInteger([]byte(h)) {
		return false
	}
	a, errA := strconv.ParseFloat(string(arg), 64)
	b, errB := strconv.ParseFloat(h, 64)
	return errA == nil && errB == nil && a == b && a <= maxID && a >= -maxID
}

// A mirroredParam is a property an inputSchema marks with x-mcp-header: the header's
// name after Mcp-Param-, and the chain of properties that leads to it.
type mirroredParam struct {
	header string
	path   []string
}

// mirrored returns the properties s marks with x-mcp-header, reachable from its root
// through properties alone, as MCP defines them; read once.
func (s *schema) mirrored() []mirroredParam {
	s.mirrorsOnce.Do(func() {
		if s.err == nil {
			s.params = markedParams([]byte(s.key.Value()), nil, nil)
		}
	})
	return s.params
}

// markedParams appends the properties under the schema b marked with x-mcp-header, at path.
func markedParams(b []byte, path []string, to []mirroredParam) []mirroredParam {
	if len(path) > maxMirrorDepth {
		return to
	}
	if h, ok := stringValue(member(b, "x-mcp-header")); ok && len(path) > 0 {
		to = append(to, mirroredParam{header: h, path: path})
	}
	members(member(b, "properties"), func(name string, sub []byte) {
		to = markedParams(sub, append(path[:len(path):len(path)], name), to)
	})
	return to
}

// maxMirrorDepth bounds the chain of properties the proxy follows for x-mcp-header.
const maxMirrorDepth = 32

// mirrorOnce is embedded in schema: the marked parameters, read when first needed.
type mirrorOnce struct {
	mirrorsOnce sync.Once
	params      []mirroredParam
}

// refuse answers the request of id (nil: a notification) that a header did not mirror.
func (ms *mirrors) refuse(id []byte, why string) []byte {
	ms.mismatched = true
	if id == nil {
		id = []byte("null")
	}
	return errorResponse(id, headerMismatch, "Header mismatch: "+why+"; the request was not sent on")
}
