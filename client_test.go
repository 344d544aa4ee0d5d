package mcpvalidate

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/mcpvalidate/mcpvalidate/guard"
)

// inProcess returns an mcp-go client of srv, initialized.
func inProcess(t *testing.T, srv *server.MCPServer) *client.Client {
	t.Helper()
	c, err := client.NewInProcessClient(srv)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	ctx := context.Background()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Initialize(ctx, mcp.InitializeRequest{Params: mcp.InitializeParams{ProtocolVersion: mcp.LATEST_PROTOCOL_VERSION,
		ClientInfo: mcp.Implementation{Name: "test-client", Version: "1"}}}); err != nil {
		t.Fatal(err)
	}
	return c
}

// TestClient: on the client's side, the contract's calls get the answers a server behind
// the guard gives, word for word, and only the valid one reaches a server that checks
// nothing.
func TestClient(t *testing.T) {
	srv, calls := weatherServer(t, nil)
	c := New().Client(inProcess(t, srv))
	for _, cc := range contractCalls {
		request := mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "weather", Arguments: json.RawMessage(cc.args)}}
		res, err := c.CallTool(context.Background(), request)
		if err != nil {
			t.Fatalf("%s: %v", cc.name, err)
		}
		if textOf(res) != cc.want || res.IsError != cc.isError {
			t.Errorf("%s: %q (isError %v), want %q", cc.name, textOf(res), res.IsError, cc.want)
		}
	}
	if n := calls.Load(); n != 1 {
		t.Errorf("the server's handler ran %d times, want once", n)
	}
	if s := c.g.Guard().Stats(); len(s) != 1 || s[0].Accepted != 1 || s[0].Refused != uint64(len(contractCalls)-1) {
		t.Errorf("counters %+v", s)
	}
}

// TestClientOutput: under WithOutputValidation, a result whose structuredContent breaks
// the tool's outputSchema is replaced, in the words a server behind the guard gives.
func TestClientOutput(t *testing.T) {
	tool := mcp.NewTool("station", mcp.WithOutputSchema[struct {
		Celsius float64 `json:"celsius"`
	}]())
	handler := func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{StructuredContent: map[string]any{"celsius": req.GetString("as", "")}}, nil
	}
	raw, guarded := server.NewMCPServer("s", "1"), server.NewMCPServer("s", "1", server.WithToolHandlerMiddleware(New(guard.WithOutputValidation()).Middleware()))
	raw.AddTool(tool, handler)
	guarded.AddTool(tool, handler)
	c := New(guard.WithOutputValidation()).Client(inProcess(t, raw))
	request := mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "station", Arguments: map[string]any{"as": "warm"}}}
	got, err := c.CallTool(context.Background(), request)
	if err != nil {
		t.Fatal(err)
	}
	want, err := inProcess(t, guarded).CallTool(context.Background(), request)
	if err != nil {
		t.Fatal(err)
	}
	if !got.IsError || textOf(got) != textOf(want) {
		t.Errorf("client side %q (isError %v), server side %q", textOf(got), got.IsError, textOf(want))
	}
}

// TestClientChecksRawStructuredContent: the Client checks a result's structuredContent as
// the server sent it, which mcp-go keeps in RawStructuredContent, not as its float64
// decoding holds it: an integer beyond 2^53 that breaks the outputSchema is withheld,
// though it rounds onto a value that matches.
func TestClientChecksRawStructuredContent(t *testing.T) {
	for _, c := range []struct {
		sent    string
		refused bool
	}{
		{`{"n":9007199254740992}`, false},
		{`{"n":9007199254740993}`, true}, // above the maximum, and odd
		{`{"n":9007199254740994}`, true},
	} {
		tool := mcp.NewTool("counter", mcp.WithRawOutputSchema(json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer","maximum":9007199254740992,"multipleOf":2}},"required":["n"]}`)))
		srv := server.NewMCPServer("s", "1")
		srv.AddTool(tool, func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent("counted")}, RawStructuredContent: json.RawMessage(c.sent)}, nil
		})
		agent := New(guard.WithOutputValidation()).Client(inProcess(t, srv))
		res, err := agent.CallTool(context.Background(), mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "counter", Arguments: map[string]any{}}})
		if err != nil {
			t.Fatal(err)
		}
		if res.IsError != c.refused || c.refused && textOf(res) != badResultText {
			t.Errorf("sent %s: %q (isError %v), want refused %v", c.sent, textOf(res), res.IsError, c.refused)
		}
	}
}
