// Package mcpvalidate stops invalid tool calls at the door of an MCP server built with
// github.com/mark3labs/mcp-go: it checks every tools/call's arguments against the tool's
// inputSchema before the handler runs, and answers invalid calls with a tool result
// (isError) whose text tells the model exactly what to fix.
//
// The package has three parts, one per concern:
//
//   - the core (Compile, Validator, Violation, Messages): JSON Schema 2020-12 (and 2019-09,
//     draft-07, draft-06, draft-04) compiled once and checked in one pass over the raw
//     argument bytes, with exact numbers, deterministic order and no allocation on a valid
//     call. The full engine (santhosh-tekuri/jsonschema) validates only under WithFullEngine.
//   - the middleware (Guard, Event, ToolStats): a cache of compiled schemas shared by
//     content within a memory budget, the decision, observers and counters.
//   - the adapter (Middleware, CheckServer, Guard.Handler, Guard.TaskHandler): everything
//     mcp-go specific.
//
// One line wraps a server:
//
//	srv := server.NewMCPServer("weather", "1.0.0",
//		server.WithToolHandlerMiddleware(mcpvalidate.Middleware()))
//
// Register it after any other tool middleware, so that it wraps the handlers themselves:
// then the schema it checks is always the one registered with the handler that runs, even
// when a tool is registered again during a call.
//
// It needs mcp-go v0.56.0 or later (the first to keep the arguments' bytes, RawArguments)
// and Go 1.25.5; it is tested on mcp-go v0.56.0 and v1.2.1.
//
// mcp-go's own WithInputSchemaValidation runs before any middleware. With both on, a call
// that mcp-go refuses is answered in mcp-go's wording and never reaches mcpvalidate; a call
// mcp-go lets through (including every call to a tool whose schema mcp-go cannot compile,
// which it skips silently) is then checked here. Turning mcp-go's check off is recommended.
package mcpvalidate
