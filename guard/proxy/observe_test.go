package proxy

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"reflect"
	"strings"
	"testing"

	"github.com/mcpvalidate/mcpvalidate/guard"
)

// madeUp is the name of a tool no server lists, as a model might send it.
const madeUp = "no-such-tool-7f3a"

// TestOperationEnds: a call's operation ends once, when the client gets its response:
// the proxy's refusal of a tool the server does not list (under UnknownTool), the task a
// task-augmented call is answered with, the server's JSON-RPC error, or the proxy's error
// when the server is gone; a cancelled call, which gets no response, does not end.
func TestOperationEnds(t *testing.T) {
	var ends []guard.CallEnd
	h := newHarness(t, Options{Guard: []guard.Option{guard.WithCallEnd(func(e guard.CallEnd) { ends = append(ends, e) })}})
	h.listed()
	call := func(id int, params string) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":%s}`, id, params)
	}
	h.client(call(2, `{"name":"`+madeUp+`","arguments":{}}`))
	if got := h.clientGets(); !strings.Contains(got, `"id":2,"error":{"code":-32602`) {
		t.Fatalf("the unknown tool's call was answered %s", got)
	}
	h.clientPasses(call(3, `{"name":"weather","arguments":{"location":"x"},"task":{"ttl":1000}}`))
	h.serverPasses(`{"jsonrpc":"2.0","id":3,"result":{"task":{"taskId":"t1","status":"working"}}}`)
	h.clientPasses(call(4, `{"name":"weather","arguments":{"location":"x"}}`))
	h.serverPasses(`{"jsonrpc":"2.0","id":4,"error":{"code":-32000,"message":"down"}}`)
	h.clientPasses(call(5, `{"name":"weather","arguments":{"location":"x"}}`))
	h.clientPasses(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":5}}`)
	h.clientPasses(call(6, `{"name":"weather","arguments":{"location":"x"}}`))
	h.serverSend.Close()
	if got := h.clientGets(); !strings.Contains(got, `"id":6,"error"`) {
		t.Fatalf("the call in flight was answered %s", got)
	}
	want := []struct {
		tool    string
		isError bool
	}{{UnknownTool, true}, {"weather", false}, {"weather", true}, {"weather", true}}
	if len(ends) != len(want) {
		t.Fatalf("%d ends %+v; want %d", len(ends), ends, len(want))
	}
	for i, w := range want {
		if ends[i].Tool != w.tool || ends[i].IsError != w.isError {
			t.Errorf("end %d: %s, error %v; want %s, %v", i, ends[i].Tool, ends[i].IsError, w.tool, w.isError)
		}
	}
}

// TestTraceGetsMeta: Options.Trace is given the string members of each call's _meta,
// decoded, as a carrier a propagator reads; the end it returns is called with the tool.
func TestTraceGetsMeta(t *testing.T) {
	var metas []Meta
	var ended []string
	h := newHarness(t, Options{Trace: func(m Meta) (context.Context, func(string, bool)) {
		metas = append(metas, m)
		return context.Background(), func(tool string, _ bool) { ended = append(ended, tool) }
	}})
	h.listed()
	h.clientPasses(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"weather","arguments":{"location":"x"},` +
		`"_meta":{"traceparent":"00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01","tracestate":"a=\u0062","progressToken":7,"x":{"y":"z"}}}}`)
	h.serverPasses(`{"jsonrpc":"2.0","id":2,"result":{"content":[]}}`)
	h.clientPasses(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"weather","arguments":{"location":"x"}}}`)
	h.serverPasses(`{"jsonrpc":"2.0","id":3,"result":{"content":[]}}`)
	want := []Meta{{"traceparent": "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01", "tracestate": "a=b"}, {}}
	if !reflect.DeepEqual(metas, want) || !reflect.DeepEqual(ended, []string{"weather", "weather"}) {
		t.Errorf("got %v, ends %v; want %v", metas, ended, want)
	}
	if keys := metas[0].Keys(); len(keys) != 2 || metas[0].Get("tracestate") != "a=b" {
		t.Errorf("keys %v", keys)
	}
}

// TestUnobservedCallsAreNotFollowed: without observers or Options.Trace (a logger alone,
// or a guard option that observes nothing), the proxy keeps nothing of a call for its end.
func TestUnobservedCallsAreNotFollowed(t *testing.T) {
	for _, opts := range []Options{{}, {Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}, {Guard: []guard.Option{guard.WithMaxDepth(10)}}} {
		p, err := New(opts)
		if err != nil {
			t.Fatal(err)
		}
		if p.begin(newSession(""), []byte("1"), &callParams{name: "weather"}) != nil {
			t.Errorf("%+v: a call is followed", opts)
		}
	}
}

// TestServerNamed: the guard is told of each call with the upstream's name, as its
// answer to initialize gave it, so that its log lines and observers name the server;
// with observers or without.
func TestServerNamed(t *testing.T) {
	for _, observed := range []bool{false, true} {
		var logged bytes.Buffer
		var events []guard.Event
		opts := Options{Logger: slog.New(slog.NewJSONHandler(&logged, nil))}
		if observed {
			opts.Guard = []guard.Option{guard.WithObserver(func(e guard.Event) { events = append(events, e) })}
		}
		h := newHarness(t, opts)
		h.clientPasses(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`)
		h.serverPasses(`{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"weather-server","version":"2"}}}`)
		h.listed()
		h.client(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"weather","arguments":{}}}`)
		h.clientGets()
		var line struct{ Msg, Server, Client string }
		if err := json.Unmarshal(logged.Bytes(), &line); err != nil || line.Msg != "mcpvalidate: tool call refused" || line.Server != "weather-server" || line.Client != "c" {
			t.Errorf("observed %v: logged %s", observed, logged.String())
		}
		if observed && (len(events) != 1 || events[0].ServerName != "weather-server") {
			t.Errorf("events %+v", events)
		}
	}
}

// TestServerNamedByResults: from 2026-07-28, without initialize, the server names itself in
// its results' _meta: a tools/list's names it to the guard.
func TestServerNamedByResults(t *testing.T) {
	var events []guard.Event
	h := newHarness(t, Options{Guard: []guard.Option{guard.WithObserver(func(e guard.Event) { events = append(events, e) })}})
	h.clientPasses(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	list := strings.Replace(toolsList, `{"tools":`, `{"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"weather-server","version":"2"}},"tools":`, 1)
	h.serverPasses(`{"jsonrpc":"2.0","id":1,"result":` + list + `}`)
	h.client(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"weather","arguments":{}}}`)
	h.clientGets()
	if len(events) != 1 || events[0].ServerName != "weather-server" {
		t.Errorf("events %+v", events)
	}
}
