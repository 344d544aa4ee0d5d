package proxy

import (
	"bytes"
	"sync"

	"github.com/mcpvalidate/mcpvalidate/guard"
)

// This file serves the tools' schemas as a model provider takes them (Options.SchemasFor):
// each tools/list answer the client gets carries them rewritten, while the session keeps
// the server's to check calls against.

// maxServed bounds the schema texts whose rewrite the proxy keeps; past it, a rewrite is
// made again for each answer that holds the schema.
const maxServed = 4096

// served keeps the rewrites made, by the server's schema text: nil for a schema that
// cannot be rewritten, which has been reported.
type served struct {
	mu     sync.Mutex
	byText map[string][]byte
}

// servedList returns the answer to a tools/list request, id, whose result is result, with
// each tool's inputSchema as the provider takes it.
func (p *Proxy) servedList(id, result []byte) []byte {
	var out bytes.Buffer
	out.WriteString(`{"jsonrpc":"2.0","id":`)
	out.Write(id)
	out.WriteString(`,"result":{`)
	first := true
	members(result, func(name string, value []byte) {
		if !first {
			out.WriteByte(',')
		}
		first = false
		out.Write(appendString(nil, name))
		out.WriteByte(':')
		if name != "tools" {
			out.Write(value)
			return
		}
		out.WriteByte('[')
		i := 0
		elements(value, func(tool []byte) {
			if i > 0 {
				out.WriteByte(',')
			}
			i++
			p.servedTool(&out, tool)
		})
		out.WriteByte(']')
	})
	out.WriteString("}}")
	return out.Bytes()
}

// servedTool writes tool with its inputSchema as the provider takes it.
func (p *Proxy) servedTool(out *bytes.Buffer, tool []byte) {
	schema := member(tool, "inputSchema")
	if schema == nil {
		out.Write(tool)
		return
	}
	rewritten := p.rewrite(tool, schema)
	if rewritten == nil {
		out.Write(tool)
		return
	}
	out.WriteByte('{')
	first := true
	members(tool, func(name string, value []byte) {
		if !first {
			out.WriteByte(',')
		}
		first = false
		out.Write(appendString(nil, name))
		out.WriteByte(':')
		if name == "inputSchema" {
			value = rewritten
		}
		out.Write(value)
	})
	out.WriteByte('}')
}

// rewrite returns schema, of tool, as the provider takes it, or nil when it cannot be
// written so, which it logs once per schema text.
func (p *Proxy) rewrite(tool, schema []byte) []byte {
	s := &p.served
	s.mu.Lock()
	out, known := s.byText[string(schema)]
	s.mu.Unlock()
	if known {
		return out
	}
	out, err := guard.RewriteFor(p.opts.SchemasFor, schema)
	if err != nil && p.log != nil {
		name, _ := stringValue(member(tool, "name"))
		p.log.Warn("mcpvalidate: a tool's schema cannot be served as the provider takes it, and goes as the server wrote it",
			"provider", string(p.opts.SchemasFor), "tool", guard.ShownName(name), "why", err.Error())
	}
	s.mu.Lock()
	if s.byText == nil {
		s.byText = map[string][]byte{}
	}
	if len(s.byText) < maxServed {
		s.byText[string(schema)] = out
	}
	s.mu.Unlock()
	return out
}
