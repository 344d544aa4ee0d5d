package gosdk

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestHandlerRecoversPanics: a raw or typed handler that panics is answered with an isError
// result, the server goes on serving, and the log line names the tool and where it
// panicked without quoting the arguments the panic's value holds.
func TestHandlerRecoversPanics(t *testing.T) {
	var logged bytes.Buffer
	defer slog.SetDefault(slog.Default())
	slog.SetDefault(slog.New(slog.NewTextHandler(&logged, nil)))

	g := New()
	srv := newServer()
	raw := &mcp.Tool{Name: "raw", InputSchema: json.RawMessage(`{"type":"object"}`)}
	srv.AddTool(raw, g.Handler(raw, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		panic("no forecast for " + string(req.Params.Arguments))
	}))
	var nothing *greetIn
	AddTool(g, srv, &mcp.Tool{Name: "typed"}, func(_ context.Context, _ *mcp.CallToolRequest, in greetIn) (*mcp.CallToolResult, any, error) {
		return nil, nil, errors.New(in.Name + nothing.Name)
	})
	weather := weatherTool()
	srv.AddTool(weather, g.Handler(weather, forecast(new(atomic.Int64))))
	cs := connect(t, srv)

	for _, tc := range []struct{ tool, panic string }{{"raw", "string"}, {"typed", "runtime."}} {
		logged.Reset()
		res := call(t, cs, tc.tool, `{"name":"Ann-secret"}`)
		if !res.IsError || text(res) != failedText {
			t.Errorf("%s: %q (isError %v), want %q", tc.tool, text(res), res.IsError, failedText)
		}
		line := logged.String()
		for _, want := range []string{"tool=" + tc.tool, "panic=" + tc.panic, "recover_test.go:"} {
			if !strings.Contains(line, want) {
				t.Errorf("%s: the log %q does not say %s", tc.tool, line, want)
			}
		}
		if strings.Contains(line, "secret") {
			t.Errorf("%s: the log quotes the arguments: %s", tc.tool, line)
		}
		if res := call(t, cs, "weather", `{"location":"Oslo"}`); res.IsError || text(res) != "Sunny in Oslo" {
			t.Errorf("after %s panicked: %q", tc.tool, text(res))
		}
	}
}

// TestHandlerAllocatesNothing: a valid call through Handler, recovery included, allocates
// nothing beyond what its handler does.
func TestHandlerAllocatesNothing(t *testing.T) {
	tool := weatherTool()
	result := &mcp.CallToolResult{}
	h := New().Handler(tool, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return result, nil
	})
	req := &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: "weather", Arguments: json.RawMessage(`{"location":"Oslo","days":3}`)}}
	ctx := context.Background()
	if res, err := h(ctx, req); res != result || err != nil {
		t.Fatalf("got %v, %v", res, err)
	}
	if n := testing.AllocsPerRun(100, func() { _, _ = h(ctx, req) }); n != 0 {
		t.Errorf("%v allocations per call, want none", n)
	}
}
