package interop

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"

	"github.com/mcpvalidate/mcpvalidate/gosdk"
	"github.com/mcpvalidate/mcpvalidate/guard"
	"github.com/mcpvalidate/mcpvalidate/guard/proxy"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// nodeModules names the node_modules directory that holds the published servers of
// e2e/proxy; e2e/proxy/run.sh sets it, and TestNPMServers runs only then.
const nodeModules = "MCPVALIDATE_E2E_NODE_MODULES"

// TestNPMServers drives published servers that are not ours and not Go (server-everything,
// server-memory, server-filesystem, from npm) with go-sdk's client, direct and through the
// proxy over stdio: the same tools, the same answers to valid calls, and invalid calls
// refused with our message.
func TestNPMServers(t *testing.T) {
	modules := os.Getenv(nodeModules)
	if modules == "" {
		t.Skip("set " + nodeModules + " to e2e/proxy's node_modules (e2e/proxy/run.sh does)")
	}
	ctx := context.Background()
	files := t.TempDir()
	if err := os.WriteFile(filepath.Join(files, "a.txt"), []byte("one\ntwo\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	js := func(name string) string {
		return filepath.Join(modules, "@modelcontextprotocol", name, "dist", "index.js")
	}
	cases := []struct {
		server  string
		args    []string
		valid   [][2]string
		invalid [][3]string
	}{
		{"server-everything", []string{"stdio"},
			[][2]string{{"echo", `{"message":"hi"}`}, {"get-sum", `{"a":1,"b":2}`}},
			[][3]string{{"echo", `{"message":1}`, "property 'message' must be string"}, {"get-sum", `{"a":1}`, "missing required property 'b'"}}},
		{"server-memory", nil,
			[][2]string{{"read_graph", `{}`}, {"search_nodes", `{"query":"x"}`}},
			[][3]string{{"create_entities", `{"entities":"Ada"}`, "property 'entities' must be array"}}},
		{"server-filesystem", []string{files},
			[][2]string{{"list_directory", `{"path":"` + files + `"}`}, {"read_text_file", `{"path":"` + filepath.Join(files, "a.txt") + `"}`}},
			[][3]string{{"write_file", `{"path":"` + filepath.Join(files, "b.txt") + `","content":7}`, "property 'content' must be string"}}},
	}
	for _, c := range cases {
		t.Run(c.server, func(t *testing.T) {
			memory := "MEMORY_FILE_PATH=" + filepath.Join(t.TempDir(), "memory.jsonl")
			directCmd := exec.Command("node", append([]string{js(c.server)}, c.args...)...)
			directCmd.Env = append(os.Environ(), memory)
			throughCmd := proxied("node", append([]string{js(c.server)}, c.args...)...)
			throughCmd.Env = append(throughCmd.Env, "MEMORY_FILE_PATH="+filepath.Join(t.TempDir(), "memory.jsonl"))
			direct, through := connect(t, directCmd), connect(t, throughCmd)
			want, err := direct.ListTools(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			got, err := through.ListTools(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("tools through the proxy differ from the tools direct")
			}
			for _, v := range c.valid {
				if got, want := callJSON(t, through, v[0], v[1]), callJSON(t, direct, v[0], v[1]); got != want {
					t.Errorf("%s %s: through the proxy\n%s\ndirect\n%s", v[0], v[1], got, want)
				}
			}
			for _, v := range c.invalid {
				got := callJSON(t, through, v[0], v[1])
				if !strings.Contains(got, `"isError":true`) || !strings.Contains(got, "Invalid arguments: ") || !strings.Contains(got, v[2]) {
					t.Errorf("%s %s: got %s, want %q", v[0], v[1], got, v[2])
				}
			}
		})
	}
	if _, err := os.Stat(filepath.Join(files, "b.txt")); err == nil {
		t.Error("an invalid write_file wrote its file through the proxy")
	}
}

// TestNPMServersHTTP is TestNPMServers over streamable HTTP, for server-everything (the one
// of the three with an HTTP mode). Its streamableHttp mode listens on every interface at
// $PORT, so it runs under e2e/proxy/loopback.cjs, which binds it to 127.0.0.1, as the test
// checks, and records each JSON-RPC message POSTed to it: the record shows that the invalid
// calls through the proxy's handler never reached it, and that the same calls direct did.
func TestNPMServersHTTP(t *testing.T) {
	modules := os.Getenv(nodeModules)
	if modules == "" {
		t.Skip("set " + nodeModules + " to e2e/proxy's node_modules (e2e/proxy/run.sh does)")
	}
	ctx := context.Background()
	record := filepath.Join(t.TempDir(), "record.jsonl")
	addr := startLoopbackNode(t, filepath.Join(filepath.Dir(modules), "loopback.cjs"), record,
		filepath.Join(modules, "@modelcontextprotocol", "server-everything", "dist", "index.js"), "streamableHttp")
	loopbackOnly(t, addr)
	upstream := "http://" + addr + "/mcp"
	front := startFront(t, upstream, proxy.Options{})
	loopbackOnly(t, strings.TrimSuffix(strings.TrimPrefix(front, "http://"), "/mcp"))
	direct, through := connectHTTP(t, upstream), connectHTTP(t, front)

	want, err := direct.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	got, err := through.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("tools through the proxy differ from the tools direct")
	}
	valid := [][2]string{{"echo", `{"message":"hi"}`}, {"get-sum", `{"a":1,"b":2.5}`}, {"get-annotated-message", `{"messageType":"error"}`}}
	for _, v := range valid {
		if got, want := callJSON(t, through, v[0], v[1]), callJSON(t, direct, v[0], v[1]); got != want {
			t.Errorf("%s %s: through the proxy\n%s\ndirect\n%s", v[0], v[1], got, want)
		}
	}
	invalid := [][3]string{
		{"echo", `{"message":1}`, "property 'message' must be string"},
		{"get-sum", `{"a":1}`, "missing required property 'b'"},
		{"get-annotated-message", `{"messageType":"warning"}`, "property 'messageType' must be one of"},
	}
	for _, v := range invalid {
		res := call(t, through, v[0], v[1])
		text := ""
		if len(res.Content) == 1 {
			if tc, ok := res.Content[0].(*mcp.TextContent); ok {
				text = tc.Text
			}
		}
		if !res.IsError || !strings.HasPrefix(text, "Invalid arguments: ") || !strings.Contains(text, v[2]) {
			t.Errorf("%s %s: got isError=%v %q, want %q", v[0], v[1], res.IsError, text, v[2])
		}
		if m, _ := res.Meta["com.github.mcpvalidate/violations"].(map[string]any); m["of"] != "arguments" {
			t.Errorf("%s %s: no violations of the arguments in _meta: %v", v[0], v[1], res.Meta)
		}
	}
	// The server received each valid call twice, direct and through the proxy, and no
	// invalid call.
	calls := recordedCalls(t, record)
	for _, v := range valid {
		if n := times(t, calls, v[0], v[1]); n != 2 {
			t.Errorf("the server received %s %s %d times, want 2", v[0], v[1], n)
		}
	}
	for _, v := range invalid {
		if n := times(t, calls, v[0], v[1]); n != 0 {
			t.Errorf("the server received the invalid %s %s through the proxy", v[0], v[1])
		}
	}
	if len(calls) != 2*len(valid) {
		t.Errorf("the server received %d calls, want %d: %v", len(calls), 2*len(valid), calls)
	}
	// Sent direct, each invalid call is in the record: it shows what reached the server.
	for _, v := range invalid {
		if _, err := direct.CallTool(ctx, &mcp.CallToolParams{Name: v[0], Arguments: json.RawMessage(v[1])}); err != nil {
			t.Logf("%s %s, direct: %v", v[0], v[1], err)
		}
	}
	calls = recordedCalls(t, record)
	for _, v := range invalid {
		if n := times(t, calls, v[0], v[1]); n != 1 {
			t.Errorf("sent direct, %s %s is in the record %d times, want 1", v[0], v[1], n)
		}
	}
}

// startLoopbackNode runs node with the preload loopback.cjs and args, PORT=0 and the
// record of what the server receives in record, in a process group of its own, and returns
// the address it listens on, as the preload reports it. The test stops the whole group and
// checks that nothing listens there any more; should the test binary die first, its end
// closes node's stdin, and the preload ends node.
func startLoopbackNode(t *testing.T, loopback, record string, args ...string) string {
	t.Helper()
	cmd := exec.Command("node", append([]string{"--require", loopback}, args...)...)
	cmd.Env = append(os.Environ(), "PORT=0", "MCPVALIDATE_E2E_RECORD="+record, "MCPVALIDATE_E2E_EXIT_WITH_STDIN=1")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	listening := make(chan string, 1)
	drained := make(chan struct{})
	go func() {
		defer close(drained)
		defer close(listening)
		lines := bufio.NewScanner(stderr)
		before := []string{} // what node said before it listened; nil after
		for lines.Scan() {
			if addr, ok := strings.CutPrefix(lines.Text(), "loopback.cjs: listening on "); ok && before != nil {
				listening <- addr
				before = nil
			} else if before != nil {
				before = append(before, lines.Text())
			}
		}
		if before != nil {
			listening <- "exited: " + strings.Join(before, "\n")
		}
	}()
	addr := <-listening
	t.Cleanup(func() {
		if err := syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM); err != nil {
			t.Errorf("stopping node's process group: %v", err)
		}
		stdin.Close()
		<-drained
		if err := cmd.Wait(); !isSignalled(err, syscall.SIGTERM) {
			t.Errorf("node's end: %v, want killed by SIGTERM", err)
		}
		if conn, err := net.Dial("tcp", addr); err == nil {
			conn.Close()
			t.Errorf("%s still accepts connections after the server stopped", addr)
		}
	})
	if rest, exited := strings.CutPrefix(addr, "exited: "); exited {
		t.Fatalf("node ended before it listened:\n%s", rest)
	}
	return addr
}

// loopbackOnly checks that addr listens on 127.0.0.1 and that no other address of this
// machine accepts a connection at its port.
func loopbackOnly(t *testing.T, addr string) {
	t.Helper()
	host, port, err := net.SplitHostPort(addr)
	if err != nil || host != "127.0.0.1" {
		t.Fatalf("listening on %q, not 127.0.0.1", addr)
	}
	ifaces, err := net.InterfaceAddrs()
	if err != nil {
		t.Fatal(err)
	}
	others := 0
	for _, a := range ifaces {
		ip, ok := a.(*net.IPNet)
		if !ok || ip.IP.IsLoopback() || ip.IP.IsLinkLocalUnicast() {
			continue
		}
		others++
		conn, err := net.Dial("tcp", net.JoinHostPort(ip.IP.String(), port))
		if err == nil {
			conn.Close()
			t.Fatalf("%s listens on 127.0.0.1, yet %s accepts a connection at its port", addr, ip.IP)
		}
		if !errors.Is(err, syscall.ECONNREFUSED) {
			t.Errorf("%s at port %s: %v, want the connection refused", ip.IP, port, err)
		}
	}
	t.Logf("%s: %d other address(es) of this machine refused at its port", addr, others)
}

// A recordedCall is a tools/call that loopback.cjs recorded.
type recordedCall struct {
	Method    string          `json:"method"`
	Tool      string          `json:"tool"`
	Arguments json.RawMessage `json:"arguments"`
}

func (c recordedCall) String() string { return c.Tool + " " + string(c.Arguments) }

// recordedCalls reads the tools/call messages of record.
func recordedCalls(t *testing.T, record string) []recordedCall {
	t.Helper()
	b, err := os.ReadFile(record)
	if err != nil {
		t.Fatal(err)
	}
	var calls []recordedCall
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var c recordedCall
		if err := json.Unmarshal([]byte(line), &c); err != nil {
			t.Fatalf("the record's line %q: %v", line, err)
		}
		if c.Method == "tools/call" {
			calls = append(calls, c)
		}
	}
	return calls
}

// times counts the calls of tool with args (compared as JSON values) in calls.
func times(t *testing.T, calls []recordedCall, tool, args string) int {
	t.Helper()
	var want any
	if err := json.Unmarshal([]byte(args), &want); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, c := range calls {
		var got any
		if c.Tool == tool && json.Unmarshal(c.Arguments, &got) == nil && reflect.DeepEqual(got, want) {
			n++
		}
	}
	return n
}

// isSignalled reports whether err is the end of a process killed by sig.
func isSignalled(err error, sig syscall.Signal) bool {
	var exit *exec.ExitError
	if !errors.As(err, &exit) {
		return false
	}
	status, ok := exit.Sys().(syscall.WaitStatus)
	return ok && status.Signaled() && status.Signal() == sig
}

// TestNPMClientSession: go-sdk's client, wrapped by gosdk's ClientSession, refuses an
// invalid call to a published server itself, with the result the proxy gives (violations
// in _meta as the proxy always puts them), and sends the
// valid ones.
func TestNPMClientSession(t *testing.T) {
	modules := os.Getenv(nodeModules)
	if modules == "" {
		t.Skip("set " + nodeModules + " to e2e/proxy's node_modules (e2e/proxy/run.sh does)")
	}
	js := filepath.Join(modules, "@modelcontextprotocol", "server-memory", "dist", "index.js")
	directCmd := exec.Command("node", js)
	directCmd.Env = append(os.Environ(), "MEMORY_FILE_PATH="+filepath.Join(t.TempDir(), "memory.jsonl"))
	throughCmd := proxied("node", js)
	throughCmd.Env = append(throughCmd.Env, "MEMORY_FILE_PATH="+filepath.Join(t.TempDir(), "memory.jsonl"))
	client, through := gosdk.New(guard.WithViolationMeta()).Client(connect(t, directCmd)), connect(t, throughCmd)
	ctx := context.Background()
	for _, args := range []string{`{"entities":"Ada"}`, `{"entities":[{"name":"Bob","entityType":"person"}]}`} {
		res, err := client.CallTool(ctx, &mcp.CallToolParams{Name: "create_entities", Arguments: json.RawMessage(args)})
		if err != nil {
			t.Fatal(err)
		}
		local, _ := json.Marshal(res)
		want := callJSON(t, through, "create_entities", args)
		var l, w any
		json.Unmarshal(local, &l)
		json.Unmarshal([]byte(want), &w)
		if !res.IsError || !reflect.DeepEqual(l, w) {
			t.Errorf("%s: the client refused with\n%s\nthe proxy with\n%s", args, local, want)
		}
	}
	res, err := client.CallTool(ctx, &mcp.CallToolParams{Name: "create_entities", Arguments: map[string]any{
		"entities": []any{map[string]any{"name": "Ada", "entityType": "person", "observations": []any{"wrote notes"}}}}})
	if err != nil || res.IsError {
		t.Fatalf("a valid call: %v, %v", res, err)
	}
	graph := callJSON(t, client.ClientSession, "read_graph", `{}`)
	if !strings.Contains(graph, "Ada") || strings.Contains(graph, "Bob") {
		t.Errorf("the graph %s: want Ada alone", graph)
	}
}
