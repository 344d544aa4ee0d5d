// Package guard is mcpvalidate without an MCP framework: the strict validator of tool
// arguments ([Compile], [Validator], [Violation]), the formatters that put violations into
// words, the schema [Lint], and the [Guard] that caches compiled schemas, decides each
// call, and tells observers and counters. It imports neither mcp-go nor go-sdk.
//
// # Checking arguments
//
//	v, err := guard.Compile(inputSchema)
//	if err != nil {
//		return err // a *SchemaError: where the schema is broken, and why
//	}
//	if vs := v.Validate(arguments); vs != nil {
//		return errors.New("Invalid arguments: " + strings.Join(guard.Messages(vs, nil), "; "))
//	}
//
// A [CompileOption] configures how a schema is compiled and what validating it finds; an
// [Option] configures a guard, and every CompileOption is an Option too, for the schemas
// the guard compiles.
//
// # Guarding a server
//
// Servers use a guard through an adapter: the root package mcpvalidate for
// github.com/mark3labs/mcp-go, package gosdk for github.com/modelcontextprotocol/go-sdk,
// and package proxy for a server of any language. Each adapter's guard runs over a [Guard]
// of this package, which one process may share between adapters: one cache, one set of
// counters.
//
// # Outside a server
//
// [Guard.CheckCall] checks one tool call for an agent that runs the tools a model asks
// for itself, and [Guard.CheckElicitation] a client's answer to a form elicitation; both
// refuse in the words a server behind the guard gives. [LintFor] says what a model
// provider ([Target]) does with a tool's schema, and [RewriteFor] writes a schema so that
// the provider takes it, where that loses nothing a front checking the original enforces.
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
package guard
