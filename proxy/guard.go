package proxy

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/mcpvalidate/mcpvalidate/internal/core"
)

// This file is the proxy's only use of package core: the guard made from Options, the
// tools' schemas bound in its cache, and its verdicts turned into JSON-RPC answers.

// guard is the proxy's guard.
type guard = *core.Guard

// newGuard makes the guard that o describes.
func newGuard(o *Options) (guard, error) {
	// A refusal carries its violations as data: the proxy writes its answers itself, so the
	// data costs only its bytes, not a framework's repeated marshals.
	opts := []core.Option{core.WithViolationMeta()}
	switch o.Format {
	case "", FormatDefault:
	case FormatGateway:
		opts = append(opts, core.WithFormatter(core.GatewayFormat))
	case FormatDetailed:
		opts = append(opts, core.WithFormatter(core.DetailedFormat), core.WithHints())
	default:
		return nil, fmt.Errorf("proxy: unknown format %q (want default, gateway or detailed)", o.Format)
	}
	if o.ReportOnly {
		opts = append(opts, core.WithReportOnly())
	}
	if o.FormatAssertion {
		opts = append(opts, core.WithFormatAssertion())
	}
	if o.Output {
		opts = append(opts, core.WithOutputValidation())
	}
	if o.MaxDepth < 0 || o.MaxViolations < 0 || o.MaxMessage < 0 || o.BodyTimeout < 0 || o.WriteTimeout < 0 {
		return nil, errors.New("proxy: MaxDepth, MaxViolations, MaxMessage, BodyTimeout and WriteTimeout must not be negative")
	}
	opts = append(opts, core.WithMaxDepth(o.MaxDepth), core.WithMaxViolations(o.MaxViolations))
	if o.Logger != nil {
		opts = append(opts, core.WithLogger(o.Logger))
		if o.LogEnumValues {
			opts = append(opts, core.WithEnumMisses())
		}
	}
	return core.New(append(opts, o.Guard...)...), nil
}

// A schema is one tool's inputSchema or outputSchema as one tools/list answer gave it,
// bound in the guard's cache under a key of its own.
type schema struct {
	key  *byte
	text []byte
	err  error
}

func (p *Proxy) bind(text []byte, err error) *schema {
	s := &schema{key: new(byte), text: text, err: err}
	p.guard.Bind(s.key, nil, s.text, s.err)
	return s
}

func (s *schema) of(g *core.Guard) *core.Schema {
	if c := g.Lookup(s.key); c != nil {
		return c
	}
	return g.Bind(s.key, nil, s.text, s.err)
}

// checkCall decides a tools/call of the tool t (nil when the server does not list it) with
// the raw arguments args (nil when absent), and returns the answer that refuses it, or nil
// when it goes on to the server.
func (p *Proxy) checkCall(s *session, o *observed, t *tool, name string, id, args []byte) []byte {
	text, meta, refused := p.decide(s, o, t, name, args)
	if !refused {
		return nil
	}
	return p.refusal(id, text, meta)
}

// decide returns the text and violations that refuse a call of t, or refused false.
func (p *Proxy) decide(s *session, o *observed, t *tool, name string, args []byte) (text string, meta json.RawMessage, refused bool) {
	if t == nil {
		o.unlisted()
		if p.opts.Unknown != RefuseUnknown {
			return "", nil, false
		}
		return "Unknown tool: the server does not list a tool named " + strconv.Quote(name) + ". Call tools/list to see the tools it offers.", nil, true
	}
	var local core.Call
	call := o.guardCall(s, name, &local, t.out != nil && p.guard.ChecksResults())
	if vd := p.guard.Check(call, t.in.of(p.guard), args, nil); vd.Refused() {
		return vd.Text(), vd.Meta(), true
	}
	if t.out != nil && p.guard.ChecksResults() {
		if _, vd := p.guard.ResultValidator(call, t.out.of(p.guard)); vd.Refused() {
			return vd.Text(), vd.Meta(), true
		}
	}
	return "", nil, false
}

// checkResult checks the result of a successful call of t against its outputSchema, under
// Options.Output, and returns the answer that replaces the server's, or nil.
func (p *Proxy) checkResult(s *session, t *tool, name string, o *observed, id, result []byte) []byte {
	if t == nil || t.out == nil || !p.guard.ChecksResults() || isTrue(member(result, "isError")) {
		return nil
	}
	var local core.Call
	call := o.guardCall(s, name, &local, false)
	v, vd := p.guard.ResultValidator(call, t.out.of(p.guard))
	if v == nil {
		if vd.Refused() {
			return p.resultRefusal(id, vd.Text(), vd.Meta())
		}
		return nil
	}
	if vd := p.guard.CheckResult(call, v, member(result, "structuredContent")); vd.Refused() {
		return p.resultRefusal(id, vd.Text(), vd.Meta())
	}
	return nil
}

func (s *session) call(name string) core.Call {
	s.mu.Lock()
	defer s.mu.Unlock()
	return core.Call{Tool: name, Session: s.id, Client: s.client, ClientVersion: s.clientVersion, ProtocolVersion: s.version}
}

// refusal answers the request id with an isError tool result of text and meta, or under
// Options.RefuseAsError with a JSON-RPC error -32602.
func (p *Proxy) refusal(id []byte, text string, meta json.RawMessage) []byte {
	if p.opts.RefuseAsError {
		b := append(responseHead(id), `"error":{"code":-32602,"message":`...)
		b = appendString(b, text)
		if meta != nil {
			b = append(b, `,"data":{"`+core.MetaKey+`":`...)
			b = append(append(b, meta...), '}')
		}
		return append(b, "}}"...)
	}
	return p.resultRefusal(id, text, meta)
}

// resultRefusal answers the request id with an isError tool result of text and meta.
func (p *Proxy) resultRefusal(id []byte, text string, meta json.RawMessage) []byte {
	b := append(responseHead(id), `"result":`...)
	return append(appendRefusalResult(b, text, meta), '}')
}

// appendRefusalResult appends the isError tool result of text and meta.
func appendRefusalResult(b []byte, text string, meta json.RawMessage) []byte {
	b = append(b, `{"content":[{"type":"text","text":`...)
	b = appendString(b, text)
	b = append(b, `}],"isError":true`...)
	if meta != nil {
		b = append(b, `,"_meta":{"`+core.MetaKey+`":`...)
		b = append(append(b, meta...), '}')
	}
	return append(b, '}')
}
