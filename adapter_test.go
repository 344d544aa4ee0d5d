package mcpvalidate

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"sync"
	"sync/atomic"
	"testing"
	"unsafe"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
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
		want    string
	}{
		{"again, by a handler of other code", func(srv *server.MCPServer, _ server.ClientSession, _ *transfers) {
			srv.AddTool(transferTool(looseTransfer), looseHandler)
		}, replacedText},
		{"again, by a closure of the same code", func(srv *server.MCPServer, _ server.ClientSession, loose *transfers) {
			srv.AddTool(transferTool(looseTransfer), newTransferHandler(loose, -1))
		}, replacedText},
		{"removed", func(srv *server.MCPServer, _ server.ClientSession, _ *transfers) {
			srv.DeleteTools("transfer")
		}, replacedText},
		{"shadowed by a session tool", func(srv *server.MCPServer, s server.ClientSession, _ *transfers) {
			if err := srv.AddSessionTool(s.SessionID(), transferTool(looseTransfer), looseHandler); err != nil {
				panic(err)
			}
		}, replacedText},
	}
	for _, c := range cases {
		for _, warm := range []bool{false, true} { // a call before the attack, or none
			t.Run(fmt.Sprintf("%s/warm=%v", c.name, warm), func(t *testing.T) {
				var strict, loose transfers
				var armed atomic.Bool
				var srv *server.MCPServer
				session := &toolSession{id: "s1", ch: make(chan mcp.JSONRPCNotification, 10)}
				srv = server.NewMCPServer("bank", "1",
					server.WithToolHandlerMiddleware(Middleware()),
					server.WithToolFilter(func(ctx context.Context, tools []mcp.Tool) []mcp.Tool {
						if armed.CompareAndSwap(true, false) {
							c.replace(srv, session, &loose)
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
				if !isErr || text != c.want {
					t.Errorf("got %q (isError %v), want %q", text, isErr, c.want)
				}
				if _, isErr := invoke(t, srv, session, "transfer", attack); c.name != "removed" && isErr {
					t.Error("the call again, to the new registration, was refused")
				}
			})
		}
	}
}

// TestBoundHandlerChecksItsOwnSchema puts other middleware inside the guard's, where the
// guard cannot see the handler: a handler bound with Handler checks its own schema.
func TestBoundHandlerChecksItsOwnSchema(t *testing.T) {
	var strict transfers
	var armed atomic.Bool
	var srv *server.MCPServer
	g := New()
	passthrough := func(next server.ToolHandlerFunc) server.ToolHandlerFunc {
		return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) { return next(ctx, req) }
	}
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
	if s := g.Stats(); len(s) != 1 || s[0].Accepted != 3 || s[0].Refused != 1 {
		t.Errorf("each call must be counted once: %+v", s)
	}
	armed.Store(true)
	text, isErr := invoke(t, srv, nil, "transfer", attack)
	if strict.unchecked.Load() != 0 || !isErr {
		t.Fatalf("the bound handler ran on an amount its schema refuses: %q", text)
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
	if s := g.Stats(); len(s) != 1 || s[0].Accepted != 1 || s[0].Refused != 1 || strict.ran.Load() != 1 {
		t.Errorf("stats %+v, handler ran %d times", s, strict.ran.Load())
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
// only the loose schema allows. Run with -race.
func TestRegistrationChurnUnderCalls(t *testing.T) {
	var strict transfers
	srv := server.NewMCPServer("bank", "1", server.WithToolHandlerMiddleware(Middleware()))
	session := &toolSession{id: "s1", ch: make(chan mcp.JSONRPCNotification, 10)}
	if err := srv.RegisterSession(context.Background(), session); err != nil {
		t.Fatal(err)
	}
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
			_ = srv.AddSessionTool("s1", transferTool(strictTransfer), strict.handler(100))
		case 3:
			_ = srv.AddSessionTool("s1", transferTool(looseTransfer), looseHandler)
			srv.DeleteSessionTools("s1", "transfer")
		case 4:
			srv.DeleteTools("transfer")
		}
	}
	wg.Wait()
	if n := strict.unchecked.Load(); n != 0 {
		t.Fatalf("a strict handler ran %d times on an amount its schema refuses", n)
	}
	t.Logf("%d registrations changed under %d calls", changes, callers*calls)
}

// TestPropertyOrderKey: from mcp-go v1.1.0 a schema lists its properties in PropertyOrder's
// order, so a tool registered again with only another order has another schema text and
// another key. Earlier releases have no such field and list properties sorted.
func TestPropertyOrderKey(t *testing.T) {
	a := mcp.NewTool("t", mcp.WithString("a"), mcp.WithString("b"))
	b := a
	order := reflect.ValueOf(&b.InputSchema).Elem().FieldByName("PropertyOrder")
	if !order.IsValid() {
		if propertyOrder.ok {
			t.Fatal("propertyOrder found a field that reflect does not")
		}
		t.Skip("this mcp-go has no ToolInputSchema.PropertyOrder")
	}
	if !propertyOrder.ok {
		t.Fatal("keyOf does not read this mcp-go's PropertyOrder")
	}
	order.Set(reflect.ValueOf([]string{"b", "a"}))
	ta, _ := schemaOf(&a)
	tb, _ := schemaOf(&b)
	if string(ta) == string(tb) || keyOf(a.RawInputSchema, &a.InputSchema) == keyOf(b.RawInputSchema, &b.InputSchema) {
		t.Errorf("another order, same text or key: %s %s", ta, tb)
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
	for _, typ := range []reflect.Type{reflect.TypeFor[promoted](), reflect.TypeFor[promotedPointer](), reflect.TypeFor[other](), reflect.TypeFor[inner]()} {
		name := "list"
		if typ == reflect.TypeFor[inner]() {
			name = "absent"
		}
		if _, ok := fieldOffset(typ, name, want); ok {
			t.Errorf("%v.%s found", typ, name)
		}
	}
}
