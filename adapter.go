package mcpvalidate

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/mcpvalidate/mcpvalidate/guard"
)

// This file is the adapter's room: everything that knows mcp-go but what it reads of
// mcp-go's internals (mcpgo_internals.go). It finds the called tool's schema, and turns
// the guard's decision into mcp-go results.

// Middleware returns mcp-go tool middleware that validates every tools/call against the
// called tool's inputSchema before the handler runs:
//
//	srv := server.NewMCPServer("weather", "1.0.0",
//		server.WithToolHandlerMiddleware(mcpvalidate.Middleware()))
//
// Invalid arguments are answered with a tool result with isError set and the text
// "Invalid arguments: " followed by the violations joined by "; "; the handler is not called.
//
// It is New(opts...).Middleware(): a server that reads the counters ([Guard.Guard]) or
// checks its tools at start-up ([Guard.CheckServer]) keeps the [Guard] instead.
//
// mcp-go's own WithInputSchemaValidation, when also on, runs before every middleware: a
// call it refuses never reaches this one, and is answered in its wording. Leave it off.
func Middleware(opts ...Option) server.ToolHandlerMiddleware {
	return New(opts...).Middleware()
}

// Middleware returns tool middleware bound to this guard's cache and counters; the package
// function [Middleware] says what it answers.
//
// The schema checked is the one registered with the handler that runs. mcp-go chooses the
// handler before any middleware runs, so a tool registered again in between (by another
// goroutine, or by a tool filter) leaves the middleware looking at a newer registration
// than the handler it wraps. Registered last, the middleware wraps the handler itself and
// sees that, from the first call: a call whose handler is no longer registered is refused,
// and the model asked to call again. So it is when the server's last middleware composes
// others around this one, innermost, as chain helpers do (a composition that wraps only
// when called is not recognised as such). When other tool middleware runs inside it, it
// cannot see the handler; if such a server registers tools again while serving, bind each
// handler to its schema with [Guard.Handler].
//
// Middleware that runs before it and edits a call's arguments must rewrite or clear
// req.Params.RawArguments as well as Arguments: the guard checks the raw bytes, from which
// mcp-go decoded Arguments, and the handler reads Arguments. Likewise, a result that passes
// goes on with RawStructuredContent set to the bytes checked, which mcp-go sends in
// preference to StructuredContent.
func (g *Guard) Middleware() server.ToolHandlerMiddleware {
	mw := server.ToolHandlerMiddleware(func(next server.ToolHandlerFunc) server.ToolHandlerFunc {
		if g.placement.probe.Load() && funcPointer(next) == funcPointer(probeHandler) {
			g.placement.probed.Store(true)
			return next
		}
		return func(ctx context.Context, req mcp.CallToolRequest) (res *mcp.CallToolResult, err error) {
			k := g.admit(ctx, req, next)
			defer func() { g.core.Ended(&k.call, err != nil || res == nil || res.IsError) }()
			if k.verdict.Refused() {
				return refusal(k.verdict), nil
			}
			if k.against != nil && g.placement.binds.Load() {
				// A Handler inside needs not check again what this checks.
				ctx = &checkedCall{Context: ctx, g: g, in: k.against, out: k.outSchema, args: identify(&req.Params)}
			}
			if k.out == nil {
				g.core.Unchecked(&k.call)
				return next(ctx, req)
			}
			return g.checkResult(ctx, req, &k.call, k.out, next)
		}
	})
	g.placement.ours.Store(funcPointer(mw), true)
	return mw
}

// Handler binds a tool's handler to the tool's inputSchema (and, under
// [guard.WithOutputValidation], its outputSchema), for servers that register tools again while
// serving and run other tool middleware inside the guard's ([Guard.Middleware]):
//
//	srv.AddTool(tool, guard.Handler(tool, handler))
//
// The handler then checks its calls against tool's schemas itself, wherever the middleware
// stands. It does not check again what the middleware has checked of the same call: these
// very arguments against the same inputSchema, and the result against the same
// outputSchema. Arguments a handler forwards to it in place of its call's are checked.
func (g *Guard) Handler(tool mcp.Tool, h server.ToolHandlerFunc) server.ToolHandlerFunc {
	key := keyOf(tool.RawInputSchema, &tool.InputSchema)
	bound := func(ctx context.Context, req mcp.CallToolRequest) (res *mcp.CallToolResult, err error) {
		c, outSchema := g.schemaFor(&tool, key), g.resultSchema(&tool)
		mark, _ := ctx.Value(checkedKey{g}).(*checkedCall)
		args := identify(&req.Params)
		sameCall := mark != nil && mark.args == args
		argsChecked := sameCall && mark.in == c
		if argsChecked && (outSchema == nil || mark.out == outSchema) {
			return h(ctx, req) // the middleware checks both
		}
		call := g.call(server.ClientSessionFromContext(ctx), &req)
		call.ChecksResult = outSchema != nil && !(sameCall && mark.out == outSchema)
		call.Context = ctx
		if mark == nil { // else the middleware around it reports the call's end
			defer func() { g.core.Ended(&call, err != nil || res == nil || res.IsError) }()
		}
		if !argsChecked {
			raw := req.Params.RawArguments
			if mark != nil && mark.args.raw == args.raw && mark.args.rawLen == args.rawLen && mark.args.decoded != args.decoded {
				// Only the decoded arguments were replaced since the middleware read them from
				// these bytes: a handler forwards other arguments. Check those.
				raw = nil
			}
			if vd := g.core.Check(&call, c, raw, req.Params.Arguments); vd.Refused() {
				return refusal(vd), nil
			}
		}
		if outSchema == nil || sameCall && mark.out == outSchema {
			return h(ctx, req)
		}
		out, vd := g.core.ResultValidator(&call, outSchema)
		if vd.Refused() {
			return refusal(vd), nil
		}
		if out == nil {
			g.core.Unchecked(&call)
			return h(ctx, req) // an outputSchema that does not compile, only reported
		}
		return g.checkResult(ctx, req, &call, out, h)
	}
	g.placement.binds.Store(true)
	return bound
}

// checkResult runs h and, when its result is a success, checks the result's structured
// content against the outputSchema's validator out: a result that does not match is
// replaced by an error result that says the tool failed. A result that asks the client for
// input is checked only when it carries structured content, which mcp-go sends with it.
func (g *Guard) checkResult(ctx context.Context, req mcp.CallToolRequest, call *guard.Call, out *Validator, h server.ToolHandlerFunc) (*mcp.CallToolResult, error) {
	res, err := h(ctx, req)
	if err != nil || res == nil || res.IsError {
		g.core.Unchecked(call)
		return res, err
	}
	content, err := structuredContent(res.RawStructuredContent, res.StructuredContent)
	if err != nil {
		g.core.Unchecked(call) // the call fails as a handler's error does
		return nil, err
	}
	if content == nil && needsInput(res) {
		g.core.Unchecked(call) // a question without content: the result comes with the input
		return res, nil
	}
	task := req.Params.Task != nil
	checked, value := content, []byte(nil)
	if task && content != nil && res.StructuredContent != nil && rawSent(res.RawStructuredContent, res.StructuredContent) {
		// A task's result: releases before v1.5.0 send the value, not the raw bytes. When
		// the two say other things, the one that breaks the schema is the one checked.
		if v, err := json.Marshal(res.StructuredContent); err == nil {
			value = v
			if !bytes.Equal(value, content) && out.Validate(value) != nil {
				checked = value
			}
		}
	}
	if vd := g.core.CheckResult(call, out, checked); vd.Refused() {
		return refusal(vd), nil
	}
	return asChecked(res, task, content, value), nil
}

// asChecked returns res as it is to be sent once checked: a copy whose structuredContent
// mcp-go sends as the bytes checked, content (or, for a task's result with raw bytes and
// a value, value, the value marshalled, where a release sends that), not a value it
// marshals again when it sends the result, later than the check: for a task's result,
// when tasks/result asks for it. A value the tool goes on changing meanwhile would reach
// the client unchecked. res itself is left as it is, for a tool that returns one result
// to many calls.
func asChecked(res *mcp.CallToolResult, task bool, content, value []byte) *mcp.CallToolResult {
	if content == nil {
		return res
	}
	fromValue := !rawSent(res.RawStructuredContent, res.StructuredContent)
	if !fromValue && !task {
		return res // the raw bytes checked, sent at once
	}
	r := *res
	switch {
	case fromValue:
		// Every release sends RawStructuredContent in preference to the value, but from
		// v1.0.0 not a null one beside a value: a value marshalled as null is dropped, so
		// that the null checked is sent.
		r.RawStructuredContent = content
		if !task && string(content) == "null" {
			r.StructuredContent = nil
		}
	default:
		// A task's result waits for tasks/result; the tool's buffer need not.
		r.RawStructuredContent = bytes.Clone(content)
	}
	if task {
		// Releases before v1.5.0 send a task's StructuredContent, and nothing of raw bytes
		// alone: the bytes checked, as they are.
		if value == nil {
			value = r.RawStructuredContent
		}
		r.StructuredContent = json.RawMessage(value)
	}
	return &r
}

// structuredContent is the JSON text mcp-go sends as a result's structuredContent: the raw
// bytes when it has them, else the value marshalled; nil when the result has none. Blank
// raw bytes are none, and null ones give way to a value where the release sends it then.
func structuredContent(raw json.RawMessage, value any) ([]byte, error) {
	if rawSent(raw, value) {
		return raw, nil
	}
	if value == nil {
		return nil, nil
	}
	b, err := json.Marshal(value)
	if err != nil {
		return nil, fmt.Errorf("mcpvalidate: the tool's structuredContent cannot be marshalled: %w", err)
	}
	return b, nil
}

// rawSent reports whether mcp-go sends raw as a result's structuredContent rather than
// value.
func rawSent(raw json.RawMessage, value any) bool {
	text := bytes.TrimSpace(raw)
	return len(text) > 0 && !(value != nil && rawNullGivesWay && string(text) == "null")
}

// rawNullGivesWay reports whether this mcp-go release sends a result's StructuredContent
// in place of a RawStructuredContent that is null, as releases from v1.0.0 do.
var rawNullGivesWay = func() bool {
	b, err := json.Marshal(mcp.CallToolResult{RawStructuredContent: json.RawMessage("null"), StructuredContent: 1})
	return err == nil && bytes.Contains(b, []byte(`"structuredContent":1`))
}()

// refusal is the tool result that answers a refused call: isError, the verdict's text, and
// its violations as data in _meta.
func refusal(vd guard.Verdict) *mcp.CallToolResult {
	res := mcp.NewToolResultError(vd.Text())
	if m := vd.Meta(); m != nil {
		res.Meta = &mcp.Meta{AdditionalFields: map[string]any{guard.MetaKey: m}}
	}
	return res
}

// checkedKey is the context key of the guard's *checkedCall.
type checkedKey struct{ g *Guard }

// checkedCall is what the middleware checked of one call: its arguments, args, against the
// compilation in, and (after the handler) its result against out, nil when it does not.
// It is the call's context, with itself as the value of checkedKey{g}: one allocation.
type checkedCall struct {
	context.Context
	g       *Guard
	in, out *guard.Schema
	args    argsIdentity
}

// Value returns c for the key of c's guard, else the parent's value.
func (c *checkedCall) Value(key any) any {
	if key == (checkedKey{c.g}) {
		return c
	}
	return c.Context.Value(key)
}

// placement is what the adapter knows of where a guard's middleware stands.
type placement struct {
	ours      sync.Map                         // the guard's middleware values, by funcPointer
	composed  sync.Map                         // other middleware values, by funcPointer: whether they run the guard's innermost
	innermost atomic.Pointer[server.MCPServer] // where last cannot read: the last server on which it wrapped a registered handler
	binds     atomic.Bool                      // Handler has bound a handler to its schema

	probing sync.Mutex  // one probe at a time
	probe   atomic.Bool // wrapsDirectly is under way
	probed  atomic.Bool // the guard's middleware was given probeHandler meanwhile
}

// last reports whether the guard's middleware runs last on srv, next to the handler.
func (g *Guard) last(srv *server.MCPServer) bool {
	if srv == nil {
		return false
	}
	mw, known := lastMiddleware(srv)
	if !known {
		return g.placement.innermost.Load() == srv
	}
	p := funcPointer(mw)
	if _, ours := g.placement.ours.Load(p); ours || p == nil {
		return ours
	}
	if inner, known := g.placement.composed.Load(p); known {
		return inner.(bool)
	}
	inner := g.wrapsDirectly(mw)
	g.placement.composed.Store(p, inner)
	return inner
}

// wrapsDirectly reports whether mw, wrapped around a handler, passes that very handler to
// the guard's middleware: whether mw composes other middleware with the guard's innermost,
// as chain helpers do. It wraps a handler that is never called and discards the result,
// as mcp-go wraps and calls on every call; a middleware that panics at that is not ours.
func (g *Guard) wrapsDirectly(mw server.ToolHandlerMiddleware) (inner bool) {
	pl := &g.placement
	pl.probing.Lock()
	defer pl.probing.Unlock()
	pl.probed.Store(false)
	pl.probe.Store(true)
	defer func() {
		pl.probe.Store(false)
		if recover() != nil {
			inner = false
		}
	}()
	mw(probeHandler)
	return pl.probed.Load()
}

// probeHandler is the handler wrapsDirectly wraps; it is never called.
var probeHandler server.ToolHandlerFunc = func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	return nil, errors.New("mcpvalidate: a placement probe was called")
}

// TaskHandler wraps the handler of a tool registered with AddTaskTool, which mcp-go runs
// without tool middleware, so that its calls are checked as [Guard.Middleware] checks the
// others:
//
//	srv.AddTaskTool(tool, guard.TaskHandler(tool, handler))
//
// mcp-go answers a task-augmented call with its task before any handler runs: a call with
// invalid arguments completes its task at once with the isError result that tasks/result
// returns, as [Guard.Middleware] answers; the handler is not called. Under
// [guard.WithOutputValidation], a result that does not match the tool's outputSchema completes
// the task with an isError result in its place.
func (g *Guard) TaskHandler(tool mcp.Tool, h server.TaskToolHandlerFunc) server.TaskToolHandlerFunc {
	key := keyOf(tool.RawInputSchema, &tool.InputSchema)
	failed := func(vd guard.Verdict) *mcp.CreateTaskResult {
		r := refusal(vd)
		res := &mcp.CreateTaskResult{Content: r.Content, IsError: true}
		res.Meta = r.Meta
		return res
	}
	return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CreateTaskResult, error) {
		call := g.call(server.ClientSessionFromContext(ctx), &req)
		outSchema := g.resultSchema(&tool)
		call.ChecksResult = outSchema != nil
		if vd := g.checkTool(&call, req, g.schemaFor(&tool, key)); vd.Refused() {
			return failed(vd), nil
		}
		out, vd := g.resultValidator(&call, outSchema)
		switch {
		case vd.Refused():
			return failed(vd), nil
		case out == nil:
			g.core.Unchecked(&call)
			return h(ctx, req)
		}
		res, err := h(ctx, req)
		if err != nil || res == nil || res.IsError {
			g.core.Unchecked(&call)
			return res, err
		}
		content, err := structuredContent(nil, res.StructuredContent)
		if err != nil {
			g.core.Unchecked(&call) // the call fails as a handler's error does
			return nil, err
		}
		if vd := g.core.CheckResult(&call, out, content); vd.Refused() {
			return failed(vd), nil
		}
		if content == nil {
			return res, nil
		}
		// tasks/result sends the value as it finds it then, perhaps much later: the bytes
		// checked, not a map the tool goes on changing. A copy, for a tool that returns
		// one result to many calls.
		r := *res
		r.StructuredContent = json.RawMessage(content)
		return &r, nil
	}
}

// checked is what admit found of one call.
type checked struct {
	verdict   guard.Verdict
	against   *guard.Schema // the schema checked; nil when the registration is not next's
	out       *Validator    // of the tool's outputSchema, when the result is to be checked
	outSchema *guard.Schema // that outputSchema
	call      guard.Call
}

// admit validates one call against the schema registered with next, the handler mcp-go
// chose: the session's tool of that name if there is one, else the server's.
func (g *Guard) admit(ctx context.Context, req mcp.CallToolRequest, next server.ToolHandlerFunc) checked {
	session := server.ClientSessionFromContext(ctx)
	srv := server.ServerFromContext(ctx)
	k := checked{call: g.call(session, &req)}
	k.call.Context = ctx
	st, ok := findTool(srv, session, req.Params.Name)
	switch {
	case !ok && srv == nil:
		k.verdict = g.core.Check(&k.call, outsideServer, nil, nil)
		return k
	case !ok:
		// Deleted since mcp-go chose its handler.
		k.verdict = g.core.Replaced(&k.call)
		return k
	case funcPointer(st.Handler) == funcPointer(next):
		if in := &g.placement.innermost; in.Load() != srv {
			in.Store(srv)
		}
	case sameCode(st.Handler, next) || g.last(srv):
		// The handler about to run is not the one registered now: the tool was registered
		// again after mcp-go chose it, and the handler's own schema is not known here.
		k.verdict = g.core.Replaced(&k.call)
		return k
	}
	k.against = g.schemaFor(&st.Tool, keyOf(st.Tool.RawInputSchema, &st.Tool.InputSchema))
	if funcPointer(st.Handler) != funcPointer(next) { // which tool runs is not known
		if other := g.shadowed(srv, st, &req); other != nil {
			k.against = other
		}
	}
	k.call.ChecksResult = g.core.ChecksResults() && declaresOutput(&st.Tool)
	k.verdict = g.checkTool(&k.call, req, k.against)
	if !g.core.ChecksResults() || !declaresOutput(&st.Tool) || k.verdict.Refused() {
		return k
	}
	outSchema := g.outputSchemaFor(&st.Tool)
	out, broken := g.resultValidator(&k.call, outSchema)
	if broken.Found() {
		k.verdict = broken
		return k
	}
	k.out, k.outSchema = out, outSchema
	return k
}

// shadowed returns the inputSchema of the server's tool that the session's tool st
// shadows, when req is a task-augmented call whose arguments break it; else nil. For such
// a call, releases before v1.2.0 run the server's tool of the name, later ones the
// session's: when the handler about to run does not tell which (other middleware inside
// the guard's), the arguments must meet both schemas, and are checked against the one
// they break.
func (g *Guard) shadowed(srv *server.MCPServer, st server.ServerTool, req *mcp.CallToolRequest) *guard.Schema {
	if req.Params.Task == nil || srv == nil {
		return nil
	}
	sv, ok := serverTool(srv, req.Params.Name)
	if !ok || funcPointer(sv.Handler) == funcPointer(st.Handler) {
		return nil
	}
	other := g.schemaFor(&sv.Tool, keyOf(sv.Tool.RawInputSchema, &sv.Tool.InputSchema))
	v, err := g.core.Compiled(other)
	if err != nil {
		return other // refused as a schema that does not compile
	}
	args := []byte(req.Params.RawArguments)
	if len(args) == 0 {
		if args, err = json.Marshal(req.Params.Arguments); err != nil {
			return nil // refused by the check of st's schema, as such arguments are
		}
	}
	if v.Validate(args) == nil {
		return nil
	}
	return other
}

// findTool returns the tool that mcp-go runs for a call of name: the session's tool of that
// name if there is one, else the server's.
func findTool(srv *server.MCPServer, session server.ClientSession, name string) (server.ServerTool, bool) {
	if s, ok := session.(server.SessionWithTools); ok {
		if st, ok := sessionTool(s, name); ok {
			return st, true
		}
	}
	if srv == nil {
		return server.ServerTool{}, false
	}
	return serverTool(srv, name)
}

// resultSchema returns the compilation of t's outputSchema when results are checked and t
// declares one, else nil.
func (g *Guard) resultSchema(t *mcp.Tool) *guard.Schema {
	if !g.core.ChecksResults() || !declaresOutput(t) {
		return nil
	}
	return g.outputSchemaFor(t)
}

// resultValidator returns the validator of the outputSchema s, nil when s is; and, when s
// does not compile, the verdict that refuses the call, as a broken input schema does.
func (g *Guard) resultValidator(call *guard.Call, s *guard.Schema) (*Validator, guard.Verdict) {
	if s == nil {
		return nil, guard.Verdict{}
	}
	return g.core.ResultValidator(call, s)
}

// outputSchemaFor returns the compilation of t's outputSchema, compiling it on the first
// call that declares its text.
func (g *Guard) outputSchemaFor(t *mcp.Tool) *guard.Schema {
	values := (*mcp.ToolInputSchema)(&t.OutputSchema)
	key := keyOf(t.RawOutputSchema, values)
	key.output = true
	if s, kept := g.core.Find(key); s != nil && snapshotIn(kept).holds(t.RawOutputSchema, values) {
		return s
	}
	snap := snapshotOf(t.RawOutputSchema, values)
	text, err := outputSchemaOf(t)
	g.core.Registered(t.Name, true, text)
	return g.core.Bind(key, snap, text, err)
}

// declaresOutput reports whether tools/list advertises an outputSchema for t.
func declaresOutput(t *mcp.Tool) bool {
	return t.RawOutputSchema != nil || t.OutputSchema.Type != "" ||
		schemaFields.types.strings((*mcp.ToolInputSchema)(&t.OutputSchema)) != nil
}

func outputSchemaOf(t *mcp.Tool) ([]byte, error) {
	if t.RawOutputSchema != nil {
		return t.RawOutputSchema, nil
	}
	return json.Marshal(t.OutputSchema)
}

// schemaFor returns the compilation of tool's schema, as its values hold it now: compiled
// on the first call that declares its text.
func (g *Guard) schemaFor(tool *mcp.Tool, key schemaKey) *guard.Schema {
	if s, kept := g.core.Find(key); s != nil && snapshotIn(kept).holds(tool.RawInputSchema, &tool.InputSchema) {
		return s
	}
	snap := snapshotOf(tool.RawInputSchema, &tool.InputSchema)
	text, err := schemaOf(tool)
	g.core.Registered(tool.Name, false, text)
	return g.core.Bind(key, snap, text, err)
}

func (g *Guard) checkTool(call *guard.Call, req mcp.CallToolRequest, s *guard.Schema) guard.Verdict {
	return g.core.Check(call, s, req.Params.RawArguments, req.Params.Arguments)
}

var outsideServer = guard.Unusable(errors.New("mcpvalidate: the middleware cannot find the tool; is it running inside an mcp-go server?"))

// call names the call req's session; the client's name and version, and the protocol's,
// only for observers.
func (g *Guard) call(session server.ClientSession, req *mcp.CallToolRequest) guard.Call {
	call := guard.Call{Tool: req.Params.Name}
	if !g.core.Observed() {
		if session != nil {
			call.Session = session.SessionID()
		}
		return call
	}
	call.ProtocolVersion = g.protocolVersion(session, req)
	if session == nil {
		return call
	}
	call.Session = session.SessionID()
	if c, ok := session.(server.SessionWithClientInfo); ok {
		impl := c.GetClientInfo()
		call.Client, call.ClientVersion = impl.Name, impl.Version
	}
	return call
}

// schemaOf returns the inputSchema as tools/list advertises it. A tool built without any
// schema gets {"type":"object"}: it takes an object and declares nothing in it.
func schemaOf(t *mcp.Tool) ([]byte, error) {
	if len(t.RawInputSchema) > 0 {
		return t.RawInputSchema, nil
	}
	s := t.InputSchema
	if len(s.Defs) == 0 {
		s.Defs = nil // an empty $defs declares nothing
	}
	text, err := json.Marshal(s)
	if err == nil && bytes.Equal(text, emptySchema) {
		return []byte(`{"type":"object"}`), nil
	}
	return text, err
}

// emptySchema is the text mcp-go makes of a schema with no field set, whatever fields its
// release has.
var emptySchema, _ = json.Marshal(mcp.ToolInputSchema{})

// CheckServer compiles the inputSchema of every tool registered on srv (and, under
// [guard.WithOutputValidation], every outputSchema) into the guard's cache, and returns every
// problem at once, each a [*guard.ToolError], in the order of the tools' names; nil when all
// compile. A server that calls it before serving refuses to start with a broken tool
// rather than refuse its calls later, and its first calls find their schemas compiled:
//
//	guard := mcpvalidate.New(opts...)
//	srv := server.NewMCPServer("weather", "1.0.0", server.WithToolHandlerMiddleware(guard.Middleware()))
//	// srv.AddTool(...)
//	if err := guard.CheckServer(srv); err != nil {
//		log.Fatal(err)
//	}
//
// Tools registered with AddTaskTool or as session tools are not among those mcp-go lists;
// their schemas are compiled on their first call.
//
// CheckServer also adds hooks to srv (and hooks, when it has none) so that the guard
// forgets a session's refusals awaiting repair when the session ends (without them, the
// guard forgets those of the oldest sessions once it holds 10,000), and, for the
// observers, remembers the protocol version each session negotiated where mcp-go's
// sessions do not tell it (before v1.1, over stdio and in process).
func (g *Guard) CheckServer(srv *server.MCPServer) error {
	g.forgetEndedSessions(srv)
	tools := srv.ListTools()
	names := make([]string, 0, len(tools))
	for name := range tools {
		names = append(names, name)
	}
	slices.Sort(names)
	var errs []error
	for _, name := range names {
		tool := &tools[name].Tool
		if _, err := g.core.Compiled(g.schemaFor(tool, keyOf(tool.RawInputSchema, &tool.InputSchema))); err != nil {
			errs = append(errs, &guard.ToolError{Tool: name, Schema: "inputSchema", Err: err})
		}
		if !g.core.ChecksResults() || !declaresOutput(tool) {
			continue
		}
		if _, err := g.core.Compiled(g.outputSchemaFor(tool)); err != nil {
			errs = append(errs, &guard.ToolError{Tool: name, Schema: "outputSchema", Err: err})
		}
	}
	return errors.Join(errs...)
}

// forgetEndedSessions has srv tell the guard when a session ends, once per server. It is
// called before srv serves: mcp-go's hooks may not change while it does.
func (g *Guard) forgetEndedSessions(srv *server.MCPServer) {
	if _, done := g.hooked.LoadOrStore(srv, struct{}{}); done {
		return
	}
	hooks := srv.GetHooks()
	if hooks == nil {
		hooks = &server.Hooks{}
		server.WithHooks(hooks)(srv)
	}
	hooks.AddOnUnregisterSession(func(_ context.Context, s server.ClientSession) {
		g.core.ForgetSession(s.SessionID())
		g.versions.forget(s.SessionID())
	})
	g.rememberVersions(hooks)
}
