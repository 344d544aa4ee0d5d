package proxy

import (
	"encoding/json"
	"errors"
	"unique"

	"github.com/mcpvalidate/mcpvalidate/guard"
)

// The proxy's guard: made from Options, the tools' schemas bound in its cache, and its
// verdicts turned into JSON-RPC answers.

// newGuard makes the guard that o describes.
func newGuard(o *Options) (*guard.Guard, error) {
	// A refusal carries its violations as data: the proxy writes its answers itself, so the
	// data costs only its bytes, not a framework's repeated marshals.
	opts := []guard.Option{guard.WithViolationMeta()}
	if o.ReportOnly {
		opts = append(opts, guard.WithReportOnly())
	}
	if o.FormatAssertion {
		opts = append(opts, guard.WithFormatAssertion())
	}
	if o.Output {
		opts = append(opts, guard.WithOutputValidation())
	}
	if o.MaxDepth < 0 || o.MaxViolations < 0 || o.MaxMessage < 0 || o.CacheBudget < 0 || o.BodyTimeout < 0 || o.WriteTimeout < 0 {
		return nil, errors.New("proxy: MaxDepth, MaxViolations, MaxMessage, CacheBudget, BodyTimeout and WriteTimeout must not be negative")
	}
	opts = append(opts, guard.WithMaxDepth(o.MaxDepth), guard.WithMaxViolations(o.MaxViolations), guard.WithCacheBudget(o.CacheBudget))
	if o.Logger != nil {
		opts = append(opts, guard.WithLogger(o.Logger))
		if o.LogEnumValues {
			opts = append(opts, guard.WithEnumMisses())
		}
	}
	return guard.New(append(opts, o.Guard...)...), nil
}

// A schema is one tool's inputSchema or outputSchema: its text, kept once however many
// lists hold it, which is also its key in the guard's cache, bound on first use.
type schema struct {
	key unique.Handle[string] // the text; for one that has none, "\x00" and err
	err error
	mirrorOnce
}

func newSchema(text []byte, err error) *schema {
	if err != nil {
		return &schema{key: unique.Make("\x00" + err.Error()), err: err}
	}
	return &schema{key: unique.Make(string(text))}
}

func (s *schema) of(g *guard.Guard) *guard.Schema {
	if c := g.Lookup(s.key); c != nil {
		return c
	}
	var text []byte
	if s.err == nil {
		text = []byte(s.key.Value())
	}
	return g.Bind(s.key, nil, text, s.err)
}

// checkCall decides the tools/call c of the tool t (nil when the server does not list it),
// over a transport that gives the protocol version given, and returns the answer that
// refuses it (for a tool not listed, the JSON-RPC error the MCP specification gives), or
// nil when it goes on to the server.
func (p *Proxy) checkCall(s *session, o *observed, t *tool, c *callParams, id []byte, given string) []byte {
	text, meta, refused := p.decide(s, o, t, c.name, c.arguments)
	switch {
	case !refused:
		return nil
	case t == nil:
		return errorResponse(id, -32602, text)
	}
	return p.refusal(id, text, meta, s.replyTo(c, given))
}

// decide returns the text and violations that refuse a call of t, or refused false.
func (p *Proxy) decide(s *session, o *observed, t *tool, name string, args []byte) (text string, meta json.RawMessage, refused bool) {
	if t == nil {
		pass := p.opts.Unknown == PassUnknown || p.opts.ReportOnly
		var local guard.Call
		p.guard.Unlisted(o.guardCall(p, s, name, &local, false), pass)
		o.unlisted()
		if pass {
			return "", nil, false
		}
		return "Unknown tool: " + shownName(name), nil, true
	}
	var local guard.Call
	call := o.guardCall(p, s, name, &local, t.out != nil && p.guard.ChecksResults())
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

// shownName is a tool name as the proxy's answers show it: quoted unless plain, and
// elided past 64 characters, so that a made-up name cannot fill them.
func shownName(name string) string { return guard.ShownName(name) }

// checkResult checks the result of a successful call of t against its outputSchema, under
// Options.Output, and returns the answer that replaces the server's, or nil; modern: the
// request's protocol has results carry resultType.
func (p *Proxy) checkResult(s *session, t *tool, name string, o *observed, id, result []byte, modern bool) []byte {
	if t == nil || t.out == nil || !p.guard.ChecksResults() {
		return nil
	}
	if ambiguousIn(result, "isError", "structuredContent") {
		return p.resultRefusal(id, "The tool failed on the server's side: its result names isError or structuredContent twice or in two cases, so the client might read another result than the one checked; it was withheld.", nil, modern)
	}
	if isTrue(member(result, "isError")) {
		return nil
	}
	if kind := resultKind(result); kind != "" && kind != "complete" && !callResult(result) {
		return nil // not the call's result (a task made, input asked for), nor one clients read as it
	}
	var local guard.Call
	call := o.guardCall(p, s, name, &local, false)
	v, vd := p.guard.ResultValidator(call, t.out.of(p.guard))
	if v == nil {
		if vd.Refused() {
			return p.resultRefusal(id, vd.Text(), vd.Meta(), modern)
		}
		return nil
	}
	if vd := p.guard.CheckResult(call, v, member(result, "structuredContent")); vd.Refused() {
		return p.resultRefusal(id, vd.Text(), vd.Meta(), modern)
	}
	return nil
}

// named keeps the server's name from info, its Implementation (serverInfo), if it gives
// one: in its answer to initialize, or, from 2026-07-28, in a result's _meta.
func (p *Proxy) named(info []byte) {
	if name, ok := stringValue(member(info, "name")); ok && (p.server.Load() == nil || *p.server.Load() != name) {
		p.server.Store(&name)
	}
}

// serverName is the server's name, as it last gave it; "" when it gave none.
func (p *Proxy) serverName() string {
	if n := p.server.Load(); n != nil {
		return *n
	}
	return ""
}

// call is the call of the tool name in s, as the guard is told of it.
func (p *Proxy) call(s *session, name string) guard.Call {
	server := p.serverName()
	s.mu.Lock()
	defer s.mu.Unlock()
	return guard.Call{Tool: name, Session: s.id, Client: s.client, ClientVersion: s.clientVersion, Server: server, ProtocolVersion: s.version}
}

// A reply is what the proxy's own answer to a call depends on: whether the call's
// protocol has results carry resultType (2026-07-28 on), and whether it asks for a task.
type reply struct{ modern, task bool }

// resultTypeSince is the first protocol version whose results carry resultType, and in
// which a result may answer a task-augmented call (the tasks extension).
const resultTypeSince = "2026-07-28"

// carriesResultType reports whether the protocol version v is a date, resultTypeSince or
// later.
func carriesResultType(v string) bool {
	if len(v) != len(resultTypeSince) {
		return false
	}
	for i := range len(v) {
		if i == 4 || i == 7 {
			if v[i] != '-' {
				return false
			}
		} else if v[i] < '0' || v[i] > '9' {
			return false
		}
	}
	return v >= resultTypeSince
}

// refusal answers the request id with an isError tool result of text and meta, or with a
// JSON-RPC error -32602 of text whose data is meta: under Options.RefuseAsError, and for a
// task-augmented call before 2026-07-28, whose client reads any result as a task.
func (p *Proxy) refusal(id []byte, text string, meta json.RawMessage, r reply) []byte {
	if p.opts.RefuseAsError || r.task && !r.modern {
		b := append(responseHead(id), `"error":{"code":-32602,"message":`...)
		b = appendString(b, text)
		if meta != nil {
			b = append(b, `,"data":{"`+guard.MetaKey+`":`...)
			b = append(append(b, meta...), '}')
		}
		return append(b, "}}"...)
	}
	return p.resultRefusal(id, text, meta, r.modern)
}

// resultRefusal answers the request id with an isError tool result of text and meta.
func (p *Proxy) resultRefusal(id []byte, text string, meta json.RawMessage, modern bool) []byte {
	b := append(responseHead(id), `"result":`...)
	return append(appendRefusalResult(b, text, meta, modern), '}')
}

// appendRefusalResult appends the isError tool result of text and meta, with resultType
// when modern.
func appendRefusalResult(b []byte, text string, meta json.RawMessage, modern bool) []byte {
	b = append(b, '{')
	if modern {
		b = append(b, `"resultType":"complete",`...)
	}
	b = append(b, `"content":[{"type":"text","text":`...)
	b = appendString(b, text)
	b = append(b, `}],"isError":true`...)
	if meta != nil {
		b = append(b, `,"_meta":{"`+guard.MetaKey+`":`...)
		b = append(append(b, meta...), '}')
	}
	return append(b, '}')
}
