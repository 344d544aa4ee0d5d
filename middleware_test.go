package mcpvalidate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/mcpvalidate/mcpvalidate/guard"
)

// weatherServer is the weather server: one tool, weather, wrapped by the middleware. calls
// counts how often the tool function ran.
func weatherServer(t testing.TB, g *Guard, extra ...server.ServerOption) (*server.MCPServer, *atomic.Int64) {
	t.Helper()
	var calls atomic.Int64
	opts := append([]server.ServerOption{server.WithToolCapabilities(true)}, extra...)
	if g != nil {
		opts = append(opts, server.WithToolHandlerMiddleware(g.Middleware()))
	}
	srv := server.NewMCPServer("weather", "1.0.0", opts...)
	srv.AddTool(mcp.NewToolWithRawSchema("weather", "Forecast for a city", json.RawMessage(weatherSchema)), forecast(&calls))
	return srv, &calls
}

func forecast(calls *atomic.Int64) server.ToolHandlerFunc {
	return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		calls.Add(1)
		return mcp.NewToolResultText("Sunny in " + req.GetString("location", "?")), nil
	}
}

const modernMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"` + modernProtocol + `",` +
	`"io.modelcontextprotocol/clientInfo":{"name":"test-client","version":"0.1"},` +
	`"io.modelcontextprotocol/clientCapabilities":{}}`

// call sends one tools/call through HandleMessage, on the 2025-11-25 protocol (after an
// initialize) or on 2026-07-28 (per-request _meta), and returns the response as JSON.
func call(t testing.TB, srv *server.MCPServer, modern bool, tool, args string) string {
	t.Helper()
	ctx := context.Background()
	params := `"name":` + jsonString(tool) + `,"arguments":` + args
	if modern {
		params = modernMeta + "," + params
	} else {
		srv.HandleMessage(ctx, []byte(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"test-client","version":"0.1"}}}`))
	}
	out := srv.HandleMessage(ctx, []byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{`+params+`}}`))
	b, err := json.Marshal(out)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// modernProtocol is the protocol of per-request _meta and no initialize, which mcp-go speaks
// from v1.0.0 on; the oldest release this module supports speaks up to 2025-11-25.
const modernProtocol = "2026-07-28"

// protocols returns false (initialize, then 2025-11-25), and true (2026-07-28) when the
// mcp-go release in the build speaks it.
func protocols() []bool {
	if slices.Contains(mcp.ValidProtocolVersions, modernProtocol) {
		return []bool{false, true}
	}
	return []bool{false}
}

func jsonString(s string) string { b, _ := json.Marshal(s); return string(b) }

// sameJSON compares two JSON texts as values.
func sameJSON(t *testing.T, got, want string) {
	t.Helper()
	var g, w any
	if err := json.Unmarshal([]byte(got), &g); err != nil {
		t.Fatalf("response is not JSON: %v\n%s", err, got)
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("bad expectation: %v", err)
	}
	if !reflect.DeepEqual(g, w) {
		t.Errorf("response\n got %s\nwant %s", got, want)
	}
}

func toolError(text string, modern bool) string {
	if modern {
		return `{"jsonrpc":"2.0","id":7,"result":{"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"weather","version":"1.0.0"}},` +
			`"resultType":"complete","content":[{"type":"text","text":` + jsonString(text) + `}],"isError":true}}`
	}
	return `{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":` + jsonString(text) + `}],"isError":true}}`
}

// sameRefusal compares a refusal with the contract's result for text. Under
// WithViolationMeta the refusal also carries its violations as data in _meta, whose
// messages must make the text; once taken out, the rest is the contract's.
func sameRefusal(t *testing.T, got, text string, modern, withMeta bool) {
	t.Helper()
	var g map[string]any
	if err := json.Unmarshal([]byte(got), &g); err != nil {
		t.Fatalf("response is not JSON: %v\n%s", err, got)
	}
	res, _ := g["result"].(map[string]any)
	meta, _ := res["_meta"].(map[string]any)
	ours, ok := meta[guard.MetaKey].(map[string]any)
	if ok != withMeta {
		t.Fatalf("%s in _meta: %v, want %v: %s", guard.MetaKey, ok, withMeta, got)
	}
	if withMeta {
		var msgs []string
		vs, _ := ours["violations"].([]any)
		for _, v := range vs {
			m, _ := v.(map[string]any)["message"].(string)
			msgs = append(msgs, m)
		}
		if joined := refusalPrefix + strings.Join(msgs, "; "); ours["of"] != "arguments" || joined != text {
			t.Errorf("_meta says %v of %v, the text %q", msgs, ours["of"], text)
		}
		delete(meta, guard.MetaKey)
		if len(meta) == 0 {
			delete(res, "_meta")
		}
	}
	rest, _ := json.Marshal(g)
	sameJSON(t, string(rest), toolError(text, modern))
}

func toolText(text string, modern bool) string {
	if modern {
		return `{"jsonrpc":"2.0","id":7,"result":{"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"weather","version":"1.0.0"}},` +
			`"resultType":"complete","content":[{"type":"text","text":` + jsonString(text) + `}]}}`
	}
	return `{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":` + jsonString(text) + `}]}}`
}

// contractCalls are the weather tool's reference calls and the answers the contract gives
// them, on the server's side (TestContractToolCalls) and on the client's (TestClient).
var contractCalls = []struct {
	name, args string
	want       string // the tool result text
	isError    bool
}{
	{"days as a word", `{"location": "Paris", "days": "two"}`, "Invalid arguments: property 'days' must be integer", true},
	{"every kind at once", `{"days": 2.5, "units": "k", "x": 1}`, "Invalid arguments: missing required property 'location'; property 'days' must be integer; property 'units' must be one of ['c', 'f']; unexpected property 'x'", true},
	{"days as a boolean", `{"location": "Paris", "days": true}`, "Invalid arguments: property 'days' must be integer", true},
	{"arguments not an object", `["Paris"]`, "Invalid arguments: arguments must be an object", true},
	{"absent arguments count as {}", `null`, "Invalid arguments: missing required property 'location'", true},
	{"valid", `{"location": "Paris", "days": 2}`, "Sunny in Paris", false},
}

func TestContractToolCalls(t *testing.T) {
	cases := contractCalls
	for _, modern := range protocols() {
		for _, withMeta := range []bool{false, true} {
			for _, c := range cases {
				t.Run(fmt.Sprintf("%s/modern=%v/meta=%v", c.name, modern, withMeta), func(t *testing.T) {
					g := New()
					if withMeta {
						g = New(guard.WithViolationMeta())
					}
					srv, calls := weatherServer(t, g)
					got := call(t, srv, modern, "weather", c.args)
					if c.isError {
						sameRefusal(t, got, c.want, modern, withMeta)
					} else {
						sameJSON(t, got, toolText(c.want, modern))
					}
					if ran := calls.Load() == 1; ran == c.isError {
						t.Errorf("tool function ran %d times; invalid=%v", calls.Load(), c.isError)
					}
				})
			}
		}
	}
}

func textOf(r *mcp.CallToolResult) string {
	if r == nil || len(r.Content) != 1 {
		return fmt.Sprintf("%+v", r)
	}
	if tc, ok := r.Content[0].(mcp.TextContent); ok {
		return tc.Text
	}
	return fmt.Sprintf("%+v", r.Content[0])
}

// invoke calls a server's tool the way mcp-go does, with a context that carries the server
// and the session (nil for none), and returns the result text and whether it is an error.
func invoke(t testing.TB, srv *server.MCPServer, session server.ClientSession, name string, args any) (string, bool) {
	t.Helper()
	ctx := context.Background()
	if session != nil {
		ctx = srv.WithContext(ctx, session)
	}
	params := map[string]any{"name": name, "arguments": args}
	msg, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params})
	out := srv.HandleMessage(ctx, msg)
	b, _ := json.Marshal(out)
	var raw struct {
		Result json.RawMessage
		Error  *struct{ Message string }
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	if raw.Error != nil {
		return "error: " + raw.Error.Message, true
	}
	res, err := mcp.ParseCallToolResult(&raw.Result)
	if err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	return textOf(res), res.IsError
}

type weatherArgs struct {
	Location string `json:"location" jsonschema:"required"`
	Days     int    `json:"days,omitempty"`
}

// toolSession is a session with tools of its own, as the HTTP transports provide.
type toolSession struct {
	id    string
	ch    chan mcp.JSONRPCNotification
	mu    sync.Mutex
	tools map[string]server.ServerTool
}

func (s *toolSession) SessionID() string                                   { return s.id }
func (s *toolSession) NotificationChannel() chan<- mcp.JSONRPCNotification { return s.ch }
func (s *toolSession) Initialize()                                         {}
func (s *toolSession) Initialized() bool                                   { return true }
func (s *toolSession) GetSessionTools() map[string]server.ServerTool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.tools
}
func (s *toolSession) SetSessionTools(tools map[string]server.ServerTool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.tools = tools
}

// TestSessionEndForgetsRefusals: after CheckServer, a session's refusals awaiting repair
// are forgotten when mcp-go unregisters the session, so that thousands of sessions that
// end unrepaired leave nothing behind, and a later session's repair is still counted;
// hooks the server already had keep running.
func TestSessionEndForgetsRefusals(t *testing.T) {
	g := New()
	var theirs atomic.Int64
	hooks := &server.Hooks{}
	hooks.AddOnUnregisterSession(func(context.Context, server.ClientSession) { theirs.Add(1) })
	srv, _ := weatherServer(t, g, server.WithHooks(hooks))
	if err := g.CheckServer(srv); err != nil {
		t.Fatal(err)
	}
	if err := g.CheckServer(srv); err != nil { // once more: one hook, not two
		t.Fatal(err)
	}
	const sessions = 500
	for i := range sessions {
		s := &toolSession{id: "gone-" + strconv.Itoa(i), ch: make(chan mcp.JSONRPCNotification, 1)}
		if err := srv.RegisterSession(context.Background(), s); err != nil {
			t.Fatal(err)
		}
		invoke(t, srv, s, "weather", map[string]any{"days": 1})
		if held := g.Guard().SessionsAwaitingRepair(); held != 1 {
			t.Fatalf("%d sessions awaiting repair, want 1", held)
		}
		srv.UnregisterSession(context.Background(), s.id)
	}
	if held := g.Guard().SessionsAwaitingRepair(); held != 0 || theirs.Load() != sessions {
		t.Errorf("%d sessions awaiting repair after all ended, want 0; the server's own hook ran %d times, want %d",
			held, theirs.Load(), sessions)
	}
	live := &toolSession{id: "live", ch: make(chan mcp.JSONRPCNotification, 1)}
	if err := srv.RegisterSession(context.Background(), live); err != nil {
		t.Fatal(err)
	}
	invoke(t, srv, live, "weather", map[string]any{"days": 1})
	invoke(t, srv, live, "weather", map[string]any{"location": "Paris"})
	if st := g.Guard().Stats()[0]; st.Repaired != 1 || st.Retries != 1 || st.Refused != sessions+1 {
		t.Errorf("stats %+v, want the live session's repair counted", st)
	}
}

// TestSessionEndWithoutHooks: CheckServer gives a server without hooks some.
func TestSessionEndWithoutHooks(t *testing.T) {
	g := New()
	srv, _ := weatherServer(t, g)
	if err := g.CheckServer(srv); err != nil {
		t.Fatal(err)
	}
	s := &toolSession{id: "s", ch: make(chan mcp.JSONRPCNotification, 1)}
	if err := srv.RegisterSession(context.Background(), s); err != nil {
		t.Fatal(err)
	}
	invoke(t, srv, s, "weather", map[string]any{"days": 1})
	srv.UnregisterSession(context.Background(), s.id)
	if held := g.Guard().SessionsAwaitingRepair(); held != 0 {
		t.Errorf("%d sessions awaiting repair after the only one ended", held)
	}
}

func TestSchemaChangesArePickedUp(t *testing.T) {
	srv, _ := weatherServer(t, New())
	args := map[string]any{"location": "Paris", "days": 2}
	if _, isErr := invoke(t, srv, nil, "weather", args); isErr {
		t.Fatal("valid call refused")
	}
	srv.AddTool(mcp.NewToolWithRawSchema("weather", "", json.RawMessage(`{"type":"object","properties":{"days":{"type":"integer","minimum":5}}}`)), forecast(new(atomic.Int64)))
	if text, _ := invoke(t, srv, nil, "weather", args); text != "Invalid arguments: property 'days' must be at least 5" {
		t.Errorf("after AddTool: %q", text)
	}
	srv.SetTools(server.ServerTool{Tool: mcp.NewTool("weather", mcp.WithString("days")), Handler: forecast(new(atomic.Int64))})
	if text, _ := invoke(t, srv, nil, "weather", args); text != "Invalid arguments: property 'days' must be string" {
		t.Errorf("after SetTools: %q", text)
	}
	srv.DeleteTools("weather")
	if text, _ := invoke(t, srv, nil, "weather", args); !strings.HasPrefix(text, "error: ") {
		t.Errorf("after DeleteTools: %q", text)
	}
}

func TestBrokenSchemaRefusesEveryCall(t *testing.T) {
	var events []guard.Event
	g := New(guard.WithObserver(func(e guard.Event) { events = append(events, e) }))
	srv := server.NewMCPServer("s", "1", server.WithToolHandlerMiddleware(g.Middleware()))
	ran := false
	srv.AddTool(mcp.NewToolWithRawSchema("broken", "", json.RawMessage(`{"type":"object","properties":{"id":{"type":"string","pattern":"(unclosed"}}}`)),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			ran = true
			return mcp.NewToolResultText("ran"), nil
		})
	text, isErr := invoke(t, srv, nil, "broken", map[string]any{"id": "x"})
	if !isErr || text != brokenSchemaText || ran {
		t.Fatalf("got %q isError=%v ran=%v", text, isErr, ran)
	}
	if strings.Contains(text, "unclosed") {
		t.Error("the model's message leaks the schema's internals")
	}
	if len(events) != 1 || events[0].Outcome != guard.SchemaBroken || events[0].Err == nil || !strings.Contains(events[0].Err.Error(), "#/properties/id/pattern") {
		t.Errorf("operator not told where: %+v", events)
	}
	err := g.CheckServer(srv)
	var te *guard.ToolError
	var se *guard.SchemaError
	if !errors.As(err, &te) || te.Tool != "broken" || !errors.As(err, &se) || se.Location != "#/properties/id/pattern" {
		t.Errorf("CheckServer: %v", err)
	}
	if st := g.Guard().Stats(); len(st) != 1 || st[0].SchemaBroken != 1 {
		t.Errorf("stats: %+v", st)
	}
}

func TestCheckServerAcceptsGoodTools(t *testing.T) {
	srv, _ := weatherServer(t, nil)
	srv.AddTool(mcp.NewTool("plain", mcp.WithString("q")), nil)
	if err := New().CheckServer(srv); err != nil {
		t.Fatal(err)
	}
}

func TestBuiltinValidationRunsFirst(t *testing.T) {
	srv, calls := weatherServer(t, New(), server.WithInputSchemaValidation())
	// Both refuse; mcp-go's check runs before any middleware, so its wording wins.
	text, isErr := invoke(t, srv, nil, "weather", map[string]any{"location": "Paris", "days": "two"})
	if !isErr || !strings.HasPrefix(text, "input schema validation failed") || calls.Load() != 0 {
		t.Errorf("got %q", text)
	}
	// mcp-go skips a schema that does not compile for it; the middleware still refuses.
	srv.AddTool(mcp.NewToolWithRawSchema("remote", "", json.RawMessage(`{"type":"object","properties":{"x":{"$ref":"https://example.com/x.json"}}}`)), forecast(calls))
	if text, isErr := invoke(t, srv, nil, "remote", map[string]any{"x": 1}); !isErr || text != brokenSchemaText || calls.Load() != 0 {
		t.Errorf("remote ref: %q", text)
	}
}

func TestObserverAndCounters(t *testing.T) {
	var events []guard.Event
	g := New(guard.WithObserver(func(e guard.Event) { events = append(events, e) }))
	srv, _ := weatherServer(t, g)
	session := &toolSession{id: "s9", ch: make(chan mcp.JSONRPCNotification, 10)}
	if err := srv.RegisterSession(context.Background(), session); err != nil {
		t.Fatal(err)
	}
	secret := "hunter2-secret-location"
	invoke(t, srv, session, "weather", map[string]any{"location": 12, "days": secret})
	invoke(t, srv, session, "weather", map[string]any{"location": secret, "days": "x"})
	invoke(t, srv, session, "weather", map[string]any{"location": secret, "days": 1})
	invoke(t, srv, session, "weather", map[string]any{"location": secret})
	if len(events) != 4 {
		t.Fatalf("%d events", len(events))
	}
	first := events[0]
	if first.Outcome != guard.Refused || first.Tool != "weather" || first.SessionID != "s9" || len(first.Violations) != 2 ||
		first.Violations[0].Path.String() != "days" || first.Violations[1].Path.String() != "location" || first.Duration <= 0 {
		t.Errorf("first event: %+v", first)
	}
	if dump := fmt.Sprintf("%+v", events); strings.Contains(dump, secret) {
		t.Error("an event carries an argument value")
	}
	st := g.Guard().Stats()
	want := guard.ToolStats{Tool: "weather", Accepted: 2, Refused: 2, Repaired: 1, Retries: 2}
	if len(st) != 1 || st[0] != want {
		t.Fatalf("stats %+v, want %+v", st, want)
	}
	calls, ok1 := st[0].CallsPerAccepted()
	refusals, ok2 := st[0].RefusalsPerRepair()
	if calls != 2 || refusals != 2 || !ok1 || !ok2 {
		t.Errorf("ratios %v %v %v %v", calls, ok1, refusals, ok2)
	}
	if _, ok := (guard.ToolStats{Refused: 3}).CallsPerAccepted(); ok {
		t.Error("a ratio of calls to no accepted call")
	}
	if _, ok := (guard.ToolStats{Accepted: 3}).RefusalsPerRepair(); ok {
		t.Error("a ratio of refusals to no repair")
	}
}

func TestGatewayStyleAndPanickingFormatter(t *testing.T) {
	srv, _ := weatherServer(t, New(guard.WithFormatter(guard.GatewayFormat)))
	text, _ := invoke(t, srv, nil, "weather", map[string]any{"days": "two", "x": 1})
	if want := "Invalid arguments: Missing required parameter: `location`; Invalid type for `days`: expected integer; Unknown parameter: `x`"; text != want {
		t.Errorf("gateway style:\n got %q\nwant %q", text, want)
	}
	srv, calls := weatherServer(t, New(guard.WithFormatter(func(guard.Violation) string { panic("bug") })))
	text, isErr := invoke(t, srv, nil, "weather", map[string]any{"days": "two"})
	if !isErr || calls.Load() != 0 || text != "Invalid arguments: missing required property 'location'; property 'days' must be integer" {
		t.Errorf("panicking formatter: %q", text)
	}
}

// TestDetailedRefusalNamesTheNameSent: through the middleware, a required name sent in
// another spelling, on an object that allows other members, is named beside the missing
// one under DetailedFormat, in the text and in _meta, and the tool does not run.
func TestDetailedRefusalNamesTheNameSent(t *testing.T) {
	const schema = `{"type":"object","required":["owner","repo","pullNumber"],"properties":{
		"owner":{"type":"string"},"repo":{"type":"string"},"pullNumber":{"type":"number"}}}`
	const args = `{"owner":"octo","repo":"hello","pull_number":42}`
	cases := []struct {
		name string
		opts []Option
		want string
	}{
		{"detailed", []Option{guard.WithFormatter(guard.DetailedFormat), guard.WithHints()}, refusalPrefix + "missing required property 'pullNumber' (sent 'pull_number')"},
		{"default", []Option{guard.WithHints()}, refusalPrefix + "missing required property 'pullNumber'"},
		{"gateway", []Option{guard.WithFormatter(guard.GatewayFormat), guard.WithHints()}, refusalPrefix + "Missing required parameter: `pullNumber`"},
	}
	for _, modern := range protocols() {
		for _, c := range cases {
			t.Run(fmt.Sprintf("%s/modern=%v", c.name, modern), func(t *testing.T) {
				var calls atomic.Int64
				srv := server.NewMCPServer("weather", "1.0.0", server.WithToolCapabilities(true), server.WithToolHandlerMiddleware(New(append(c.opts, guard.WithViolationMeta())...).Middleware()))
				srv.AddTool(mcp.NewToolWithRawSchema("get_pull_request", "A pull request", json.RawMessage(schema)), forecast(&calls))
				got := call(t, srv, modern, "get_pull_request", args)
				sameRefusal(t, got, c.want, modern, true)
				if !strings.Contains(got, `"sent":"pull_number"`) {
					t.Errorf("_meta does not carry the name sent: %s", got)
				}
				if calls.Load() != 0 {
					t.Errorf("the tool ran %d times", calls.Load())
				}
			})
		}
	}
}

// readingHandler answers a station's reading; for the station "bad", one that does not
// match readingSchema.
func readingHandler(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	res := mcp.NewToolResultText("21.5 °C")
	res.StructuredContent = map[string]any{"celsius": 21.5, "station": req.GetString("station", "")}
	if req.GetString("station", "") == "bad" {
		res.StructuredContent = map[string]any{"celsius": "warm", "station": "bad"}
	}
	return res, nil
}

// TestConcurrentSchemaChanges runs calls while other goroutines replace and delete the
// tool; run it with -race. After each change, the next call must see the new schema.
func TestConcurrentSchemaChanges(t *testing.T) {
	g := New()
	srv, _ := weatherServer(t, g)
	minimum := func(n int) mcp.Tool {
		return mcp.NewToolWithRawSchema("weather", "", json.RawMessage(fmt.Sprintf(`{"type":"object","properties":{"days":{"type":"integer","minimum":%d}}}`, n)))
	}
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				invoke(t, srv, nil, "weather", map[string]any{"location": "Paris", "days": i % 7})
			}
		}()
	}
	for i := 0; i < 200; i++ {
		n := i % 5
		srv.AddTool(minimum(n), forecast(new(atomic.Int64)))
		text, isErr := invoke(t, srv, nil, "weather", map[string]any{"days": n - 1})
		if want := fmt.Sprintf("Invalid arguments: property 'days' must be at least %d", n); text != want || !isErr {
			t.Fatalf("after change %d: %q, want %q", i, text, want)
		}
		if _, isErr := invoke(t, srv, nil, "weather", map[string]any{"days": n}); isErr {
			t.Fatalf("after change %d: valid call refused", i)
		}
		if i%50 == 49 {
			srv.DeleteTools("weather")
		}
	}
	close(stop)
	wg.Wait()
}

func BenchmarkToolCall(b *testing.B) {
	valid := []byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"weather","arguments":{"location": "Paris", "days": 2}}}`)
	invalid := []byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"weather","arguments":{"days": 2.5, "units": "k", "x": 1}}}`)
	passthrough := func(next server.ToolHandlerFunc) server.ToolHandlerFunc {
		return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) { return next(ctx, req) }
	}
	reading := []byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"reading","arguments":{"station":"Orly"}}}`)
	badReading := []byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"reading","arguments":{"station":"bad"}}}`)
	outputs := server.WithToolHandlerMiddleware(New(guard.WithOutputValidation()).Middleware())
	variants := []struct {
		name string
		opts []server.ServerOption
		msg  []byte
		err  bool
	}{
		{"passthrough", []server.ServerOption{server.WithToolHandlerMiddleware(passthrough)}, valid, false},
		{"mcpvalidate", []server.ServerOption{server.WithToolHandlerMiddleware(Middleware())}, valid, false},
		{"builtin", []server.ServerOption{server.WithInputSchemaValidation()}, valid, false},
		{"mcpvalidate-invalid", []server.ServerOption{server.WithToolHandlerMiddleware(Middleware())}, invalid, true},
		{"mcpvalidate-invalid-meta", []server.ServerOption{server.WithToolHandlerMiddleware(New(guard.WithViolationMeta()).Middleware())}, invalid, true},
		{"builtin-invalid", []server.ServerOption{server.WithInputSchemaValidation()}, invalid, true},
		{"output-passthrough", []server.ServerOption{server.WithToolHandlerMiddleware(passthrough)}, reading, false},
		{"output-valid", []server.ServerOption{outputs}, reading, false},
		{"output-invalid", []server.ServerOption{outputs}, badReading, true},
		{"builtin-output", []server.ServerOption{server.WithOutputSchemaValidation()}, reading, false},
		{"builtin-output-invalid", []server.ServerOption{server.WithOutputSchemaValidation()}, badReading, true},
	}
	for _, v := range variants {
		b.Run(v.name, func(b *testing.B) {
			srv, _ := weatherServer(b, nil, v.opts...)
			srv.AddTool(mcp.NewTool("reading", mcp.WithString("station", mcp.Required()),
				mcp.WithRawOutputSchema(json.RawMessage(readingSchema))), readingHandler)
			ctx := context.Background()
			out, _ := json.Marshal(srv.HandleMessage(ctx, v.msg))
			if isErr := strings.Contains(string(out), `"isError":true`); isErr != v.err {
				b.Fatalf("unexpected verdict: %s", out)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				if _, err := json.Marshal(srv.HandleMessage(ctx, v.msg)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func TestLoggerReportsRefusalsAndBrokenSchemas(t *testing.T) {
	var buf strings.Builder
	logger := slog.New(slog.NewTextHandler(&buf, nil))
	srv, _ := weatherServer(t, New(guard.WithLogger(logger)))
	srv.AddTool(mcp.NewToolWithRawSchema("broken", "", json.RawMessage(`{"type":"strnig"}`)), forecast(new(atomic.Int64)))
	invoke(t, srv, nil, "weather", map[string]any{"location": "Paris", "days": "two"})
	invoke(t, srv, nil, "weather", map[string]any{"location": "Paris"})
	invoke(t, srv, nil, "weather", map[string]any{"location": "Paris"})
	invoke(t, srv, nil, "broken", map[string]any{})
	out := buf.String()
	for _, want := range []string{"level=INFO msg=\"mcpvalidate: tool call refused\" tool=weather", "kinds=[type] paths=[days]",
		"level=INFO msg=\"mcpvalidate: tool call repaired\" tool=weather session=\"\" client=\"\" retries=1", "level=ERROR", "tool=broken", `unknown type`} {
		if !strings.Contains(out, want) {
			t.Errorf("log lacks %q:\n%s", want, out)
		}
	}
	if strings.Count(out, "\n") != 3 || strings.Contains(out, "two") {
		t.Errorf("want three lines (an accepted call that repairs nothing is logged at Debug only) and no argument values:\n%s", out)
	}
}

// TestReportOnly runs the same calls through an enforcing guard and a report-only one: the
// report-only server runs every handler, and its events, log lines and counters report the
// same refusals, marked as having run.
func TestReportOnly(t *testing.T) {
	type run struct {
		events []guard.Event
		log    strings.Builder
		calls  atomic.Int64
		texts  []string
		stats  []guard.ToolStats
	}
	calls := []struct {
		tool string
		args map[string]any
	}{
		{"weather", map[string]any{"location": 12, "days": "x"}},
		{"weather", map[string]any{"location": "Paris"}},
		{"broken", map[string]any{}},
	}
	do := func(opts ...Option) *run {
		r := &run{}
		g := New(append(opts, guard.WithObserver(func(e guard.Event) { r.events = append(r.events, e) }),
			guard.WithLogger(slog.New(slog.NewTextHandler(&r.log, nil))))...)
		srv := server.NewMCPServer("weather", "1.0.0", server.WithToolHandlerMiddleware(g.Middleware()))
		srv.AddTool(mcp.NewToolWithRawSchema("weather", "", json.RawMessage(weatherSchema)), forecast(&r.calls))
		srv.AddTool(mcp.NewToolWithRawSchema("broken", "", json.RawMessage(`{"type":"strnig"}`)), forecast(&r.calls))
		session := &toolSession{id: "s1", ch: make(chan mcp.JSONRPCNotification, 10)}
		if err := srv.RegisterSession(context.Background(), session); err != nil {
			t.Fatal(err)
		}
		for _, c := range calls {
			text, _ := invoke(t, srv, session, c.tool, c.args)
			r.texts = append(r.texts, text)
		}
		r.stats = g.Guard().Stats()
		return r
	}
	enforce, report := do(), do(guard.WithReportOnly())
	if enforce.calls.Load() != 1 || report.calls.Load() != int64(len(calls)) {
		t.Errorf("handlers ran %d times enforcing, %d report-only; want 1 and %d", enforce.calls.Load(), report.calls.Load(), len(calls))
	}
	if !strings.HasPrefix(report.texts[0], "Sunny in") || !strings.HasPrefix(enforce.texts[0], refusalPrefix) {
		t.Errorf("answers to the invalid call: enforcing %q, report-only %q", enforce.texts[0], report.texts[0])
	}
	if len(enforce.events) != len(calls) || len(report.events) != len(calls) {
		t.Fatalf("%d and %d events, want %d", len(enforce.events), len(report.events), len(calls))
	}
	for i, e := range enforce.events {
		r := report.events[i]
		if e.ReportOnly || !r.ReportOnly {
			t.Errorf("event %d: ReportOnly %v enforcing, %v report-only", i, e.ReportOnly, r.ReportOnly)
		}
		if r.Outcome != e.Outcome || !reflect.DeepEqual(r.Violations, e.Violations) || (r.Err == nil) != (e.Err == nil) {
			t.Errorf("event %d differs: enforcing %+v, report-only %+v", i, e, r)
		}
	}
	for _, want := range []string{`msg="mcpvalidate: tool call would be refused; it ran (report-only)" tool=weather`,
		"kinds=\"[type type]\" paths=\"[days location]\"", "calls would be refused and run (report-only)"} {
		if !strings.Contains(report.log.String(), want) {
			t.Errorf("report-only log lacks %q:\n%s", want, report.log.String())
		}
	}
	wantStats := func(unenforced uint64) []guard.ToolStats {
		return []guard.ToolStats{{Tool: "broken", SchemaBroken: 1, Unenforced: unenforced}, {Tool: "weather", Accepted: 1, Refused: 1, Unenforced: unenforced}}
	}
	// A refusal the model never saw is not repaired by the next call.
	if want := wantStats(1); !reflect.DeepEqual(report.stats, want) {
		t.Errorf("report-only stats %+v, want %+v", report.stats, want)
	}
	want := wantStats(0)
	want[1].Repaired, want[1].Retries = 1, 1
	if !reflect.DeepEqual(enforce.stats, want) {
		t.Errorf("enforcing stats %+v, want %+v", enforce.stats, want)
	}
}

// TestRepairsAfterAbandonedSessions: more sessions than the guard remembers end with a
// refusal and are never reported ended; a later session's repair is still counted.
func TestRepairsAfterAbandonedSessions(t *testing.T) {
	if testing.Short() {
		t.Skip("full tier: runs without -short")
	}
	g := New()
	srv, _ := weatherServer(t, g)
	for i := range 12_000 {
		s := &toolSession{id: "gone-" + strconv.Itoa(i), ch: make(chan mcp.JSONRPCNotification, 1)}
		if err := srv.RegisterSession(context.Background(), s); err != nil {
			t.Fatal(err)
		}
		invoke(t, srv, s, "weather", map[string]any{"days": 1})
	}
	live := &toolSession{id: "live", ch: make(chan mcp.JSONRPCNotification, 1)}
	if err := srv.RegisterSession(context.Background(), live); err != nil {
		t.Fatal(err)
	}
	invoke(t, srv, live, "weather", map[string]any{"days": 1})
	invoke(t, srv, live, "weather", map[string]any{"location": "Paris"})
	if st := g.Guard().Stats()[0]; st.Repaired != 1 || st.Retries != 1 {
		t.Errorf("stats %+v, want the live session's repair counted", st)
	}
	if held := g.Guard().SessionsAwaitingRepair(); held > 10_000 {
		t.Errorf("%d sessions awaiting repair, want at most 10,000", held)
	}
}

// TestRetriedCallIsChecked checks a call retried with the answers to the server's input
// requests (2026-07-28's multi round-trip) on its arguments again, and never reads
// inputResponses or requestState as arguments.
func TestRetriedCallIsChecked(t *testing.T) {
	const answers = `"inputResponses":{"unit":{"action":"accept","content":{"location":"Oslo","days":"many"}}},"requestState":"{\"location\":\"Oslo\"}"`
	for _, modern := range protocols() {
		srv, calls := weatherServer(t, New())
		got := call(t, srv, modern, "weather", `{"location":"Oslo","days":"2"},`+answers)
		sameRefusal(t, got, "Invalid arguments: property 'days' must be integer", modern, false)
		got = call(t, srv, modern, "weather", `{"days":2},`+answers)
		sameRefusal(t, got, "Invalid arguments: missing required property 'location'", modern, false)
		if got := call(t, srv, modern, "weather", `{"location":"Paris","days":2},`+answers); calls.Load() != 1 || strings.Contains(got, "isError") {
			t.Errorf("modern=%v: a valid retried call was answered %s; the handler ran %d times", modern, got, calls.Load())
		}
	}
}
