package guard

import (
	"context"
	"errors"
	"time"
)

// The guard's side of a framework adapter: a framework's tools/call comes in as a Call
// and a Schema, a Verdict goes out. The adapters of this module (mcp-go in the root
// package, go-sdk in gosdk) use only this; an adapter for another framework can too.

// A Call is one tools/call as the adapter knows it, besides its arguments. The adapter
// fills the exported fields; the guard keeps the tool's counters in it, so that the checks
// of one call (its arguments, then its result) find them once.
type Call struct {
	Tool          string // the tool called
	Session       string // the session's ID; empty when the transport has none
	Client        string // the client's name, as it declared itself at initialize
	ClientVersion string
	// Server is the MCP server's name, as it declared itself at initialize (its
	// serverInfo), when the adapter stands apart from it (a proxy); "" when unknown.
	Server string
	// ChecksResult: the adapter checks the result of the call ([Guard.CheckResult]) when
	// its arguments are accepted. The call then repairs the refusals before it only once
	// its result goes to the client; a result withheld leaves them awaiting repair.
	ChecksResult bool

	// ProtocolVersion is the MCP protocol version the session negotiated, when the
	// framework tells it.
	ProtocolVersion string
	// Context is the call's context as its handler receives it, with its trace span; nil
	// when the adapter has none.
	Context context.Context

	counters  *toolState
	repairing bool          // accepted, its result not yet known to reach the client
	held      bool          // repairing, its Accepted event not yet told to the observers
	took      time.Duration // the arguments' check, for the held event
	start     instant       // when the call's first check began, for WithCallEnd

	misses []enumMiss // WithEnumMisses: the refusal's values sent outside an enum, for the log
}

// Ended tells the call-end observers ([WithCallEnd]) that the call ended, its result an
// error (isError, or an error returned) or not. An adapter calls it once per call it
// checked, after the handler returns or the guard answers instead.
func (g *Guard) Ended(call *Call, isError bool) {
	if call.held { // the result never reached the client, nor was it checked
		g.release(call, 0, 0)
	}
	if len(g.cfg.ends) == 0 || call.start == 0 {
		return
	}
	e := CallEnd{Context: call.Context, Tool: call.Tool, Server: call.Server, ProtocolVersion: call.ProtocolVersion,
		Duration: since(call.start), IsError: isError}
	for _, fn := range g.cfg.ends {
		func() {
			defer func() { _ = recover() }() // an observer's bug must not decide the call
			fn(e)
		}()
	}
}

// A CallEnd reports the end of one validated tools/call to the observers of [WithCallEnd].
type CallEnd struct {
	Context         context.Context // the call's context; nil when the adapter has none
	Tool            string          // the tool called
	Server          string          // the server's name, when the adapter stands apart from it (Call.Server)
	ProtocolVersion string          // as the session negotiated it, when the framework tells it
	Duration        time.Duration   // from the start of the check to the end of the call
	IsError         bool            // the result is an error: a refusal, or the tool's own
}

// WithCallEnd calls fn when a validated call ends, after its handler returned or the
// guard answered in its place, on the caller's goroutine: what an operation's duration
// is measured by. fn must be quick.
func WithCallEnd(fn func(CallEnd)) Option {
	return guardOption(func(c *config) { c.ends = append(c.ends, fn) })
}

// counters returns the counters of the call's tool.
func (g *Guard) counters(call *Call) *toolState {
	if call.counters == nil {
		call.counters = g.tool(call.Tool)
	}
	return call.counters
}

// Observed reports whether the guard has observers, the only ones told the client's name
// and version: an adapter that must look them up may skip it otherwise.
func (g *Guard) Observed() bool { return len(g.cfg.observers) > 0 || len(g.cfg.ends) > 0 }

// ChecksResults reports whether results are checked against their tool's outputSchema
// ([WithOutputValidation]).
func (g *Guard) ChecksResults() bool { return g.cfg.outputs }

// ReportsOnly reports whether the guard lets every call through and only reports what it
// would refuse ([WithReportOnly]): an adapter that replaced a framework's own checks with
// the guard's then keeps the framework's.
func (g *Guard) ReportsOnly() bool { return g.cfg.reportOnly }

// Lookup returns the schema bound to key by [Guard.Bind], or nil. The adapter chooses the
// key: any comparable value that identifies the schema's values without reading them, such
// as their addresses, so that a call finds its compiled schema without a lock and without
// reading the schema.
func (g *Guard) Lookup(key any) *Schema {
	if b := g.schemas.lookup(key); b != nil {
		return b.c
	}
	return nil
}

// Find returns the schema bound to key and what the adapter keeps with it, or nil: a key
// made from the addresses of a schema's values, whose contents may have changed since,
// finds the binding, and what is kept tells whether it still holds.
func (g *Guard) Find(key any) (*Schema, Kept) {
	if b := g.schemas.lookup(key); b != nil {
		return b.c, b.keep
	}
	return nil, nil
}

// Bind binds key to the compilation of the schema text (or to err, when the adapter cannot
// make the text) and returns it; keep, which may be nil, is what Find returns with it. A
// key bound before to another text or keep is bound anew. A text seen before shares its
// compilation. The text is compiled on first use, and the cache stays within
// [WithCacheBudget].
func (g *Guard) Bind(key any, keep Kept, text []byte, err error) *Schema {
	return g.schemas.bind(key, keep, text, err)
}

// Compiled compiles s if it is not compiled yet and returns its validator, or why it does
// not compile.
func (g *Guard) Compiled(s *Schema) (*Validator, error) { return g.schemas.validator(s) }

// Unusable is a schema that cannot be found or made: every call checked against it is
// refused as a call to a broken schema is, and the observers are told err.
func Unusable(err error) *Schema {
	if err == nil {
		err = errors.New("mcpvalidate: no schema")
	}
	return &Schema{text: "\x00", err: err}
}

// A ToolError is a tool whose inputSchema or outputSchema does not compile, as an
// adapter's start-up check reports it (mcpvalidate's Guard.CheckServer, gosdk.CheckTools).
type ToolError struct {
	Tool   string // the tool's name
	Schema string // "inputSchema" or "outputSchema"
	Err    error  // why it does not compile: usually a *SchemaError
}

// Error names the tool, the schema unless it is the inputSchema, and the compile error.
func (e *ToolError) Error() string {
	if e.Schema == "outputSchema" {
		return "tool " + e.Tool + ": outputSchema: " + e.Err.Error()
	}
	return "tool " + e.Tool + ": " + e.Err.Error()
}

// Unwrap returns the compile error, usually a [*SchemaError].
func (e *ToolError) Unwrap() error { return e.Err }
