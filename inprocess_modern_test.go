//go:build mcpgo_v1_1

package mcpvalidate

import (
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// The in-process client on 2026-07-28 needs client options that came with mcp-go v1.1.0,
// newer than the oldest release go.mod requires, and Go cannot choose a file by a
// dependency's version: .ci/run sets the tag when it tests against the newest release.
func TestInProcessClientModern(t *testing.T) {
	inProcessClient(t, mcp.ProtocolVersion20260728, true, func(srv *server.MCPServer) (*client.Client, error) {
		return client.NewInProcessClientWithOptions(srv, client.WithProtocolVersion(mcp.ProtocolVersion20260728),
			client.WithDiscoverTimeout(-1)) // wait for server/discover, however busy the machine
	})
}
