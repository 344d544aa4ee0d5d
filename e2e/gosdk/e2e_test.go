// Package gosdk holds end-to-end tests of the examples/weather server driven by the
// official MCP Go SDK (github.com/modelcontextprotocol/go-sdk) as the client, over stdio
// and over streamable HTTP.
//
// The weather binary comes from $WEATHER_BIN; when that is unset, TestMain builds it from
// the root module (go build -o <tmp>/weather ./examples/weather, run in ../..).
//
// No check reads the clock: every wait ends on an event (a reply, the server accepting
// connections or exiting), and a hang is left to go test's -timeout.
package gosdk

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const unknownTool = "no_such_tool"

// weatherBin is the path of the weather binary under test.
var weatherBin string

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	weatherBin = os.Getenv("WEATHER_BIN")
	if weatherBin == "" {
		dir, err := os.MkdirTemp("", "mcpvalidate-e2e-gosdk-")
		if err != nil {
			fmt.Fprintln(os.Stderr, "e2e: temp dir:", err)
			return 1
		}
		defer os.RemoveAll(dir)
		weatherBin = filepath.Join(dir, "weather")
		cmd := exec.Command("go", "build", "-o", weatherBin, "./examples/weather")
		cmd.Dir = filepath.Join("..", "..")
		cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
		fmt.Fprintf(os.Stderr, "e2e: WEATHER_BIN unset; building %s in %s\n", weatherBin, cmd.Dir)
		if err := cmd.Run(); err != nil {
			fmt.Fprintln(os.Stderr, "e2e: building examples/weather:", err)
			return 1
		}
	} else if abs, err := filepath.Abs(weatherBin); err == nil {
		weatherBin = abs
	}
	if _, err := os.Stat(weatherBin); err != nil {
		fmt.Fprintln(os.Stderr, "e2e: weather binary:", err)
		return 1
	}
	return m.Run()
}

type call struct {
	args map[string]any
	text string
}

var (
	validCall = call{
		args: map[string]any{"location": "Paris", "days": 2},
		text: "Paris: sunny, 21°c, for the next 2 day(s)",
	}
	badCalls = []call{
		{
			args: map[string]any{"location": "Paris", "days": "two"},
			text: "Invalid arguments: property 'days' must be integer",
		},
		{
			args: map[string]any{"days": 2.5, "units": "k", "x": 1},
			text: "Invalid arguments: missing required property 'location'; property 'days' must be integer; " +
				"property 'units' must be one of ['c', 'f']; unexpected property 'x'",
		},
		{
			args: map[string]any{"location": "Paris", "days": true},
			text: "Invalid arguments: property 'days' must be integer",
		},
	}
)

// metaKey is where a refusal carries its violations as data; badCallData is what it holds
// for badCalls[0].
const metaKey = "com.github.mcpvalidate/violations"

var badCallData = map[string]any{
	"of": "arguments", "notShown": 0.0,
	"violations": []any{map[string]any{"pointer": "/days", "kind": "type", "keyword": "type",
		"types": []any{"integer"}, "got": "string", "message": "property 'days' must be integer"}},
}

// The station tool's results are checked against its output schema: Orly's reading
// matches it; Bouvet's, whose sensor is offline, has a null temperature and is withheld.
const badResultText = "The tool failed on the server's side: its result does not match the tool's output schema, so it was withheld. " +
	"The arguments were not the problem, and calling the tool again the same way will not help. The server's operator has been told."

var badReadingData = map[string]any{
	"of": "result", "notShown": 0.0,
	"violations": []any{map[string]any{"pointer": "/celsius", "kind": "type", "keyword": "type",
		"types": []any{"number"}, "got": "null", "message": "property 'celsius' must be number"}},
}

func newClient() *mcp.Client {
	return mcp.NewClient(&mcp.Implementation{Name: "mcpvalidate-e2e-gosdk", Version: "0.0.0"}, nil)
}

func TestStdio(t *testing.T) {
	ctx := t.Context()

	cmd := exec.Command(weatherBin)
	var stderr lockedBuffer
	cmd.Stderr = &stderr
	// Cleanups run last-registered first: the session is closed (which ends the server)
	// before this kill, which only matters if Close did not stop it.
	t.Cleanup(func() {
		if cmd.Process != nil {
			_ = cmd.Process.Kill() // an error here means it is already gone
		}
	})
	session, err := newClient().Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect over stdio: %v\nserver stderr:\n%s", err, stderr.String())
	}
	t.Cleanup(func() { _ = session.Close() })

	runChecks(ctx, t, session)
	if t.Failed() {
		t.Logf("server stderr:\n%s", stderr.String())
	}
}

// TestReportOnly runs the server with -report-only over stdio: an invalid call reaches the
// tool, and the server logs that it would have been refused.
func TestReportOnly(t *testing.T) {
	ctx := t.Context()
	cmd := exec.Command(weatherBin, "-report-only")
	var stderr lockedBuffer
	cmd.Stderr = &stderr
	t.Cleanup(func() {
		if cmd.Process != nil {
			_ = cmd.Process.Kill() // an error here means it is already gone
		}
	})
	session, err := newClient().Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect over stdio: %v\nserver stderr:\n%s", err, stderr.String())
	}
	bad := badCalls[0]
	res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "weather", Arguments: bad.args})
	if err != nil {
		t.Fatalf("call %v: %v", bad.args, err)
	}
	if got := textOf(t, res); res.IsError || !strings.HasPrefix(got, "Paris: sunny") {
		t.Errorf("call %v: IsError %v, text %q; want the tool's own answer", bad.args, res.IsError, got)
	}
	// Closing the session ends the server and waits for it, so its stderr is complete.
	if err := session.Close(); err != nil {
		t.Logf("closing the session: %v", err)
	}
	const want = `msg="mcpvalidate: tool call would be refused; it ran (report-only)" tool=weather`
	if log := stderr.String(); !strings.Contains(log, want) || !strings.Contains(log, "paths=[days]") {
		t.Errorf("server stderr lacks %q with paths=[days]:\n%s", want, log)
	}
}

// TestDetailed runs the server with -detailed over both transports: refusals also say what
// was sent. (The Go SDK sends a map's members sorted, so days comes before loction.)
func TestDetailed(t *testing.T) {
	const want = "Invalid arguments: missing required property 'location'; property 'days' must be integer, not string; " +
		"unexpected property 'loction' (did you mean 'location'?)"
	args := map[string]any{"loction": "Paris", "days": "2"}
	check := func(t *testing.T, session *mcp.ClientSession) {
		res, err := session.CallTool(t.Context(), &mcp.CallToolParams{Name: "weather", Arguments: args})
		if err != nil {
			t.Fatalf("call %v: %v", args, err)
		}
		if got := textOf(t, res); !res.IsError || got != want {
			t.Errorf("call %v: IsError %v\n got  %q\n want %q", args, res.IsError, got, want)
		}
	}
	t.Run("stdio", func(t *testing.T) {
		cmd := exec.Command(weatherBin, "-detailed")
		t.Cleanup(func() {
			if cmd.Process != nil {
				_ = cmd.Process.Kill() // an error here means it is already gone
			}
		})
		session, err := newClient().Connect(t.Context(), &mcp.CommandTransport{Command: cmd}, nil)
		if err != nil {
			t.Fatalf("connect over stdio: %v", err)
		}
		t.Cleanup(func() { _ = session.Close() })
		check(t, session)
	})
	t.Run("streamable HTTP", func(t *testing.T) {
		url, output := startHTTPServer(t, "-detailed")
		session, err := newClient().Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: url, MaxRetries: -1}, nil)
		if err != nil {
			t.Fatalf("connect to %s: %v\nserver output:\n%s", url, err, output.String())
		}
		t.Cleanup(func() { _ = session.Close() })
		check(t, session)
	})
}

func TestStreamableHTTP(t *testing.T) {
	ctx := t.Context()

	url, output := startHTTPServer(t)
	transport := &mcp.StreamableClientTransport{Endpoint: url, MaxRetries: -1}
	session, err := newClient().Connect(ctx, transport, nil)
	if err != nil {
		t.Fatalf("connect to %s: %v\nserver output:\n%s", url, err, output.String())
	}
	t.Cleanup(func() { _ = session.Close() })

	runChecks(ctx, t, session)
	if t.Failed() {
		t.Logf("server output:\n%s", output.String())
	}
}

// startHTTPServer runs the weather binary with -http on a free port of 127.0.0.1 and args,
// waits until it accepts connections and kills it when the test ends.
func startHTTPServer(t *testing.T, args ...string) (string, *lockedBuffer) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("finding a free port: %v", err)
	}
	addr := l.Addr().String()
	l.Close()

	var output lockedBuffer
	cmd := exec.Command(weatherBin, append([]string{"-http", addr}, args...)...)
	cmd.Stdout, cmd.Stderr = &output, &output
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting %s -http %s: %v", weatherBin, addr, err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill() // an error here means it is already gone
		<-exited
	})
	for {
		select {
		case err := <-exited:
			exited <- err // for the cleanup
			t.Fatalf("%s -http %s exited before accepting connections: %v\noutput:\n%s", weatherBin, addr, err, output.String())
		default:
		}
		if conn, err := net.Dial("tcp", addr); err == nil {
			conn.Close()
			return "http://" + addr + "/mcp", &output
		}
		time.Sleep(10 * time.Millisecond) // between attempts, with no deadline
	}
}

// runChecks makes the checks shared by every transport.
func runChecks(ctx context.Context, t *testing.T, session *mcp.ClientSession) {
	if res := session.InitializeResult(); res != nil {
		t.Logf("negotiated protocol version %s with server %s %s", res.ProtocolVersion, res.ServerInfo.Name, res.ServerInfo.Version)
	}
	t.Run("tools/list", func(t *testing.T) {
		res, err := session.ListTools(ctx, nil)
		if err != nil {
			t.Fatalf("tools/list: %v", err)
		}
		var names []string
		for _, tool := range res.Tools {
			names = append(names, tool.Name)
		}
		if !slices.Contains(names, "weather") {
			t.Fatalf("tools/list = %q, want it to include \"weather\"", names)
		}
	})

	t.Run("valid", func(t *testing.T) {
		res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "weather", Arguments: validCall.args})
		if err != nil {
			t.Fatalf("call %v: %v", validCall.args, err)
		}
		got := textOf(t, res)
		if res.IsError {
			t.Fatalf("call %v: IsError true, text %q", validCall.args, got)
		}
		if got != validCall.text {
			t.Fatalf("call %v:\n got  %q\n want %q", validCall.args, got, validCall.text)
		}
	})

	for i, bad := range badCalls {
		t.Run(fmt.Sprintf("invalid%d", i+1), func(t *testing.T) {
			res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "weather", Arguments: bad.args})
			if err != nil {
				t.Fatalf("call %v: got error %v, want a tool result with IsError", bad.args, err)
			}
			got := textOf(t, res)
			if !res.IsError {
				t.Errorf("call %v: IsError false, want true (text %q)", bad.args, got)
			}
			if got != bad.text {
				t.Errorf("call %v:\n got  %q\n want %q", bad.args, got, bad.text)
			}
		})
	}

	t.Run("violations as data", func(t *testing.T) {
		res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "weather", Arguments: badCalls[0].args})
		if err != nil {
			t.Fatalf("call %v: %v", badCalls[0].args, err)
		}
		if got := res.Meta[metaKey]; !reflect.DeepEqual(got, badCallData) {
			t.Errorf("_meta[%s]:\n got  %#v\n want %#v", metaKey, got, badCallData)
		}
	})

	t.Run("output validation", func(t *testing.T) {
		good, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "station", Arguments: map[string]any{"id": "Orly"}})
		if err != nil || good.IsError || !reflect.DeepEqual(good.StructuredContent, map[string]any{"station": "Orly", "celsius": 14.5}) {
			t.Errorf("station Orly: %+v, %v", good, err)
		}
		bad, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "station", Arguments: map[string]any{"id": "Bouvet"}})
		if err != nil {
			t.Fatalf("station Bouvet: %v", err)
		}
		if got := textOf(t, bad); !bad.IsError || got != badResultText || bad.StructuredContent != nil {
			t.Errorf("station Bouvet: IsError %v, text %q, structuredContent %v: want the result withheld", bad.IsError, got, bad.StructuredContent)
		}
		if got := bad.Meta[metaKey]; !reflect.DeepEqual(got, badReadingData) {
			t.Errorf("station Bouvet _meta[%s]:\n got  %#v\n want %#v", metaKey, got, badReadingData)
		}
	})

	t.Run("unknown tool", func(t *testing.T) {
		res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: unknownTool, Arguments: map[string]any{}})
		if err == nil {
			t.Fatalf("call %s: got result %+v, want a JSON-RPC error", unknownTool, res)
		}
		var wireErr *jsonrpc.Error
		if !errors.As(err, &wireErr) {
			t.Fatalf("call %s: error %v (%T) is not a *jsonrpc.Error", unknownTool, err, err)
		}
		if wireErr.Code != jsonrpc.CodeInvalidParams {
			t.Errorf("call %s: JSON-RPC error code %d, want %d (%v)", unknownTool, wireErr.Code, jsonrpc.CodeInvalidParams, err)
		}
		if !strings.Contains(wireErr.Message, unknownTool) {
			t.Errorf("call %s: error message %q does not name the tool", unknownTool, wireErr.Message)
		}
		t.Logf("call %s: %v", unknownTool, err)
	})
}

// textOf joins the text contents of a tool result.
func textOf(t *testing.T, res *mcp.CallToolResult) string {
	t.Helper()
	var b strings.Builder
	for _, c := range res.Content {
		tc, ok := c.(*mcp.TextContent)
		if !ok {
			t.Fatalf("tool result content %T, want only *mcp.TextContent", c)
		}
		b.WriteString(tc.Text)
	}
	return b.String()
}
