package proxy

import (
	"encoding/json"
	"io"
	"log/slog"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpvalidate/mcpvalidate/guard"
)

// TestLossless passes a scripted exchange of everything but refused calls, and checks
// that each side gets every line with the same bytes, in order. (A client's line that is
// not one message does not pass: TestStdioFraming.)
func TestLossless(t *testing.T) {
	h := newHarness(t, Options{})
	steps := []struct {
		fromServer bool
		line       string
	}{
		{false, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{"sampling":{}},"clientInfo":{"name":"c","version":"1"}}}`},
		{true, `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{"listChanged":true}},"serverInfo":{"name":"s","version":"1"}}}`},
		{false, `{"jsonrpc":"2.0","method":"notifications/initialized"}`},
		{false, `{ "jsonrpc" : "2.0" , "id" : "p1" , "method" : "ping" }`},
		{true, `{"jsonrpc":"2.0","id":"p1","result":{}}`},
		{true, `{"jsonrpc":"2.0","id":7,"method":"ping"}`},
		{false, `{"jsonrpc":"2.0","id":7,"result":{}}`},
		{false, `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"progressToken":"t"}}}`},
		{true, `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":1,"total":2}}`},
		{true, `{"jsonrpc":"2.0","id":1,"result":` + toolsList + `}`},
		{true, `{"jsonrpc":"2.0","id":8,"method":"sampling/createMessage","params":{"messages":[{"role":"user","content":{"type":"text","text":"hi"}}],"maxTokens":9}}`},
		{false, `{"jsonrpc":"2.0","id":8,"result":{"role":"assistant","content":{"type":"text","text":"hello"},"model":"m"}}`},
		{true, `{"jsonrpc":"2.0","id":9,"method":"elicitation/create","params":{"message":"?","requestedSchema":{"type":"object"}}}`},
		{false, `{"jsonrpc":"2.0","id":9,"error":{"code":-1,"message":"no"}}`},
		{true, `{"jsonrpc":"2.0","id":10,"method":"roots/list"}`},
		{false, `{"jsonrpc":"2.0","id":10,"result":{"roots":[]}}`},
		{false, `{"jsonrpc":"2.0","id":2,"method":"vendor/unknown","params":{"x":[1,2,{"y":null}]}}`},
		{true, `{"jsonrpc":"2.0","id":2,"error":{"code":-32601,"message":"Method not found"}}`},
		{true, `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"\u00e9\u2028"}}`},
		{true, `[]`},
		{false, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"weather","arguments":{"location":"Oslo","days":3}}}` + "\r"},
		{false, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3,"reason":"x"}}`},
		{true, `{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"ok"}]}}`},
		{false, `[{"jsonrpc":"2.0","id":4,"method":"ping"},{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"weather","arguments":{"location":"Rome"}}}]`},
		{true, `[{"jsonrpc":"2.0","id":4,"result":{}},{"jsonrpc":"2.0","id":5,"result":{"content":[]}}]`},
		{true, `{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`},
		{true, `{"jsonrpc":"2.0","id":"mcpvalidate-","result":{}}`},
		{true, `{"jsonrpc":"2.0","id":6,"result":{}}`},
		{false, `{"jsonrpc":"2.0","id":11,"method":"resources/read","params":{"uri":"file:///x"}}`},
		{true, `{"jsonrpc":"2.0","id":11,"result":{"contents":[{"uri":"file:///x","text":"` + strings.Repeat("z", 100000) + `"}]}}`},
		{true, "\x00\xff garbage \x1b[31m"},
	}
	for i, s := range steps {
		if s.fromServer {
			h.serverPasses(s.line)
		} else {
			h.clientPasses(s.line)
		}
		if t.Failed() {
			t.Fatalf("step %d", i)
		}
	}
}

// TestCalls checks what becomes of calls of listed tools, under several options.
func TestCalls(t *testing.T) {
	cases := []struct {
		name string
		opts Options
		call string // params
		want string // "" the call passes; else a substring of the client's answer
	}{
		{"valid", Options{}, `{"name":"weather","arguments":{"location":"Oslo","days":3}}`, ""},
		{"valid, no arguments needed", Options{}, `{"name":"sum"}`, ""},
		{"missing required", Options{}, `{"name":"weather","arguments":{"days":3}}`,
			`"result":{"content":[{"type":"text","text":"Invalid arguments: missing required property 'location'"}],"isError":true,"_meta":{"com.github.mcpvalidate/violations":{"of":"arguments"`},
		{"absent arguments", Options{}, `{"name":"weather"}`, `Invalid arguments: missing required property 'location'`},
		{"null arguments", Options{}, `{"name":"weather","arguments":null}`, `Invalid arguments: missing required property 'location'`},
		{"arguments not an object", Options{}, `{"name":"weather","arguments":[1]}`, `Invalid arguments`},
		{"wrong type", Options{}, `{"name":"weather","arguments":{"location":"Oslo","days":"3"}}`, `property 'days' must be integer`},
		{"duplicate argument", Options{}, `{"name":"weather","arguments":{"location":"Oslo","location":"Rome"}}`, `Invalid arguments`},
		{"gateway style", Options{Guard: []guard.Option{guard.WithFormatter(guard.GatewayFormat)}}, `{"name":"weather","arguments":{"location":"Oslo","x":1}}`, `Invalid arguments`},
		{"as error", Options{RefuseAsError: true}, `{"name":"weather","arguments":{"days":3}}`,
			`"error":{"code":-32602,"message":"Invalid arguments: missing required property 'location'","data":{"com.github.mcpvalidate/violations":{`},
		{"report only", Options{ReportOnly: true}, `{"name":"weather","arguments":{"days":3}}`, ""},
		{"broken schema fails closed", Options{}, `{"name":"broken","arguments":{}}`, `its input schema is invalid`},
		{"task-augmented", Options{}, `{"name":"weather","arguments":{},"task":{"ttl":1000}}`,
			`"error":{"code":-32602,"message":"Invalid arguments: missing required property 'location'","data":{"com.github.mcpvalidate/violations":{`},
		{"task null is no task", Options{}, `{"name":"weather","arguments":{},"task":null}`, `"result":{"content":[{"type":"text","text":"Invalid arguments: missing required property 'location'"}],"isError":true`},
		{"task-augmented, valid", Options{}, `{"name":"weather","arguments":{"location":"x"},"task":{"ttl":1000}}`, ""},
		{"unknown tool refused", Options{}, `{"name":"nope","arguments":{}}`, `"id":"c-1","error":{"code":-32602,"message":"Unknown tool: nope"}}`},
		{"unknown tool in another case", Options{}, `{"name":"Weather","arguments":{"location":"x"}}`, `"error":{"code":-32602,"message":"Unknown tool: Weather"}}`},
		{"unknown tool with a space", Options{}, `{"name":"weather ","arguments":{"location":"x"}}`, `"error":{"code":-32602,"message":"Unknown tool: \"weather \""}}`},
		{"unknown tool escaped", Options{}, `{"name":"weather\u200b","arguments":{"location":"x"}}`, `"message":"Unknown tool: \"weather\\u200b\""}}`},
		{"unknown tool as error", Options{RefuseAsError: true}, `{"name":"nope","arguments":{}}`, `"error":{"code":-32602,"message":"Unknown tool: nope"}}`},
		{"unknown task-augmented", Options{}, `{"name":"nope","arguments":{},"task":{"ttl":1000}}`, `"error":{"code":-32602,"message":"Unknown tool: nope"}}`},
		{"unknown tool passes", Options{Unknown: PassUnknown}, `{"name":"nope","arguments":{}}`, ""},
		{"unknown tool, report only", Options{ReportOnly: true}, `{"name":"Weather","arguments":{}}`, ""},
		{"name twice", Options{}, `{"name":"sum","name":"weather","arguments":{}}`, `"code":-32600`},
		{"name in another case", Options{}, `{"name":"sum","Name":"weather","arguments":{}}`, `"code":-32600`},
		{"arguments in another case", Options{}, `{"name":"weather","arguments":{"location":"x"},"Arguments":{}}`, `"code":-32600`},
		{"task in another case", Options{}, `{"name":"weather","arguments":{"location":"x"},"Task":{"ttl":1000}}`, `"code":-32600`},
		{"task twice", Options{}, `{"name":"weather","arguments":{"location":"x"},"task":{"ttl":1000},"task":null}`, `"code":-32600`},
		{"params in another case", Options{}, `{"name":"weather","arguments":{"location":"x"}},"PARAMS":{"name":"sum"}`, `"code":-32600`},
		{"name escaped", Options{}, `{"n\u0061me":"weather","arguments":{}}`, `missing required property 'location'`},
		{"tool name escaped", Options{}, `{"name":"w\u0065ather","arguments":{}}`, `missing required property 'location'`},
		{"name not a string", Options{}, `{"name":1,"arguments":{}}`, `"code":-32600`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := newHarness(t, c.opts)
			h.listed()
			line := `{"jsonrpc":"2.0","id":"c-1","method":"tools/call","params":` + c.call + `}`
			if c.want == "" {
				h.clientPasses(line)
				h.serverPasses(`{"jsonrpc":"2.0","id":"c-1","result":{"content":[]}}`)
				return
			}
			h.client(line)
			got := h.clientGets()
			if !strings.Contains(got, c.want) || !strings.HasPrefix(got, `{"jsonrpc":"2.0","id":"c-1",`) || !json.Valid([]byte(got)) {
				t.Fatalf("the client got\n%s\nwant it to contain\n%s", got, c.want)
			}
			// The server never got the call: the next line it gets is the ping after it.
			h.clientPasses(`{"jsonrpc":"2.0","id":"after","method":"ping"}`)
		})
	}
}

// TestMethodInAnotherCase refuses a tools/call whose method member appears twice.
func TestMethodInAnotherCase(t *testing.T) {
	h := newHarness(t, Options{})
	h.listed()
	h.client(`{"jsonrpc":"2.0","id":2,"method":"ping","Method":"tools/call","params":{"name":"weather","arguments":{}}}`)
	if got := h.clientGets(); !strings.Contains(got, `"id":2,"error":{"code":-32600`) {
		t.Fatalf("got %s", got)
	}
	h.clientPasses(`{"jsonrpc":"2.0","id":3,"method":"ping","Method":"other"}`)
}

// TestRefusedNotification drops a tools/call without an id whose arguments are invalid:
// there is nobody to answer.
func TestRefusedNotification(t *testing.T) {
	h := newHarness(t, Options{})
	h.listed()
	h.client(`{"jsonrpc":"2.0","method":"tools/call","params":{"name":"weather","arguments":{}}}`)
	h.clientPasses(`{"jsonrpc":"2.0","method":"tools/call","params":{"name":"weather","arguments":{"location":"x"}}}`)
}

// TestBatch takes a refused call out of a batch: the server gets the other members'
// bytes, the client the refusal in a batch of its own.
func TestBatch(t *testing.T) {
	h := newHarness(t, Options{})
	h.listed()
	valid := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"weather","arguments":{"location":"x"}}}`
	invalid := `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"weather","arguments":{"days":0}}}`
	note := `{ "jsonrpc":"2.0", "method":"notifications/progress", "params":{"progressToken":1,"progress":1} }`
	h.client(`[` + valid + ` , ` + invalid + `,` + note + `]`)
	got := h.clientGets()
	if !strings.HasPrefix(got, `[{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"Invalid arguments: `) || !strings.HasSuffix(got, "}]") {
		t.Fatalf("the client got %s", got)
	}
	if got, want := h.serverGets(), `[`+valid+`,`+note+`]`; got != want {
		t.Fatalf("the server got\n%s\nwant\n%s", got, want)
	}
	// A batch of refusals alone reaches no server.
	h.client(`[` + invalid + `]`)
	if got := h.clientGets(); !strings.HasPrefix(got, `[{"jsonrpc":"2.0","id":3,"result"`) {
		t.Fatalf("the client got %s", got)
	}
	h.clientPasses(`{"jsonrpc":"2.0","id":"after","method":"ping"}`)
}

// TestFetchesList has the proxy ask the server for its list, page by page, when a call
// names a tool it has not seen listed, and keep the answers from the client.
func TestFetchesList(t *testing.T) {
	for _, refuse := range []bool{false, true} {
		opts := Options{}
		if !refuse {
			opts.Unknown = PassUnknown
		}
		h := newHarness(t, opts)
		h.client(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"weather","arguments":{},"_meta":{"progressToken":5,"x":1}}}`)
		req := h.serverGets()
		var m struct {
			ID     string
			Method string
			Params json.RawMessage
		}
		if err := json.Unmarshal([]byte(req), &m); err != nil || m.Method != "tools/list" || !strings.HasPrefix(m.ID, "mcpvalidate-") {
			t.Fatalf("the server got %s", req)
		}
		if string(m.Params) != `{"_meta":{"x":1}}` {
			t.Fatalf("the proxy's request has params %s", m.Params)
		}
		h.server(`{"jsonrpc":"2.0","id":"` + m.ID + `","result":{"tools":[{"name":"other","inputSchema":{"type":"object"}}],"nextCursor":"page2"}}`)
		req = h.serverGets()
		if err := json.Unmarshal([]byte(req), &m); err != nil || !strings.Contains(string(m.Params), `"cursor":"page2"`) {
			t.Fatalf("the server got %s", req)
		}
		h.server(`{"jsonrpc":"2.0","id":"` + m.ID + `","result":` + toolsList + `}`)
		if got := h.clientGets(); !strings.Contains(got, `"id":1,"result":{"content":[{"type":"text","text":"Invalid arguments: missing required property 'location'`) {
			t.Fatalf("the client got %s", got)
		}
		// Listed now: no more fetching, for a known tool or an unknown one.
		h.clientPasses(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"other","arguments":{}}}`)
		unknown := `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"gone","arguments":{}}}`
		if refuse {
			h.client(unknown)
			if got := h.clientGets(); !strings.Contains(got, `Unknown tool`) {
				t.Fatalf("the client got %s", got)
			}
		} else {
			h.clientPasses(unknown)
		}
		// The client then sees the server's answer to the call, not the proxy's lists.
		h.serverPasses(`{"jsonrpc":"2.0","id":2,"result":{"content":[]}}`)
	}
}

// TestListNotFetched: a call of a tool the proxy has not seen listed, when the server
// answers the proxy's tools/list with an error, is answered by the proxy and never
// reaches the server, which it could not be checked against.
func TestListNotFetched(t *testing.T) {
	h := newHarness(t, Options{})
	h.client(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"weather","arguments":{"days":"x"}}}`)
	var m struct{ ID string }
	if req := h.serverGets(); json.Unmarshal([]byte(req), &m) != nil || !strings.Contains(req, `"method":"tools/list"`) {
		t.Fatalf("the server got %s", req)
	}
	h.server(`{"jsonrpc":"2.0","id":"` + m.ID + `","error":{"code":-32603,"message":"busy"}}`)
	got := h.clientGets()
	if !strings.HasPrefix(got, `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"The call of tool weather could not be checked`) ||
		!strings.Contains(got, `busy`) || !strings.HasSuffix(got, `"isError":true}}`) {
		t.Fatalf("the client got %s", got)
	}
	// The next message the server gets is the client's next one: the call never reached it.
	h.clientPasses(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":9}}`)
}

// TestUnknownToolVisible: a call of a tool the server does not list, refused or passed on,
// is logged and told to the guard's observers under the name sent, and the name a model
// makes up, however long, is shown bounded in the answer and the log line, as it is when
// the list could not be fetched.
func TestUnknownToolVisible(t *testing.T) {
	long := "weather" + strings.Repeat("x", 100000) + "\u202e"
	for _, c := range []struct {
		opts   Options
		name   string
		passed bool
	}{
		{Options{Unknown: PassUnknown}, long, true},
		{Options{ReportOnly: true}, "Weather", true},
		{Options{}, "Weather", false},
		{Options{}, long, false},
	} {
		var log strings.Builder
		var events []guard.Event
		c.opts.Logger = slog.New(slog.NewJSONHandler(&log, nil))
		c.opts.Guard = []guard.Option{guard.WithObserver(func(e guard.Event) { events = append(events, e) })}
		h := newHarness(t, c.opts)
		h.listed()
		call := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":` + strconv.Quote(c.name) + `,"arguments":{}}}`
		if c.passed {
			h.clientPasses(call)
		} else {
			h.client(call)
			got := h.clientGets()
			var m struct{ Error struct{ Code int } }
			if json.Unmarshal([]byte(got), &m) != nil || m.Error.Code != -32602 || !strings.Contains(got, `"message":"Unknown tool: `) || len(got) > 300 {
				t.Errorf("%.20q: the client got %.400s", c.name, got)
			}
		}
		h.clientPasses(`{"jsonrpc":"2.0","id":"after","method":"ping"}`)
		msg := "mcpvalidate: call of a tool the server does not list refused"
		if c.passed {
			msg = "mcpvalidate: call of a tool the server does not list passed on unchecked"
		}
		var line struct{ Msg, Tool string }
		if err := json.Unmarshal([]byte(log.String()), &line); err != nil || line.Msg != msg || len(line.Tool) > 200 || !strings.Contains(line.Tool, "eather") {
			t.Errorf("%.20q: logged %.400s (%v)", c.name, log.String(), err)
		}
		if len(events) != 1 || events[0].Outcome.String() != "unknown tool" || events[0].Tool != c.name || events[0].ReportOnly != c.passed {
			t.Errorf("%.20q: events %+v", c.name, events)
		}
	}
	h := newHarness(t, Options{})
	h.client(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":` + strconv.Quote(long) + `}}`)
	var m struct{ ID string }
	if err := json.Unmarshal([]byte(h.serverGets()), &m); err != nil {
		t.Fatal(err)
	}
	h.server(`{"jsonrpc":"2.0","id":"` + m.ID + `","error":{"code":-32603,"message":"busy"}}`)
	if got := h.clientGets(); !strings.Contains(got, "characters not shown") || len(got) > 500 {
		t.Errorf("the client got %.600s", got)
	}
}

// TestListChanged fetches the list again after the server says it changed, and checks
// calls against the new schemas.
func TestListChanged(t *testing.T) {
	h := newHarness(t, Options{})
	h.listed()
	h.clientPasses(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"weather","arguments":{"location":"x"}}}`)
	h.serverPasses(`{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`)
	h.client(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"weather","arguments":{"location":"x"}}}`)
	var m struct{ ID string }
	if err := json.Unmarshal([]byte(h.serverGets()), &m); err != nil || m.ID == "" {
		t.Fatal("the proxy did not fetch the changed list")
	}
	h.server(`{"jsonrpc":"2.0","id":"` + m.ID + `","result":{"tools":[{"name":"weather","inputSchema":{"type":"object","required":["when"]}}]}}`)
	if got := h.clientGets(); !strings.Contains(got, `missing required property 'when'`) {
		t.Fatalf("the client got %s", got)
	}
	// The client's own listing after a change counts as fresh.
	h.serverPasses(`{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`)
	h.listed()
	h.clientPasses(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"weather","arguments":{"location":"x"}}}`)
}

// TestOutput withholds a result whose structuredContent does not match the outputSchema.
func TestOutput(t *testing.T) {
	h := newHarness(t, Options{Output: true})
	h.listed()
	call := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"sum","arguments":{}}}`
	h.clientPasses(call)
	h.serverPasses(`{"jsonrpc":"2.0","id":2,"result":{"content":[],"structuredContent":{"n":1}}}`)
	h.clientPasses(call)
	h.server(`{"jsonrpc":"2.0","id":2,"result":{"content":[],"structuredContent":{"n":"one"}}}`)
	if got := h.clientGets(); !strings.Contains(got, `"id":2,"result":{"content":[{"type":"text","text":"The tool failed on the server's side`) || !strings.Contains(got, `"of":"result"`) {
		t.Fatalf("the client got %s", got)
	}
	h.clientPasses(call)
	h.serverPasses(`{"jsonrpc":"2.0","id":2,"result":{"content":[],"isError":true}}`)
}

// TestServerGone answers every request in flight when the server's output ends.
func TestServerGone(t *testing.T) {
	h := newHarness(t, Options{})
	h.listed()
	h.clientPasses(`{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"weather","arguments":{"location":"x"}}}`)
	h.clientPasses(`{"jsonrpc":"2.0","id":2,"method":"resources/list"}`)
	h.clientPasses(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	h.serverSend.Close()
	got := map[string]bool{}
	for range 2 {
		var m struct {
			ID    json.RawMessage
			Error struct{ Code int }
		}
		line := h.clientGets()
		if err := json.Unmarshal([]byte(line), &m); err != nil || m.Error.Code != -32603 {
			t.Fatalf("the client got %s", line)
		}
		got[string(m.ID)] = true
	}
	if !got[`"a"`] || !got[`2`] {
		t.Fatalf("answered %v", got)
	}
	if err := <-h.done; err != nil {
		t.Fatal(err)
	}
	h.done <- nil
}

// TestNotJSON: a client's message that is not JSON, or JSON that is not a message or a
// batch, is answered by the proxy and never sent on, whatever a lenient server would read
// in it. (Over stdio, a line that is not one message: TestStdioFraming.)
func TestNotJSON(t *testing.T) {
	p, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ line, code string }{
		{`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"weather","arguments":{"days":NaN}}}`, "-32700"},
		{`{"jsonrpc":"2.0","id":1,"method":"tools\/call","params":{"name":"weather","arguments":{},}}`, "-32700"},
		{`{"jsonrpc":"2.0","id":1,"method":"\u0074ools/c\u0061ll","params":{"name":"weather"}} // comment`, "-32700"},
		{`[{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"weather"}},]`, "-32700"},
		{strings.Repeat("[", 20000) + `{"method":"tools/call"}` + strings.Repeat("]", 19999), "-32700"},
		{`{"jsonrpc":"2.0","id":1,"method":"tools/list",}`, "-32700"},
		{`{"jsonrpc":"2.0","id":1,"method":"ping"}{"jsonrpc":"2.0","id":2,"method":"tools/call"}`, "-32700"},
		{`"tools/call"`, "-32600"},
		{` 42 `, "-32600"},
	} {
		forward, answer := p.fromClient(exchange{s: newSession("")}, []byte(tc.line), nil)
		if forward != nil || !strings.Contains(string(answer), `"id":null,"error":{"code":`+tc.code+`,`) {
			t.Fatalf("%.80s: sent on %.80s, answered %s", tc.line, forward, answer)
		}
	}
	// Nested deeper than encoding/json reads, a call is still a call.
	h := newHarness(t, Options{})
	h.listed()
	deep := strings.Repeat("[", 20000) + strings.Repeat("]", 20000)
	h.client(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"weather","arguments":{"days":` + deep + `}}}`)
	if got := h.clientGets(); !strings.Contains(got, `"id":2,"result":{"content":[{"type":"text","text":"Invalid arguments: `) {
		t.Fatalf("the client got %.200s", got)
	}
}

// TestOutputNotWalkedAround: under Options.Output, a result that breaks its tool's
// outputSchema never reaches the client in a form the proxy did not check: under an id
// spelled otherwise (a client may match "2", 2.0 or 2e0 to its request 2), as a
// member in another case or twice (Go's encoding/json reads "Result" as result), split
// over lines (go-sdk's client reads a stream of JSON values), or between lone CRs
// (Python's and Java's clients end a line there).
func TestOutputNotWalkedAround(t *testing.T) {
	const bad = `{"content":[],"structuredContent":{"n":"one"}}`
	for _, tc := range []struct{ name, line string }{
		{"id as a string", `{"jsonrpc":"2.0","id":"2","result":` + bad + `}`},
		{"id 2.0", `{"jsonrpc":"2.0","id":2.0,"result":` + bad + `}`},
		{"id 2e0", `{"jsonrpc":"2.0","id":2e0,"result":` + bad + `}`},
		{"id null", `{"jsonrpc":"2.0","id":null,"result":` + bad + `}`},
		{"Result", `{"jsonrpc":"2.0","id":2,"Result":` + bad + `}`},
		{"result twice, in two cases", `{"jsonrpc":"2.0","id":2,"result":{"content":[],"structuredContent":{"n":1}},"RESULT":` + bad + `}`},
		{"ID", `{"jsonrpc":"2.0","id":7,"ID":2,"result":` + bad + `}`},
		{"IsError", `{"jsonrpc":"2.0","id":2,"result":{"isError":true,"IsError":false,"content":[],"structuredContent":{"n":"one"}}}`},
		{"StructuredContent", `{"jsonrpc":"2.0","id":2,"result":{"content":[],"structuredContent":{"n":1},"StructuredContent":{"n":"one"}}}`},
		{"split over lines", "{\"jsonrpc\":\"2.0\",\"id\":2,\n\"result\":" + bad + "}"},
		{"two on a line", `{"jsonrpc":"2.0","method":"x"} {"jsonrpc":"2.0","id":2,"result":` + bad + `}`},
		{"between lone CRs", `{"x":` + "\r" + `{"jsonrpc":"2.0","id":2,"result":` + bad + `}` + "\r}"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, Options{Output: true})
			h.listed()
			h.clientPasses(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"sum","arguments":{}}}`)
			const marker = `{"jsonrpc":"2.0","method":"notifications/marker"}`
			go io.WriteString(h.serverSend, tc.line+"\n"+marker+"\n")
			for {
				got := h.clientGets()
				if got == marker {
					break
				}
				if strings.Contains(got, `"one"`) {
					t.Fatalf("the client got the unchecked result %.300q", got)
				}
			}
		})
	}
}

// TestIDSpellings: a number id is the number it spells, as servers decode it: a request
// may not take 1.0 or 1e0 while 1 is in flight, a number id that is not an integer a
// server can hold is refused, and a server's answer under another spelling of the id
// answers the request.
func TestIDSpellings(t *testing.T) {
	h := newHarness(t, Options{Output: true})
	h.listed()
	h.clientPasses(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"sum","arguments":{}}}`)
	for _, id := range []string{"2.0", "2e0", "20e-1", "2.000", "0.2e1"} {
		h.client(`{"jsonrpc":"2.0","id":` + id + `,"method":"tools/list"}`)
		if got := h.clientGets(); !strings.HasPrefix(got, `{"jsonrpc":"2.0","id":`+id+`,"error":{"code":-32600,`) {
			t.Fatalf("id %s while 2 is in flight: the client got %.300s", id, got)
		}
	}
	for _, id := range []string{"2.5", "1e400", "-1e400", "9007199254740993", "1e20"} {
		h.client(`{"jsonrpc":"2.0","id":` + id + `,"method":"ping"}`)
		if got := h.clientGets(); !strings.HasPrefix(got, `{"jsonrpc":"2.0","id":`+id+`,"error":{"code":-32600,`) {
			t.Fatalf("id %s: the client got %.300s", id, got)
		}
	}
	h.server(`{"jsonrpc":"2.0","id":2.0,"result":{"content":[],"structuredContent":{"n":"one"}}}`)
	if got := h.clientGets(); !strings.Contains(got, `"isError":true`) || strings.Contains(got, `"one"`) {
		t.Fatalf("the client got %.300s", got)
	}
	h.clientPasses(`{"jsonrpc":"2.0","id":-0,"method":"ping"}`)
	h.client(`{"jsonrpc":"2.0","id":0,"method":"ping"}`)
	if got := h.clientGets(); !strings.Contains(got, `"code":-32600`) {
		t.Fatalf("id 0 while -0 is in flight: the client got %.300s", got)
	}
}

// TestAmbiguousRequests: a request whose id, or a tools/list whose method or cursor, a
// server may read otherwise than the proxy (twice, or in another case, which Go's
// encoding/json reads as the same member) is refused: the proxy could not tell which
// request the server answers, nor which page of the list.
func TestAmbiguousRequests(t *testing.T) {
	for _, line := range []string{
		`{"jsonrpc":"2.0","id":5,"ID":1,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":5,"id":1,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":5,"method":"ping","Method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":5,"method":"tools/list","METHOD":"ping"}`,
		`{"jsonrpc":"2.0","id":5,"method":"tools/list","params":{"Cursor":"p2"}}`,
		`{"jsonrpc":"2.0","id":5,"method":"tools/list","params":{"cursor":"p2","cursor":null}}`,
	} {
		h := newHarness(t, Options{})
		h.client(line)
		if got := h.clientGets(); !strings.Contains(got, `,"error":{"code":-32600,`) {
			t.Fatalf("%s: the client got %.300s", line, got)
		}
	}
}
