package guard

// CheckCall: the guard for an agent that runs the tools a model asks for itself, with no
// MCP framework between them.

// A callKey binds the schema of a tool CheckCall checks, by the tool's name.
type callKey string

// CheckCall checks one tool call outside any MCP framework, for an agent that runs the
// tools a model asks for itself: args, the arguments as the model sent them, against
// schema, the tool's inputSchema. The Verdict is the one a server behind the guard gives,
// in the same words: when Refused, Text is what the model should get as the tool's result,
// marked as an error, so that it repairs the call; the tool is not run. The call is counted
// and observed as a server's calls are, and each schema text compiled once, in the guard's
// cache.
func (g *Guard) CheckCall(tool string, schema, args []byte) Verdict {
	s := g.Lookup(callKey(tool))
	if s == nil || s.text != string(schema) { // a first call, or the tool's schema changed
		s = g.Bind(callKey(tool), nil, schema, nil)
	}
	call := Call{Tool: tool}
	return g.Check(&call, s, args, nil)
}
