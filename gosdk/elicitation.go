package gosdk

import (
	"context"
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ElicitationMiddleware returns the sending middleware that checks what a client accepts
// a server's form elicitation with against the request's requestedSchema, for
// (*mcp.Server).AddSendingMiddleware:
//
//	srv.AddSendingMiddleware(g.ElicitationMiddleware())
//
// ServerSession.Elicit then returns content that breaks the schema as a
// *guard.ElicitationError, in the words mcpvalidate proxy and the mcp-go adapter give a
// server, before go-sdk's own check, which still runs on the rest. Content left out
// counts as {}.
func (g *Guard) ElicitationMiddleware() mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			res, err := next(ctx, method, req)
			params, isElicit := req.GetParams().(*mcp.ElicitParams)
			result, answered := res.(*mcp.ElicitResult)
			if err != nil || !isElicit || !answered || result.Action != "accept" || params.RequestedSchema == nil || params.Mode == "url" {
				return res, err
			}
			schema, err := json.Marshal(params.RequestedSchema)
			if err != nil {
				return nil, err
			}
			content := []byte("{}")
			if result.Content != nil {
				if content, err = json.Marshal(result.Content); err != nil {
					return nil, err
				}
			}
			if err := g.core.CheckElicitation(schema, content); err != nil {
				return nil, err
			}
			return res, nil
		}
	}
}
