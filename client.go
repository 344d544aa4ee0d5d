package mcpvalidate

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpvalidate/mcpvalidate/guard"
)

// A Client is an mcp-go client with the guard in front of its tool calls, for an agent on
// the client's side of MCP: CallTool checks a call's arguments against the inputSchema the
// server listed for the tool before sending them, and answers a call that breaks it
// itself, with the isError result a server behind the guard gives, word for word, so that
// the model repairs the call without a round trip; under [guard.WithOutputValidation], a
// result whose structuredContent, as the server sent it, breaks the tool's outputSchema is
// replaced as a server behind the guard replaces it. Every other method is mcp-go's.
type Client struct {
	*client.Client
	g *Guard

	mu    sync.Mutex
	tools map[string]*clientTool // as the server last listed them; nil before
}

// A clientTool is a tool the server listed, its schemas bound in the guard's cache.
type clientTool struct {
	in, out *guard.Schema // out: nil when the tool has no outputSchema
}

// clientKey binds the schema of a listed tool in the guard's cache.
type clientKey struct {
	tool   string
	output bool
}

// Client returns c with g's checks in front of its tool calls.
func (g *Guard) Client(c *client.Client) *Client { return &Client{Client: c, g: g} }

// ListTools lists the server's tools, every page, as mcp-go does, and keeps them for the
// checks of the calls that follow: call it again when the server says its list changed.
func (c *Client) ListTools(ctx context.Context, request mcp.ListToolsRequest) (*mcp.ListToolsResult, error) {
	res, err := c.Client.ListTools(ctx, request)
	if err != nil {
		return nil, err
	}
	tools := make(map[string]*clientTool, len(res.Tools))
	for _, t := range res.Tools {
		text, err := json.Marshal(t)
		if err != nil {
			return nil, err
		}
		var schemas struct{ InputSchema, OutputSchema json.RawMessage }
		if err := json.Unmarshal(text, &schemas); err != nil {
			return nil, err
		}
		ct := &clientTool{in: c.g.core.Bind(clientKey{t.Name, false}, nil, schemas.InputSchema, nil)}
		if schemas.OutputSchema != nil {
			ct.out = c.g.core.Bind(clientKey{t.Name, true}, nil, schemas.OutputSchema, nil)
		}
		tools[t.Name] = ct
	}
	c.mu.Lock()
	c.tools = tools
	c.mu.Unlock()
	return res, nil
}

// CallTool checks the call's arguments against the tool's inputSchema, listing the
// server's tools first when they are not known yet (a listing that fails is CallTool's
// error), and sends it only when they hold, with the bytes checked. A tool the server
// does not list is called as it is: the server answers.
func (c *Client) CallTool(ctx context.Context, request mcp.CallToolRequest) (res *mcp.CallToolResult, err error) {
	c.mu.Lock()
	known := c.tools != nil
	c.mu.Unlock()
	if !known {
		if _, err := c.ListTools(ctx, mcp.ListToolsRequest{}); err != nil {
			return nil, err
		}
	}
	c.mu.Lock()
	t := c.tools[request.Params.Name]
	c.mu.Unlock()
	if t == nil {
		return c.Client.CallTool(ctx, request)
	}
	args := []byte(request.Params.RawArguments)
	if args == nil && request.Params.Arguments != nil {
		if args, err = json.Marshal(request.Params.Arguments); err != nil {
			return nil, err
		}
	}
	if args == nil || string(args) == "null" {
		args = []byte("{}") // absent arguments are checked as {}, as a server checks them
	} else {
		request.Params.Arguments, request.Params.RawArguments = json.RawMessage(args), nil
	}
	core := c.g.core
	call := guard.Call{Tool: request.Params.Name, Context: ctx, ChecksResult: core.ChecksResults() && t.out != nil}
	defer func() { core.Ended(&call, err != nil || res == nil || res.IsError) }()
	if vd := core.Check(&call, t.in, args, nil); vd.Refused() {
		return refusal(vd), nil
	}
	if !call.ChecksResult {
		return c.Client.CallTool(ctx, request)
	}
	v, vd := core.ResultValidator(&call, t.out)
	if vd.Refused() {
		return refusal(vd), nil
	}
	res, err = c.Client.CallTool(ctx, request)
	if err != nil || res == nil || res.IsError || v == nil {
		core.Unchecked(&call)
		return res, err
	}
	// The bytes the server sent, which mcp-go keeps beside their decoding: a float64
	// decoding rounds an integer beyond 2^53 onto another.
	content, err := structuredContent(res.RawStructuredContent, res.StructuredContent)
	if err != nil {
		core.Unchecked(&call)
		return nil, err
	}
	if vd := core.CheckResult(&call, v, content); vd.Refused() {
		return refusal(vd), nil
	}
	return res, nil
}
