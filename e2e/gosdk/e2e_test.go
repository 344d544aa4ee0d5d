// Package gosdk holds end-to-end tests of the example weather servers driven by the
// official MCP Go SDK (github.com/modelcontextprotocol/go-sdk) as the client, over stdio
// and over streamable HTTP: examples/weather (on mcp-go) and examples/gosdk-weather (on the
// Go SDK), which serve the same tools with the same answers, so every check expects the
// same of both.
//
// The server binary comes from $WEATHER_BIN (named $WEATHER_SERVER in the test names, its
// file name when that is unset); when WEATHER_BIN is unset, TestMain builds both examples
// from the checkout's workspace (go build ./examples/weather ./examples/gosdk-weather, run in ../..)
// and every test runs on each, as a subtest named after it.
//
// No check reads the clock: every wait ends on an event (a reply, the server accepting
// connections or exiting), and a hang is left to go test's -timeout.
package gosdk

import (
	"context"
	"encoding/json"
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

// A server is one weather binary under test.
type server struct {
	name string // the subtests' name: weather, gosdk-weather
	bin  string // its absolute path
}

// servers are the binaries under test; each test runs on every one (see forEachServer).
var servers []server

// examples are the example servers TestMain builds when WEATHER_BIN is unset.
var examples = []string{"weather", "gosdk-weather"}

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	if bin := os.Getenv("WEATHER_BIN"); bin != "" {
		name := os.Getenv("WEATHER_SERVER")
		if name == "" {
			name = filepath.Base(bin)
		}
		if abs, err := filepath.Abs(bin); err == nil {
			bin = abs
		}
		servers = []server{{name, bin}}
	} else {
		dir, err := os.MkdirTemp("", "mcpvalidate-e2e-gosdk-")
		if err != nil {
			fmt.Fprintln(os.Stderr, "e2e: temp dir:", err)
			return 1
		}
		defer os.RemoveAll(dir)
		for _, name := range examples {
			bin := filepath.Join(dir, name)
			cmd := exec.Command("go", "build", "-o", bin, "./examples/"+name)
			cmd.Dir = filepath.Join("..", "..")
			cmd.Env = append(os.Environ(), "GOWORK=") // the checkout's workspace, which holds both examples
			cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
			fmt.Fprintf(os.Stderr, "e2e: WEATHER_BIN unset; building %s in %s\n", bin, cmd.Dir)
			if err := cmd.Run(); err != nil {
				fmt.Fprintf(os.Stderr, "e2e: building examples/%s: %v\n", name, err)
				return 1
			}
			servers = append(servers, server{name, bin})
		}
	}
	for _, s := range servers {
		if _, err := os.Stat(s.bin); err != nil {
			fmt.Fprintf(os.Stderr, "e2e: %s binary: %v\n", s.name, err)
			return 1
		}
	}
	return m.Run()
}

// forEachServer runs check as a subtest for each server under test, named after it.
func forEachServer(t *testing.T, check func(t *testing.T, s server)) {
	for _, s := range servers {
		t.Run(s.name, func(t *testing.T) { check(t, s) })
	}
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
		"types": []any{"number"}, "got": "null", "message": "property 'structuredContent.celsius' must be number"}},
}

// wantTools are the tools both servers list, as tools/list describes them; a schema "" is
// one the tool does not have.
var wantTools = []struct{ name, description, inputSchema, outputSchema string }{
	{
		name:        "weather",
		description: "Weather forecast for a city",
		inputSchema: `{"type": "object", "additionalProperties": false, "required": ["location"], "properties": {
			"location": {"type": "string", "description": "City name"},
			"days": {"type": "integer", "description": "Days to forecast"},
			"units": {"type": "string", "enum": ["c", "f"], "description": "c for Celsius, f for Fahrenheit"}}}`,
	},
	{
		name:        "station",
		description: "Current reading of a weather station",
		inputSchema: `{"type": "object", "additionalProperties": false, "required": ["id"], "properties": {
			"id": {"type": "string", "description": "Station name, such as Orly"}}}`,
		outputSchema: `{"type": "object", "additionalProperties": false, "required": ["station", "celsius"], "properties": {
			"station": {"type": "string"}, "celsius": {"type": "number"}}}`,
	},
}

// sameJSON reports whether got, as the client decoded it, is the JSON value of the text
// want ("" for none), whatever the order of members; and got as JSON text, to show.
func sameJSON(t *testing.T, got any, want string) (string, bool) {
	t.Helper()
	if got == nil {
		return "(none)", want == ""
	}
	text, err := json.Marshal(got)
	if err != nil {
		t.Fatalf("marshalling %#v: %v", got, err)
	}
	if want == "" {
		return string(text), false
	}
	var g, w any
	if err := json.Unmarshal(text, &g); err != nil {
		t.Fatalf("unmarshalling %s: %v", text, err)
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("unmarshalling the expected %s: %v", want, err)
	}
	return string(text), reflect.DeepEqual(g, w)
}

func newClient() *mcp.Client {
	return mcp.NewClient(&mcp.Implementation{Name: "mcpvalidate-e2e-gosdk", Version: "0.0.0"}, nil)
}

func TestStdio(t *testing.T) { forEachServer(t, testStdio) }

func testStdio(t *testing.T, s server) {
	ctx := t.Context()

	cmd := exec.Command(s.bin)
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
func TestReportOnly(t *testing.T) { forEachServer(t, testReportOnly) }

func testReportOnly(t *testing.T, s server) {
	ctx := t.Context()
	cmd := exec.Command(s.bin, "-report-only")
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
func TestDetailed(t *testing.T) { forEachServer(t, testDetailed) }

func testDetailed(t *testing.T, s server) {
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
		cmd := exec.Command(s.bin, "-detailed")
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
		url, output := startHTTPServer(t, s.bin, "-detailed")
		session, err := newClient().Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: url, MaxRetries: -1}, nil)
		if err != nil {
			t.Fatalf("connect to %s: %v\nserver output:\n%s", url, err, output.String())
		}
		t.Cleanup(func() { _ = session.Close() })
		check(t, session)
	})
}

func TestStreamableHTTP(t *testing.T) { forEachServer(t, testStreamableHTTP) }

func testStreamableHTTP(t *testing.T, s server) {
	ctx := t.Context()

	url, output := startHTTPServer(t, s.bin)
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

// startHTTPServer runs the server binary bin with -http on a free port of 127.0.0.1 and
// args, waits until it accepts connections and kills it when the test ends.
func startHTTPServer(t *testing.T, bin string, args ...string) (string, *lockedBuffer) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("finding a free port: %v", err)
	}
	addr := l.Addr().String()
	l.Close()

	var output lockedBuffer
	cmd := exec.Command(bin, append([]string{"-http", addr}, args...)...)
	cmd.Stdout, cmd.Stderr = &output, &output
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting %s -http %s: %v", bin, addr, err)
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
			t.Fatalf("%s -http %s exited before accepting connections: %v\noutput:\n%s", bin, addr, err, output.String())
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
	// Logged, not checked: the protocol version is each framework's newest that this client
	// also speaks (over stdio, go-sdk v1.8.0 and this client agree on a newer one than
	// mcp-go offers), and no check depends on it.
	if res := session.InitializeResult(); res != nil {
		t.Logf("negotiated protocol version %s with server %s %s", res.ProtocolVersion, res.ServerInfo.Name, res.ServerInfo.Version)
	}
	t.Run("tools/list", func(t *testing.T) { checkToolsList(ctx, t, session) })
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

	t.Run("output validation", func(t *testing.T) { checkOutputValidation(ctx, t, session) })
	// A protocol error, not a tool result: code -32602 from both frameworks, but in their own
	// words (mcp-go: "tool 'no_such_tool' not found: tool not found"; go-sdk: "unknown tool
	// \"no_such_tool\""), so of the message only that it names the tool is checked.
	t.Run("unknown tool", func(t *testing.T) { checkUnknownTool(ctx, t, session) })
}

// checkToolsList: both servers publish the weather tools, with the same descriptions and
// schemas.
func checkToolsList(ctx context.Context, t *testing.T, session *mcp.ClientSession) {
	res, err := session.ListTools(ctx, nil)
	if err != nil {
		t.Fatalf("tools/list: %v", err)
	}
	// Only membership is checked, not the order: both frameworks list by name today,
	// but the order of tools/list is neither's promise.
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
	}
	if !slices.Contains(names, "weather") {
		t.Fatalf("tools/list = %q, want it to include \"weather\"", names)
	}
	// Both servers publish the same tools: the same descriptions and schemas, compared
	// as JSON values (the order of members differs: mcp-go builds its inputSchemas from
	// a struct and maps, gosdk-weather sends its hand-written text as it is). The
	// annotations are not compared: mcp-go's NewTool sends the spec's default hints
	// explicitly, go-sdk sends none, which means the same.
	for _, want := range wantTools {
		i := slices.IndexFunc(res.Tools, func(tool *mcp.Tool) bool { return tool.Name == want.name })
		if i < 0 {
			t.Errorf("tools/list = %q, want it to include %q", names, want.name)
			continue
		}
		tool := res.Tools[i]
		if tool.Description != want.description {
			t.Errorf("tool %s: description %q, want %q", want.name, tool.Description, want.description)
		}
		if got, ok := sameJSON(t, tool.InputSchema, want.inputSchema); !ok {
			t.Errorf("tool %s: inputSchema\n got  %s\n want %s", want.name, got, want.inputSchema)
		}
		if got, ok := sameJSON(t, tool.OutputSchema, want.outputSchema); !ok {
			t.Errorf("tool %s: outputSchema\n got  %s\n want %s", want.name, got, want.outputSchema)
		}
	}
}

// checkOutputValidation: a station's reading that matches its output schema is sent, one
// that does not is withheld.
func checkOutputValidation(ctx context.Context, t *testing.T, session *mcp.ClientSession) {
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
}

// checkUnknownTool: a call to a tool the server does not have is a protocol error.
func checkUnknownTool(ctx context.Context, t *testing.T, session *mcp.ClientSession) {
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
