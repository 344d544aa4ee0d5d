package proxy

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"reflect"
	"runtime/pprof"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The test binary runs again as a child in these roles, chosen by the variable role.
const role = "MCPVALIDATE_PROXY_TEST_ROLE"

func TestMain(m *testing.M) {
	switch os.Getenv(role) {
	case "proxy": // the proxy in front of the server named by MCPVALIDATE_PROXY_TEST_SERVER
		p, err := New(Options{})
		if err != nil {
			panic(err)
		}
		server := exec.Command(os.Getenv("MCPVALIDATE_PROXY_TEST_SERVER"), strings.Fields(os.Getenv("MCPVALIDATE_PROXY_TEST_ARGS"))...)
		server.Stderr = os.Stderr
		if path := os.Getenv("MCPVALIDATE_PROXY_TEST_CPUPROFILE"); path != "" {
			if f, err := os.Create(path); err == nil && pprof.StartCPUProfile(f) == nil {
				defer pprof.StopCPUProfile()
			}
		}
		ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
		code, err := p.Run(ctx, server, os.Stdin, os.Stdout)
		stop()
		if err != nil {
			os.Stderr.WriteString(err.Error() + "\n")
		}
		pprof.StopCPUProfile()
		os.Exit(code)
	case "exit3": // a server that reads one line and exits with status 3
		_, _ = bufio.NewReader(os.Stdin).ReadString('\n')
		os.Exit(3)
	case "stubborn": // a server that outlives its stdin, until a signal ends it
		_, _ = io.Copy(io.Discard, os.Stdin)
		select {}
	case "cat": // a server that echoes what it reads until its stdin ends
		_, _ = io.Copy(os.Stdout, os.Stdin)
		os.Exit(0)
	}
	code := m.Run()
	if built.dir != "" {
		os.RemoveAll(built.dir)
	}
	os.Exit(code)
}

var built struct {
	once sync.Once
	dir  string
	err  error
}

// rawServer builds testdata/rawserver, an MCP server on go-sdk whose tools validate
// nothing and count their calls, once, and returns its path.
func rawServer(t testing.TB) string {
	t.Helper()
	built.once.Do(func() {
		built.dir, built.err = os.MkdirTemp("", "mcpvalidate-proxy-test")
		if built.err != nil {
			return
		}
		out, err := exec.Command("go", "build", "-o", filepath.Join(built.dir, "rawserver"), "./testdata/rawserver").CombinedOutput()
		if err != nil {
			built.err = &buildError{err, string(out)}
		}
	})
	if built.err != nil {
		t.Fatal(built.err)
	}
	return filepath.Join(built.dir, "rawserver")
}

type buildError struct {
	err error
	out string
}

func (e *buildError) Error() string { return "building rawserver: " + e.err.Error() + "\n" + e.out }

// proxied is the command that runs the proxy in front of server.
func proxied(server string, args ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), role+"=proxy", "MCPVALIDATE_PROXY_TEST_SERVER="+server,
		"MCPVALIDATE_PROXY_TEST_ARGS="+strings.Join(args, " "))
	cmd.Stderr = os.Stderr
	return cmd
}

func connect(t *testing.T, cmd *exec.Cmd) *mcp.ClientSession {
	t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "proxy-test", Version: "1.0.0"}, nil)
	cs, err := client.Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

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
		if !errors.As(directErr, &de) || !errors.As(err, &te) || te.Code != de.Code || te.Message != "Unknown tool: "+shownName(name) {
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

func call(t *testing.T, cs *mcp.ClientSession, tool, args string) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: json.RawMessage(args)})
	if err != nil {
		t.Fatalf("%s %s: %v", tool, args, err)
	}
	return res
}

func callJSON(t *testing.T, cs *mcp.ClientSession, tool, args string) string {
	t.Helper()
	b, err := json.Marshal(call(t, cs, tool, args))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// runProxy runs Run in front of the test binary in role r, over pipes the test holds.
func runProxy(t *testing.T, r string) (clientSend *io.PipeWriter, clientGot *bufio.Reader, result chan [2]any) {
	return runProxyContext(t, context.Background(), r)
}

// runProxyContext is runProxy under ctx.
func runProxyContext(t *testing.T, ctx context.Context, r string) (clientSend *io.PipeWriter, clientGot *bufio.Reader, result chan [2]any) {
	t.Helper()
	p, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	cr, cw := io.Pipe()
	or, ow := io.Pipe()
	server := exec.Command(os.Args[0])
	server.Env = append(os.Environ(), role+"="+r)
	result = make(chan [2]any, 1)
	go func() {
		code, err := p.Run(ctx, server, cr, ow)
		ow.Close()
		result <- [2]any{code, err}
	}()
	t.Cleanup(func() {
		cw.Close()
		go io.Copy(io.Discard, or)
	})
	return cw, bufio.NewReader(or), result
}

// TestRunServerExits answers the call in flight when the server exits, and exits with
// the server's status.
func TestRunServerExits(t *testing.T) {
	send, got, result := runProxy(t, "exit3")
	io.WriteString(send, `{"jsonrpc":"2.0","id":"x","method":"tools/call","params":{"name":"a","arguments":{}}}`+"\n")
	line, err := got.ReadString('\n')
	if err != nil || !strings.Contains(line, `{"jsonrpc":"2.0","id":"x","error":{"code":-32603,"message":"mcpvalidate proxy: the MCP server exited with status 3`) {
		t.Fatalf("the client got %q, %v", line, err)
	}
	if r := <-result; r[0] != 3 || r[1] != nil {
		t.Fatalf("Run returned %v, %v", r[0], r[1])
	}
}

// TestRunClientEnds stops the server when the client's input ends, and returns its
// status, after passing what the server still had to say.
func TestRunClientEnds(t *testing.T) {
	send, got, result := runProxy(t, "cat")
	io.WriteString(send, `{"jsonrpc":"2.0","method":"first"}`+"\n")
	if line, err := got.ReadString('\n'); line != `{"jsonrpc":"2.0","method":"first"}`+"\n" || err != nil {
		t.Fatalf("the client got %q, %v", line, err)
	}
	io.WriteString(send, `{"jsonrpc":"2.0","method":"x"}`)
	send.Close()
	if line, err := got.ReadString('\n'); line != `{"jsonrpc":"2.0","method":"x"}` || err != io.EOF {
		t.Fatalf("the client got %q, %v", line, err)
	}
	if r := <-result; r[0] != 0 || r[1] != nil {
		t.Fatalf("Run returned %v, %v", r[0], r[1])
	}
}

// TestRunStopsStubbornServer: a server that outlives its stdin is sent SIGTERM, and Run
// returns with the status the signal gave it. It waits out the grace period, 5 seconds.
func TestRunStopsStubbornServer(t *testing.T) {
	if testing.Short() {
		t.Skip("full tier: runs without -short")
	}
	send, got, result := runProxy(t, "stubborn")
	send.Close()
	if _, err := got.ReadString('\n'); err != io.EOF {
		t.Fatalf("the client got %v, want the end", err)
	}
	if r := <-result; r[0] != 128+15 || r[1] != nil {
		t.Fatalf("Run returned %v, %v; want 143 (SIGTERM)", r[0], r[1])
	}
}

// TestRunStopped: told to stop, Run sends the server SIGTERM at once, and returns the
// status it gave the server.
func TestRunStopped(t *testing.T) {
	ctx, stop := context.WithCancel(context.Background())
	send, got, result := runProxyContext(t, ctx, "stubborn")
	io.WriteString(send, "{}\n")
	stop()
	if _, err := got.ReadString('\n'); err != io.EOF {
		t.Fatalf("the client got %v, want the end", err)
	}
	if r := <-result; r[0] != 128+15 || r[1] != nil {
		t.Fatalf("Run returned %v, %v; want 143 (SIGTERM)", r[0], r[1])
	}
}

// TestRunBadCommand reports a server that cannot start.
func TestRunBadCommand(t *testing.T) {
	p, _ := New(Options{})
	_, err := p.Run(context.Background(), exec.Command(filepath.Join(t.TempDir(), "missing")), strings.NewReader(""), io.Discard)
	if err == nil || !strings.Contains(err.Error(), "starting the server") {
		t.Fatalf("got %v", err)
	}
	cmd := exec.Command(os.Args[0])
	cmd.Stdout = io.Discard
	if _, err := p.Run(context.Background(), cmd, strings.NewReader(""), io.Discard); err == nil {
		t.Fatal("Run took a command whose stdout was set")
	}
}

// TestRunLogsExit logs a server's exit: at Info when it exits with status 0, at Warn with
// the error otherwise.
func TestRunLogsExit(t *testing.T) {
	for _, tc := range []struct {
		role, want string
	}{
		{"cat", `{"level":"INFO","msg":"mcpvalidate proxy: the MCP server exited with status 0"}`},
		{"exit3", `{"level":"WARN","msg":"mcpvalidate proxy: the MCP server exited with status 3","error":"exit status 3"}`},
	} {
		t.Run(tc.role, func(t *testing.T) {
			var logged bytes.Buffer
			p, err := New(Options{Logger: slog.New(slog.NewJSONHandler(&logged, &slog.HandlerOptions{
				ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
					if a.Key == slog.TimeKey {
						return slog.Attr{}
					}
					return a
				}}))})
			if err != nil {
				t.Fatal(err)
			}
			server := exec.Command(os.Args[0])
			server.Env = append(os.Environ(), role+"="+tc.role)
			if _, err := p.Run(context.Background(), server, strings.NewReader("{}\n"), io.Discard); err != nil {
				t.Fatal(err)
			}
			if got := strings.TrimSpace(logged.String()); got != tc.want {
				t.Fatalf("logged\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
}
