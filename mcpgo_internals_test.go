package mcpvalidate

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"unsafe"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/mcpvalidate/mcpvalidate/guard"
)

// streamableSession opens a session on srv as mcp-go's streamable HTTP transport does, with
// an initialize request, and returns it.
func streamableSession(t testing.TB, srv *server.MCPServer) server.ClientSession {
	t.Helper()
	var opened atomic.Pointer[server.ClientSession]
	hooks := srv.GetHooks()
	if hooks == nil {
		hooks = &server.Hooks{}
		server.WithHooks(hooks)(srv)
	}
	hooks.AddOnRegisterSession(func(_ context.Context, s server.ClientSession) { opened.Store(&s) })
	body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26",` +
		`"clientInfo":{"name":"test-client","version":"0.1"},"capabilities":{}}}`
	req := httptest.NewRequest("POST", "/mcp", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	rec := httptest.NewRecorder()
	server.NewStreamableHTTPServer(srv).ServeHTTP(rec, req)
	s := opened.Load()
	if s == nil {
		t.Fatalf("no session registered: %d %s", rec.Code, rec.Body)
	}
	return *s
}

// sseSession opens a session on srv as mcp-go's SSE transport does, with a stream that stays
// open until the test ends, and returns it.
func sseSession(t testing.TB, srv *server.MCPServer) server.ClientSession {
	t.Helper()
	opened := make(chan server.ClientSession, 1)
	hooks := srv.GetHooks()
	if hooks == nil {
		hooks = &server.Hooks{}
		server.WithHooks(hooks)(srv)
	}
	hooks.AddOnRegisterSession(func(_ context.Context, s server.ClientSession) { opened <- s })
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		server.NewSSEServer(srv).ServeHTTP(httptest.NewRecorder(), httptest.NewRequestWithContext(ctx, "GET", "/sse", nil))
	}()
	t.Cleanup(func() { cancel(); <-done })
	select {
	case s := <-opened:
		return s
	case <-done:
		t.Fatal("the SSE stream ended without a session")
		return nil
	}
}

// sessionTools returns n tools named s0, s1, … with the weather schema and the handler h.
func sessionTools(n int, h server.ToolHandlerFunc) []server.ServerTool {
	tools := make([]server.ServerTool, n)
	for i := range tools {
		tools[i] = server.ServerTool{Tool: mcp.NewToolWithRawSchema("s"+strconv.Itoa(i), "", json.RawMessage(weatherSchema)), Handler: h}
	}
	return tools
}

// bytesPerRun is testing.AllocsPerRun for bytes: the bytes f allocates, averaged over runs
// after one run to warm up.
func bytesPerRun(runs int, f func()) float64 {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	f()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range runs {
		f()
	}
	runtime.ReadMemStats(&after)
	return float64(after.TotalAlloc-before.TotalAlloc) / float64(runs)
}

// TestToolLookupCost: finding the called tool costs a call what it costs a pass-through
// middleware, whatever number of tools its streamable HTTP session holds, for a server
// tool and for a session tool alike.
func TestToolLookupCost(t *testing.T) {
	for _, n := range []int{0, 100, 1000} {
		for _, tool := range []string{"weather", "s0"} {
			if tool == "s0" && n == 0 {
				continue
			}
			t.Run(strconv.Itoa(n)+"/"+tool, func(t *testing.T) {
				cost := func(mw server.ToolHandlerMiddleware) (allocs, bytes float64) {
					var calls atomic.Int64
					srv, _ := weatherServer(t, nil, server.WithToolHandlerMiddleware(mw))
					session := streamableSession(t, srv)
					if err := srv.AddSessionTools(session.SessionID(), sessionTools(n, forecast(&calls))...); err != nil {
						t.Fatal(err)
					}
					ctx := srv.WithContext(context.Background(), session)
					msg := []byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"` + tool + `","arguments":{"location":"Paris","days":2}}}`)
					if out, _ := json.Marshal(srv.HandleMessage(ctx, msg)); !strings.Contains(string(out), "Sunny in Paris") {
						t.Fatalf("the call was not answered by its handler: %s", out)
					}
					call := func() { srv.HandleMessage(ctx, msg) }
					return testing.AllocsPerRun(50, call), bytesPerRun(50, call)
				}
				passAllocs, passBytes := cost(passthrough)
				allocs, bytes := cost(Middleware())
				t.Logf("pass-through %.0f allocs %.0f B, mcpvalidate %.0f allocs %.0f B", passAllocs, passBytes, allocs, bytes)
				if allocs > 1.1*passAllocs || bytes > 1.1*passBytes {
					t.Errorf("a call allocates %.0f times, %.0f bytes; a pass-through's %.0f times, %.0f bytes: want within 1.1×",
						allocs, bytes, passAllocs, passBytes)
				}
			})
		}
	}
}

// TestSessionLayouts: the tools of mcp-go's streamable HTTP and SSE sessions are read where
// those sessions keep them, without allocating, and what is read is what GetSessionTools
// answers, session by session, as tools come and go; any other session type is asked
// GetSessionTools.
func TestSessionLayouts(t *testing.T) {
	type streamableHttpSession struct{ tools *struct{} } // mcp-go's name, not its type
	cases := []struct {
		name string
		open func(testing.TB, *server.MCPServer) server.ClientSession
		kind storeKind
	}{
		{"streamable HTTP", streamableSession, sharedStore},
		{"SSE", sseSession, ownStore},
		{"other", func(_ testing.TB, srv *server.MCPServer) server.ClientSession {
			s := &toolSession{id: "other-" + strconv.Itoa(int(otherSessions.Add(1))), ch: make(chan mcp.JSONRPCNotification, 10)}
			if err := srv.RegisterSession(context.Background(), s); err != nil {
				t.Fatal(err)
			}
			return s
		}, unknownStore},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := server.NewMCPServer("weather", "1")
			a, b := c.open(t, srv), c.open(t, srv)
			if got := layoutOf(reflect.TypeOf(a)).kind; got != c.kind {
				t.Fatalf("layout %d, want %d: has mcp-go changed where its sessions keep their tools?", got, c.kind)
			}
			agree := func(when string) {
				t.Helper()
				for _, s := range []server.ClientSession{a, b} {
					all := s.(server.SessionWithTools).GetSessionTools()
					for _, name := range []string{"s0", "s1", "s2", "absent"} {
						st, ok := sessionTool(s.(server.SessionWithTools), name)
						want, wantOK := all[name]
						if ok != wantOK || funcPointer(st.Handler) != funcPointer(want.Handler) || st.Tool.Name != want.Tool.Name {
							t.Errorf("%s: %s of session %s: found %v %q, want %v %q", when, name, s.SessionID(), ok, st.Tool.Name, wantOK, want.Tool.Name)
						}
					}
				}
			}
			agree("none")
			if err := srv.AddSessionTools(a.SessionID(), sessionTools(2, forecast(new(atomic.Int64)))...); err != nil {
				t.Fatal(err)
			}
			agree("two in a")
			if err := srv.AddSessionTools(b.SessionID(), sessionTools(3, forecast(new(atomic.Int64)))[2]); err != nil {
				t.Fatal(err)
			}
			agree("one in b")
			if err := srv.DeleteSessionTools(a.SessionID(), "s0"); err != nil {
				t.Fatal(err)
			}
			agree("one deleted from a")
			if c.kind == unknownStore {
				return
			}
			if n := testing.AllocsPerRun(100, func() { sessionTool(a.(server.SessionWithTools), "s1") }); n != 0 {
				t.Errorf("reading a session tool allocates %v times", n)
			}
		})
	}
	if layoutOf(reflect.TypeOf(&streamableHttpSession{tools: nil})).kind != unknownStore || layoutOf(reflect.TypeFor[toolSession]()).kind != unknownStore {
		t.Error("a type that only looks like mcp-go's session is read as one")
	}
}

var otherSessions atomic.Int64

// TestToolLookupFallback: where reflect does not find mcp-go's registries, the adapter asks
// mcp-go's methods, and a session tool still shadows the server's tool of its name.
func TestToolLookupFallback(t *testing.T) {
	srv, calls := weatherServer(t, New())
	session := streamableSession(t, srv)
	typ := reflect.TypeOf(session)
	saved := serverTools
	sessionLayouts.Store(typ, sessionLayout{})
	serverTools.ok = false
	defer func() {
		serverTools = saved
		sessionLayouts.Delete(typ)
	}()
	loose := mcp.NewToolWithRawSchema("weather", "", json.RawMessage(`{"type":"object"}`))
	if err := srv.AddSessionTool(session.SessionID(), loose, forecast(calls)); err != nil {
		t.Fatal(err)
	}
	if text, isErr := invoke(t, srv, nil, "weather", map[string]any{"location": "Paris"}); isErr {
		t.Errorf("the server's tool refused a valid call: %q", text)
	}
	if text, isErr := invoke(t, srv, nil, "weather", map[string]any{"days": 1}); !isErr {
		t.Errorf("the server's tool accepted a call without location: %q", text)
	}
	if text, isErr := invoke(t, srv, session, "weather", map[string]any{"days": 1}); isErr {
		t.Errorf("the session's tool refused a call its schema allows: %q", text)
	}
}

// valueSession is a session type that is not a pointer.
type valueSession struct{ tools map[string]server.ServerTool }

func (valueSession) SessionID() string                                   { return "value" }
func (valueSession) NotificationChannel() chan<- mcp.JSONRPCNotification { return nil }
func (valueSession) Initialize()                                         {}
func (valueSession) Initialized() bool                                   { return true }
func (s valueSession) GetSessionTools() map[string]server.ServerTool     { return s.tools }
func (valueSession) SetSessionTools(map[string]server.ServerTool)        {}

// TestValueSession: a session that is not a pointer is asked GetSessionTools.
func TestValueSession(t *testing.T) {
	s := valueSession{tools: map[string]server.ServerTool{"s0": sessionTools(1, nil)[0]}}
	if st, ok := sessionTool(s, "s0"); !ok || st.Tool.Name != "s0" {
		t.Errorf("found %v %q, want the session's s0", ok, st.Tool.Name)
	}
	if _, ok := sessionTool(s, "s1"); ok {
		t.Error("found a tool the session does not have")
	}
}

// TestMCPGoInternalsFound: every internal of mcp-go that mcpgo_internals.go reads is found
// in the release in the build, of the type expected, and what is read there is what
// mcp-go's own methods answer, through a real server with sessions of both HTTP
// transports. .ci/run runs it on the oldest and the newest release tested, and on the
// newest on the module proxy: a release that moves one of them fails here.
func TestMCPGoInternalsFound(t *testing.T) {
	if !serverTools.ok {
		t.Error("MCPServer.tools or MCPServer.toolsMu: not found, or of another type")
	}
	if !middlewareList.ok {
		t.Error("MCPServer.toolHandlerMiddlewares or MCPServer.toolMiddlewareMu: not found, or of another type")
	}
	if !schemaFields.known {
		t.Errorf("ToolInputSchema has a field keyOf does not key on: %v", reflect.VisibleFields(reflect.TypeFor[mcp.ToolInputSchema]()))
	}
	// A release that keeps the order of the properties as written has PropertyOrder.
	var schema mcp.ToolInputSchema
	if err := json.Unmarshal([]byte(`{"type":"object","properties":{"b":{"type":"string"},"a":{"type":"string"}}}`), &schema); err != nil {
		t.Fatal(err)
	}
	text, _ := json.Marshal(schema)
	if keeps := strings.Index(string(text), `"b"`) < strings.Index(string(text), `"a"`); keeps != schemaFields.order.ok {
		t.Errorf("the release keeps the properties' order: %v; keyOf reads PropertyOrder: %v (%s)", keeps, schemaFields.order.ok, text)
	}
	// A release that sends a result's resultType has results that ask for input.
	var asking mcp.CallToolResult
	if err := json.Unmarshal([]byte(`{"resultType":"input_required","content":[]}`), &asking); err != nil {
		t.Fatal(err)
	}
	text, _ = json.Marshal(asking)
	if asks := strings.Contains(string(text), "input_required"); asks != needsInput(&asking) || asks != resultTypeField.ok {
		t.Errorf("the release sends resultType: %v; needsInput reads it: %v (%s)", asks, needsInput(&asking), text)
	}

	f, f2 := newTransferHandler(new(transfers), 1), newTransferHandler(new(transfers), 2)
	if funcPointer(f) == funcPointer(f2) || funcPointer(f) != funcPointer(server.ToolHandlerFunc(f)) || !sameCode(f, f2) || sameCode(f, looseHandler) {
		t.Error("funcPointer or codePointer does not tell func values apart as expected")
	}
	p := mcp.CallToolParams{Name: "weather", Arguments: map[string]any{"location": "Paris"}, RawArguments: json.RawMessage(`{"location":"Paris"}`)}
	same, other := p, p
	other.Arguments = map[string]any{"location": "Paris"}
	if identify(&p) != identify(&same) || identify(&p) == identify(&other) {
		t.Error("identify does not tell the arguments' values apart as expected")
	}

	g := New()
	srv, calls := weatherServer(t, g)
	if !g.last(srv) {
		t.Error("the guard's middleware, the server's only one, is not found last")
	}
	st, ok := serverTool(srv, "weather")
	if want := srv.GetTool("weather"); !ok || want == nil || funcPointer(st.Handler) != funcPointer(want.Handler) || string(st.Tool.RawInputSchema) != string(want.Tool.RawInputSchema) {
		t.Error("the server's tool read is not the one GetTool answers")
	}
	// The schema checked is the one tools/list advertises, for a schema built of mcp-go's struct.
	built := mcp.NewTool("built", mcp.WithString("b", mcp.Required()), mcp.WithNumber("a", mcp.Max(100)))
	srv.AddTool(built, forecast(calls))
	listed := srv.HandleMessage(context.Background(), []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	out, _ := json.Marshal(listed)
	var list struct {
		Result struct {
			Tools []struct{ Name, InputSchema json.RawMessage }
		}
	}
	if err := json.Unmarshal(out, &list); err != nil {
		t.Fatal(err)
	}
	checked, _ := schemaOf(&built)
	for _, tool := range list.Result.Tools {
		if string(tool.Name) == `"built"` && !jsonEqual(t, tool.InputSchema, checked) {
			t.Errorf("tools/list advertises %s; the guard checks %s", tool.InputSchema, checked)
		}
	}

	// A session's tool shadows the server's: read where each transport keeps it.
	strict := mcp.NewToolWithRawSchema("weather", "", json.RawMessage(`{"type":"object","properties":{"location":{"type":"string"},"days":{"type":"integer"}},"required":["location","days"]}`))
	for _, open := range []struct {
		name string
		open func(testing.TB, *server.MCPServer) server.ClientSession
		kind storeKind
	}{{"streamable HTTP", streamableSession, sharedStore}, {"SSE", sseSession, ownStore}} {
		s := open.open(t, srv)
		if err := srv.AddSessionTool(s.SessionID(), strict, forecast(calls)); err != nil {
			t.Fatal(err)
		}
		if l := layoutOf(reflect.TypeOf(s)); l.kind != open.kind {
			t.Errorf("%s: the session's tools are not found where they were (%d, want %d)", open.name, l.kind, open.kind)
		}
		before := calls.Load()
		if text, isErr := invoke(t, srv, s, "weather", map[string]any{"location": "Paris"}); !isErr || !strings.HasPrefix(text, refusalPrefix) {
			t.Errorf("%s: a call its session's tool refuses: %q", open.name, text)
		}
		if text, isErr := invoke(t, srv, s, "weather", map[string]any{"location": "Paris", "days": 1}); isErr || calls.Load() != before+1 {
			t.Errorf("%s: a valid call: %q", open.name, text)
		}
	}
	if text, isErr := invoke(t, srv, nil, "weather", map[string]any{"location": "Paris"}); isErr {
		t.Errorf("the server's tool refused a call its schema allows: %q", text)
	}
}

func jsonEqual(t *testing.T, a, b []byte) bool {
	t.Helper()
	var x, y any
	if err := json.Unmarshal(a, &x); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &y); err != nil {
		t.Fatal(err)
	}
	return reflect.DeepEqual(x, y)
}

// TestMCPGoInternalsMissing: on a release where an internal is not found, alone or all at
// once, the guard still checks every call: the server's tools, the sessions' tools that
// shadow them, results against their outputSchema, and a tool registered again under a
// call it has served before. Nothing invalid reaches a handler.
func TestMCPGoInternalsMissing(t *testing.T) {
	forget := map[string]func(t *testing.T){
		"server tools":    func(t *testing.T) { restore(t, &serverTools); serverTools.ok = false },
		"middleware list": func(t *testing.T) { restore(t, &middlewareList); middlewareList.ok = false },
		"schema fields":   func(t *testing.T) { restore(t, &schemaFields); schemaFields.known = false },
		"result type":     func(t *testing.T) { restore(t, &resultTypeField); resultTypeField.ok = false },
		"session layouts": func(t *testing.T) {
			for _, typ := range []reflect.Type{streamableHttpSessionType, sseSessionType} {
				sessionLayouts.Store(typ, sessionLayout{})
				t.Cleanup(func() { sessionLayouts.Delete(typ) })
			}
		},
	}
	openSessionTypes(t)
	names := []string{"server tools", "middleware list", "schema fields", "result type", "session layouts"}
	for _, name := range append(names, "all") {
		t.Run(name, func(t *testing.T) {
			for _, n := range names {
				if n == name || name == "all" {
					forget[n](t)
				}
			}
			stillValidates(t)
		})
	}
}

// restore puts *v back as it is now when the test ends.
func restore[T any](t *testing.T, v *T) {
	saved := *v
	t.Cleanup(func() { *v = saved })
}

// The types of mcp-go's streamable HTTP and SSE sessions, which mcp-go does not name.
var streamableHttpSessionType, sseSessionType reflect.Type

func openSessionTypes(t *testing.T) {
	srv := server.NewMCPServer("types", "1")
	streamableHttpSessionType, sseSessionType = reflect.TypeOf(streamableSession(t, srv)), reflect.TypeOf(sseSession(t, srv))
}

// stillValidates serves tools whose calls and results the guard must refuse, and fails t
// if one reaches its handler or its client.
func stillValidates(t *testing.T) {
	t.Helper()
	g := New(guard.WithOutputValidation())
	srv, calls := weatherServer(t, g)
	if text, isErr := invoke(t, srv, nil, "weather", map[string]any{"days": 1}); !isErr || !strings.HasPrefix(text, refusalPrefix) || calls.Load() != 0 {
		t.Errorf("a call without location: %q", text)
	}
	if text, isErr := invoke(t, srv, nil, "weather", map[string]any{"location": "Paris"}); isErr || calls.Load() != 1 {
		t.Errorf("a valid call: %q", text)
	}
	built := mcp.NewTool("built", mcp.WithNumber("amount", mcp.Required(), mcp.Max(100)))
	srv.AddTool(built, forecast(calls))
	if text, isErr := invoke(t, srv, nil, "built", map[string]any{"amount": 1000}); !isErr || !strings.HasPrefix(text, refusalPrefix) || calls.Load() != 1 {
		t.Errorf("an amount over the maximum of a schema built of mcp-go's struct: %q", text)
	}
	strict := mcp.NewToolWithRawSchema("weather", "", json.RawMessage(`{"type":"object","properties":{"location":{"type":"string"},"days":{"type":"integer"}},"required":["location","days"]}`))
	for _, open := range []func(testing.TB, *server.MCPServer) server.ClientSession{streamableSession, sseSession} {
		s := open(t, srv)
		if err := srv.AddSessionTool(s.SessionID(), strict, forecast(calls)); err != nil {
			t.Fatal(err)
		}
		if text, isErr := invoke(t, srv, s, "weather", map[string]any{"location": "Paris"}); !isErr || !strings.HasPrefix(text, refusalPrefix) || calls.Load() != 1 {
			t.Errorf("%T: a call its session's tool refuses: %q", s, text)
		}
	}
	reading, _ := readingServer(t, g, structured(map[string]any{"celsius": "4"}))
	if text, isErr := invoke(t, reading, nil, "reading", map[string]any{"station": "Orly"}); !isErr || text != badResultText {
		t.Errorf("a result its outputSchema refuses: %q", text)
	}
	registeredAgain(t, Middleware(), func(srv *server.MCPServer, _ server.ClientSession, _ *transfers) {
		srv.AddTool(transferTool(looseTransfer), looseHandler)
	}, true, true)
}

// TestMCPGoInternalsLookAlikes: the reads are found only in types of exactly the shape
// expected; a look-alike of another shape leaves the adapter to its fallback, and the
// fallbacks still find what mcp-go answers.
func TestMCPGoInternalsLookAlikes(t *testing.T) {
	type result struct{ ResultType string }
	type intResult struct{ ResultType int }
	type pointerResult struct{ *result }
	type embeddedResult struct {
		_ int64
		result
	}
	if at := resultTypeOffset(reflect.TypeFor[embeddedResult]()); !at.ok || at.offset != unsafe.Offsetof(embeddedResult{}.result) {
		t.Errorf("ResultType in a struct embedded by value: %+v", at)
	}
	for _, typ := range []reflect.Type{reflect.TypeFor[intResult](), reflect.TypeFor[pointerResult](), reflect.TypeFor[struct{ Other string }]()} {
		if resultTypeOffset(typ).ok {
			t.Errorf("ResultType found in %v", typ)
		}
	}

	type schema struct {
		Defs                 map[string]any
		Type                 string
		Properties           map[string]any
		Required             []string
		AdditionalProperties any
	}
	type ordered struct {
		schema
		PropertyOrder []string
	}
	type extra struct {
		Defs, Properties map[string]any
		Type             string
		Required         []string
		Not              any
	}
	type otherType struct {
		Type     string
		Required []any
	}
	type v15 struct { // v1.5.0's
		Defs                 map[string]any
		Type                 string
		Types                []string
		Properties           map[string]any
		Required             []string
		AdditionalProperties any
		AdditionalFields     map[string]any
		PropertyOrder        []string
	}
	if at := schemaFieldsOf(reflect.TypeFor[schema]()); !at.known || at.order.ok || at.types.ok || at.fields.ok {
		t.Errorf("the fields of v0.56.0's ToolInputSchema: %+v", at)
	}
	if at := schemaFieldsOf(reflect.TypeFor[v15]()); !at.known || at.order != (laterField{unsafe.Offsetof(v15{}.PropertyOrder), true}) ||
		at.types != (laterField{unsafe.Offsetof(v15{}.Types), true}) || at.fields != (laterField{unsafe.Offsetof(v15{}.AdditionalFields), true}) {
		t.Errorf("the fields of v1.5.0's ToolInputSchema: %+v", at)
	}
	for _, typ := range []reflect.Type{reflect.TypeFor[ordered](), reflect.TypeFor[extra](), reflect.TypeFor[otherType](), reflect.TypeFor[string]()} {
		if schemaFieldsOf(typ).known {
			t.Errorf("keyOf keys %v by its fields' identities", typ)
		}
	}
	// Keyed on its text, a schema changed in place has another key.
	restore(t, &schemaFields)
	schemaFields.known = false
	s := mcp.NewTool("t", mcp.WithString("a")).InputSchema
	before := keyOf(nil, &s)
	s.Properties["b"] = map[string]any{"type": "string"}
	if keyOf(nil, &s) == before {
		t.Error("a schema keyed on its text keeps its key when its text changes")
	}

	// A session that keeps something else where the layout says tools are is asked
	// GetSessionTools.
	odd := &oddStoreSession{toolSession: toolSession{id: "odd", tools: map[string]server.ServerTool{"s0": sessionTools(1, nil)[0]}}}
	odd.store.Store("s0", &server.ServerTool{})
	typ := reflect.TypeOf(odd)
	sessionLayouts.Store(typ, sessionLayout{kind: ownStore, store: unsafe.Offsetof(odd.store)})
	defer sessionLayouts.Delete(typ)
	if st, ok := sessionTool(odd, "s0"); !ok || st.Tool.Name != "s0" {
		t.Errorf("found %v %q, want the session's s0 from GetSessionTools", ok, st.Tool.Name)
	}
	if _, ok := sessionTool(odd, "s1"); ok {
		t.Error("found a tool the session does not have")
	}
}

// oddStoreSession keeps pointers in the place of an SSE session's tools.
type oddStoreSession struct {
	toolSession
	store sync.Map
}
