package interop

import (
	"bufio"
	"context"
	"errors"
	"io"
	"os/exec"
	"reflect"
	"strings"
	"testing"

	"github.com/mcpvalidate/mcpvalidate/guard"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestChildServer drives the go-sdk server through the proxy and direct with go-sdk's
// client: the same tools, the same answers to valid calls, and invalid calls refused
// without reaching the server, as its own count of calls shows.
func TestChildServer(t *testing.T) {
	ctx := context.Background()
	server := rawServer(t)
	direct := connect(t, exec.Command(server))
	through := connect(t, proxied(server))

	want, err := direct.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	got, err := through.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("tools through the proxy\n%v\ndirect\n%v", got, want)
	}

	valid := []string{`{"location":"Oslo"}`, `{"location":"Oslo","days":7,"units":"c"}`, `{"location":"\u00e9","days":1}`}
	for _, args := range valid {
		want := callJSON(t, direct, "weather", args)
		if got := callJSON(t, through, "weather", args); got != want {
			t.Errorf("%s: through the proxy\n%s\ndirect\n%s", args, got, want)
		}
	}
	invalid := []struct{ tool, args, want string }{
		{"weather", `{}`, "Invalid arguments: missing required property 'location'"},
		{"weather", `{"location":"Oslo","days":"3"}`, "property 'days' must be integer"},
		{"weather", `{"location":"Oslo","days":8}`, "property 'days' must be at most 7"},
		{"weather", `{"location":"Oslo","units":"k"}`, "property 'units' must be one of"},
		{"weather", `{"location":"Oslo","extra":true}`, "unexpected property 'extra'"},
		{"weather", `{"location":""}`, "at least 1 character"},
		{"broken", `{}`, "its input schema is invalid"},
	}
	for _, c := range invalid {
		res := call(t, through, c.tool, c.args)
		text := ""
		if len(res.Content) == 1 {
			if tc, ok := res.Content[0].(*mcp.TextContent); ok {
				text = tc.Text
			}
		}
		if !res.IsError || !strings.Contains(text, c.want) {
			t.Errorf("%s %s: got isError=%v %q, want %q", c.tool, c.args, res.IsError, text, c.want)
		}
		if c.tool == "weather" && res.Meta["com.github.mcpvalidate/violations"] == nil {
			t.Errorf("%s %s: no violations in _meta: %v", c.tool, c.args, res.Meta)
		}
	}
	// A tool the server does not list is refused with the error go-sdk's server gives.
	for _, name := range []string{"unlisted", "Weather", "weather "} {
		_, directErr := direct.CallTool(ctx, &mcp.CallToolParams{Name: name})
		_, err := through.CallTool(ctx, &mcp.CallToolParams{Name: name})
		var de, te *jsonrpc.Error
		if !errors.As(directErr, &de) || !errors.As(err, &te) || te.Code != de.Code || te.Message != "Unknown tool: "+guard.ShownName(name) {
			t.Errorf("%q: through the proxy %v, direct %v", name, err, directErr)
		}
	}
	// The server's handlers ran for the valid calls only, through either path.
	if got := callJSON(t, through, "calls", `{}`); !strings.Contains(got, `"text":"3"`) {
		t.Errorf("the proxied server's handlers ran: %s, want 3 calls", got)
	}
	// Direct, the server validates nothing: its handlers run on the invalid calls.
	if got := callJSON(t, direct, "broken", `{}`); !strings.Contains(got, `"text":"ran"`) {
		t.Errorf("the broken tool, direct: %s", got)
	}
	if got := callJSON(t, direct, "weather", `{"location":"Oslo","days":"3"}`); !strings.Contains(got, `forecast for`) {
		t.Errorf("an invalid call, direct: %s", got)
	}
}

// TestStdioFramingSDK: a pretty-printed call that breaks its tool's schema never reaches
// go-sdk's stdio server, which reads a stream of JSON values, not lines.
func TestStdioFramingSDK(t *testing.T) {
	cmd := proxied(rawServer(t))
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		in.Close()
		cmd.Wait()
	})
	got := bufio.NewReader(out)
	until := func(id string) string {
		t.Helper()
		for {
			line, err := got.ReadString('\n')
			if err != nil {
				t.Fatalf("reading: %v", err)
			}
			if strings.Contains(line, `"id":`+id+`,`) {
				return line
			}
		}
	}
	io.WriteString(in, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`+"\n"+
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n"+
		`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`+"\n")
	until("1")
	io.WriteString(in, "{\n  \"jsonrpc\": \"2.0\", \"id\": 2, \"method\": \"tools/call\",\n  \"params\": {\"name\": \"weather\", \"arguments\": {\"days\": \"many\"}}\n}\n")
	for range 4 {
		if line := until("null"); !strings.Contains(line, `"code":-32700`) {
			t.Fatalf("the client got %s", line)
		}
	}
	io.WriteString(in, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"calls","arguments":{}}}`+"\n")
	if line := until("3"); !strings.Contains(line, `"text":"0"`) {
		t.Fatalf("the server's handlers ran: %s", line)
	}
}
