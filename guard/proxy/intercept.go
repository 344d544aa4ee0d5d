package proxy

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/mcpvalidate/mcpvalidate/guard/internal/jsontext"
)

// This file speaks the contract of Docker's MCP Gateway's "before" interceptors
// (docker/mcp-gateway, pkg/interceptors): for each tools/call the gateway hands the
// interceptor the call request as JSON (on stdin for before:exec:, as a POST body for
// before:http:), and when the interceptor answers with anything, it unmarshals that as a
// CallToolResult and returns it instead of calling the tool; an empty answer lets the
// call go on.

// An Interceptor checks the calls Docker's MCP Gateway hands it against a fixed list of
// tools.
type Interceptor struct {
	p     *Proxy
	s     *session
	tools map[string]*tool // its own, never dropped: it cannot fetch them again
}

// Interceptor returns an Interceptor that checks calls against tools: a tools/list
// result ({"tools": [...]}), a JSON-RPC response holding one, or an array of tools.
func (p *Proxy) Interceptor(tools []byte) (*Interceptor, error) {
	if !jsontext.Valid(tools) {
		return nil, errors.New("proxy: the tool list is not JSON")
	}
	result := tools
	if r := member(tools, "result"); r != nil {
		result = r
	}
	list := member(result, "tools")
	if list == nil {
		list = result
		result = append(append([]byte(`{"tools":`), result...), '}')
	}
	if !elements(list, func([]byte) {}) {
		return nil, errors.New(`proxy: the tool list holds no array of "tools"`)
	}
	listed := map[string]*tool{}
	addTools(listed, result)
	return &Interceptor{p: p, s: newSession(""), tools: listed}, nil
}

// Intercept decides the call msg, as the gateway marshals its call request
// ({"Params": {"name": ..., "arguments": ...}, ...}), a JSON-RPC request, or its params
// alone, and returns the CallToolResult that refuses it, or nil when the call may go on.
// A message it cannot read is an error.
func (i *Interceptor) Intercept(msg []byte) ([]byte, error) {
	if !jsontext.Valid(msg) {
		return nil, errors.New("proxy: the intercepted call is not JSON")
	}
	var params []byte
	seen := 0
	members(msg, func(name string, v []byte) {
		if strings.EqualFold(name, "params") {
			params, seen = v, seen+1
		}
	})
	if seen > 1 {
		return nil, errors.New("proxy: the intercepted call holds its params twice, or in two cases")
	}
	if params == nil {
		params = msg
	}
	c, ok := parseCallParams(params)
	if !ok || c.ambiguous {
		return nil, errors.New("proxy: the intercepted call names no tool, or names it ambiguously")
	}
	name, args := c.name, c.arguments
	text, meta, refused := i.decide(name, args)
	for depth := 0; !refused && name == gatewayExec && i.tools[name] != nil; depth++ {
		// The gateway's mcp-exec runs the tool it names itself, past the interceptors:
		// that call is checked here, as the gateway reads it.
		if name, args, text = execTarget(args); text == "" && depth == maxExecDepth {
			text = "mcp-exec calls mcp-exec more than " + strconv.Itoa(maxExecDepth) + " deep"
		}
		if refused = text != ""; !refused {
			text, meta, refused = i.decide(name, args)
		}
	}
	if !refused {
		return nil, nil
	}
	return appendRefusalResult(nil, text, meta, i.s.modern(c.meta, "")), nil
}

// decide decides a call of the tool name with the arguments args as the gateway hands
// them on: decoded into an any and marshalled again (pkg/gateway/handlers.go), so every
// number as the float64 it rounds to; they must meet the schema so, as well as sent.
func (i *Interceptor) decide(name string, args []byte) (text string, meta json.RawMessage, refused bool) {
	t := i.tools[name]
	if t != nil {
		if read, changed := asFloat64s(args); changed {
			if v, err := i.p.guard.Compiled(t.in.of(i.p.guard)); err == nil && v.Validate(read) != nil {
				args = read // refused as the server would get it
			}
		}
	}
	return i.p.decide(i.s, nil, t, name, args)
}

// asFloat64s returns the JSON text b with each number written as the float64 it rounds
// to, and whether one was written otherwise; b when it is not JSON the proxy reads.
func asFloat64s(b []byte) ([]byte, bool) {
	var out []byte
	var room [32]byte
	last := 0
	for i := 0; i < len(b); i++ {
		switch c := b[i]; {
		case c == '"':
			_, end, problem := jsontext.ScanString(b, i)
			if problem != "" {
				return b, false
			}
			i = end - 1
		case c == '-' || '0' <= c && c <= '9':
			end, whole, problem := jsontext.ScanNumber(b, i)
			if problem != "" {
				return b, false
			}
			num := b[i:end]
			if !(whole && end-i <= 15) { // else exact in a float64
				if f, err := strconv.ParseFloat(string(num), 64); err == nil {
					if read := strconv.AppendFloat(room[:0], f, 'g', -1, 64); !bytes.Equal(read, num) {
						out = append(append(out, b[last:i]...), read...)
						last = end
					}
				}
			}
			i = end - 1
		}
	}
	if out == nil {
		return b, false
	}
	return append(out, b[last:]...), true
}

// gatewayExec is the tool of Docker's MCP Gateway (its dynamic tools, on by default) that
// calls another tool, named in its arguments, with the arguments given there.
const gatewayExec = "mcp-exec"

// maxExecDepth bounds the mcp-exec calls of mcp-exec an interceptor reads through.
const maxExecDepth = 8

// execTarget returns the tool an mcp-exec call of the arguments args runs and its
// arguments, as the gateway reads them (pkg/gateway/mcpexec.go: encoding/json, so a
// member in any case, the name trimmed of spaces, arguments given as a JSON string read
// from it); or why the call is refused, when they cannot be told for sure.
func execTarget(args []byte) (name string, inner []byte, why string) {
	if ambiguousIn(args, "name", "arguments") {
		return "", nil, "mcp-exec's arguments give the tool's name or its arguments twice, or in two cases"
	}
	inner = []byte("{}")
	members(args, func(k string, v []byte) {
		switch {
		case strings.EqualFold(k, "name"):
			name, _ = stringValue(v)
		case strings.EqualFold(k, "arguments"):
			inner = v
			if s, ok := stringValue(v); ok {
				inner = []byte(s)
			}
		}
	})
	if name = strings.TrimSpace(name); name == "" {
		return "", nil, "mcp-exec's arguments name no tool"
	}
	return name, inner, ""
}

// ServeHTTP is the before:http: interceptor: the call in the POST body, the refusal (a
// CallToolResult) or nothing in the answer's body, 200 either way; 400 for a body it
// cannot read, 413 for one over Options.MaxMessage.
func (i *Interceptor) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		http.Error(w, "POST a tools/call request", http.StatusMethodNotAllowed)
		return
	}
	msg, err := io.ReadAll(http.MaxBytesReader(w, r.Body, i.p.opts.maxMessage()))
	if tooBig := (*http.MaxBytesError)(nil); errors.As(err, &tooBig) {
		http.Error(w, tooLong("the request", -1, tooBig.Limit), http.StatusRequestEntityTooLarge)
		return
	}
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	out, err := i.Intercept(msg)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	if out != nil {
		writeJSON(w, out)
		return
	}
	w.WriteHeader(http.StatusOK)
}
