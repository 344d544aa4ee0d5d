// Package core is mcpvalidate without an MCP framework: the strict subset validator
// ([Compile], [Validator], [Violation]), the formatters, and the [Guard] that caches
// compiled schemas, decides each call, and tells observers and counters. It imports
// neither mcp-go nor go-sdk.
//
// Servers use it through an adapter, which gives this package's names as its own: the
// root package mcpvalidate for github.com/mark3labs/mcp-go, and package gosdk for
// github.com/modelcontextprotocol/go-sdk. Each adapter's Guard wraps a [Guard] of this
// package; one Guard can serve both frameworks in one process, with one cache and one set
// of counters (the adapters' Wrap and Core).
//
// # Writing an adapter
//
// An adapter for another framework describes each tools/call as a [Call], finds the
// tool's compiled schema with [Guard.Lookup] and [Guard.Bind], asks [Guard.Check] for a
// [Verdict], and answers a refused call with [Verdict.Text] (and [Verdict.Meta] under
// [MetaKey]) as an isError tool result instead of running the handler. Under
// [WithOutputValidation], [Guard.ResultValidator] and [Guard.CheckResult] do the same for
// the result. The schema must be the one registered with the handler that runs: bind it
// when the tool is registered, not when the call arrives.
package core
