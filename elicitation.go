package mcpvalidate

import (
	"context"
	"encoding/json"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// RequestElicitation asks the client of ctx's session for input, as
// (*server.MCPServer).RequestElicitation does, and checks what the client accepts with
// against the request's requestedSchema: content that breaks it is returned as a
// *guard.ElicitationError, in the words mcpvalidate proxy gives a server, and never
// reaches the caller. Content left out counts as {}. Other answers come back as the
// client gave them.
func (g *Guard) RequestElicitation(ctx context.Context, srv *server.MCPServer, request mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
	res, err := srv.RequestElicitation(ctx, request)
	if err != nil || res == nil || res.Action != mcp.ElicitationResponseActionAccept || request.Params.RequestedSchema == nil {
		return res, err
	}
	schema, err := json.Marshal(request.Params.RequestedSchema)
	if err != nil {
		return nil, err
	}
	content := []byte("{}")
	if res.Content != nil {
		if content, err = json.Marshal(res.Content); err != nil {
			return nil, err
		}
	}
	if err := g.core.CheckElicitation(schema, content); err != nil {
		return nil, err
	}
	return res, nil
}
