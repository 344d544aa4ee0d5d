package interop

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mcpvalidate/mcpvalidate/guard/proxy"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// gatewayBefore does what docker/mcp-gateway does with a "before" interceptor
// (pkg/interceptors/interceptors.go, Interceptor.ToMiddleware, at 2bd20fe8): it marshals
// the go-sdk call request, hands it to the interceptor, and when the interceptor answers
// with anything, unmarshals that as a CallToolResult and returns it instead of calling
// the tool (replaced true); an empty answer lets the call go on.
func gatewayBefore(run func([]byte) ([]byte, error), req *mcp.CallToolRequest) (result *mcp.CallToolResult, replaced bool, err error) {
	//lint:ignore SA1026 the gateway marshals the request so; with Extra nil, no func is reached
	message, err := json.Marshal(req)
	if err != nil {
		return nil, false, fmt.Errorf("marshalling request: %w", err)
	}
	out, err := run(message)
	if err != nil {
		return nil, false, fmt.Errorf("executing interceptor: %w", err)
	}
	if len(out) > 0 {
		var result mcp.CallToolResult
		if err := json.Unmarshal(out, &result); err != nil {
			return nil, false, fmt.Errorf("unmarshalling interceptor response: %w", err)
		}
		return &result, true, nil
	}
	return nil, false, nil
}

// TestInterceptor speaks the gateway's contract over HTTP (before:http:, its runHTTP: a
// POST of the message, the body read whatever the status) and directly.
func TestInterceptor(t *testing.T) {
	p, err := proxy.New(proxy.Options{})
	if err != nil {
		t.Fatal(err)
	}
	in, err := p.Interceptor([]byte(`{"jsonrpc":"2.0","id":1,"result":` + toolsList + `}`))
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(in)
	defer ts.Close()
	runHTTP := func(message []byte) ([]byte, error) {
		resp, err := http.Post(ts.URL, "", bytes.NewReader(message))
		if err != nil {
			return nil, err
		}
		defer resp.Body.Close()
		return io.ReadAll(resp.Body)
	}
	runDirect := func(message []byte) ([]byte, error) { return in.Intercept(message) }
	cases := []struct {
		tool, args string
		want       string // "" the call goes on
	}{
		{"weather", `{"location":"Oslo","days":3}`, ""},
		{"weather", `{"days":"3"}`, "Invalid arguments: missing required property 'location'; property 'days' must be integer"},
		{"broken", `{}`, "its input schema is invalid"},
		{"nope", `{}`, "Unknown tool: nope"},
		{"Weather", `{"location":"Oslo"}`, "Unknown tool: Weather"},
		{"sum", ``, ""},
	}
	for _, run := range []func([]byte) ([]byte, error){runHTTP, runDirect} {
		for _, c := range cases {
			req := &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: c.tool}}
			if c.args != "" {
				req.Params.Arguments = json.RawMessage(c.args)
			}
			res, replaced, err := gatewayBefore(run, req)
			if err != nil {
				t.Fatalf("%s %s: %v", c.tool, c.args, err)
			}
			if c.want == "" {
				if replaced {
					t.Errorf("%s %s: replaced by %v", c.tool, c.args, res)
				}
				continue
			}
			if !replaced || !res.IsError || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, c.want) {
				t.Errorf("%s %s: got %v %+v, want %q", c.tool, c.args, replaced, res, c.want)
			}
		}
	}
	// The violations travel in _meta, as the adapters put them.
	res, _, _ := gatewayBefore(runDirect, &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: "weather", Arguments: json.RawMessage(`{}`)}})
	if res == nil || res.Meta["com.github.mcpvalidate/violations"] == nil {
		t.Errorf("no violations in _meta: %+v", res)
	}
	// A message it cannot read fails the call, as the gateway does with an answer that is
	// not a CallToolResult.
	if _, _, err := gatewayBefore(runHTTP, nil); err == nil {
		t.Error("a message without a call went through")
	}
	for _, bad := range []string{`[`, `{"tools":1}`, `7`} {
		if _, err := p.Interceptor([]byte(bad)); err == nil {
			t.Errorf("Interceptor took %s", bad)
		}
	}
}
