// Package gosdk brings mcpvalidate to servers built on the official Go SDK,
// github.com/modelcontextprotocol/go-sdk: every tools/call's arguments are checked
// against the tool's inputSchema before the handler runs, and an invalid call is answered
// with an isError result whose text tells the model exactly what to fix.
//
// Bind each tool to a guard where it is registered. A raw tool, which go-sdk never
// validates:
//
//	g := gosdk.New()
//	srv.AddTool(tool, g.Handler(tool, handler))
//
// A typed tool, in place of mcp.AddTool, so that the model reads the guard's messages
// rather than go-sdk's and every violation at once:
//
//	gosdk.AddTool(g, srv, tool, handler)
//
// The options, formatters, violations, events and counters are package guard's, as for
// mcp-go servers (package mcpvalidate); one [guard.Guard] can serve both (see [Adapt]). This package is a module of its own: a go-sdk server that uses it depends on
// no mcp-go module.
package gosdk
