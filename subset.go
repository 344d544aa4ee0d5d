package mcpvalidate

import "github.com/mcpvalidate/mcpvalidate/guard"

// A Validator checks tool arguments against one compiled inputSchema, outside any server:
// see [guard.Validator].
type Validator = guard.Validator

// Compile compiles a tool's inputSchema: see [guard.Compile].
func Compile(schema []byte, opts ...guard.CompileOption) (*Validator, error) {
	return guard.Compile(schema, opts...)
}
