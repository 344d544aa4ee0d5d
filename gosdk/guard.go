package gosdk

// The guard of a go-sdk server: a guard.Guard, with the verbs that bind it to
// go-sdk's tools.

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpvalidate/mcpvalidate/guard"
)

// A Guard validates the tool calls of go-sdk servers before their handlers run: the
// adapter of a [guard.Guard], which holds the compiled schemas and the counters, so create
// it once per server with [New], bind each tool to it where the tool is registered
// ([Guard.Handler], [AddTool]), and check every tool's schema at start-up with
// [Guard.CheckServer]. A Guard is safe for concurrent use.
type Guard struct {
	core  *guard.Guard
	bound sync.Map // tool name -> struct{}: the tools bound to this Guard
}

// An Option configures a guard: [guard.WithReportOnly], [guard.WithObserver],
// [guard.WithMaxDepth] and the other options of package guard.
type Option = guard.Option

// New returns a Guard over a new [guard.Guard] configured by opts.
func New(opts ...Option) *Guard { return Adapt(guard.New(opts...)) }

// Adapt returns a Guard for go-sdk servers over g, which may serve other frameworks'
// servers of the same process too (the mcp-go adapter's Adapt).
func Adapt(g *guard.Guard) *Guard { return &Guard{core: g} }

// Guard returns the framework-free guard under g: its counters, its cache, its
// configuration.
func (g *Guard) Guard() *guard.Guard { return g.core }

// Handler binds a tool's handler to the tool's inputSchema (and, under
// [guard.WithOutputValidation], its outputSchema), for tools registered with
// (*mcp.Server).AddTool, which go-sdk never validates:
//
//	srv.AddTool(tool, guard.Handler(tool, handler))
//
// A call with invalid arguments is answered with an isError result whose text says what to
// fix, and the handler does not run. A final successful result whose structuredContent
// (any JSON value) does not match the outputSchema is withheld; a result that asks the
// client for input first is not final. The schemas are compiled in the guard's cache on
// the first call. A handler that panics is answered with an isError result saying that the
// tool failed, and the panic is logged to slog's default logger, without its value.
func (g *Guard) Handler(t *mcp.Tool, h mcp.ToolHandler) mcp.ToolHandler { return g.bind(t, h, nil) }

// bind is Handler; decodes as handler's.
func (g *Guard) bind(t *mcp.Tool, h mcp.ToolHandler, decodes *decoding) mcp.ToolHandler {
	g.bound.Store(t.Name, struct{}{})
	return handler(g.core, t, h, decodes)
}

// CheckTools compiles the inputSchema of every tool (and, under
// [guard.WithOutputValidation], every outputSchema) in the guard's cache and returns every
// problem at once, as [*guard.ToolError] values in the order of the tools' names (nil when
// all compile), so that a server can refuse to start with a broken tool rather than
// refuse its calls later:
//
//	if err := guard.CheckTools(weather, station); err != nil {
//		log.Fatal(err)
//	}
//
// The handlers bound to the same schema texts then find them compiled. A tool given to
// [AddTool] is checked as it was registered there, with the schemas inferred for it.
func (g *Guard) CheckTools(tools ...*mcp.Tool) error { return checkTools(g.core, tools...) }

// CheckServer lists srv's tools as a client sees them, through a session of its own that
// it closes again, and returns every problem at once, in the order of the tools' names (nil
// when there is none): a schema that does not compile, as [Guard.CheckTools] finds it, and
// a tool of a name no handler of this guard was bound to, which go-sdk would run
// unchecked. It tells them by name: a tool registered again under a name the guard
// bound, with a handler of its own, is not found. A server
// that calls it before serving refuses to start rather than serve a broken or unguarded
// tool:
//
//	if err := guard.CheckServer(srv); err != nil {
//		log.Fatal(err)
//	}
func (g *Guard) CheckServer(srv *mcp.Server) error {
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		return fmt.Errorf("mcpvalidate: listing the server's tools: %w", err)
	}
	defer ss.Wait()
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "mcpvalidate", Version: "check"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		return fmt.Errorf("mcpvalidate: listing the server's tools: %w", err)
	}
	defer cs.Close()
	var tools []*mcp.Tool
	for t, err := range cs.Tools(ctx, nil) {
		if err != nil {
			return fmt.Errorf("mcpvalidate: listing the server's tools: %w", err)
		}
		tools = append(tools, t)
	}
	slices.SortFunc(tools, func(a, b *mcp.Tool) int { return cmp.Compare(a.Name, b.Name) })
	var errs []error
	for _, t := range tools {
		if _, ok := g.bound.Load(t.Name); !ok {
			errs = append(errs, &guard.ToolError{Tool: t.Name, Schema: "inputSchema", Err: errUnguarded})
			continue
		}
		errs = append(errs, g.CheckTools(t))
	}
	return errors.Join(errs...)
}

var errUnguarded = errors.New("no handler of this guard serves the tool, so its calls are not checked: register it with guard.Handler or gosdk.AddTool")
