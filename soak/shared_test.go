package soak

import (
	"context"
	"encoding/json"
	"sync/atomic"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpvalidate/mcpvalidate"
	"github.com/mcpvalidate/mcpvalidate/gosdk"
)

// TestOneGuardForBothFrameworks: a process that serves through mcp-go and go-sdk shares
// one guard, its cache and its counters.
func TestOneGuardForBothFrameworks(t *testing.T) {
	const schema = `{"type":"object","properties":{"location":{"type":"string"},"days":{"type":"integer"}},"required":["location"]}`
	g := mcpvalidate.New()
	srv := server.NewMCPServer("weather", "1.0.0", server.WithToolHandlerMiddleware(g.Middleware()))
	srv.AddTool(mcp.NewToolWithRawSchema("weather", "", json.RawMessage(schema)),
		func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText("Sunny"), nil
		})
	out, _ := json.Marshal(srv.HandleMessage(context.Background(),
		[]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"weather","arguments":{"days":1}}}`)))
	var resp struct{ Result mcp.CallToolResult }
	if err := json.Unmarshal(out, &resp); err != nil || !resp.Result.IsError ||
		mcp.GetTextFromContent(resp.Result.Content[0]) != "Invalid arguments: missing required property 'location'" {
		t.Errorf("mcp-go: %s (%v)", out, err)
	}

	other := sdk.NewServer(&sdk.Implementation{Name: "weather", Version: "1.0.0"}, nil)
	tool := &sdk.Tool{Name: "weather", InputSchema: json.RawMessage(schema)}
	var ran atomic.Int64
	other.AddTool(tool, gosdk.Adapt(g.Guard()).Handler(tool, func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		ran.Add(1)
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "Sunny"}}}, nil
	}))
	st, ct := sdk.NewInMemoryTransports()
	ss, err := other.Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Wait()
	defer ss.Close()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "client", Version: "1"}, nil).Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "weather", Arguments: map[string]any{"location": "Paris"}})
	if err != nil || res.IsError || ran.Load() != 1 {
		t.Fatalf("go-sdk: %+v, %v", res, err)
	}

	stats := g.Guard().Stats()
	if len(stats) != 1 || stats[0].Refused != 1 || stats[0].Accepted != 1 {
		t.Errorf("stats %+v, want one refusal (mcp-go) and one acceptance (go-sdk)", stats)
	}
}
