package mcpvalidate

import (
	"context"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpvalidate/mcpvalidate/guard"
)

// TestCheckCallSpeaksAsTheServer: an agent's own check of a tool call (guard.CheckCall)
// refuses what an mcp-go server behind the middleware refuses, in the same words.
func TestCheckCallSpeaksAsTheServer(t *testing.T) {
	schema := `{"type":"object","properties":{"location":{"type":"string"},"days":{"type":"integer","minimum":1},` +
		`"units":{"type":"string","enum":["c","f"]}},"required":["location"],"additionalProperties":false}`
	cases := []string{
		`{}`,
		`{"location":"Oslo","days":"3"}`,
		`{"lcation":"Oslo","days":0,"units":"k","x":1}`,
		`{"location":7}`,
		`[1,2]`,
		`{"location":"Oslo","location":"Paris"}`,
	}
	for _, opts := range [][]guard.Option{nil, {guard.WithFormatter(guard.DetailedFormat)}, {guard.WithFormatter(guard.GatewayFormat)}} {
		srv := server.NewMCPServer("s", "1", server.WithToolHandlerMiddleware(Middleware(opts...)))
		srv.AddTool(mcp.NewToolWithRawSchema("weather", "", []byte(schema)), func(_ context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText("sunny"), nil
		})
		agent := guard.New(opts...)
		for _, args := range cases {
			want := refusalText(t, srv, []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"weather","arguments":`+args+`}}`))
			vd := agent.CheckCall("weather", []byte(schema), []byte(args))
			if !vd.Refused() || vd.Text() != want {
				t.Errorf("%s: the agent's check says %q (refused %v), the server %q", args, vd.Text(), vd.Refused(), want)
			}
		}
		if vd := agent.CheckCall("weather", []byte(schema), []byte(`{"location":"Oslo","days":3}`)); vd.Refused() {
			t.Errorf("a valid call refused: %s", vd.Text())
		}
		if s := agent.Stats(); len(s) != 1 || s[0].Refused != uint64(len(cases)) || s[0].Accepted != 1 {
			t.Errorf("counters %+v", s)
		}
	}
}
