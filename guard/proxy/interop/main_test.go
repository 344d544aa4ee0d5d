// Package interop holds the proxy's tests against real MCP SDKs and servers: go-sdk's
// client and servers, the npm reference servers, and OpenTelemetry's SDK. It is a module
// of its own, so that the proxy's module requires none of them.
package interop

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http/httptest"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime/pprof"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/mcpvalidate/mcpvalidate/guard/proxy"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The test binary runs again as a child in these roles, chosen by the variable role.
const role = "MCPVALIDATE_PROXY_TEST_ROLE"

func TestMain(m *testing.M) {
	switch os.Getenv(role) {
	case "proxy": // the proxy in front of the server named by MCPVALIDATE_PROXY_TEST_SERVER
		p, err := proxy.New(proxy.Options{})
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

// httpServer starts rawserver over streamable HTTP on 127.0.0.1 and returns its
// endpoint; the test stops it.
func httpServer(t testing.TB) string {
	t.Helper()
	cmd := exec.Command(rawServer(t), "-http", "127.0.0.1:0")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		stdin.Close() // rawserver exits when its stdin ends
		cmd.Wait()
	})
	addr, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	return "http://" + strings.TrimSpace(addr) + "/mcp"
}

func connectHTTP(t *testing.T, endpoint string) *mcp.ClientSession {
	t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "proxy-test", Version: "1.0.0"}, nil)
	cs, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: endpoint, MaxRetries: -1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}
func (e *buildError) Error() string { return "building rawserver: " + e.err.Error() + "\n" + e.out }

// startFront starts the proxy's handler in front of upstream on 127.0.0.1.
func startFront(t testing.TB, upstream string, opts proxy.Options) string {
	t.Helper()
	p, err := proxy.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	h, err := p.Handler(upstream)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	return ts.URL + "/mcp"
}

// weatherSchema is the weather tool's inputSchema, as rawserver lists it.
const weatherSchema = `{"type":"object","properties":{"location":{"type":"string","minLength":1},` +
	`"days":{"type":"integer","minimum":1,"maximum":7},"units":{"enum":["c","f"]}},` +
	`"required":["location"],"additionalProperties":false}`

// toolsList is a tools/list result: weather, a tool whose schema does not compile, and a
// tool with an outputSchema.
const toolsList = `{"tools":[{"name":"weather","inputSchema":` + weatherSchema + `},` +
	`{"name":"broken","inputSchema":{"type":"object","properties":{"x":{"type":"nonsense"}}}},` +
	`{"name":"sum","inputSchema":{"type":"object"},"outputSchema":{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}}]}`

// madeUp is the name of a tool no server lists, as a model might send it.
const madeUp = "no-such-tool-7f3a"
