package mcpvalidate

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"unsafe"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// This file is the adapter's room: everything that knows mcp-go. It finds the called
// tool's schema, and turns the guard's decision into mcp-go results.

// Middleware returns mcp-go tool middleware that validates every tools/call against the
// called tool's inputSchema before the handler runs:
//
//	srv := server.NewMCPServer("weather", "1.0.0",
//		server.WithToolHandlerMiddleware(mcpvalidate.Middleware()))
//
// Invalid arguments are answered with a tool result with isError set and the text
// "Invalid arguments: " followed by the violations joined by "; "; the handler is not called.
// Use New(opts...).Middleware() to keep a handle on the counters.
//
// mcp-go's own WithInputSchemaValidation, when also on, runs before every middleware: a
// call it refuses never reaches this one, and is answered in its wording. Leave it off.
func Middleware(opts ...Option) server.ToolHandlerMiddleware {
	return New(opts...).Middleware()
}

// Middleware returns tool middleware bound to this guard's cache and counters.
func (g *Guard) Middleware() server.ToolHandlerMiddleware {
	return func(next server.ToolHandlerFunc) server.ToolHandlerFunc {
		return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if text := g.check(ctx, req); text != "" {
				return mcp.NewToolResultError(text), nil
			}
			return next(ctx, req)
		}
	}
}

// TaskHandler wraps the handler of a tool registered with AddTaskTool, which mcp-go runs
// without tool middleware:
//
//	srv.AddTaskTool(tool, guard.TaskHandler(tool, handler))
//
// A call with invalid arguments completes its task at once with an isError result that
// tasks/result returns; the handler is not called.
func (g *Guard) TaskHandler(tool mcp.Tool, h server.TaskToolHandlerFunc) server.TaskToolHandlerFunc {
	return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CreateTaskResult, error) {
		if text := g.checkTool(server.ClientSessionFromContext(ctx), req, tool); text != "" {
			return &mcp.CreateTaskResult{
				Content: []mcp.Content{mcp.NewTextContent(text)},
				IsError: true,
			}, nil
		}
		return h(ctx, req)
	}
}

// check validates one call against the schema of the tool mcp-go dispatched it to: the
// session's tool of that name if there is one, else the server's.
func (g *Guard) check(ctx context.Context, req mcp.CallToolRequest) string {
	session := server.ClientSessionFromContext(ctx)
	tool, ok := findTool(ctx, session, req.Params.Name)
	if !ok {
		info := g.callInfo(session, req.Params.Name)
		c := &compiled{err: errors.New("mcpvalidate: the middleware cannot find the tool; is it running inside an mcp-go server?")}
		return g.decide(info, g.tool(req.Params.Name), c, nil, nil, false)
	}
	return g.checkTool(session, req, tool)
}

func (g *Guard) checkTool(session server.ClientSession, req mcp.CallToolRequest, tool mcp.Tool) string {
	t := g.tool(req.Params.Name)
	key := keyOf(&tool)
	c := t.lookup(key)
	if c == nil {
		schema, err := schemaOf(&tool)
		c = g.compile(t, key, [2]any{tool.RawInputSchema, tool.InputSchema}, schema, err)
	}
	info := g.callInfo(session, req.Params.Name)
	raw := req.Params.RawArguments
	return g.decide(info, t, c, raw, req.Params.Arguments, len(raw) > 0)
}

func findTool(ctx context.Context, session server.ClientSession, name string) (mcp.Tool, bool) {
	if s, ok := session.(server.SessionWithTools); ok {
		if st, ok := s.GetSessionTools()[name]; ok {
			return st.Tool, true
		}
	}
	if srv := server.ServerFromContext(ctx); srv != nil {
		if st := srv.GetTool(name); st != nil {
			return st.Tool, true
		}
	}
	return mcp.Tool{}, false
}

// callInfo names the call's session; the client's name and version only for observers.
func (g *Guard) callInfo(session server.ClientSession, tool string) callInfo {
	info := callInfo{tool: tool}
	if session == nil {
		return info
	}
	info.session = session.SessionID()
	if c, ok := session.(server.SessionWithClientInfo); ok && len(g.cfg.observers) > 0 {
		impl := c.GetClientInfo()
		info.client, info.clientVersion = impl.Name, impl.Version
	}
	return info
}

// schemaKey identifies a tool's schema by the identity of the values it is built from:
// addresses and lengths, never contents, so a cache hit reads no schema. A tool registered
// again with a new schema has new values, hence a new key. (Changing a registered tool's
// maps in place is a data race in mcp-go itself.)
type schemaKey struct {
	raw, props, defs, required, order, additional unsafe.Pointer
	rawLen, requiredLen, orderLen                 int
	typ                                           string
	additionalBool                                int8 // 1 false, 2 true
}

func keyOf(t *mcp.Tool) schemaKey {
	s := &t.InputSchema
	k := schemaKey{
		raw: unsafe.Pointer(unsafe.SliceData(t.RawInputSchema)), rawLen: len(t.RawInputSchema),
		props: mapPointer(s.Properties), defs: mapPointer(s.Defs),
		required: unsafe.Pointer(unsafe.SliceData(s.Required)), requiredLen: len(s.Required),
		order: unsafe.Pointer(unsafe.SliceData(s.PropertyOrder)), orderLen: len(s.PropertyOrder),
		typ: s.Type,
	}
	switch a := s.AdditionalProperties.(type) {
	case nil:
	case bool:
		k.additionalBool = 1
		if a {
			k.additionalBool = 2
		}
	default:
		if v := reflect.ValueOf(a); v.Kind() == reflect.Map || v.Kind() == reflect.Pointer {
			k.additional = v.UnsafePointer()
		} else {
			// A value without identity: key on its JSON text, the slow but exact way.
			b, _ := json.Marshal(a)
			k.typ += "\x00" + string(b)
		}
	}
	return k
}

func mapPointer(m map[string]any) unsafe.Pointer {
	if m == nil {
		return nil
	}
	return reflect.ValueOf(m).UnsafePointer()
}

// schemaOf returns the inputSchema as tools/list advertises it. A tool built without any
// schema gets {"type":"object"}: it takes an object and declares nothing in it.
func schemaOf(t *mcp.Tool) ([]byte, error) {
	if len(t.RawInputSchema) > 0 {
		return t.RawInputSchema, nil
	}
	s := t.InputSchema
	if s.Type == "" && len(s.Properties) == 0 && len(s.Required) == 0 && s.AdditionalProperties == nil && len(s.Defs) == 0 {
		return []byte(`{"type":"object"}`), nil
	}
	return json.Marshal(s)
}

// CheckServer compiles the inputSchema of every tool registered on srv and returns every
// problem at once (nil when all compile), so a server can refuse to start with a broken
// tool rather than refuse its calls later. Pass the options the middleware uses.
func CheckServer(srv *server.MCPServer, opts ...Option) error {
	cfg := newConfig(opts)
	tools := srv.ListTools()
	names := make([]string, 0, len(tools))
	for name := range tools {
		names = append(names, name)
	}
	slices.Sort(names)
	var errs []error
	for _, name := range names {
		tool := tools[name].Tool
		schema, err := schemaOf(&tool)
		if err == nil {
			_, err = compile(schema, cfg)
		}
		if err != nil {
			errs = append(errs, &ToolError{Tool: name, Err: err})
		}
	}
	return errors.Join(errs...)
}

// A ToolError is a tool whose inputSchema does not compile.
type ToolError struct {
	Tool string
	Err  error
}

// Error names the tool and the compile error.
func (e *ToolError) Error() string { return "tool " + e.Tool + ": " + e.Err.Error() }

// Unwrap returns the compile error, usually a *SchemaError.
func (e *ToolError) Unwrap() error { return e.Err }
