package proxy

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"log/slog"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/mcpvalidate/mcpvalidate/guard"
)

// Unknown is what the proxy does with a call of a tool the server does not list.
type Unknown uint8

const (
	// RefuseUnknown refuses the call as the MCP specification has a server answer a call
	// of a tool it does not have: a JSON-RPC error -32602, "Unknown tool: " and the name
	// (elided past 64 characters, quoted unless plain); an isError result through an
	// [Interceptor].
	RefuseUnknown Unknown = iota
	// PassUnknown passes the call on, unchecked: the server answers it.
	PassUnknown
)

// Options configure a [Proxy]. The zero value refuses invalid calls with an isError
// result in the default style ([Options.Guard] may give [guard.WithFormatter]), and calls of tools the server does not list with the
// JSON-RPC error the MCP specification gives.
type Options struct {
	ReportOnly      bool // let refused calls through, only logging them
	FormatAssertion bool // check "format" (date-time, email, ...) as an assertion
	Output          bool // check a successful result's structuredContent against outputSchema
	MaxDepth        int  // 0: the guard's default
	MaxViolations   int  // 0: the guard's default
	// MaxMessage bounds, in bytes, each message the proxy reads, either way: a line over
	// stdio, a POST's body, an upstream answer or SSE event. A message over it is read to
	// its end without being kept, and answered in its place (an error response to its
	// request, or HTTP 413 for a POST). 0: DefaultMaxMessage.
	MaxMessage int64
	// CacheBudget bounds, in bytes, what the proxy keeps of the servers' tool lists, and
	// again its compiled schemas: each list once, shared by every session that got the
	// same, each schema text once. Past it, the lists used least recently are dropped
	// (their sessions' next calls fetch them again), as are compiled schemas. A single
	// list larger than the budget is kept for its session. 0: DefaultCacheBudget.
	CacheBudget int64
	// Logger, when set, is told of each refusal, repair and broken schema as JSON lines
	// through slog, with tools, paths and kinds, never argument values, of each other
	// accepted call at Debug, and of the proxy's own faults (a server that exits, a tool
	// list that cannot be fetched).
	Logger *slog.Logger
	// LogEnumValues makes the Logger's line of a refused call carry the values sent
	// outside an enum, escaped and bounded (guard.WithEnumMisses): model output, which
	// may hold what a user told the model, so it is off by default.
	LogEnumValues bool
	// RefuseAsError answers a refused call with a JSON-RPC error -32602 whose message is
	// the refusal's text and whose data holds its violations, as some gateways do, instead
	// of an isError tool result. A task-augmented call of a protocol before 2026-07-28 is
	// refused so without it too: its client reads any result as a task.
	RefuseAsError bool
	// Unknown says what becomes of a call of a tool the server does not list (under
	// ReportOnly, it passes). Either way the Logger and the guard's observers are told of
	// it, under the name sent, which a log line shows escaped and elided, and metrics
	// record as [UnknownTool].
	Unknown Unknown
	// AllowHosts are the names, besides loopback names, that the HTTP front answers to in
	// a request's Host header: "name" for any port, "name:port" for one. Loopback names
	// (localhost, 127.0.0.1, [::1]) are answered to only on a connection to a loopback
	// address; on any other, or one whose local address the request's context does not
	// carry (http.LocalAddrContextKey), only these are.
	AllowHosts []string
	// AllowOrigins are the origins ("https://app.example.com") whose requests the HTTP
	// front serves when they carry an Origin header, besides those of loopback names on
	// a loopback connection.
	AllowOrigins []string
	// BodyTimeout bounds the time the HTTP front waits for a request's body, once its
	// headers are read, whether it reads it or refuses the request unread; a client that
	// is slower gets 408, or its connection closed. 0: DefaultBodyTimeout.
	BodyTimeout time.Duration
	// WriteTimeout bounds each write of the HTTP front to a client (an answer, a status,
	// an event of a stream), to a sixteenth more at most: a client that reads nothing for
	// that long is cut off. A stream may stay open, quiet, for as long as the upstream
	// keeps it. 0: DefaultWriteTimeout.
	WriteTimeout time.Duration
	// Transport, when set, carries the HTTP front's requests to the upstream (TLS
	// configuration, a dialer, a client certificate). nil: for an http: upstream reached
	// directly, the proxy's own HTTP/1.1 client, which writes each request and reads its
	// answer on the request's goroutine, keeping up to 256 idle connections; else (https:,
	// or a proxy from the environment) a clone of http.DefaultTransport that keeps as
	// many. The front asks for no Content-Encoding of its own: an answer that comes
	// encoded all the same gets 502.
	Transport http.RoundTripper
	// ErrorHandler, when set, answers a request of the HTTP front that the upstream
	// could not be reached for, with the error, in place of the front's own answer (to a
	// POST, a JSON-RPC error for each of its requests; else 502 Bad Gateway). The
	// requests are forgotten and the failure logged first.
	ErrorHandler func(w http.ResponseWriter, r *http.Request, err error)
	// SchemasFor, when set, writes each tool's inputSchema in the tools/list answers the
	// client gets so that this model provider takes it (guard.RewriteFor), where that loses
	// nothing the proxy does not check itself: calls are still checked against the schema
	// the server listed. A tool whose schema cannot be written so goes as the server wrote
	// it, and the Logger is told once. Arguments are never rewritten.
	SchemasFor guard.Target
	// Guard holds further options of the guard, applied after those the fields above
	// make: observers, a logger, compile options, or mcpvalidateotel's
	// Instrumentation.Option(), which records the checks as
	// metrics and each tools/call's operation, from the request the proxy receives to the
	// response it sends back (calls of tools the server does not list under [UnknownTool]).
	Guard []guard.Option
	// Trace, when set, is called as each tools/call request arrives, with the string
	// members of its params._meta, where a client's traceparent travels. The context it
	// returns is the call's, which the guard's observers are given, so that
	// mcpvalidateotel annotates the span in it; end is called once, when the proxy sends
	// the call's response, with the tool's name as the server lists it ([UnknownTool] for
	// one it does not list) and whether the response is an error.
	Trace func(meta Meta) (ctx context.Context, end func(tool string, isError bool))
}

// Meta holds the members of a request's params._meta whose values are strings, decoded,
// by name. Its methods are those of OpenTelemetry's propagation.TextMapCarrier, so that
// a propagator reads a client's trace context from it:
//
//	ctx := propagation.TraceContext{}.Extract(context.Background(), meta)
type Meta map[string]string

// Get returns the value of the member key, or "".
func (m Meta) Get(key string) string { return m[key] }

// Set sets the member key to value.
func (m Meta) Set(key, value string) { m[key] = value }

// Keys returns the members' names, in no order.
func (m Meta) Keys() []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	return keys
}

// metaOf returns the string members of the _meta object meta.
func metaOf(meta []byte) Meta {
	m := Meta{}
	members(meta, func(name string, v []byte) {
		if s, ok := stringValue(v); ok {
			m[name] = s
		}
	})
	return m
}

// DefaultCacheBudget is Options.CacheBudget's default, 64 MiB.
const DefaultCacheBudget = 64 << 20

// A Proxy checks the tools/call requests that pass between MCP clients and servers
// against the tools' inputSchemas, as the servers list them. One Proxy may serve any
// number of connections and MCP sessions at once; each has its own tool list. It is safe
// for concurrent use.
type Proxy struct {
	opts     Options
	guard    *guard.Guard
	log      *slog.Logger
	observe  bool   // the guard has observers besides the fields': calls are followed to their end
	idPrefix string // of the proxy's own request ids: no client picks it by chance
	ids      atomic.Uint64
	server   atomic.Pointer[string] // the upstream's name, as its last answer to an initialize gave it
	lists    *lists
	drift    drift
	now      func() time.Time // of the sessions' listing tokens
	served   served
}

// New returns a Proxy configured by opts, or an error when an option is out of range.
func New(opts Options) (*Proxy, error) {
	g, err := newGuard(&opts)
	if err != nil {
		return nil, err
	}
	var r [8]byte
	_, _ = rand.Read(r[:])
	budget := opts.CacheBudget
	if budget == 0 {
		budget = DefaultCacheBudget
	}
	return &Proxy{opts: opts, guard: g, log: opts.Logger, observe: len(opts.Guard) > 0 && g.Observed() || opts.Trace != nil,
		idPrefix: "mcpvalidate-" + hex.EncodeToString(r[:]) + "-", lists: newLists(budget), now: time.Now}, nil
}
