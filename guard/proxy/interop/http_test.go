package interop

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/mcpvalidate/mcpvalidate/guard/proxy"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestHTTPChildServer is TestChildServer over streamable HTTP: go-sdk's client, through
// the proxy's handler and direct, to the go-sdk server, whose answers are SSE streams.
func TestHTTPChildServer(t *testing.T) {
	ctx := context.Background()
	upstream := httpServer(t)
	direct := connectHTTP(t, upstream)
	through := connectHTTP(t, startFront(t, upstream, proxy.Options{}))
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
	// Both sessions share the server's counter: each valid call counts twice.
	for _, args := range []string{`{"location":"Oslo"}`, `{"location":"Oslo","days":7,"units":"f"}`} {
		want := callJSON(t, direct, "weather", args)
		if got := callJSON(t, through, "weather", args); got != want {
			t.Errorf("%s: through the proxy\n%s\ndirect\n%s", args, got, want)
		}
	}
	for _, args := range []string{`{}`, `{"location":"Oslo","days":0}`, `{"location":1}`} {
		res := call(t, through, "weather", args)
		if text := res.Content[0].(*mcp.TextContent).Text; !res.IsError || !strings.HasPrefix(text, "Invalid arguments: ") ||
			res.Meta["com.github.mcpvalidate/violations"] == nil {
			t.Errorf("%s: got %v %q %v", args, res.IsError, text, res.Meta)
		}
	}
	if got := callJSON(t, direct, "calls", `{}`); !strings.Contains(got, `"text":"4"`) {
		t.Errorf("the server's handlers ran: %s, want 4 calls", got)
	}
}

// TestListTools lists the go-sdk test server's tools over streamable HTTP as a client
// does, each tool with the bytes the server sent.
func TestListTools(t *testing.T) {
	got, err := proxy.ListTools(context.Background(), httpServer(t), http.Header{"Authorization": {"Bearer t"}})
	if err != nil {
		t.Fatal(err)
	}
	var list struct{ Tools []struct{ Name string } }
	if err := json.Unmarshal(got, &list); err != nil || len(list.Tools) != 3 {
		t.Fatalf("got %s (%v)", got, err)
	}
	if !strings.Contains(string(got), `"inputSchema":`+weatherSchema) {
		t.Errorf("the weather tool's schema changed on the way: %s", got)
	}
	if _, err := proxy.ListTools(context.Background(), "http://127.0.0.1:1/mcp", nil); err == nil {
		t.Error("listed the tools of a server that is not there")
	}
}

// TestAccessRebinding: a page whose name is rebound to the proxy's loopback address gets
// 403 from the listener, over a real connection, and the upstream never sees it; go-sdk's
// client, which names the address it connects to, is served.
func TestAccessRebinding(t *testing.T) {
	upstream := httpServer(t)
	endpoint := startFront(t, upstream, proxy.Options{})
	for _, header := range []http.Header{{"Origin": {"http://evil.example"}}, {"Host": {"evil.example"}}} {
		req, _ := http.NewRequest("POST", endpoint, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"page","version":"1"}}}`))
		req.Header = header
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if h := header.Get("Host"); h != "" {
			req.Host = h
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusForbidden || resp.Header.Get("Mcp-Session-Id") != "" {
			t.Errorf("%v: %d, session %q; want 403 and none", header, resp.StatusCode, resp.Header.Get("Mcp-Session-Id"))
		}
	}
	cs := connectHTTP(t, endpoint)
	if got := callJSON(t, cs, "calls", `{}`); !strings.Contains(got, `"text":"0"`) {
		t.Errorf("the upstream's handlers ran: %s", got)
	}
}

// statelessServers returns go-sdk's stateless streamable HTTP handler, which serves the
// tools weather and sum as the credentials "Bearer strict" list them (weatherSchema, and
// an outputSchema on sum) or as "Bearer loose" do (neither). Each sum answers
// {"n":"x"}, which breaks the strict outputSchema; the strict one calls gate first.
func statelessServers(gate func()) http.Handler {
	servers := map[string]*mcp.Server{}
	for _, auth := range []string{"Bearer strict", "Bearer loose"} {
		srv := mcp.NewServer(&mcp.Implementation{Name: "stateless", Version: "1"}, nil)
		in, out := json.RawMessage(weatherSchema), json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}`)
		if auth == "Bearer loose" {
			in, out = json.RawMessage(`{"type":"object"}`), nil
		}
		srv.AddTool(&mcp.Tool{Name: "weather", InputSchema: in}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ran"}}}, nil
		})
		tool := &mcp.Tool{Name: "sum", InputSchema: json.RawMessage(`{"type":"object"}`)}
		if out != nil {
			tool.OutputSchema = out
		}
		strict := auth == "Bearer strict"
		srv.AddTool(tool, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if strict {
				gate()
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: `{"n":"x"}`}},
				StructuredContent: json.RawMessage(`{"n":"x"}`)}, nil
		})
		servers[auth] = srv
	}
	return mcp.NewStreamableHTTPHandler(func(r *http.Request) *mcp.Server {
		return servers[r.Header.Get("Authorization")]
	}, &mcp.StreamableHTTPOptions{Stateless: true})
}

// TestHTTPGoSDKSessionlessClients: go-sdk's clients, through the proxy, of go-sdk's
// stateless server, which serves other tools for other credentials: the two clients use
// the same request ids, and each gets exactly its own checks.
func TestHTTPGoSDKSessionlessClients(t *testing.T) {
	strictArrived, strictRelease := make(chan struct{}), make(chan struct{})
	var once sync.Once
	upstream := httptest.NewServer(statelessServers(func() {
		once.Do(func() { close(strictArrived) })
		<-strictRelease
	}))
	defer upstream.Close()
	endpoint := startFront(t, upstream.URL, proxy.Options{Output: true})
	connect := func(auth string) *mcp.ClientSession {
		client := mcp.NewClient(&mcp.Implementation{Name: "proxy-test", Version: "1"}, nil)
		cs, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: endpoint, MaxRetries: -1,
			HTTPClient: &http.Client{Transport: authTransport{auth, http.DefaultTransport}}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cs.Close() })
		return cs
	}
	strict, loose := connect("Bearer strict"), connect("Bearer loose")

	strictGot := make(chan *mcp.CallToolResult, 1)
	go func() {
		res, err := strict.CallTool(context.Background(), &mcp.CallToolParams{Name: "sum", Arguments: map[string]any{}})
		if err != nil {
			res = &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: err.Error()}}}
		}
		strictGot <- res
	}()
	select {
	case <-strictArrived:
	case res := <-strictGot:
		t.Fatalf("the strict client's call was answered before it reached the server: %v", res.Content[0].(*mcp.TextContent).Text)
	}
	res, err := loose.CallTool(context.Background(), &mcp.CallToolParams{Name: "sum", Arguments: map[string]any{}})
	if err != nil || res.IsError {
		t.Errorf("the loose client's result, which its sum does not check: %v %v", res, err)
	}
	close(strictRelease)
	res = <-strictGot
	if text := res.Content[0].(*mcp.TextContent).Text; !res.IsError || !strings.HasPrefix(text, "The tool failed on the server's side") {
		t.Errorf("the strict client's result, which breaks its sum's outputSchema: %v %q", res.IsError, text)
	}
	for _, tc := range []struct {
		cs      *mcp.ClientSession
		refused bool
	}{{strict, true}, {loose, false}} {
		res, err := tc.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "weather", Arguments: map[string]any{}})
		if err != nil || res.IsError != tc.refused {
			t.Errorf("weather {}: %v %v, want refused %v", res, err, tc.refused)
		}
	}
}

// TestHTTPGoSDKResumedResult: go-sdk's client, through the proxy, of go-sdk's server with
// an event store, whose answer stream breaks after its first event: the client resumes it
// with Last-Event-ID, and the result replayed there, which breaks the tool's
// outputSchema, is withheld as on the stream itself.
func TestHTTPGoSDKResumedResult(t *testing.T) {
	ready, broken := make(chan struct{}), make(chan struct{})
	srv := mcp.NewServer(&mcp.Implementation{Name: "resumable", Version: "1"}, nil)
	srv.AddTool(&mcp.Tool{Name: "sum", InputSchema: json.RawMessage(`{"type":"object"}`),
		OutputSchema: json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}`)},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{Message: "started"})
			close(ready)
			<-broken
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: `{"n":"x"}`}},
				StructuredContent: json.RawMessage(`{"n":"x"}`)}, nil
		})
	upstream := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv },
		&mcp.StreamableHTTPOptions{EventStore: mcp.NewMemoryEventStore(nil)}))
	defer upstream.Close()
	target, _ := url.Parse(upstream.URL)
	relay := httputil.NewSingleHostReverseProxy(target)
	relay.FlushInterval = -1
	middle := httptest.NewServer(relay) // between the proxy and the server: its connections break
	defer middle.Close()
	endpoint := startFront(t, middle.URL, proxy.Options{Output: true})
	progressed := make(chan struct{}, 1)
	client := mcp.NewClient(&mcp.Implementation{Name: "proxy-test", Version: "1"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(context.Context, *mcp.ProgressNotificationClientRequest) { progressed <- struct{}{} },
	})
	cs, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: endpoint}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if _, err := cs.ListTools(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	got := make(chan *mcp.CallToolResult, 1)
	go func() {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "sum", Arguments: map[string]any{},
			Meta: mcp.Meta{"progressToken": "p"}})
		if err != nil {
			res = &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: err.Error()}}}
		}
		got <- res
	}()
	select {
	case <-progressed: // the client got the stream's first event, through the proxy
	case res := <-got:
		t.Fatalf("the call was answered before it ran: %v", res.Content[0].(*mcp.TextContent).Text)
	}
	<-ready
	middle.CloseClientConnections()
	close(broken)
	res := <-got
	if text := res.Content[0].(*mcp.TextContent).Text; !res.IsError || !strings.HasPrefix(text, "The tool failed on the server's side") {
		t.Errorf("the result replayed on the resumed stream: %v %q", res.IsError, text)
	}
}

// TestHTTPTypeScriptSessionlessClients: the TypeScript SDK's clients, through the proxy,
// of go-sdk's stateless server, which serves other tools for other credentials: each gets
// exactly its own checks, though both use the same request ids.
func TestHTTPTypeScriptSessionlessClients(t *testing.T) {
	modules := os.Getenv(nodeModules)
	if modules == "" {
		t.Skip("set " + nodeModules + " to e2e/proxy's node_modules (e2e/proxy/run.sh does)")
	}
	upstream := httptest.NewServer(statelessServers(func() {}))
	defer upstream.Close()
	endpoint := startFront(t, upstream.URL, proxy.Options{Output: true})
	script := filepath.Join(t.TempDir(), "clients.cjs")
	if err := os.WriteFile(script, []byte(tsClients), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("node", script, endpoint)
	cmd.Env = append(os.Environ(), "NODE_PATH="+modules)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node: %v\n%s", err, out)
	}
	type result struct {
		IsError bool `json:"isError"`
		Content []struct{ Text string }
	}
	var got struct{ StrictSum, LooseSum, StrictWeather, LooseWeather result }
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	for _, tc := range []struct {
		name    string
		r       result
		refused string // the refusal's text begins so; "": not refused
	}{
		{"the strict client's sum", got.StrictSum, "The tool failed on the server's side"},
		{"the loose client's sum", got.LooseSum, ""},
		{"the strict client's weather", got.StrictWeather, "Invalid arguments: missing required property 'location'"},
		{"the loose client's weather", got.LooseWeather, ""},
	} {
		if tc.r.IsError != (tc.refused != "") || tc.refused != "" && (len(tc.r.Content) == 0 || !strings.HasPrefix(tc.r.Content[0].Text, tc.refused)) {
			t.Errorf("%s: %+v, want refused %q", tc.name, tc.r, tc.refused)
		}
	}
}

// authTransport adds an Authorization header to each request.
type authTransport struct {
	auth string
	next http.RoundTripper
}

// tsClients is a script for node: two clients of the TypeScript SDK, of the credentials
// "Bearer strict" and "Bearer loose", list the tools at the endpoint argv[2], call sum at
// once and weather with {} each, and print what they got as JSON.
const tsClients = `
const { Client } = require('@modelcontextprotocol/sdk/client/index.js');
const { StreamableHTTPClientTransport } = require('@modelcontextprotocol/sdk/client/streamableHttp.js');
async function connect(auth) {
  const c = new Client({ name: 'ts', version: '1' });
  await c.connect(new StreamableHTTPClientTransport(new URL(process.argv[2]), { requestInit: { headers: { Authorization: auth } } }));
  return c;
}
(async () => {
  const strict = await connect('Bearer strict'), loose = await connect('Bearer loose');
  await strict.listTools();
  await loose.listTools();
  const [strictSum, looseSum] = await Promise.all([strict.callTool({ name: 'sum', arguments: {} }), loose.callTool({ name: 'sum', arguments: {} })]);
  const strictWeather = await strict.callTool({ name: 'weather', arguments: {} });
  const looseWeather = await loose.callTool({ name: 'weather', arguments: {} });
  console.log(JSON.stringify({ strictSum, looseSum, strictWeather, looseWeather }));
  await strict.close();
  await loose.close();
})().catch((e) => { console.log(JSON.stringify({ error: String(e) })); process.exit(1); });
`

func (a authTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", a.auth)
	return a.next.RoundTrip(r)
}
