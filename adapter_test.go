package mcpvalidate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"unsafe"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/mcpvalidate/mcpvalidate/guard"
)

const (
	strictTransfer = `{"type":"object","properties":{"amount":{"type":"number","maximum":100},"to":{"type":"string"}},"required":["amount","to"],"additionalProperties":false}`
	looseTransfer  = `{"type":"object"}`
)

// transfers counts the calls a transfer handler ran, and those it ran with an amount its
// own schema refuses.
type transfers struct{ ran, unchecked atomic.Int64 }

// handler is a transfer handler whose schema allows at most limit (no limit when < 0).
func (tr *transfers) handler(limit float64) server.ToolHandlerFunc {
	return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		tr.ran.Add(1)
		if limit >= 0 && req.GetFloat("amount", 0) > limit {
			tr.unchecked.Add(1)
		}
		return mcp.NewToolResultText("sent"), nil
	}
}

// newTransferHandler makes every handler of transfers from one place, as a server's
// handler factory would: called through a variable, it is not inlined, so its closures
// share their code.
var newTransferHandler = (*transfers).handler

func transferTool(schema string) mcp.Tool {
	return mcp.NewToolWithRawSchema("transfer", "", json.RawMessage(schema))
}

// looseHandler has code of its own, unlike the closures of transfers.handler.
func looseHandler(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	return mcp.NewToolResultText("sent, loosely"), nil
}

var attack = map[string]any{"amount": 1000000, "to": "attacker"}

// TestToolRegisteredAgainDuringACall registers the tool again from a tool filter, which
// mcp-go runs after choosing the handler and before the middleware: the handler chosen
// must never run on arguments its own schema refuses.
func TestToolRegisteredAgainDuringACall(t *testing.T) {
	cases := []struct {
		name    string
		replace func(srv *server.MCPServer, session server.ClientSession, loose *transfers)
	}{
		{"again, by a handler of other code", func(srv *server.MCPServer, _ server.ClientSession, _ *transfers) {
			srv.AddTool(transferTool(looseTransfer), looseHandler)
		}},
		{"again, by a closure of the same code", func(srv *server.MCPServer, _ server.ClientSession, loose *transfers) {
			srv.AddTool(transferTool(looseTransfer), newTransferHandler(loose, -1))
		}},
		{"removed", func(srv *server.MCPServer, _ server.ClientSession, _ *transfers) {
			srv.DeleteTools("transfer")
		}},
		{"shadowed by a session tool", func(srv *server.MCPServer, s server.ClientSession, _ *transfers) {
			if err := srv.AddSessionTool(s.SessionID(), transferTool(looseTransfer), looseHandler); err != nil {
				panic(err)
			}
		}},
	}
	// The guard's middleware as the server's last, or composed innermost into one
	// middleware with another, where it wraps the handler itself just the same.
	placements := []struct {
		name string
		mw   func() server.ToolHandlerMiddleware
	}{
		{"last", func() server.ToolHandlerMiddleware { return Middleware() }},
		{"innermost in a chain", func() server.ToolHandlerMiddleware { return chain(passthrough, Middleware()) }},
	}
	for _, c := range cases {
		for _, p := range placements {
			for _, warm := range []bool{false, true} { // a call before the attack, or none
				t.Run(fmt.Sprintf("%s/%s/warm=%v", c.name, p.name, warm), func(t *testing.T) {
					registeredAgain(t, p.mw(), c.replace, c.name != "removed", warm)
				})
			}
		}
	}
}

// registeredAgain calls transfer with an amount its strict handler's schema refuses, after
// replace registered it again from a tool filter, under the tool middleware mw.
func registeredAgain(t *testing.T, mw server.ToolHandlerMiddleware, replace func(*server.MCPServer, server.ClientSession, *transfers), remains, warm bool) {
	var strict, loose transfers
	var armed atomic.Bool
	var srv *server.MCPServer
	session := &toolSession{id: "s1", ch: make(chan mcp.JSONRPCNotification, 10)}
	srv = server.NewMCPServer("bank", "1",
		server.WithToolHandlerMiddleware(mw),
		server.WithToolFilter(func(ctx context.Context, tools []mcp.Tool) []mcp.Tool {
			if armed.CompareAndSwap(true, false) {
				replace(srv, session, &loose)
			}
			return tools
		}))
	if err := srv.RegisterSession(context.Background(), session); err != nil {
		t.Fatal(err)
	}
	srv.AddTool(transferTool(strictTransfer), newTransferHandler(&strict, 100))
	if warm {
		if text, isErr := invoke(t, srv, session, "transfer", map[string]any{"amount": 5, "to": "bob"}); isErr {
			t.Fatalf("valid call refused: %s", text)
		}
	}
	armed.Store(true)
	text, isErr := invoke(t, srv, session, "transfer", attack)
	if strict.unchecked.Load() != 0 {
		t.Fatal("the strict handler ran on an amount its schema refuses")
	}
	if !isErr || text != replacedText {
		t.Errorf("got %q (isError %v), want %q", text, isErr, replacedText)
	}
	if _, isErr := invoke(t, srv, session, "transfer", attack); remains && isErr {
		t.Error("the call again, to the new registration, was refused")
	}
}

// chain composes tool middleware into one, the first outermost, as servers' helpers do.
func chain(mws ...server.ToolHandlerMiddleware) server.ToolHandlerMiddleware {
	return func(next server.ToolHandlerFunc) server.ToolHandlerFunc {
		for _, mw := range slices.Backward(mws) {
			next = mw(next)
		}
		return next
	}
}

// passthrough is tool middleware that wraps the handler and changes nothing.
func passthrough(next server.ToolHandlerFunc) server.ToolHandlerFunc {
	return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) { return next(ctx, req) }
}

// TestBoundHandlerChecksItsOwnSchema puts other middleware inside the guard's, where the
// guard cannot see the handler: a handler bound with Handler checks its own schema.
func TestBoundHandlerChecksItsOwnSchema(t *testing.T) {
	var strict transfers
	var armed atomic.Bool
	var srv *server.MCPServer
	g := New()
	srv = server.NewMCPServer("bank", "1",
		server.WithToolHandlerMiddleware(g.Middleware()),
		server.WithToolHandlerMiddleware(passthrough),
		server.WithToolFilter(func(ctx context.Context, tools []mcp.Tool) []mcp.Tool {
			if armed.CompareAndSwap(true, false) {
				srv.AddTool(transferTool(looseTransfer), looseHandler)
			}
			return tools
		}))
	tool := transferTool(strictTransfer)
	srv.AddTool(tool, g.Handler(tool, strict.handler(100)))
	for range 3 {
		if text, isErr := invoke(t, srv, nil, "transfer", map[string]any{"amount": 5, "to": "bob"}); isErr {
			t.Fatalf("valid call refused: %s", text)
		}
	}
	if text, _ := invoke(t, srv, nil, "transfer", map[string]any{"amount": 500, "to": "bob", "memo": "x"}); text != "Invalid arguments: property 'amount' must be at most 100; unexpected property 'memo'" {
		t.Errorf("invalid call: %q", text)
	}
	if s := g.Guard().Stats(); len(s) != 1 || s[0].Accepted != 3 || s[0].Refused != 1 {
		t.Errorf("each call must be counted once: %+v", s)
	}
	armed.Store(true)
	text, isErr := invoke(t, srv, nil, "transfer", attack)
	if strict.unchecked.Load() != 0 || !isErr {
		t.Fatalf("the bound handler ran on an amount its schema refuses: %q", text)
	}
}

// TestBoundAliasForwardsOtherArguments: a bound handler that forwards to another bound to
// the same schema, with other arguments, has those checked, though the middleware (with
// other middleware inside it) checked the call's own arguments against that schema.
func TestBoundAliasForwardsOtherArguments(t *testing.T) {
	cases := []struct {
		name    string
		forward func(req mcp.CallToolRequest) mcp.CallToolRequest
	}{
		{"a new request", func(mcp.CallToolRequest) mcp.CallToolRequest {
			return mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "transfer", Arguments: attack}}
		}},
		{"the decoded arguments replaced", func(req mcp.CallToolRequest) mcp.CallToolRequest {
			req.Params.Arguments = attack // the wire's bytes left in RawArguments
			return req
		}},
		{"the same arguments", func(req mcp.CallToolRequest) mcp.CallToolRequest { return req }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var strict transfers
			g := New()
			srv := server.NewMCPServer("bank", "1",
				server.WithToolHandlerMiddleware(g.Middleware()), server.WithToolHandlerMiddleware(passthrough))
			v1, v2 := transferTool(strictTransfer), transferTool(strictTransfer)
			v2.Name = "send"
			transfer := g.Handler(v1, strict.handler(100))
			srv.AddTool(v1, transfer)
			srv.AddTool(v2, g.Handler(v2, func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return transfer(ctx, c.forward(req))
			}))
			text, isErr := invoke(t, srv, nil, "send", map[string]any{"amount": 5, "to": "bob"})
			if strict.unchecked.Load() != 0 {
				t.Fatal("the handler ran on forwarded arguments its schema refuses")
			}
			same := c.name == "the same arguments"
			if isErr == same || !same && text != refusalPrefix+"property 'amount' must be at most 100" {
				t.Errorf("got %q (isError %v)", text, isErr)
			}
			if s := g.Guard().Stats(); same && (s[0].Accepted != 1 || len(s) != 1) {
				t.Errorf("the same arguments checked again: %+v", s)
			}
		})
	}
}

// TestArgumentsEditedBeforeTheGuard: middleware outside the guard's that edits a call's
// arguments (a shim mapping a legacy client's argument names) and rewrites or clears
// RawArguments, as docs/mcp-go.md asks, has the edited arguments checked: the guard checks
// the raw bytes when there are any, and the handler reads the decoded map.
func TestArgumentsEditedBeforeTheGuard(t *testing.T) {
	for _, c := range []struct {
		name string
		raw  func(args map[string]any) json.RawMessage
	}{
		{"rewritten", func(args map[string]any) json.RawMessage { b, _ := json.Marshal(args); return b }},
		{"cleared", func(map[string]any) json.RawMessage { return nil }},
	} {
		t.Run(c.name, func(t *testing.T) {
			var strict transfers
			shim := func(next server.ToolHandlerFunc) server.ToolHandlerFunc {
				return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
					args := map[string]any{}
					for k, v := range req.GetArguments() {
						if k == "amt" {
							k = "amount"
						}
						args[k] = v
					}
					req.Params.Arguments, req.Params.RawArguments = args, c.raw(args)
					return next(ctx, req)
				}
			}
			srv := server.NewMCPServer("bank", "1", server.WithToolHandlerMiddleware(shim), server.WithToolHandlerMiddleware(New().Middleware()))
			srv.AddTool(transferTool(`{"type":"object","properties":{"amount":{"type":"number","maximum":100},"amt":{"type":"number"},"to":{"type":"string"}},"required":["to"]}`), strict.handler(100))
			text, isErr := invoke(t, srv, nil, "transfer", map[string]any{"amt": 1000000, "to": "attacker"})
			if strict.unchecked.Load() != 0 || !isErr || text != refusalPrefix+"property 'amount' must be at most 100" {
				t.Errorf("the handler ran %d times on an amount its schema refuses; answered %q (isError %v)", strict.unchecked.Load(), text, isErr)
			}
			if text, isErr := invoke(t, srv, nil, "transfer", map[string]any{"amt": 5, "to": "bob"}); isErr || strict.ran.Load() != 1 {
				t.Errorf("a valid call edited: %q (isError %v), handler ran %d times", text, isErr, strict.ran.Load())
			}
		})
	}
}

// TestCheckedMarkCost: marking what the middleware checked, for a bound handler inside
// other middleware, costs the call one allocation, the context it passes on.
func TestCheckedMarkCost(t *testing.T) {
	if raceDetector {
		t.Skip("the race detector drops sync.Pool's items")
	}
	msg := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"transfer","arguments":{"amount":5,"to":"bob"}}}`)
	allocs := func(bind bool) float64 {
		var strict transfers
		g := New(guard.WithOutputValidation())
		srv := server.NewMCPServer("bank", "1", server.WithToolHandlerMiddleware(g.Middleware()), server.WithToolHandlerMiddleware(passthrough))
		tool := transferTool(strictTransfer)
		tool.RawOutputSchema = json.RawMessage(`{"type":"object"}`)
		h := strict.handler(100)
		if bind {
			h = g.Handler(tool, h)
		}
		srv.AddTool(tool, h)
		n := testing.AllocsPerRun(100, func() { srv.HandleMessage(context.Background(), msg) })
		if strict.ran.Load() == 0 || g.Guard().Stats()[0].Accepted != uint64(strict.ran.Load()) {
			t.Fatalf("bound %v: ran %d, stats %+v", bind, strict.ran.Load(), g.Guard().Stats())
		}
		return n
	}
	if plain, bound := allocs(false), allocs(true); bound != plain+1 {
		t.Errorf("%v allocations a call with a bound handler, %v without: want one more", bound, plain)
	}
}

// TestBoundHandlerInnermost: with the middleware innermost, a bound handler is checked
// once, by itself.
func TestBoundHandlerInnermost(t *testing.T) {
	var strict transfers
	g := New()
	srv := server.NewMCPServer("bank", "1", server.WithToolHandlerMiddleware(g.Middleware()))
	tool := transferTool(strictTransfer)
	srv.AddTool(tool, g.Handler(tool, strict.handler(100)))
	invoke(t, srv, nil, "transfer", map[string]any{"amount": 5, "to": "bob"})
	invoke(t, srv, nil, "transfer", attack)
	if s := g.Guard().Stats(); len(s) != 1 || s[0].Accepted != 1 || s[0].Refused != 1 || strict.ran.Load() != 1 {
		t.Errorf("stats %+v, handler ran %d times", s, strict.ran.Load())
	}
}

// TestOtherGuardsBoundHandler: a guard's middleware checks a call whose handler another
// guard bound, by its own options, as it checks every other call.
func TestOtherGuardsBoundHandler(t *testing.T) {
	outer, inner := New(guard.WithOutputValidation()), New()
	srv := server.NewMCPServer("s", "1", server.WithToolHandlerMiddleware(outer.Middleware()))
	h := func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		r := mcp.NewToolResultText("a reading")
		r.StructuredContent = map[string]any{"celsius": "warm"}
		return r, nil
	}
	own := mcp.NewTool("own", mcp.WithString("station"))
	srv.AddTool(own, outer.Handler(own, h))
	tool := mcp.NewTool("reading", mcp.WithString("station", mcp.Required()), mcp.WithRawOutputSchema(json.RawMessage(readingSchema)))
	srv.AddTool(tool, inner.Handler(tool, h))
	if res := callResult(t, srv, "reading", `{"station":"Orly"}`); res["isError"] != true {
		t.Errorf("a result its outputSchema refuses passed the outer guard: %v", res)
	}
	if s := outer.Guard().Stats(); len(s) != 1 || s[0].Tool != "reading" || s[0].ResultRefused != 1 {
		t.Errorf("outer guard's stats %+v, want the result refused", s)
	}
	if s := inner.Guard().Stats(); len(s) != 1 || s[0].Accepted != 1 {
		t.Errorf("inner guard's stats %+v, want the call accepted", s)
	}
}

// TestMiddlewarePlacement: the guard knows, from the server, whether its middleware runs
// last, next to the handler, whatever was added before or after it.
func TestMiddlewarePlacement(t *testing.T) {
	if !middlewareList.ok {
		t.Fatal("this mcp-go keeps its tool middleware elsewhere: the guard cannot read that it runs last")
	}
	pass := func(next server.ToolHandlerFunc) server.ToolHandlerFunc { return next }
	g, other := New(), New()
	cases := []struct {
		name string
		mws  []server.ToolHandlerMiddleware
		last bool
	}{
		{"alone", []server.ToolHandlerMiddleware{g.Middleware()}, true},
		{"after another", []server.ToolHandlerMiddleware{pass, g.Middleware()}, true},
		{"before another", []server.ToolHandlerMiddleware{g.Middleware(), pass}, false},
		{"before another guard's", []server.ToolHandlerMiddleware{g.Middleware(), other.Middleware()}, false},
		{"innermost in a chain", []server.ToolHandlerMiddleware{chain(pass, passthrough, g.Middleware())}, true},
		{"outermost in a chain", []server.ToolHandlerMiddleware{chain(g.Middleware(), passthrough)}, false},
		{"innermost in another guard's chain", []server.ToolHandlerMiddleware{chain(g.Middleware(), other.Middleware())}, false},
		{"innermost in a chain, before another", []server.ToolHandlerMiddleware{chain(passthrough, g.Middleware()), pass}, false},
		{"a middleware that panics", []server.ToolHandlerMiddleware{func(server.ToolHandlerFunc) server.ToolHandlerFunc { panic("no") }}, false},
		{"none", nil, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := server.NewMCPServer("bank", "1")
			srv.Use(c.mws...)
			if got := g.last(srv); got != c.last {
				t.Errorf("last = %v, want %v", got, c.last)
			}
		})
	}
	srv := server.NewMCPServer("bank", "1", server.WithToolHandlerMiddleware(g.Middleware()))
	srv.Use(pass)
	if g.last(srv) {
		t.Error("middleware added later with Use runs inside the guard's, which is not last")
	}
}

// TestMiddlewareListFallback: on an mcp-go that kept its tool middleware elsewhere, or in
// a field of another type, last does not read the server; it learns the guard's place
// from the first call on which the guard wraps the registered handler itself.
func TestMiddlewareListFallback(t *testing.T) {
	saved := middlewareList
	defer func() { middlewareList = saved }()
	middlewareList.ok = false
	g := New()
	srv, calls := weatherServer(t, g)
	if g.last(srv) {
		t.Fatal("last before any call, without the list")
	}
	if text, isErr := invoke(t, srv, nil, "weather", map[string]any{"location": "Paris", "days": 1}); isErr || calls.Load() != 1 {
		t.Fatalf("valid call: %q", text)
	}
	if !g.last(srv) {
		t.Error("not last after wrapping the registered handler")
	}
	if other := server.NewMCPServer("other", "1"); g.last(other) {
		t.Error("last on a server the guard has not served")
	}
}

// TestRegistrationChurnUnderCalls registers the tool again and again, strict and loose,
// globally and per session, and deletes it, while other goroutines call it with an amount
// only the loose schema allows; with a session of the test's own and with one of mcp-go's
// streamable HTTP transport, whose tools the adapter reads where mcp-go keeps them. Run
// with -race.
func TestRegistrationChurnUnderCalls(t *testing.T) {
	sessions := map[string]func(testing.TB, *server.MCPServer) server.ClientSession{
		"own": func(t testing.TB, srv *server.MCPServer) server.ClientSession {
			s := &toolSession{id: "s1", ch: make(chan mcp.JSONRPCNotification, 10)}
			if err := srv.RegisterSession(context.Background(), s); err != nil {
				t.Fatal(err)
			}
			return s
		},
		"streamable HTTP": streamableSession,
	}
	for name, open := range sessions {
		t.Run(name, func(t *testing.T) {
			var strict transfers
			srv := server.NewMCPServer("bank", "1", server.WithToolHandlerMiddleware(Middleware()))
			session := open(t, srv)
			id := session.SessionID()
			srv.AddTool(transferTool(strictTransfer), strict.handler(100))
			invoke(t, srv, nil, "transfer", map[string]any{"amount": 5, "to": "bob"})
			const changes, callers, calls = 2000, 2, 2000
			var wg sync.WaitGroup
			for w := range callers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					var s server.ClientSession
					if w == 1 {
						s = session
					}
					for range calls {
						invoke(t, srv, s, "transfer", attack)
					}
				}()
			}
			for i := range changes {
				switch i % 5 {
				case 0:
					srv.AddTool(transferTool(strictTransfer), strict.handler(100))
				case 1:
					srv.AddTool(transferTool(looseTransfer), looseHandler)
				case 2:
					_ = srv.AddSessionTool(id, transferTool(strictTransfer), strict.handler(100))
				case 3:
					_ = srv.AddSessionTool(id, transferTool(looseTransfer), looseHandler)
					_ = srv.DeleteSessionTools(id, "transfer")
				case 4:
					srv.DeleteTools("transfer")
				}
			}
			wg.Wait()
			if n := strict.unchecked.Load(); n != 0 {
				t.Fatalf("a strict handler ran %d times on an amount its schema refuses", n)
			}
			t.Logf("%d registrations changed under %d calls", changes, callers*calls)
		})
	}
}

// TestLaterSchemaFieldsKey: the fields of ToolInputSchema that later mcp-go releases added
// change the schema's text: a tool registered again with only one of them changed has
// another text and another key, and the guard decides by the new text. Where the release
// in the build lacks a field, keyOf must not claim it.
func TestLaterSchemaFieldsKey(t *testing.T) {
	tests := []struct {
		field   string
		layout  laterField
		value   any
		refused string // arguments the changed schema refuses and the first one accepts
	}{
		{"PropertyOrder", schemaFields.order, []string{"b", "a"}, ""},
		{"Types", schemaFields.types, []string{"string"}, `{"a":"x"}`},
		{"AdditionalFields", schemaFields.fields, map[string]any{"maxProperties": 1}, `{"a":"x","b":"y"}`},
	}
	for _, tt := range tests {
		t.Run(tt.field, func(t *testing.T) {
			a := mcp.NewTool("t", mcp.WithString("a"), mcp.WithString("b"))
			b := a
			f := reflect.ValueOf(&b.InputSchema).Elem().FieldByName(tt.field)
			if !f.IsValid() {
				if tt.layout.ok {
					t.Fatalf("keyOf found a %s that reflect does not", tt.field)
				}
				t.Skipf("this mcp-go has no ToolInputSchema.%s", tt.field)
			}
			if !tt.layout.ok {
				t.Fatalf("keyOf does not read this mcp-go's %s", tt.field)
			}
			f.Set(reflect.ValueOf(tt.value))
			if tt.field == "Types" {
				b.InputSchema.Type = "" // Type, when set, takes precedence
			}
			ta, _ := schemaOf(&a)
			tb, _ := schemaOf(&b)
			if string(ta) == string(tb) || keyOf(a.RawInputSchema, &a.InputSchema) == keyOf(b.RawInputSchema, &b.InputSchema) {
				t.Fatalf("%s changed, same text or key: %s %s", tt.field, ta, tb)
			}
			if tt.refused == "" {
				return
			}
			srv := server.NewMCPServer("t", "1", server.WithToolHandlerMiddleware(New().Middleware()))
			srv.AddTool(a, looseHandler)
			if text, refused := invoke(t, srv, nil, "t", json.RawMessage(tt.refused)); refused {
				t.Fatalf("the first schema refused %s: %s", tt.refused, text)
			}
			srv.AddTool(b, looseHandler)
			if text, refused := invoke(t, srv, nil, "t", json.RawMessage(tt.refused)); !refused {
				t.Errorf("registered again with %s %v, the tool accepted %s: %s", tt.field, tt.value, tt.refused, text)
			}
		})
	}
}

// TestFieldOffset: the unexported fields the adapter reads are found only as the struct's
// own fields of the expected type; anything else leaves the adapter to its fallback.
func TestFieldOffset(t *testing.T) {
	type inner struct{ list []string }
	type direct struct {
		n    int64
		list []string
	}
	type promoted struct {
		_ int64
		inner
	}
	type promotedPointer struct{ *inner }
	type other struct{ list []int }
	want := reflect.TypeFor[[]string]()
	if off, ok := fieldOffset(reflect.TypeFor[direct](), "list", want); !ok || off != unsafe.Offsetof(direct{}.list) {
		t.Errorf("own field: %d %v", off, ok)
	}
	// Values with their fields set, which only reflection reads.
	for _, x := range []any{promoted{inner: inner{list: nil}}, promotedPointer{inner: nil}, other{list: nil}, direct{n: 0}} {
		typ, name := reflect.TypeOf(x), "list"
		if typ == reflect.TypeFor[direct]() {
			name = "absent"
		}
		if _, ok := fieldOffset(typ, name, want); ok {
			t.Errorf("%v.%s found", typ, name)
		}
	}
}

// TestGuardCheckServer: CheckServer reports every broken schema, in the order of the tools'
// names, and leaves each schema compiled in the guard's cache, where the calls that follow
// find it: no schema is compiled twice, and CheckServer itself counts no call.
func TestGuardCheckServer(t *testing.T) {
	g := New(guard.WithOutputValidation())
	srv, calls := weatherServer(t, g)
	handler := forecast(calls)
	srv.AddTool(mcp.NewToolWithRawSchema("zeta", "", json.RawMessage(`{"type":"strnig"}`)), handler)
	srv.AddTool(mcp.NewToolWithRawSchema("alpha", "", json.RawMessage(`{"properties":{"id":{"pattern":"(unclosed"}}}`)), handler)
	brokenOutput := mcp.NewTool("beta", mcp.WithString("location"))
	brokenOutput.RawOutputSchema = json.RawMessage(`{"type":"object","required":"celsius"}`)
	srv.AddTool(brokenOutput, handler)
	srv.AddTool(mcp.NewToolWithRawSchema("gamma", "", json.RawMessage(weatherSchema)), handler) // weather's text
	srv.AddTool(mcp.NewTool("plain", mcp.WithString("q")), handler)

	type broken struct{ tool, schema string }
	var got []broken
	joined, ok := g.CheckServer(srv).(interface{ Unwrap() []error })
	if !ok {
		t.Fatal("CheckServer found no broken schema")
	}
	for _, err := range joined.Unwrap() {
		var te *guard.ToolError
		var se *guard.SchemaError
		if !errors.As(err, &te) || !errors.As(err, &se) {
			t.Fatalf("%v: not a *ToolError of a *SchemaError", err)
		}
		got = append(got, broken{te.Tool, te.Schema})
	}
	want := []broken{{"alpha", "inputSchema"}, {"beta", "outputSchema"}, {"zeta", "inputSchema"}}
	if !slices.Equal(got, want) {
		t.Errorf("broken schemas %v, want %v", got, want)
	}
	// weather and gamma share one text: 6 texts, 7 bindings (beta has two schemas).
	if st := g.core.CacheStats(); st.Compiled != 6 || st.Texts != 6 || st.Bindings != 7 {
		t.Errorf("cache %+v, want 6 compilations and texts, 7 bindings", st)
	}
	if st := g.Guard().Stats(); len(st) != 0 {
		t.Errorf("CheckServer counted calls: %+v", st)
	}

	for tool, args := range map[string]map[string]any{"weather": {"location": "Paris"}, "gamma": {"location": "Oslo"}, "plain": {"q": "x"}} {
		if text, isErr := invoke(t, srv, nil, tool, args); isErr {
			t.Errorf("%s: %s", tool, text)
		}
	}
	for tool, want := range map[string]string{"alpha": brokenSchemaText, "zeta": brokenSchemaText, "beta": brokenOutputText} {
		if text, _ := invoke(t, srv, nil, tool, map[string]any{}); text != want {
			t.Errorf("%s: %q, want %q", tool, text, want)
		}
	}
	if n := calls.Load(); n != 3 {
		t.Errorf("%d handlers ran, want 3", n)
	}
	if err := g.CheckServer(srv); err == nil {
		t.Error("CheckServer again: no error")
	}
	if n := g.core.CacheStats().Compiled; n != 6 {
		t.Errorf("after the calls and CheckServer again, %d compilations, want 6", n)
	}
}

func TestUnknownToolStaysAProtocolError(t *testing.T) {
	for _, modern := range protocols() {
		srv, _ := weatherServer(t, New())
		got := call(t, srv, modern, "nope", `{}`)
		var resp struct {
			Error struct {
				Code    int    `json:"code"`
				Message string `json:"message"`
			} `json:"error"`
		}
		if err := json.Unmarshal([]byte(got), &resp); err != nil || resp.Error.Code != mcp.INVALID_PARAMS {
			t.Fatalf("modern=%v: want a -32602 error, got %s", modern, got)
		}
		if !strings.Contains(resp.Error.Message, "nope") {
			t.Errorf("the error should name the tool: %s", got)
		}
	}
}

// TestInProcessClient calls through mcp-go's own client on the 2025-11-25 protocol, which
// every supported mcp-go release speaks; inprocess_modern_test.go adds 2026-07-28.
// Before mcp-go v0.57.0 that client registers no session unless it has a sampling,
// elicitation or roots handler; its calls then carry no session and no client, as on any
// transport without sessions.
func TestInProcessClient(t *testing.T) {
	inProcessClient(t, "2025-11-25", false, func(srv *server.MCPServer) (*client.Client, error) {
		return client.NewInProcessClient(srv)
	})
}

func inProcessClient(t *testing.T, version string, needSession bool, newClient func(*server.MCPServer) (*client.Client, error)) {
	var events []guard.Event
	var session string // the session the server registered for the client
	hooks := &server.Hooks{}
	hooks.AddOnRegisterSession(func(_ context.Context, s server.ClientSession) { session = s.SessionID() })
	srv, calls := weatherServer(t, New(guard.WithObserver(func(e guard.Event) { events = append(events, e) })), server.WithHooks(hooks))
	c, err := newClient(srv)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx := context.Background()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = version
	init.Params.ClientInfo = mcp.Implementation{Name: "in-process", Version: "1"}
	if res, err := c.Initialize(ctx, init); err != nil {
		t.Fatal(err)
	} else if res.ProtocolVersion != version {
		t.Fatalf("negotiated protocol version %s, want %s", res.ProtocolVersion, version)
	}
	req := mcp.CallToolRequest{}
	req.Params.Name = "weather"
	req.Params.Arguments = map[string]any{"location": "Paris", "days": "two"}
	res, err := c.CallTool(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if !res.IsError || textOf(res) != "Invalid arguments: property 'days' must be integer" || calls.Load() != 0 {
		t.Fatalf("got isError=%v %q, tool ran %d times", res.IsError, textOf(res), calls.Load())
	}
	req.Params.Arguments = map[string]any{"location": "Paris", "days": 3}
	if res, err = c.CallTool(ctx, req); err != nil || res.IsError || calls.Load() != 1 {
		t.Fatalf("valid call: %v %+v, tool ran %d times", err, res, calls.Load())
	}
	client := "in-process"
	switch {
	case session == "" && needSession:
		t.Fatal("the client has no session")
	case session == "":
		t.Log("this mcp-go's in-process client has no session")
		client = ""
	}
	if len(events) != 2 || events[0].Outcome != guard.Refused || events[1].Outcome != guard.Accepted ||
		events[0].ClientName != client || events[0].SessionID != session || events[1].SessionID != session ||
		client != "" && events[0].ClientVersion != "1" {
		t.Errorf("events: %+v", events)
	}
	for _, e := range events {
		if session != "" && e.ProtocolVersion != version {
			t.Errorf("%s event of protocol version %q, want %s", e.Outcome, e.ProtocolVersion, version)
		}
	}
}

func TestToolDeclarations(t *testing.T) {
	ok := func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("ok"), nil
	}
	tools := []mcp.Tool{
		mcp.NewTool("builders",
			mcp.WithString("location", mcp.Required()),
			mcp.WithNumber("days"),
			mcp.WithString("units", mcp.Enum("c", "f"))),
		mcp.NewTool("typed", mcp.WithInputSchema[weatherArgs]()),
		mcp.NewToolWithRawSchema("raw", "", json.RawMessage(weatherSchema)),
	}
	srv := server.NewMCPServer("s", "1", server.WithToolHandlerMiddleware(Middleware()))
	for _, tool := range tools {
		srv.AddTool(tool, ok)
	}
	for _, tool := range tools {
		if text, isErr := invoke(t, srv, nil, tool.Name, map[string]any{"days": 2}); !isErr || text != "Invalid arguments: missing required property 'location'" {
			t.Errorf("%s: %q isError=%v", tool.Name, text, isErr)
		}
		if text, isErr := invoke(t, srv, nil, tool.Name, map[string]any{"location": "Oslo", "days": 2}); isErr || text != "ok" {
			t.Errorf("%s valid: %q isError=%v", tool.Name, text, isErr)
		}
	}
	if text, _ := invoke(t, srv, nil, "builders", map[string]any{"location": "Oslo", "units": "k"}); text != "Invalid arguments: property 'units' must be one of ['c', 'f']" {
		t.Errorf("builders enum: %q", text)
	}
}

func TestSessionToolShadowsServerTool(t *testing.T) {
	srv, _ := weatherServer(t, New())
	session := &toolSession{id: "s1", ch: make(chan mcp.JSONRPCNotification, 10)}
	if err := srv.RegisterSession(context.Background(), session); err != nil {
		t.Fatal(err)
	}
	// The session's weather tool wants days as a string.
	strict := mcp.NewToolWithRawSchema("weather", "", json.RawMessage(`{"type":"object","properties":{"days":{"type":"string"}},"required":["days"]}`))
	if err := srv.AddSessionTool("s1", strict, func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("session tool"), nil
	}); err != nil {
		t.Fatal(err)
	}
	if text, _ := invoke(t, srv, session, "weather", map[string]any{"days": 2}); text != "Invalid arguments: property 'days' must be string" {
		t.Errorf("session tool: %q", text)
	}
	if text, isErr := invoke(t, srv, session, "weather", map[string]any{"days": "two"}); isErr || text != "session tool" {
		t.Errorf("session tool valid: %q", text)
	}
	// Without the session, the server's tool and its schema apply.
	if text, _ := invoke(t, srv, nil, "weather", map[string]any{"days": "two"}); text != "Invalid arguments: missing required property 'location'; property 'days' must be integer" {
		t.Errorf("server tool: %q", text)
	}
}

func TestTaskTools(t *testing.T) {
	for _, reportOnly := range []bool{false, true} {
		t.Run(fmt.Sprintf("reportOnly=%v", reportOnly), func(t *testing.T) {
			var opts []Option
			if reportOnly {
				opts = append(opts, guard.WithReportOnly())
			}
			g := New(opts...)
			srv := server.NewMCPServer("s", "1", server.WithToolHandlerMiddleware(g.Middleware()), server.WithTaskCapabilities(true, true, true))
			var ran atomic.Int64
			tool := mcp.NewToolWithRawSchema("weather", "", json.RawMessage(weatherSchema))
			tool.Execution = &mcp.ToolExecution{TaskSupport: mcp.TaskSupportRequired}
			srv.AddTaskTool(tool, g.TaskHandler(tool, func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CreateTaskResult, error) {
				ran.Add(1)
				return &mcp.CreateTaskResult{Content: []mcp.Content{mcp.NewTextContent("done")}}, nil
			}))
			hybrid := mcp.NewToolWithRawSchema("hybrid", "", json.RawMessage(weatherSchema))
			hybrid.Execution = &mcp.ToolExecution{TaskSupport: mcp.TaskSupportOptional}
			srv.AddTool(hybrid, forecast(&ran))

			for _, name := range []string{"weather", "hybrid"} {
				text, isErr := runTask(t, srv, name, `{"location":"Paris","days":"two"}`)
				refused := isErr && text == "Invalid arguments: property 'days' must be integer"
				if refused == reportOnly || !refused && isErr {
					t.Errorf("%s: %q isError=%v", name, text, isErr)
				}
				if text, isErr := runTask(t, srv, name, `{"location":"Paris","days":2}`); isErr || text == "" {
					t.Errorf("%s valid: %q", name, text)
				}
			}
			want := int64(2) // the valid calls
			if reportOnly {
				want = 4
			}
			if ran.Load() != want {
				t.Errorf("handlers ran %d times, want %d", ran.Load(), want)
			}
			if st := g.Guard().Stats(); len(st) != 2 || st[0].Refused != 1 || st[1].Refused != 1 {
				t.Errorf("stats %+v: want one refusal per tool", st)
			}
		})
	}
}

// TestSessionTaskToolMiddlewareInside: the same with another tool middleware registered
// after the guard (mcp-go's recovery), where the guard cannot tell from the handler which
// tool runs: a task-augmented call's arguments must then meet the schemas of both the
// session's tool and the server's tool it shadows, whichever the release runs.
func TestSessionTaskToolMiddlewareInside(t *testing.T) {
	srv, session, serverRan, sessionRan := shadowingSession(t, `{"type":"object","properties":{"location":{"type":"string"}},"required":["location"]}`, server.WithRecovery())
	// Valid for the session's tool; for the server's: days not an integer, an unknown member.
	if text, isErr := runTaskAs(t, srv, session, "hybrid", `{"location":"Paris","days":"all","admin":true}`); !isErr || serverRan.Load() != 0 || sessionRan.Load() != 0 {
		t.Fatalf("%q isError=%v; handlers ran: server %d, session %d", text, isErr, serverRan.Load(), sessionRan.Load())
	}
	// Valid for both: whichever runs, it runs.
	if text, isErr := runTaskAs(t, srv, session, "hybrid", `{"location":"Paris","days":3}`); isErr || serverRan.Load()+sessionRan.Load() != 1 {
		t.Errorf("%q isError=%v; handlers ran: server %d, session %d", text, isErr, serverRan.Load(), sessionRan.Load())
	}
}

// TestSessionTaskTool calls a session's hybrid tool as a task, where the server has a tool
// of the same name and another schema. mcp-go before v1.2.0 runs the server's handler for
// it (its task path ignores session tools); the middleware, registered last, sees that the
// handler is not the session's and refuses the call. From v1.2.0 the session's tool runs,
// checked against its own schema. Either way no handler runs on arguments checked against
// another tool's schema.
func TestSessionTaskTool(t *testing.T) {
	srv, session, serverRan, sessionRan := shadowingSession(t, `{"type":"object","properties":{"city":{"type":"string"}},"required":["city"],"additionalProperties":false}`)
	text, isErr := runTaskAs(t, srv, session, "hybrid", `{"city":"Paris"}`)
	switch {
	case serverRan.Load() != 0:
		t.Fatalf("the server's handler ran for the session's tool: %q", text)
	case sessionRan.Load() == 1 && !isErr && text == "session tool":
		// mcp-go v1.2.0 and later
	case sessionRan.Load() == 0 && isErr && text == replacedText:
		t.Logf("this mcp-go runs the server's tool for a session's task call; refused: %q", text)
	default:
		t.Fatalf("%q isError=%v, session handler ran %d times", text, isErr, sessionRan.Load())
	}
	if text, isErr := runTaskAs(t, srv, session, "hybrid", `{"location":"Paris"}`); !isErr || serverRan.Load() != 0 || sessionRan.Load() > 1 {
		t.Errorf("invalid for the session's tool: %q isError=%v; handlers ran: server %d, session %d", text, isErr, serverRan.Load(), sessionRan.Load())
	}
}

// shadowingSession returns a server with the guard's middleware first, then the options
// more, serving a hybrid tool of weatherSchema, and a session whose own hybrid tool, of
// the schema own, shadows it; and counters of the runs of each tool's handler.
func shadowingSession(t *testing.T, own string, more ...server.ServerOption) (srv *server.MCPServer, session *toolSession, serverRan, sessionRan *atomic.Int64) {
	t.Helper()
	opts := append([]server.ServerOption{server.WithToolHandlerMiddleware(New().Middleware())}, more...)
	srv = server.NewMCPServer("s", "1", append(opts, server.WithTaskCapabilities(true, true, true))...)
	serverRan, sessionRan = new(atomic.Int64), new(atomic.Int64)
	hybrid := mcp.NewToolWithRawSchema("hybrid", "", json.RawMessage(weatherSchema))
	hybrid.Execution = &mcp.ToolExecution{TaskSupport: mcp.TaskSupportOptional}
	srv.AddTool(hybrid, forecast(serverRan))
	session = &toolSession{id: "s1", ch: make(chan mcp.JSONRPCNotification, 10)}
	if err := srv.RegisterSession(context.Background(), session); err != nil {
		t.Fatal(err)
	}
	tool := mcp.NewToolWithRawSchema("hybrid", "", json.RawMessage(own))
	tool.Execution = &mcp.ToolExecution{TaskSupport: mcp.TaskSupportOptional}
	if err := srv.AddSessionTool("s1", tool, func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		sessionRan.Add(1)
		return mcp.NewToolResultText("session tool"), nil
	}); err != nil {
		t.Fatal(err)
	}
	return srv, session, serverRan, sessionRan
}

// runTask starts a task-augmented tools/call and waits for its result.
func runTask(t *testing.T, srv *server.MCPServer, name, args string) (string, bool) {
	t.Helper()
	return runTaskAs(t, srv, nil, name, args)
}

// runTaskAs is runTask in session, when not nil.
func runTaskAs(t *testing.T, srv *server.MCPServer, session server.ClientSession, name, args string) (string, bool) {
	t.Helper()
	b := taskResultOf(t, srv, session, name, args)
	var res struct {
		Result struct {
			Content []struct{ Text string } `json:"content"`
			IsError bool                    `json:"isError"`
		} `json:"result"`
	}
	if json.Unmarshal(b, &res) != nil || len(res.Result.Content) != 1 {
		t.Fatalf("task result: %s", b)
	}
	return res.Result.Content[0].Text, res.Result.IsError
}

// taskResultOf starts a task-augmented tools/call in session, when not nil, and returns
// the answer to its tasks/result.
func taskResultOf(t *testing.T, srv *server.MCPServer, session server.ClientSession, name, args string) []byte {
	t.Helper()
	ctx := context.Background()
	if session != nil {
		ctx = srv.WithContext(ctx, session)
	}
	out := srv.HandleMessage(ctx, []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"`+name+`","arguments":`+args+`,"task":{}}}`))
	b, _ := json.Marshal(out)
	var created struct {
		Result struct {
			Task struct {
				TaskID string `json:"taskId"`
			} `json:"task"`
		} `json:"result"`
	}
	if json.Unmarshal(b, &created) != nil || created.Result.Task.TaskID == "" {
		t.Fatalf("no task created: %s", b)
	}
	// tasks/result waits for the task to end; a hang is left to go test's -timeout.
	if session != nil {
		ctx = srv.WithContext(t.Context(), session)
	} else {
		ctx = t.Context()
	}
	b, _ = json.Marshal(srv.HandleMessage(ctx, []byte(`{"jsonrpc":"2.0","id":2,"method":"tasks/result","params":{"taskId":"`+created.Result.Task.TaskID+`"}}`)))
	return b
}

func TestDecodedAndAbsentArguments(t *testing.T) {
	g := New()
	tool := mcp.NewToolWithRawSchema("weather", "", json.RawMessage(weatherSchema))
	ran := 0
	h := g.TaskHandler(tool, func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CreateTaskResult, error) {
		ran++
		return &mcp.CreateTaskResult{}, nil
	})
	cases := []struct {
		args any
		want string // "" when valid
	}{
		{map[string]any{"location": "Paris", "days": 2.5, "x": true}, "Invalid arguments: property 'days' must be integer; unexpected property 'x'"},
		{nil, "Invalid arguments: missing required property 'location'"},
		{[]any{"Paris"}, "Invalid arguments: arguments must be an object"},
		{map[string]any{"location": "Paris", "days": 2.0}, ""},
	}
	for _, c := range cases {
		req := mcp.CallToolRequest{}
		req.Params.Name = "weather"
		req.Params.Arguments = c.args // built by hand: no RawArguments
		before := ran
		res, err := h(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		got := ""
		if res.IsError {
			got = res.Content[0].(mcp.TextContent).Text
		}
		if got != c.want || (ran > before) != (c.want == "") {
			t.Errorf("%v: got %q (handler ran: %v), want %q", c.args, got, ran > before, c.want)
		}
	}
	// Over the wire, a call without "arguments" is validated as {}.
	srv, calls := weatherServer(t, g)
	out, _ := json.Marshal(srv.HandleMessage(context.Background(), []byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"weather"}}`)))
	sameRefusal(t, string(out), "Invalid arguments: missing required property 'location'", false, false)
	if calls.Load() != 0 {
		t.Error("the tool ran")
	}
}

// TestTaskRefusalShape: mcp-go makes a task-augmented call's task before any handler or
// middleware runs, so a refused call completes its task, and tasks/result answers with
// the refusal as every other refusal is (isError, under WithViolationMeta the violations in
// _meta, no resultType before 2026-07-28); of a task tool (TaskHandler) as of a regular
// tool run as a task (Middleware). (On 2026-07-28, mcp-go v1.6.0 still makes the task but
// answers tasks/result with "removed in protocol version 2026-07-28".)
func TestTaskRefusalShape(t *testing.T) {
	g := New(guard.WithViolationMeta())
	srv := server.NewMCPServer("weather", "1.0.0", server.WithToolHandlerMiddleware(g.Middleware()), server.WithTaskCapabilities(true, true, true))
	tool := mcp.NewToolWithRawSchema("weather", "", json.RawMessage(weatherSchema))
	tool.Execution = &mcp.ToolExecution{TaskSupport: mcp.TaskSupportRequired}
	srv.AddTaskTool(tool, g.TaskHandler(tool, func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CreateTaskResult, error) {
		return &mcp.CreateTaskResult{Content: []mcp.Content{mcp.NewTextContent("done")}}, nil
	}))
	hybrid := mcp.NewToolWithRawSchema("hybrid", "", json.RawMessage(weatherSchema))
	hybrid.Execution = &mcp.ToolExecution{TaskSupport: mcp.TaskSupportOptional}
	var ran atomic.Int64
	srv.AddTool(hybrid, forecast(&ran))
	srv.HandleMessage(t.Context(), []byte(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"test-client","version":"0.1"}}}`))
	for _, name := range []string{"weather", "hybrid"} {
		out := srv.HandleMessage(t.Context(), []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"`+name+`","arguments":{"days":"two"},"task":{}}}`))
		b, _ := json.Marshal(out)
		var created struct {
			Result struct {
				Task struct {
					TaskID string `json:"taskId"`
				} `json:"task"`
			} `json:"result"`
		}
		if json.Unmarshal(b, &created) != nil || created.Result.Task.TaskID == "" {
			t.Fatalf("%s: no task created: %s", name, b)
		}
		out = srv.HandleMessage(t.Context(), []byte(`{"jsonrpc":"2.0","id":2,"method":"tasks/result","params":{"taskId":"`+created.Result.Task.TaskID+`"}}`))
		b, _ = json.Marshal(out)
		var res struct {
			Result map[string]any `json:"result"`
		}
		if err := json.Unmarshal(b, &res); err != nil || res.Result["isError"] != true {
			t.Fatalf("%s: tasks/result answered %s", name, b)
		}
		m, _ := res.Result["_meta"].(map[string]any)
		ours, _ := m[guard.MetaKey].(map[string]any)
		if vs, _ := ours["violations"].([]any); ours["of"] != "arguments" || len(vs) != 2 {
			t.Errorf("%s: the refusal carries no violations: %s", name, b)
		}
		if rt, has := res.Result["resultType"]; has {
			t.Errorf("%s: resultType %v before 2026-07-28: %s", name, rt, b)
		}
	}
	if ran.Load() != 0 {
		t.Errorf("the handler ran %d times", ran.Load())
	}
}

// TestSchemaOfLaterFieldsOnly: a schema made only of fields that later mcp-go releases
// added (Types, AdditionalFields), with no Type, properties, required names or $defs, is
// listed by tools/list as those fields make it, inputSchema and outputSchema alike: calls
// and results are checked against that text, never against an empty object schema, and
// an outputSchema given as Types alone is one, its results checked.
func TestSchemaOfLaterFieldsOnly(t *testing.T) {
	set := func(s any, field string, v any) bool {
		f := reflect.ValueOf(s).Elem().FieldByName(field)
		if f.IsValid() {
			f.Set(reflect.ValueOf(v))
		}
		return f.IsValid()
	}
	tests := []struct {
		name   string
		fields map[string]any
		args   string // arguments the listed schema refuses
	}{
		{"Types and AdditionalFields", map[string]any{"Types": []string{"object"}, "AdditionalFields": map[string]any{"maxProperties": 0}}, `{"a":1}`},
		{"AdditionalFields", map[string]any{"AdditionalFields": map[string]any{"maxProperties": 0}}, `{"a":1}`},
		{"Types", map[string]any{"Types": []string{"object"}, "AdditionalFields": map[string]any{"propertyNames": map[string]any{"maxLength": 1}}}, `{"ab":1}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tool := mcp.Tool{Name: "t"}
			for field, v := range tt.fields {
				if !set(&tool.InputSchema, field, v) {
					t.Skipf("this mcp-go has no ToolInputSchema.%s", field)
				}
			}
			listed, err := json.Marshal(tool)
			if err != nil {
				t.Fatal(err)
			}
			srv := server.NewMCPServer("t", "1", server.WithToolHandlerMiddleware(New().Middleware()))
			srv.AddTool(tool, looseHandler)
			if text, refused := invoke(t, srv, nil, "t", json.RawMessage(tt.args)); !refused {
				t.Errorf("listed as %s, the tool ran on %s: %s", listed, tt.args, text)
			}
		})
	}

	t.Run("outputSchema of Types", func(t *testing.T) {
		tool := mcp.Tool{Name: "t", InputSchema: mcp.ToolInputSchema{Type: "object"}}
		tool.OutputSchema.Properties = map[string]any{"n": map[string]any{"type": "integer"}}
		if !set(&tool.OutputSchema, "Types", []string{"object"}) {
			t.Skip("this mcp-go has no ToolOutputSchema.Types")
		}
		listed, _ := json.Marshal(tool)
		srv := server.NewMCPServer("t", "1", server.WithToolHandlerMiddleware(New(guard.WithOutputValidation()).Middleware()))
		srv.AddTool(tool, func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultStructuredOnly(map[string]any{"n": "not a number"}), nil
		})
		if text, refused := invoke(t, srv, nil, "t", map[string]any{}); !refused {
			t.Errorf("listed as %s, the tool's result reached the client: %s", listed, text)
		}
	})
}

// TestSchemaOfNothingSet: a tool built with no schema field set, or only an empty $defs,
// takes any object, though tools/list shows its type as "": it declares nothing.
func TestSchemaOfNothingSet(t *testing.T) {
	for _, tool := range []mcp.Tool{{Name: "t"}, {Name: "t", InputSchema: mcp.ToolInputSchema{Defs: map[string]any{}, Properties: map[string]any{}}}} {
		srv := server.NewMCPServer("t", "1", server.WithToolHandlerMiddleware(New().Middleware()))
		srv.AddTool(tool, looseHandler)
		if text, refused := invoke(t, srv, nil, "t", map[string]any{"a": 1}); refused {
			t.Errorf("%+v refused an object: %s", tool.InputSchema, text)
		}
		if text, refused := invoke(t, srv, nil, "t", []int{1}); !refused {
			t.Errorf("%+v accepted an array: %s", tool.InputSchema, text)
		}
	}
}
