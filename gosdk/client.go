package gosdk

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpvalidate/mcpvalidate/guard"
)

// A ClientSession is go-sdk's client session with the guard in front of its tool calls,
// for an agent on the client's side of MCP: CallTool checks a call's arguments against
// the inputSchema the server listed for the tool before sending it, and answers a call
// that breaks it itself, with the isError result a server behind the guard gives, word
// for word, so that the model repairs the call without a round trip; under
// [guard.WithOutputValidation], a result whose structuredContent breaks the tool's
// outputSchema is replaced as a server behind the guard replaces it. The guard's counters
// and observers hear of each call. Every other method is go-sdk's.
type ClientSession struct {
	*mcp.ClientSession
	g *Guard

	mu    sync.Mutex
	tools map[string]*listed // as the server last listed them; nil before
}

// A listed tool is one the server listed, its schemas bound in the guard's cache.
type listed struct {
	tool    *mcp.Tool
	in, out *guard.Schema // out: nil when the tool has no outputSchema
}

// Client returns cs with g's checks in front of its tool calls.
func (g *Guard) Client(cs *mcp.ClientSession) *ClientSession {
	return &ClientSession{ClientSession: cs, g: g}
}

// ListTools lists the server's tools as go-sdk does, and keeps them, for the checks of
// the calls that follow: call it again when the server says its list changed. A page
// after the first adds to those of the pages before.
func (c *ClientSession) ListTools(ctx context.Context, params *mcp.ListToolsParams) (*mcp.ListToolsResult, error) {
	res, err := c.ClientSession.ListTools(ctx, params)
	if err != nil {
		return res, err
	}
	kept, err := c.g.listed(res.Tools)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	if params == nil || params.Cursor == "" || c.tools == nil {
		c.tools = map[string]*listed{}
	}
	for name, l := range kept {
		c.tools[name] = l
	}
	c.mu.Unlock()
	return res, nil
}

// listed binds the schemas of tools in g's cache.
func (g *Guard) listed(tools []*mcp.Tool) (map[string]*listed, error) {
	out := make(map[string]*listed, len(tools))
	for _, t := range tools {
		in, err := json.Marshal(t.InputSchema)
		if err != nil {
			return nil, err
		}
		l := &listed{tool: t, in: g.core.Bind(clientKey{t.Name, false}, nil, in, nil)}
		if t.OutputSchema != nil {
			text, err := json.Marshal(t.OutputSchema)
			if err != nil {
				return nil, err
			}
			l.out = g.core.Bind(clientKey{t.Name, true}, nil, text, nil)
		}
		out[t.Name] = l
	}
	return out, nil
}

// CallTool checks the call's arguments against the tool's inputSchema, listing the
// server's tools first when they are not known yet (a listing that fails is CallTool's
// error), and sends it only when they hold. A tool the server does not list is called as
// it is: the server answers.
func (c *ClientSession) CallTool(ctx context.Context, params *mcp.CallToolParams) (*mcp.CallToolResult, error) {
	t, err := c.tool(ctx, params.Name)
	switch {
	case err != nil:
		return nil, err
	case t == nil:
		return c.ClientSession.CallTool(ctx, params)
	}
	core := c.g.core
	args := []byte("{}") // absent arguments are checked as {}, as a server checks them
	if params.Arguments != nil {
		if args, err = json.Marshal(params.Arguments); err != nil {
			return nil, err
		}
		// The bytes checked are the bytes sent, marshalled once.
		sent := *params
		sent.Arguments = json.RawMessage(args)
		params = &sent
	}
	call := guard.Call{Tool: params.Name, Context: ctx}
	checks := core.ChecksResults() && t.out != nil
	call.ChecksResult = checks
	var res *mcp.CallToolResult
	defer func() { core.Ended(&call, err != nil || res == nil || res.IsError) }()
	if vd := core.Check(&call, t.in, args, nil); vd.Refused() {
		res = refusal(vd)
		return res, nil
	}
	if !checks {
		res, err = c.ClientSession.CallTool(ctx, params)
		return res, err
	}
	v, vd := core.ResultValidator(&call, t.out)
	if vd.Refused() {
		res = refusal(vd)
		return res, nil
	}
	res, err = c.ClientSession.CallTool(ctx, params)
	if err != nil || res == nil || res.IsError || v == nil {
		core.Unchecked(&call)
		return res, err
	}
	content, err := structuredContent(res.StructuredContent)
	if err != nil {
		core.Unchecked(&call)
		return nil, err
	}
	if vd := core.CheckResult(&call, v, content); vd.Refused() {
		res = refusal(vd)
	}
	return res, nil
}

// clientKey binds the schema of a listed tool in the guard's cache.
type clientKey struct {
	tool   string
	output bool
}

// tool returns the listed tool of name, listing the server's tools first when none are
// known; nil when the server does not list it.
func (c *ClientSession) tool(ctx context.Context, name string) (*listed, error) {
	c.mu.Lock()
	known := c.tools != nil
	t := c.tools[name]
	c.mu.Unlock()
	if known {
		return t, nil
	}
	var all []*mcp.Tool
	for t, err := range c.ClientSession.Tools(ctx, nil) {
		if err != nil {
			return nil, err
		}
		all = append(all, t)
	}
	tools, err := c.g.listed(all)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	c.tools = tools
	c.mu.Unlock()
	return tools[name], nil
}
