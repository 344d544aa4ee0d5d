package gosdk

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"
	"weak"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpvalidate/mcpvalidate/guard"
)

// This file is the adapter's room for go-sdk: a tool's schemas bound to its handler when it
// is registered, and the guard's verdicts turned into go-sdk results.
//
// go-sdk has receiving middleware, but a middleware sees a tools/call before the server
// looks its tool up, and the server gives no way to look a tool up: a middleware would
// have to find the schema elsewhere, and a tool registered again between that and the
// call would run its new handler unchecked. A handler bound at registration checks the
// schema its tool holds, whatever happens to the server's other registrations meanwhile.

// handler is [Guard.Handler] for the guard g; decodes: what h decodes the arguments into
// (a typed tool's In), whose reading of them must meet the schema too (asFloats), or nil.
func handler(g *guard.Guard, t *mcp.Tool, h mcp.ToolHandler, decodes *decoding) mcp.ToolHandler {
	h = recovering(t.Name, h)
	in, out := newSchemaRef(g, t.Name, false, t.InputSchema), &schemaRef{tool: t.Name, output: true}
	if g.ChecksResults() && t.OutputSchema != nil {
		out = newSchemaRef(g, t.Name, true, t.OutputSchema)
	}
	return func(ctx context.Context, req *mcp.CallToolRequest) (res *mcp.CallToolResult, err error) {
		call := callOf(g, req)
		outSchema := t.OutputSchema
		call.ChecksResult = g.ChecksResults() && outSchema != nil
		call.Context = ctx
		defer func() { g.Ended(&call, err != nil || res == nil || res.IsError) }()
		var args []byte
		if req.Params != nil {
			args = req.Params.Arguments
		}
		schema := in.schema(g, t.InputSchema)
		args = asFloats(g, schema, args, decodes)
		if vd := g.Check(&call, schema, args, nil); vd.Refused() {
			forgetWhenEnded(g, req.Session)
			return refusal(vd), nil
		}
		if !call.ChecksResult {
			return h(ctx, req)
		}
		v, vd := g.ResultValidator(&call, out.schema(g, outSchema))
		switch {
		case vd.Refused():
			return refusal(vd), nil
		case v == nil:
			g.Unchecked(&call)
			return h(ctx, req)
		}
		res, err = h(ctx, req)
		if o, ok := err.(*refusedOutput); ok { // go-sdk's answer stands: only reporting
			g.CheckResult(&call, v, o.content)
			return nil, o.err
		}
		if err != nil || res == nil || res.IsError || res.InputRequests != nil {
			// Only a final success is checked: a result with input requests (even none,
			// asking the client to retry) asks for input before the tool can finish.
			g.Unchecked(&call)
			return res, err
		}
		content, err := structuredContent(res.StructuredContent)
		if err != nil {
			g.Unchecked(&call) // the call fails as a handler's error does
			return nil, err
		}
		if vd := g.CheckResult(&call, v, content); vd.Refused() {
			return refusal(vd), nil
		}
		return res, nil
	}
}

// AddTool adds a typed tool to the server as [mcp.AddTool] does, schemas inferred from In
// and Out where the tool gives none, with the guard checking each call's arguments before
// anything else: the model reads the guard's messages, not go-sdk's, and the handler runs
// only with valid arguments.
//
//	gosdk.AddTool(guard, srv, tool, handler)
//
// Everything else is as mcp.AddTool has it: defaults from the input schema, decoding into
// In, the output validated against the output schema and sent as structured content; but
// In is decoded from the bytes the guard checked, so that its integers are those sent, where
// go-sdk carries them through a float64; and under [guard.WithOutputValidation] the guard checks
// the output in go-sdk's place, withholding one that does not match as [Guard.Handler]
// withholds a raw tool's result. Like mcp.AddTool, it panics when a schema cannot
// be inferred or resolved. [Guard.CheckTools] of t checks the schemas inferred for it.
//
// Under [guard.WithReportOnly] the guard refuses nothing and go-sdk keeps its own check: the
// tool answers every call exactly as mcp.AddTool has it (go-sdk's validation, defaults and
// decoding), so a call go-sdk alone refuses is still refused, in go-sdk's words, while the
// guard reports what it would have refused.
func AddTool[In, Out any](g *Guard, s *mcp.Server, t *mcp.Tool, h mcp.ToolHandlerFor[In, Out]) {
	tt, th, err := typedHandler(t, h, g.core)
	if err != nil {
		panic(fmt.Sprintf("AddTool: tool %q: %v", t.Name, err))
	}
	s.AddTool(tt, g.bind(tt, th, decodingOf(reflect.TypeFor[In]())))
	key := weak.Make(t)
	if _, again := registered.Swap(key, tt); !again {
		runtime.AddCleanup(t, func(key weak.Pointer[mcp.Tool]) { registered.Delete(key) }, key)
	}
}

// registered holds the tools as AddTool registered them, keyed by the tools it was given,
// for checkTools: a tool whose schemas AddTool inferred does not hold them itself. An
// entry goes when its tool does.
var registered sync.Map // weak.Pointer[mcp.Tool] -> *mcp.Tool

// checkTools is [Guard.CheckTools] for the guard g.
func checkTools(g *guard.Guard, tools ...*mcp.Tool) error {
	tools = slices.SortedFunc(slices.Values(tools), func(a, b *mcp.Tool) int { return strings.Compare(a.Name, b.Name) })
	for i, t := range tools {
		if tt, ok := registered.Load(weak.Make(t)); ok {
			tools[i] = tt.(*mcp.Tool)
		}
	}
	var errs []error
	check := func(t *mcp.Tool, which string, schema any) {
		if _, err := g.Compiled(bind(g, schema).schema(g)); err != nil {
			errs = append(errs, &guard.ToolError{Tool: t.Name, Schema: which, Err: err})
		}
	}
	for _, t := range tools {
		if t.InputSchema == nil {
			errs = append(errs, &guard.ToolError{Tool: t.Name, Schema: "inputSchema", Err: errNoInputSchema})
			continue
		}
		check(t, "inputSchema", t.InputSchema)
		if g.ChecksResults() && t.OutputSchema != nil {
			check(t, "outputSchema", t.OutputSchema)
		}
	}
	return errors.Join(errs...)
}

var errNoInputSchema = errors.New("the tool has no inputSchema; the schemas AddTool infers are checked once AddTool has registered the tool")

// binding is one registration's schema: its key in the guard's cache, and its text, to
// bind it again after the cache has evicted it; and the value it was made from.
type binding struct {
	key   *byte // unique to the binding
	text  []byte
	err   error
	value any
}

func bind(g *guard.Guard, schema any) *binding {
	b := &binding{key: new(byte), value: schema}
	switch s := schema.(type) {
	case json.RawMessage:
		b.text = bytes.Clone(s)
	default:
		b.text, b.err = json.Marshal(s)
	}
	g.Bind(b.key, nil, b.text, b.err)
	return b
}

// holds reports whether schema is the value b was made from and, raw JSON, still has its
// bytes. A value changed inside (a map's entries, a *jsonschema.Schema's fields) is not
// seen.
func (b *binding) holds(schema any) bool {
	if raw, ok := schema.(json.RawMessage); ok {
		return bytes.Equal(raw, b.text)
	}
	return interfaceWords(schema) == interfaceWords(b.value)
}

// interfaceWords returns v's type and value words. The build fails where an interface value
// is not two words.
func interfaceWords(v any) [2]unsafe.Pointer { return *(*[2]unsafe.Pointer)(unsafe.Pointer(&v)) }

var (
	_ [unsafe.Sizeof(any(nil)) - 2*unsafe.Sizeof(unsafe.Pointer(nil))]struct{}
	_ [2*unsafe.Sizeof(unsafe.Pointer(nil)) - unsafe.Sizeof(any(nil))]struct{}
)

// A schemaRef is the binding of a tool's schema field as the tool holds it now: go-sdk
// lists the tool given to it, so a schema put in the field, or raw bytes rewritten, after
// registration is what tools/list shows.
// The guard is told of each text it binds (Guard.Registered), to tell of a change.
type schemaRef struct {
	atomic.Pointer[binding]
	tool   string
	output bool // the tool's outputSchema; else its inputSchema
}

func newSchemaRef(g *guard.Guard, tool string, output bool, schema any) *schemaRef {
	r := &schemaRef{tool: tool, output: output}
	r.rebind(g, schema)
	return r
}

// schema returns the compilation of schema, the field's value now.
func (r *schemaRef) schema(g *guard.Guard, schema any) *guard.Schema {
	b := r.Load()
	if b == nil || !b.holds(schema) {
		b = r.rebind(g, schema)
	}
	return b.schema(g)
}

func (r *schemaRef) rebind(g *guard.Guard, schema any) *binding {
	b := bind(g, schema)
	g.Registered(r.tool, r.output, b.text)
	r.Store(b)
	return b
}

func (b *binding) schema(g *guard.Guard) *guard.Schema {
	if s := g.Lookup(b.key); s != nil {
		return s
	}
	return g.Bind(b.key, nil, b.text, b.err)
}

// callOf names the call's session; the client's name and version only for observers.
func callOf(g *guard.Guard, req *mcp.CallToolRequest) guard.Call {
	var call guard.Call
	if req.Params != nil {
		call.Tool = req.Params.Name
	}
	if req.Session == nil {
		return call
	}
	call.Session = req.Session.ID()
	if g.Observed() {
		if p := req.Session.InitializeParams(); p != nil {
			call.ProtocolVersion = p.ProtocolVersion
			if p.ClientInfo != nil {
				call.Client, call.ClientVersion = p.ClientInfo.Name, p.ClientInfo.Version
			}
		}
	}
	return call
}

// refusal is the tool result that answers a refused call: isError, the verdict's text, and
// its violations as data in _meta.
func refusal(vd guard.Verdict) *mcp.CallToolResult {
	res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: vd.Text()}}, IsError: true}
	if m := vd.Meta(); m != nil {
		res.Meta = mcp.Meta{guard.MetaKey: m}
	}
	return res
}

// structuredContent is the JSON text go-sdk sends as a result's structuredContent; nil when
// the result has none.
func structuredContent(value any) ([]byte, error) {
	switch v := value.(type) {
	case nil:
		return nil, nil
	case json.RawMessage:
		return v, nil
	}
	b, err := json.Marshal(value)
	if err != nil {
		return nil, fmt.Errorf("mcpvalidate: the tool's structuredContent cannot be marshalled: %w", err)
	}
	return b, nil
}
