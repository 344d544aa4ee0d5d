// Package mcpvalidate stops invalid tool calls at the door of an MCP server built with
// github.com/mark3labs/mcp-go: it checks every tools/call's arguments against the tool's
// inputSchema before the handler runs, and answers invalid calls with a tool result
// (isError) whose text tells the model exactly what to fix:
//
//	Invalid arguments: missing required property 'location'; property 'days' must be integer
//
// A handler is never called with invalid arguments.
//
// # Getting started
//
// Create one [Guard] per server with [New], register its [Guard.Middleware], and check the
// tools' schemas with [Guard.CheckServer] before serving:
//
//	g := mcpvalidate.New()
//	srv := server.NewMCPServer("weather", "1.0.0",
//		server.WithToolHandlerMiddleware(g.Middleware()))
//	srv.AddTool(tool, handler)
//	if err := g.CheckServer(srv); err != nil {
//		log.Fatal(err) // a tool whose schema does not compile
//	}
//
// The guard compiles each distinct schema text once, shares it between the tools and
// sessions that declare it, and keeps the counters that [guard.Guard.Stats] returns
// ([Guard.Guard] gives it). [Middleware]
// is the one-line form, for a server that neither reads the counters nor checks its tools
// at start-up.
//
// Register the middleware after any other tool middleware, so that it wraps the handlers
// themselves: then the schema it checks is always the one registered with the handler that
// runs, even when a tool is registered again during a call. A server that runs other tool
// middleware inside it and registers tools while serving binds each handler to its schema
// with [Guard.Handler]. Tools registered with AddTaskTool run without tool middleware: wrap
// their handlers with [Guard.TaskHandler]. A session's own tools are checked against their
// own schemas.
//
// # What the model is told
//
// A refused call's text is "Invalid arguments: " followed by the messages of its
// violations, joined by "; ", within 8 KB. [guard.WithFormatter] chooses their style:
// [guard.DefaultFormat], [guard.GatewayFormat], [guard.DetailedFormat] (which also says
// what was sent and which name or value was meant), or a [guard.Formatter] of your own. Under
// [guard.WithViolationMeta] the result's _meta carries the same violations as data, under
// [guard.MetaKey], for clients that read them.
//
// A tool whose schema does not compile is never called: each call is refused with a text
// that asks the model not to retry, and the operator is told (outcome [guard.SchemaBroken]).
//
// # Watching and rolling out
//
// [guard.WithObserver] hears of every validated call as an [guard.Event]: its [guard.Outcome], its
// [guard.Violation] values (kinds, paths and the schema's own values, never the values sent), the
// session and the client. [guard.WithLogger] logs refusals, repairs and broken schemas to a
// [log/slog.Logger], and `mcpvalidate report` sums such a log up per tool. [guard.Guard.Stats]
// returns each tool's [guard.ToolStats]: calls accepted and
// refused, and how many refusals the model needed to repair a call.
//
// [guard.WithReportOnly] lets every call reach its handler and only reports those that would be
// refused: the first step of switching validation on for a live server.
//
// # Results
//
// [guard.WithOutputValidation] also checks every successful result of a tool that declares an
// outputSchema, after its handler ran. A result that does not match is withheld, the model
// is told that the tool failed on the server's side, and the outcome is [guard.ResultRefused].
//
// # Schemas and limits
//
// Schemas are JSON Schema 2020-12, or 2019-09, draft-07, draft-06 and draft-04 when their
// $schema names them. Each is compiled once and checked in one pass over the raw argument
// bytes, with exact numbers, violations in a deterministic order and no allocation on a
// valid call. "format" is an annotation unless [guard.WithFormatAssertion] is given (draft-07 and
// earlier always assert it). [guard.WithFullEngine] validates with santhosh-tekuri/jsonschema
// instead, to compare the two engines, in a program that imports package
// [github.com/mcpvalidate/mcpvalidate/guard/fullengine].
//
// [guard.WithMaxDepth] bounds how deeply arguments may nest, [guard.WithMaxViolations] how many
// violations are listed, and [guard.WithCacheBudget] the memory a guard's compiled schemas hold.
//
// # Without a server
//
// [Compile] compiles a schema into a [Validator], whose [guard.Validator.Validate] checks
// argument bytes and [guard.Validator.ValidateValue] decoded arguments; [guard.Messages] renders the
// violations. [guard.Lint] reviews a schema for what a strict reviewer would tighten. The command
// cmd/mcpvalidate does the same from a shell.
//
// # Packages
//
// The validator and the guard live in package [github.com/mcpvalidate/mcpvalidate/guard],
// which imports no MCP framework: its options, formatters, violations, events and counters
// are the ones this package's guard uses. This package adds the mcp-go adapter. Servers on
// the official Go SDK use [github.com/mcpvalidate/mcpvalidate/gosdk], a module of its own
// that depends on no mcp-go module; a process serving both shares one [guard.Guard] through
// [Adapt] and gosdk's Adapt.
//
// # Compatibility
//
// It needs mcp-go v0.56.0 or later (the first to keep the arguments' bytes, RawArguments)
// and Go 1.25.5; it is tested on mcp-go v0.56.0 and v1.6.0.
//
// mcp-go's own WithInputSchemaValidation runs before any middleware. With both on, a call
// that mcp-go refuses is answered in mcp-go's wording and never reaches mcpvalidate; a call
// mcp-go lets through (including every call to a tool whose schema mcp-go cannot compile,
// which it skips silently) is then checked here. Turning mcp-go's check off is recommended.
package mcpvalidate
