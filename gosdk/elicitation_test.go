package gosdk

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestElicitationMiddleware: a go-sdk server's own elicitation gets content that breaks
// its requestedSchema as the error the proxy and the mcp-go adapter give, in the same
// words; valid content as the client sent it.
func TestElicitationMiddleware(t *testing.T) {
	srv := newServer()
	srv.AddSendingMiddleware(New().ElicitationMiddleware())
	srv.AddTool(&mcp.Tool{Name: "ask_age", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		res, err := req.Session.Elicit(ctx, &mcp.ElicitParams{Message: "Your age?", RequestedSchema: json.RawMessage(
			`{"type":"object","properties":{"age":{"type":"integer","minimum":0}},"required":["age"]}`)})
		text := ""
		if err != nil {
			text = "error: " + err.Error()
		} else {
			b, _ := json.Marshal(res.Content)
			text = "received " + string(b)
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil
	})
	for _, c := range []struct {
		content string
		want    string
	}{
		{`{"age":"old"}`, "error: Invalid elicitation response: property 'age' must be integer"},
		{`{"age":-1}`, "error: Invalid elicitation response: property 'age' must be at least 0"},
		{`{"age":42}`, `received {"age":42}`},
	} {
		if got := rawElicited(t, srv, c.content); got != c.want {
			t.Errorf("%s: %q, want %q", c.content, got, c.want)
		}
	}
}

// rawElicited calls srv's ask_age as a client that answers the elicitation with content,
// unchecked, as go-sdk's own client would not send it, and returns the tool's text.
func rawElicited(t *testing.T, srv *mcp.Server, content string) string {
	t.Helper()
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { ss.Close(); ss.Wait() }()
	conn, err := ct.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	send := func(text string) {
		msg, err := jsonrpc.DecodeMessage([]byte(text))
		if err != nil {
			t.Fatal(err)
		}
		if err := conn.Write(ctx, msg); err != nil {
			t.Fatal(err)
		}
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{}},"clientInfo":{"name":"raw","version":"1"}}}`)
	if _, err := conn.Read(ctx); err != nil {
		t.Fatal(err)
	}
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"ask_age","arguments":{}}}`)
	for {
		msg, err := conn.Read(ctx)
		if err != nil {
			t.Fatal(err)
		}
		switch m := msg.(type) {
		case *jsonrpc.Request:
			if m.Method == "elicitation/create" {
				id, _ := json.Marshal(m.ID.Raw())
				send(`{"jsonrpc":"2.0","id":` + string(id) + `,"result":{"action":"accept","content":` + content + `}}`)
			}
		case *jsonrpc.Response:
			var res mcp.CallToolResult
			if err := json.Unmarshal(m.Result, &res); err != nil {
				t.Fatal(err)
			}
			return text(&res)
		}
	}
}
