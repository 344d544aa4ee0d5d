package proxy

import "github.com/mcpvalidate/mcpvalidate/guard"

// This file is what the guard's observers (Options.Guard, such as mcpvalidateotel's
// instrumentation) are told of the calls through the proxy besides the checks: each
// tools/call's operation, from the request the proxy receives to the response it sends
// back, and, for a call whose result is checked, the repair it makes once its result
// reaches the client. The fronts reach it through nil checks: without observers, a call
// costs nothing more.

// UnknownTool is the tool name under which a call of a tool the server does not list ends
// (the guard's call-end observers, Options.Trace) and is counted in metrics, whatever name
// the call gave: names that a model makes up are not recorded, so that metric attributes
// stay bounded. The guard's event of the call (outcome unknown tool) carries the name
// sent, which the Logger shows escaped and elided.
const UnknownTool = guard.UnknownToolName

// Guard returns the guard that checks the proxy's calls: its counters and its cache, which
// mcpvalidateotel's ObserveCache reports.
func (p *Proxy) Guard() *guard.Guard { return p.guard }

// An observed call is a tools/call the guard's observers are told of, kept from its
// request to its response.
type observed struct {
	g    *guard.Guard
	call guard.Call
	task bool                            // answered with a task: its result comes later, unchecked
	end  func(tool string, isError bool) // of Options.Trace; nil without it
}

// begin starts the operation of the call c of request id, when the guard has observers
// and the call has an id (a notification gets no response); nil otherwise.
func (p *Proxy) begin(s *session, id []byte, c *callParams) *observed {
	if !p.observe || id == nil {
		return nil
	}
	return p.started(s, c)
}

func (p *Proxy) started(s *session, c *callParams) *observed {
	o := &observed{g: p.guard, call: p.call(s, c.name), task: c.task != nil}
	if v := declaredVersion(c.meta); v != "" && len(v) <= maxVersion {
		o.call.ProtocolVersion = v
	}
	if p.opts.Trace != nil {
		o.call.Context, o.end = p.opts.Trace(metaOf(c.meta))
	}
	p.guard.Begin(&o.call)
	return o
}

// guardCall returns the call the guard checks, of the listed tool name: o's, the result
// to be checked when checksResult, or, without observers, a call made in local.
func (o *observed) guardCall(p *Proxy, s *session, name string, local *guard.Call, checksResult bool) *guard.Call {
	if o == nil {
		*local = p.call(s, name)
		return local
	}
	if checksResult && !o.task {
		o.call.ChecksResult = true
	}
	return &o.call
}

// unlisted records that the call's tool is not one the server lists.
func (o *observed) unlisted() {
	if o != nil {
		o.call.Tool = UnknownTool
	}
}

// refused ends a call the proxy answered itself: refused, or its server gone.
func (o *observed) refused() {
	if o != nil {
		o.ended(true)
	}
}

// answered ends a call the server answered with result (nil for a JSON-RPC error), which
// the proxy withheld or passed on.
func (o *observed) answered(result []byte, withheld bool) {
	if o != nil {
		o.answer(result, withheld)
	}
}

func (o *observed) answer(result []byte, withheld bool) {
	if withheld {
		o.ended(true)
		return
	}
	o.g.Unchecked(&o.call) // the result reaches the client: an accepted call repairs
	o.ended(result == nil || isTrue(member(result, "isError")))
}

// ended tells the guard's observers, and Options.Trace, that the call ended.
func (o *observed) ended(isError bool) {
	o.g.Ended(&o.call, isError)
	if o.end != nil {
		o.end(o.call.Tool, isError)
	}
}

// maxVersion bounds the protocol versions kept.
const maxVersion = 64

// metaProtocolVersion is the _meta member in which a request of the stateless protocol
// (2026-07-28 on) carries its protocol version, in place of a session's initialize.
const metaProtocolVersion = "io.modelcontextprotocol/protocolVersion"

// declaredVersion returns the protocol version a request's _meta declares, "" when none.
func declaredVersion(meta []byte) string {
	v, _ := stringValue(member(meta, metaProtocolVersion))
	return v
}

// modern reports whether a request of the session, with the _meta meta, over a transport
// that gives the protocol version given ("" when none), speaks a protocol whose results
// carry resultType: the version its _meta declares, else the one its transport gives
// (HTTP's MCP-Protocol-Version), else the one the session negotiated.
func (s *session) modern(meta []byte, given string) bool {
	v := declaredVersion(meta)
	if v == "" {
		v = given
	}
	if v == "" {
		s.mu.Lock()
		v = s.version
		s.mu.Unlock()
	}
	return carriesResultType(v)
}

// replyTo is what the proxy's own answer to the call c depends on.
func (s *session) replyTo(c *callParams, given string) reply {
	return reply{modern: s.modern(c.meta, given), task: c.task != nil}
}

// negotiated records the protocol version of an initialize result, or of a request's
// MCP-Protocol-Version header.
func (s *session) negotiated(version string) {
	if version == "" || len(version) > maxVersion {
		return
	}
	s.mu.Lock()
	s.version = version
	s.mu.Unlock()
}

// protocolVersion returns the protocolVersion of an initialize result.
func protocolVersion(result []byte) string {
	v, _ := stringValue(member(result, "protocolVersion"))
	return v
}
