package gosdk

// Tests of what go-sdk has from v1.7.0 on, the oldest release the adapter supports: the
// 2026-07-28 protocol's input requests, and structuredContent of any type (older releases
// take only an object's output schema).

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/mcpvalidate/mcpvalidate/guard"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestInputRequiredResultIsNotChecked: a result that asks the client for input before the
// tool can finish (2026-07-28's multi round-trip) is not the tool's result: it reaches the
// client as it is, and the final result, when the client calls again with the input, is
// checked; for raw and typed tools.
func TestInputRequiredResultIsNotChecked(t *testing.T) {
	type reading struct {
		Celsius any `json:"celsius"`
	}
	asks := &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"unit": &mcp.ElicitParams{Message: "Which unit?"}}, RequestState: "s1"}
	for _, c := range []struct {
		final   any
		refused bool
	}{{21.5, false}, {"warm", true}} {
		g := New(guard.WithOutputValidation())
		srv := newServer()
		raw := &mcp.Tool{Name: "raw", InputSchema: json.RawMessage(`{"type":"object"}`),
			OutputSchema: json.RawMessage(`{"type":"object","properties":{"celsius":{"type":"number"}},"required":["celsius"]}`)}
		srv.AddTool(raw, g.Handler(raw, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if req.Params.InputResponses == nil {
				return asks, nil
			}
			return &mcp.CallToolResult{StructuredContent: reading{c.final}}, nil
		}))
		AddTool(g, srv, &mcp.Tool{Name: "typed", OutputSchema: raw.OutputSchema}, func(_ context.Context, req *mcp.CallToolRequest, _ any) (*mcp.CallToolResult, reading, error) {
			if req.Params.InputResponses == nil {
				return asks, reading{}, nil
			}
			return nil, reading{c.final}, nil
		})
		cs := connect(t, srv)
		for _, name := range []string{"raw", "typed"} {
			res := call(t, cs, name, `{}`)
			if !res.NeedsInput() || res.IsError || len(res.InputRequests) != 1 {
				t.Errorf("%s: the input-required result was not sent as it is: %s", name, mustJSON(t, res))
			}
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: map[string]any{},
				InputResponses: mcp.InputResponseMap{"unit": &mcp.ElicitResult{Action: "accept"}}, RequestState: "s1"})
			if err != nil {
				t.Fatal(err)
			}
			if res.IsError != c.refused || res.NeedsInput() {
				t.Errorf("%s: final result %v: %s", name, c.final, mustJSON(t, res))
			}
		}
	}
}

// addInputRequestsTool adds a typed tool that answers with input requests.
func addInputRequestsTool(t *testing.T, srv *mcp.Server, via registration) {
	add(t, srv, via, &mcp.Tool{Name: "input_requests"},
		func(context.Context, *mcp.CallToolRequest, greetIn) (*mcp.CallToolResult, *greetOut, error) {
			res := &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{
				"who": &mcp.ElicitParams{Message: "Whom should I greet?"},
			}}
			return res, &greetOut{Message: "dropped"}, nil
		})
}

var inputRequestsParity = []parityCase{
	{"input requests", "input_requests", map[string]any{"name": "Ann"}, `"inputRequests":{"who"`},
}

// clientOptions turns the client's multi round-trip handling off, so that input requests
// reach the test.
func clientOptions() *mcp.ClientOptions {
	return &mcp.ClientOptions{MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true}}
}

// TestStructuredContentOfAnyType: structuredContent may be any JSON value (SEP-2106), and
// is checked against an outputSchema of its type.
func TestStructuredContentOfAnyType(t *testing.T) {
	cases := []struct {
		schema  string
		content any
		refused bool
	}{
		{`{"type":"array","items":{"type":"number"}}`, []any{1, 2.5}, false},
		{`{"type":"array","items":{"type":"number"}}`, []any{1, "two"}, true},
		{`{"type":"array"}`, map[string]any{"a": 1}, true},
		{`{"type":"string","maxLength":3}`, "abc", false},
		{`{"type":"string","maxLength":3}`, "abcd", true},
		{`{"type":"number","minimum":0}`, 3.5, false},
		{`{"type":"number","minimum":0}`, -1, true},
		{`{"type":"number"}`, "3.5", true},
		{`{"type":"null"}`, json.RawMessage(`null`), false},
		{`{"type":"null"}`, 0, true},
		{`{"type":"string"}`, json.RawMessage(`null`), true},
		{`{"type":"null"}`, nil, true}, // no structuredContent at all
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("%s/%v", c.schema, c.content), func(t *testing.T) {
			srv := newServer()
			tool := &mcp.Tool{Name: "t", InputSchema: json.RawMessage(`{"type":"object"}`), OutputSchema: json.RawMessage(c.schema)}
			srv.AddTool(tool, New(guard.WithOutputValidation()).Handler(tool, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}, StructuredContent: c.content}, nil
			}))
			res := call(t, connect(t, srv), "t", `{}`)
			if res.IsError != c.refused || c.refused && !strings.HasPrefix(text(res), "The tool failed on the server's side") {
				t.Errorf("%s (isError %v)", mustJSON(t, res), res.IsError)
			}
		})
	}
}
