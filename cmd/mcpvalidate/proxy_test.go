package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/mcpvalidate/mcpvalidate/guard/proxy"
)

// serverRole makes the test binary a scripted MCP server over stdio.
const serverRole = "MCPVALIDATE_CMD_TEST_SERVER"

func TestMain(m *testing.M) {
	if os.Getenv(serverRole) != "" {
		scriptedServer(os.Stdin, os.Stdout)
		os.Exit(7)
	}
	os.Exit(m.Run())
}

// scriptedServer lists the weather tool and answers its calls until its input ends.
func scriptedServer(in io.Reader, out io.Writer) {
	lines := bufio.NewScanner(in)
	lines.Buffer(nil, 1<<20)
	for lines.Scan() {
		var req struct {
			ID     json.RawMessage
			Method string
		}
		if json.Unmarshal(lines.Bytes(), &req) != nil || req.ID == nil {
			continue
		}
		switch req.Method {
		case "tools/list":
			fmt.Fprintf(out, `{"jsonrpc":"2.0","id":%s,"result":{"tools":[{"name":"weather","inputSchema":%s}]}}`+"\n", req.ID, strings.ReplaceAll(weather, "\n", ""))
		case "tools/call":
			fmt.Fprintf(out, `{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"ran"}]}}`+"\n", req.ID)
		}
	}
}

// TestProxyCommand runs the proxy in front of a scripted server: a valid call reaches it,
// an invalid one is refused as the flags say, logged without its values, and the proxy
// exits with the server's status.
func TestProxyCommand(t *testing.T) {
	t.Setenv(serverRole, "1")
	cases := []struct {
		name string
		args []string
		want string // in the answer to the invalid call
	}{
		{"result", nil, `{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"Invalid arguments: property 'days' must be integer"}],"isError":true,"_meta":`},
		{"error", []string{"-refuse-as", "error"}, `{"jsonrpc":"2.0","id":2,"error":{"code":-32602,"message":"Invalid arguments: property 'days' must be integer","data":`},
		{"gateway", []string{"-format", "gateway"}, `"isError":true`},
		{"report only", []string{"-report-only"}, `{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"ran"}]}}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"weather","arguments":{"location":"Oslo"}}}` + "\n" +
				`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"weather","arguments":{"location":"SECRET-VALUE","days":"SECRET-DAYS"}}}` + "\n"
			var out, errOut bytes.Buffer
			args := append(append([]string{"proxy", "-log", "-"}, c.args...), "--", os.Args[0], "-test.run=^$")
			code := run(args, strings.NewReader(in), &out, &errOut)
			if code != 7 {
				t.Errorf("exit %d, want the server's 7; stderr %s", code, errOut.String())
			}
			if !strings.Contains(out.String(), `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"ran"}]}}`+"\n") {
				t.Errorf("the valid call did not reach the server:\n%s", out.String())
			}
			if !strings.Contains(out.String(), c.want) {
				t.Errorf("stdout lacks %s:\n%s", c.want, out.String())
			}
			if !strings.Contains(errOut.String(), `"msg":"mcpvalidate: tool call `) || !strings.Contains(errOut.String(), `"tool":"weather"`) {
				t.Errorf("stderr has no JSON log line of the refusal: %s\nstdout %s", errOut.String(), out.String())
			}
			if strings.Contains(errOut.String(), "SECRET") {
				t.Errorf("the log holds an argument's value: %s", errOut.String())
			}
		})
	}
}

// TestProxyUnknownTool: by default the proxy refuses a call of a tool the server does
// not list, as the MCP specification has a server answer it; -unknown pass passes it on.
// Either way the call is logged, the name escaped.
func TestProxyUnknownTool(t *testing.T) {
	t.Setenv(serverRole, "1")
	for _, c := range []struct {
		args      []string
		want, msg string
	}{
		{nil, `{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"Unknown tool: \"weather \""}}`, "mcpvalidate: call of a tool the server does not list refused"},
		{[]string{"-unknown", "refuse"}, `{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"Unknown tool: \"weather \""}}`, "mcpvalidate: call of a tool the server does not list refused"},
		{[]string{"-unknown", "pass"}, `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"ran"}]}}`, "mcpvalidate: call of a tool the server does not list passed on unchecked"},
	} {
		in := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"weather ","arguments":{"location":"Oslo"}}}` + "\n"
		var out, errOut bytes.Buffer
		args := append(append([]string{"proxy", "-log", "-"}, c.args...), "--", os.Args[0], "-test.run=^$")
		if code := run(args, strings.NewReader(in), &out, &errOut); code != 7 {
			t.Errorf("%v: exit %d, want the server's 7; stderr %s", c.args, code, errOut.String())
		}
		if out.String() != c.want+"\n" {
			t.Errorf("%v: stdout %s, want %s", c.args, out.String(), c.want)
		}
		if !strings.Contains(errOut.String(), `"msg":"`+c.msg+`","service":"mcpvalidate-proxy","tool":"weather "`) {
			t.Errorf("%v: stderr %s, want a line %q", c.args, errOut.String(), c.msg)
		}
	}
}

// TestProxyUsage: mistakes in the proxy's command line exit 2 with a message.
func TestProxyUsage(t *testing.T) {
	cases := []struct {
		args []string
		err  string
	}{
		{[]string{"proxy"}, "proxy needs the server's command after --"},
		{[]string{"proxy", "-upstream", "http://127.0.0.1:1/mcp"}, "-upstream needs -listen"},
		{[]string{"proxy", "-listen", "127.0.0.1:0", "--", "x"}, "-listen needs -upstream"},
		{[]string{"proxy", "-upstream", "ftp://x", "-listen", "127.0.0.1:0"}, "not an http or https URL"},
		{[]string{"proxy", "-format", "fancy", "--", "x"}, `-format is default, gateway or detailed, not "fancy"`},
		{[]string{"proxy", "-refuse-as", "silence", "--", "x"}, "-refuse-as is result or error"},
		{[]string{"proxy", "-unknown", "maybe", "--", "x"}, "-unknown is pass or refuse"},
		{[]string{"proxy", "-max-depth", "-1", "--", "x"}, "must not be negative"},
		{[]string{"proxy", "-max-message", "-1", "--", "x"}, "must not be negative"},
		{[]string{"proxy", "-cache-budget", "-1", "--", "x"}, "must not be negative"},
		{[]string{"proxy", "--", os.DevNull + "/missing"}, "starting the server"},
		{[]string{"proxy", "-upstream", "http://127.0.0.1:1/mcp", "-listen", "0.0.0.0:0"}, "-listen 0.0.0.0:0 is not a loopback address: name the hosts clients reach the proxy by with -allow-host"},
		{[]string{"proxy", "-upstream", "http://127.0.0.1:1/mcp", "-listen", "127.0.0.1:0", "-allow-origin", "app.example.com"}, `AllowOrigins: "app.example.com" is not an origin`},
		{[]string{"proxy", "-upstream", "http://127.0.0.1:1/mcp", "-listen", "127.0.0.1:0", "-allow-host", "ok.example,http://x"}, `AllowHosts: "http://x" is not a host`},
	}
	for _, c := range cases {
		var out, errOut bytes.Buffer
		if code := run(c.args, strings.NewReader(""), &out, &errOut); code != 2 || !strings.Contains(errOut.String(), c.err) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args, code, errOut.String(), c.err)
		}
	}
}

// TestServeHTTP serves the proxy's handler at /mcp on 127.0.0.1 in front of an upstream,
// and stops when told.
func TestServeHTTP(t *testing.T) {
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":{}}`)
	}))
	defer upstream.Close()
	p, err := proxy.New(proxy.Options{})
	if err != nil {
		t.Fatal(err)
	}
	h, err := p.Handler(upstream.URL)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- serve(ctx, ln, "/mcp", h, defaultLimits) }()
	resp, err := http.Post("http://"+ln.Addr().String()+"/mcp", "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(body) != `{"jsonrpc":"2.0","id":1,"result":{}}` {
		t.Errorf("got %s", body)
	}
	stop()
	if err := <-served; err != nil {
		t.Fatal(err)
	}
}

// TestIntercept runs intercept as docker/mcp-gateway's before:exec: interceptor does: one
// call request on stdin, as the gateway marshals go-sdk's request, the refusal or nothing
// on stdout; with the tools from a file, and from a streamable HTTP endpoint's own
// tools/list. (proxy's TestInterceptor marshals go-sdk's own types.)
// TestInterceptOutputRefused: intercept -output is a usage error, not a flag taken and
// ignored: the gateway's before hook hands the interceptor the call, never its result.
func TestInterceptOutputRefused(t *testing.T) {
	file := write(t, "tools.json", `{"tools":[{"name":"sum","inputSchema":{"type":"object"},"outputSchema":{"type":"object"}}]}`)
	var out, errOut bytes.Buffer
	code := run([]string{"intercept", "-output", "-tools", file}, strings.NewReader(`{"Session":{},"Params":{"name":"sum","arguments":{}}}`), &out, &errOut)
	if code != 2 || !strings.Contains(errOut.String(), "never its result") {
		t.Errorf("intercept -output: exit %d, stdout %q, stderr %q", code, out.String(), errOut.String())
	}
}

func TestIntercept(t *testing.T) {
	list := `{"tools":[{"name":"weather","inputSchema":` + strings.ReplaceAll(weather, "\n", "") + `}]}`
	gw := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var req struct {
			ID     json.RawMessage
			Method string
		}
		_ = json.Unmarshal(body, &req)
		w.Header().Set("Content-Type", "application/json")
		switch req.Method {
		case "initialize":
			w.Header().Set("Mcp-Session-Id", "s")
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-06-18","capabilities":{},"serverInfo":{"name":"g","version":"1"}}}`, req.ID)
		case "tools/list":
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":%s}`, req.ID, list)
		default:
			w.WriteHeader(http.StatusAccepted)
		}
	}))
	defer gw.Close()
	file := write(t, "tools.json", list)
	message := func(args string) string {
		return `{"Session":null,"Params":{"name":"weather","arguments":` + args + `},"Extra":null}`
	}
	for _, source := range [][]string{{"-tools", file}, {"-gateway", gw.URL}} {
		var out, errOut bytes.Buffer
		if code := run(append([]string{"intercept"}, source...), strings.NewReader(message(`{"location":"Oslo"}`)), &out, &errOut); code != 0 || out.Len() != 0 {
			t.Errorf("%v, a valid call: exit %d, stdout %q, stderr %q", source, code, out.String(), errOut.String())
		}
		out.Reset()
		code := run(append([]string{"intercept"}, source...), strings.NewReader(message(`{"days":"3"}`)), &out, &errOut)
		var res struct {
			Content []struct{ Text string }
			IsError bool
		}
		if err := json.Unmarshal(out.Bytes(), &res); err != nil || code != 0 || !res.IsError || len(res.Content) != 1 ||
			res.Content[0].Text != "Invalid arguments: missing required property 'location'; property 'days' must be integer" {
			t.Errorf("%v, an invalid call: exit %d, %v, stdout %s, stderr %s", source, code, err, out.String(), errOut.String())
		}
	}
	var out, errOut bytes.Buffer
	if code := run([]string{"intercept"}, strings.NewReader(""), &out, &errOut); code != 2 || !strings.Contains(errOut.String(), "needs -tools FILE or -gateway URL") {
		t.Errorf("no tools: exit %d, %s", code, errOut.String())
	}
}

// TestServeLimits: the listener closes a connection left idle after its answer, and one
// whose headers stop halfway, and answers headers over its bound with 431.
func TestServeLimits(t *testing.T) {
	noContent := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) })
	// Each case's own bound is tiny, the others as large as a hang's: a busy machine may
	// take longer to read a request than a tiny bound gives.
	const long = time.Hour
	for _, tc := range []struct {
		name, send, want string
		limits           serverLimits
	}{
		{"idle after an answer", "GET /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", "HTTP/1.1 204 ",
			serverLimits{header: long, idle: time.Millisecond, maxHeader: 4 << 10}},
		{"headers cut halfway", "GET /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n", "",
			serverLimits{header: time.Millisecond, idle: long, maxHeader: 4 << 10}},
		{"headers over the bound", "GET /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Pad: " + strings.Repeat("x", 16<<10) + "\r\n\r\n", "HTTP/1.1 431 ",
			serverLimits{header: long, idle: time.Millisecond, maxHeader: 4 << 10}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			ctx, stop := context.WithCancel(context.Background())
			served := make(chan error, 1)
			go func() { served <- serve(ctx, ln, "/mcp", noContent, tc.limits) }()
			defer func() {
				stop()
				<-served
			}()
			conn, err := net.Dial("tcp", ln.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			io.WriteString(conn, tc.send)
			got, err := io.ReadAll(conn) // until the server closes the connection
			if err != nil || !strings.HasPrefix(string(got), tc.want) {
				t.Fatalf("got %q, %v; want it to begin %q", got, err, tc.want)
			}
		})
	}
	if defaultLimits.header <= 0 || defaultLimits.idle <= 0 || defaultLimits.maxHeader <= 0 || defaultLimits.maxHeader > 1<<20 {
		t.Fatalf("the default limits: %+v", defaultLimits)
	}
}
