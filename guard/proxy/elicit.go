package proxy

import (
	"errors"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/mcpvalidate/mcpvalidate/guard"
)

// This file checks a client's answer to the server's elicitation/create request (form
// mode): content the client accepts with is checked against the requestedSchema of the
// request it answers. Content that breaks it never reaches the server, which gets instead
// the JSON-RPC error -32602 that the TypeScript SDK's servers raise when they check it
// themselves, naming what was wrong and never a value. Any other answer passes with its
// bytes.

// maxElicitations bounds the elicitation requests a session remembers in flight; past it,
// the oldest is forgotten, and its answer passes unchecked.
const maxElicitations = 256

// elicitations are the server's form elicitation requests in flight in a session: their
// requestedSchemas, by the key of their ids. Guarded by the session's mu.
type elicitations struct {
	byID  map[string][]byte
	order []string     // the keys, oldest first
	count atomic.Int32 // len(byID), read without the lock by every message of the client
}

// elicited remembers the server's elicitation/create request of id and params, and
// reports a requestedSchema outside what MCP allows for one.
func (p *Proxy) elicited(s *session, id, params []byte) {
	if mode, _ := stringValue(member(params, "mode")); mode != "" && mode != "form" {
		return
	}
	schema := member(params, "requestedSchema")
	if schema == nil {
		return
	}
	if why := notElicitable(schema); why != "" && p.log != nil {
		p.log.Warn("mcpvalidate: the server's requestedSchema is outside what MCP allows for an elicitation; the answer is checked against it all the same",
			"session", s.id, "why", why)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.elicitations.keep(idKey(id), schema)
}

// keep remembers the requestedSchema of the elicitation of key; the session's mu is held.
func (e *elicitations) keep(key string, schema []byte) {
	if e.byID == nil {
		e.byID = map[string][]byte{}
	}
	if _, known := e.byID[key]; !known {
		if len(e.order) == maxElicitations {
			e.forget(e.order[0])
		}
		e.order = append(e.order, key)
		e.count.Add(1)
	}
	e.byID[key] = slices.Clone(schema)
}

// From 2026-07-28 a server asks for input in a result (inputRequests, each under a key:
// of a tools/call asking for input, with its requestState; of a task's state, with its
// taskId), and the client answers in the request that follows (inputResponses under the
// same keys: the tools/call again, with the requestState; tasks/update, with the taskId).
// The elicitations among them are remembered as the server's elicitation/create requests
// are, by their scope (the requestState or the task) and key, and their answers checked.

// inputKey is the key of the input request key of the scope scope (taskKey's).
func inputKey(scope, key string) string { return "\x01" + scope + "\x00" + key }

// inputScope returns the scope of the input a client's request m answers (the
// requestState of a tools/call, the task of tasks/update), and whether it answers any.
func inputScope(m *message) (string, bool) {
	switch m.method {
	case "tools/call":
		if c, _ := paramsOf(m); c.answers {
			return "s" + taskKey(member(m.params, "requestState")), true
		}
	case "tasks/update":
		answers := false
		members(m.params, func(name string, _ []byte) { answers = answers || strings.EqualFold(name, "inputResponses") })
		return "t" + taskKey(member(m.params, "taskId")), answers
	}
	return "", false
}

// inputRequested remembers the elicitations among requests, the inputRequests of a result
// of the scope scope.
func (p *Proxy) inputRequested(s *session, scope string, requests []byte) {
	members(requests, func(key string, r []byte) {
		if method, _ := stringValue(member(r, "method")); method != "elicitation/create" {
			return
		}
		params := member(r, "params")
		if mode, _ := stringValue(member(params, "mode")); mode != "" && mode != "form" {
			return
		}
		if schema := member(params, "requestedSchema"); schema != nil {
			s.mu.Lock()
			s.elicitations.keep(inputKey(scope, key), schema)
			s.mu.Unlock()
		}
	})
}

// inputAnswers checks the inputResponses of a client's request of the scope scope against
// the elicitations they answer, and returns why they are refused, or "".
func (p *Proxy) inputAnswers(s *session, scope string, responses []byte) (why string) {
	if s.elicitations.count.Load() == 0 {
		return ""
	}
	members(responses, func(key string, r []byte) {
		if why != "" {
			return
		}
		s.mu.Lock()
		schema := s.elicitations.byID[inputKey(scope, key)]
		s.mu.Unlock()
		if schema != nil {
			why = p.elicitationVerdict(s, schema, r)
		}
	})
	return why
}

// elicitationVerdict checks result, the answer to an elicitation of requestedSchema
// schema, and returns why it is refused, or "".
func (p *Proxy) elicitationVerdict(s *session, schema, result []byte) string {
	if ambiguousIn(result, "action", "content") {
		return "Invalid elicitation response: a member appears twice or in two cases, so the server might read other content than the one checked"
	}
	if action, _ := stringValue(member(result, "action")); action != "accept" {
		return ""
	}
	content := member(result, "content")
	if content == nil {
		content = []byte("{}")
	}
	err := p.guard.CheckElicitation(schema, content)
	var refused *guard.ElicitationError
	switch {
	case err == nil:
		return ""
	case !errors.As(err, &refused):
		if p.log != nil {
			p.log.Warn("mcpvalidate: the server's requestedSchema does not compile; the elicitation's answer passes unchecked", "session", s.id, "error", err.Error())
		}
		return ""
	}
	if p.log != nil {
		p.log.Info("mcpvalidate: an elicitation's answer refused", "session", s.id, "violations", len(refused.Violations))
	}
	return refused.Error()
}

// forget drops the elicitation request of key, and returns its requestedSchema, or nil.
func (e *elicitations) forget(key string) []byte {
	schema, ok := e.byID[key]
	if ok {
		delete(e.byID, key)
		e.order = slices.DeleteFunc(e.order, func(k string) bool { return k == key })
		e.count.Add(-1)
	}
	return schema
}

// elicitationAnswer checks b, a message of the client, when it answers an elicitation
// request of the server: it returns what goes to the server in its place, or nil when b
// goes on as it is.
func (p *Proxy) elicitationAnswer(x exchange, b []byte) []byte {
	if x.s.elicitations.count.Load() == 0 {
		return nil
	}
	// Servers read an answer as it may be read: mcp-go's before anything else, even with a
	// method beside it; its members in any case; an id "9" as the request 9 (mcp-go's
	// json.Number, the TypeScript SDK's Number, Python's coercion).
	m, ok := parseMessage(b)
	if !ok || m.id == nil || m.result == nil && m.err == nil && !m.ambiguous {
		return nil
	}
	s := x.s
	s.mu.Lock()
	schema := s.elicitations.forget(idKey(m.id))
	if key, ok := numberInString(m.id); schema == nil && ok {
		schema = s.elicitations.forget(key)
	}
	s.mu.Unlock()
	if schema == nil {
		return nil
	}
	if m.ambiguous {
		return errorResponse(m.id, -32602, "Invalid elicitation response: a member appears twice or in two cases, so the server might read other content than the one checked")
	}
	if m.result == nil {
		return nil
	}
	if why := p.elicitationVerdict(s, schema, m.result); why != "" {
		return errorResponse(m.id, -32602, why)
	}
	return nil
}

// numberInString returns the key of the number id a string id spells, as servers that
// read ids as numbers take it; false when id is not such a string.
func numberInString(id []byte) (string, bool) {
	text, ok := stringValue(id)
	if !ok {
		return "", false
	}
	n, ok := numberID([]byte(strings.TrimSpace(text)))
	if !ok {
		return "", false
	}
	return strconv.FormatInt(n, 10), true
}

// primitives are the types of the members of an elicitation's requestedSchema.
var primitives = []string{"string", "number", "integer", "boolean"}

// notElicitable says why schema is outside what MCP allows for a form elicitation's
// requestedSchema (an object of members of primitive types, or arrays of enumerated
// strings for a choice of several), or returns "".
func notElicitable(schema []byte) string {
	if t, _ := stringValue(member(schema, "type")); t != "object" {
		return `its type is not "object"`
	}
	why := ""
	members(member(schema, "properties"), func(name string, prop []byte) {
		t, _ := stringValue(member(prop, "type"))
		switch {
		case why != "":
		case t == "array":
			if items := member(prop, "items"); items == nil || member(items, "enum") == nil && member(items, "anyOf") == nil {
				why = "member " + guard.ShownName(name) + " is an array of other than enumerated strings"
			}
		case !slices.Contains(primitives, t):
			why = "member " + guard.ShownName(name) + " is not of a primitive type"
		}
	})
	return why
}
