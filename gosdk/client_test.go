package gosdk

import (
	"context"
	"encoding/json"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpvalidate/mcpvalidate/guard"
)

// TestClientSession: on the client's side, the contract's calls get the answers a server
// behind the guard gives, word for word, and only the valid one reaches a server that
// checks nothing.
func TestClientSession(t *testing.T) {
	var calls atomic.Int64
	srv := newServer()
	srv.AddTool(weatherTool(), forecast(&calls)) // a raw tool: go-sdk checks nothing
	cs := New().Client(connect(t, srv))
	for _, c := range contractCalls {
		res := call(t, cs, "weather", c.args)
		if text(res) != c.want || res.IsError != c.isError {
			t.Errorf("%s: %q (isError %v), want %q", c.name, text(res), res.IsError, c.want)
		}
	}
	if n := calls.Load(); n != 1 {
		t.Errorf("the server's handler ran %d times, want once", n)
	}
	if s := cs.g.Guard().Stats(); len(s) != 1 || s[0].Accepted != 1 || s[0].Refused != uint64(len(contractCalls)-1) {
		t.Errorf("counters %+v", s)
	}
	if res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "nope"}); err == nil && !res.IsError {
		t.Errorf("a tool the server does not list: %v, %v", res, err)
	}
}

// TestClientSessionOutput: under WithOutputValidation, a result whose structuredContent
// breaks the tool's outputSchema is replaced, as a server behind the guard replaces it.
func TestClientSessionOutput(t *testing.T) {
	tool := &mcp.Tool{Name: "station", InputSchema: json.RawMessage(`{"type":"object"}`),
		OutputSchema: json.RawMessage(`{"type":"object","properties":{"celsius":{"type":"number"}},"required":["celsius"]}`)}
	var celsius atomic.Pointer[any]
	h := func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{StructuredContent: map[string]any{"celsius": *celsius.Load()}}, nil
	}
	raw, guarded := newServer(), newServer()
	raw.AddTool(tool, h)
	guarded.AddTool(tool, New(guard.WithOutputValidation()).Handler(tool, h))
	client := New(guard.WithOutputValidation()).Client(connect(t, raw))
	server := connect(t, guarded)
	warm, mild := any("warm"), any(21.5)
	celsius.Store(&mild)
	if res := call(t, client, "station", `{}`); res.IsError {
		t.Errorf("a matching result replaced: %q", text(res))
	}
	celsius.Store(&warm)
	got, want := call(t, client, "station", `{}`), call(t, server, "station", `{}`)
	if !got.IsError || text(got) != text(want) || !strings.HasPrefix(text(got), "The tool failed on the server's side") {
		t.Errorf("client side %q, server side %q", text(got), text(want))
	}
}

// BenchmarkCheckedCall: a valid call's round trip in memory, checked on the client's side
// (ClientSession, in front of a raw tool) and on the server's (Handler): the checks cost
// the same.
func BenchmarkCheckedCall(b *testing.B) {
	var calls atomic.Int64
	args := map[string]any{"location": "Paris", "days": 2}
	b.Run("client-side", func(b *testing.B) {
		srv := newServer()
		srv.AddTool(weatherTool(), forecast(&calls))
		cs := New().Client(connect(b, srv))
		for b.Loop() {
			if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "weather", Arguments: args}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("server-side", func(b *testing.B) {
		srv := newServer()
		srv.AddTool(weatherTool(), New().Handler(weatherTool(), forecast(&calls)))
		cs := connect(b, srv)
		for b.Loop() {
			if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "weather", Arguments: args}); err != nil {
				b.Fatal(err)
			}
		}
	})
}
