package proxy

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"testing/iotest"
)

// TestOverlongScan: what the scan of a dropped message finds, fed whole and a byte at a
// time.
func TestOverlongScan(t *testing.T) {
	big := strings.Repeat(`{"a":["}",{"id":9}],"b":"\"id\":7"}`, 50)
	tests := []struct {
		msg    string
		id     string // "" for none
		method bool
	}{
		{`{"jsonrpc":"2.0","id":12,"method":"tools/call","params":` + big + `}`, "12", true},
		{`{"method":"tools/call","params":` + big + `,"jsonrpc":"2.0","id":12}`, "12", true}, // the TypeScript SDK's order
		{`{"jsonrpc":"2.0", "id" : "a\"b" ,"method":"x"}`, `"a\"b"`, true},
		{`{"jsonrpc":"2.0","id":-1.5e3,"result":` + big + `}`, "-1.5e3", false},
		{`data: {"jsonrpc":"2.0","id":"x","result":{}}`, `"x"`, false},
		{`{"jsonrpc":"2.0","method":"notifications/progress","params":` + big + `}`, "", true},
		{`{"jsonrpc":"2.0","id":{"n":1},"method":"x"}`, "", true},
		{`{"jsonrpc":"2.0","id":[1],"method":"x"}`, "", true},
		{`{"jsonrpc":"2.0","id":null,"method":"x"}`, "", true},
		{`{"jsonrpc":"2.0","id":true}`, "", false},
		{`{"jsonrpc":"2.0","id":"` + strings.Repeat("i", maxIDLen) + `","method":"x"}`, "", true},
		{`{"params":{"id":1,"method":"x"}}`, "", false},
		{`{"idx":1,"methods":"x","ids":2}`, "", false},
		{`[{"jsonrpc":"2.0","id":1,"method":"x"}]`, "", false},
		{`{"jsonrpc":"2.0","id":1,"id":2,"method":"x"}`, "1", true},
		{`{"jsonrpc":"2.0","method":"x","id":3`, "", true}, // cut off: no end to the id
		{`not json`, "", false},
	}
	for _, tt := range tests {
		for _, step := range []int{len(tt.msg), 1, 7} {
			var o overlong
			for i := 0; i < len(tt.msg); i += step {
				o.feed([]byte(tt.msg[i:min(i+step, len(tt.msg))]))
			}
			if string(o.id) != tt.id || o.method != tt.method || o.size != int64(len(tt.msg)) {
				t.Errorf("%.60s (in pieces of %d): id %q, method %v, size %d; want %q, %v, %d",
					tt.msg, step, o.id, o.method, o.size, tt.id, tt.method, len(tt.msg))
			}
		}
	}
}

// TestOverlongEventScan: an SSE event is scanned as its data, its data lines joined,
// other fields passed over, wherever its pieces end.
func TestOverlongEventScan(t *testing.T) {
	big := strings.Repeat(`"id":7,`, 50)
	tests := []struct {
		event  string
		id     string // "" for none
		method bool
	}{
		{"event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":4,\"result\":{}}\n\n", "4", false},
		{"data:{\"id\":\"a\"}\r\n\r\n", `"a"`, false},
		{"data: {\ndata:   \"jsonrpc\": \"2.0\",\ndata:   \"result\": {" + big + "},\ndata:   \"id\": 12\ndata: }\n\n", "12", false},
		{"data: {\"result\":\"x\",\ndata\ndata: \"id\"\ndata: :5, \"method\": \"m\"}\n\n", "5", true},
		{"id: 3\nevent: {\"id\":1}\n: {\"id\":2}\ndatum: {\"id\":6}\ndata: {\"method\":\"x\"}\n\n", "", true},
		{"data: {\"params\":{\ndata: \"id\":1}}\n\n", "", false},
	}
	for _, tt := range tests {
		for _, step := range []int{len(tt.event), 1, 5} {
			o := overlong{sse: true}
			for i := 0; i < len(tt.event); i += step {
				o.feed([]byte(tt.event[i:min(i+step, len(tt.event))]))
			}
			if string(o.id) != tt.id || o.method != tt.method || o.size != int64(len(tt.event)) {
				t.Errorf("%.60q (in pieces of %d): id %q, method %v, size %d; want %q, %v, %d",
					tt.event, step, o.id, o.method, o.size, tt.id, tt.method, len(tt.event))
			}
		}
	}
}

// TestMessageLimitStdio: over stdio, each side's messages over the limit are dropped and
// answered in their place, the stream goes on in step, and a message of the limit's size
// passes.
func TestMessageLimitStdio(t *testing.T) {
	const limit = 64 << 10
	h := newHarness(t, Options{MaxMessage: limit, Output: true})
	h.listed()
	pad := func(msg string, size int) string { // msg, its "pad" member filled out to size bytes
		return strings.Replace(msg, `"pad":""`, `"pad":"`+strings.Repeat("p", size-len(msg))+`"`, 1)
	}
	call := `{"method":"tools/call","params":{"name":"weather","arguments":{"location":"Oslo","pad":""}},"jsonrpc":"2.0","id":2}`
	h.client(pad(call, 1<<20))
	if got, want := h.clientGets(), `{"jsonrpc":"2.0","id":2,"error":{"code":-32600,"message":"mcpvalidate proxy: the request is 1048576 bytes, over the proxy's limit of 65536 bytes, so it was not passed on"}}`; got != want {
		t.Fatalf("the client got\n%.300s\nwant\n%s", got, want)
	}
	h.client(pad(`{"jsonrpc":"2.0","method":"notifications/message","params":{"pad":""}}`, 1<<20))
	h.client(strings.Repeat("[", 1<<20)) // no id to be found
	if got := h.clientGets(); !strings.HasPrefix(got, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,`) {
		t.Fatalf("the client got %.300s", got)
	}
	exact := pad(`{"jsonrpc":"2.0","id":3,"method":"vendor/x","params":{"pad":""}}`, limit)
	h.clientPasses(exact)
	h.serverPasses(pad(`{"jsonrpc":"2.0","id":3,"result":{"pad":""}}`, limit))

	h.clientPasses(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"sum","arguments":{}}}`)
	h.server(pad(`{"jsonrpc":"2.0","id":4,"result":{"content":[],"structuredContent":{"n":1,"pad":""}}}`, limit+1))
	if got := h.clientGets(); !strings.HasPrefix(got, `{"jsonrpc":"2.0","id":4,"error":{"code":-32603,"message":"mcpvalidate proxy: the MCP server's response is 65537 bytes, over`) {
		t.Fatalf("the client got %.300s", got)
	}
	h.server(pad(`{"jsonrpc":"2.0","id":"s1","method":"sampling/createMessage","params":{"pad":""}}`, 1<<20))
	if got := h.serverGets(); !strings.HasPrefix(got, `{"jsonrpc":"2.0","id":"s1","error":{"code":-32600,`) {
		t.Fatalf("the server got %.300s", got)
	}
	h.server(`{"jsonrpc":"2.0","id":"s2","method":"sampling/createMessage","params":{}}`)
	if got := h.clientGets(); got != `{"jsonrpc":"2.0","id":"s2","method":"sampling/createMessage","params":{}}` {
		t.Fatalf("the client got %.300s", got)
	}
	h.client(pad(`{"jsonrpc":"2.0","id":"s2","result":{"pad":""}}`, 1<<20))
	if got := h.serverGets(); !strings.HasPrefix(got, `{"jsonrpc":"2.0","id":"s2","error":{"code":-32603,"message":"mcpvalidate proxy: the client's response is 1048576 bytes`) {
		t.Fatalf("the server got %.300s", got)
	}
	h.clientPasses(`{"jsonrpc":"2.0","id":5,"method":"ping"}`)
	h.serverPasses(`{"jsonrpc":"2.0","id":5,"result":{}}`)
}

// TestOwnListOverLimit: the proxy's own tools/list answered over the limit fails, and the
// call waiting on it is refused as unchecked, never passed on.
func TestOwnListOverLimit(t *testing.T) {
	h := newHarness(t, Options{MaxMessage: 64 << 10})
	h.client(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"weather","arguments":{"location":"x"}}}`)
	var m struct{ ID string }
	if req := h.serverGets(); json.Unmarshal([]byte(req), &m) != nil || !strings.Contains(req, `"method":"tools/list"`) {
		t.Fatalf("the server got %s", req)
	}
	h.server(`{"jsonrpc":"2.0","id":"` + m.ID + `","result":{"tools":[],"pad":"` + strings.Repeat("p", 1<<20) + `"}}`)
	if got := h.clientGets(); !strings.HasPrefix(got, `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"The call of tool weather could not be checked`) ||
		!strings.Contains(got, "over the proxy's limit") {
		t.Fatalf("the client got %s", got)
	}
	h.clientPasses(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":9}}`)
}

// TestOwnListOverLimitHTTP: over HTTP too, the proxy's own tools/list answered over the
// limit fails, as the client's own does: the call waiting on it is refused as unchecked.
func TestOwnListOverLimitHTTP(t *testing.T) {
	const limit = 64 << 10
	big := `{"tools":[{"name":"weather","description":"` + strings.Repeat("x", 1<<20) + `","inputSchema":` + weatherSchema + `}]}`
	var calls atomic.Int64
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		m, _ := parseMessage(body)
		w.Header().Set("Content-Type", "application/json")
		if m.method == "tools/list" {
			io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(m.id)+`,"result":`+big+`}`)
			return
		}
		calls.Add(1)
		io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(m.id)+`,"result":{"content":[]}}`)
	}))
	t.Cleanup(upstream.Close)
	endpoint := startFront(t, upstream.URL+"/mcp", Options{MaxMessage: limit})
	if _, listed := postJSON(t, endpoint, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`); !strings.Contains(listed, "over the proxy's limit") {
		t.Fatalf("the client's tools/list: %.200s", listed)
	}
	_, got := postJSON(t, endpoint, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"weather","arguments":{"location":"Oslo","days":99}}}`)
	if !strings.Contains(got, "could not be checked") || !strings.Contains(got, "over the proxy's limit") {
		t.Errorf("with MaxMessage %d, a call checked against a tools/list answer of %d bytes: %.300s", limit, len(big), got)
	}
	if n := calls.Load(); n != 0 {
		t.Errorf("%d calls reached the upstream", n)
	}
}

// endless is a reader of one line of n bytes, a request whose id comes last, made as it is
// read.
type endless struct{ n, read int64 }

func (e *endless) Read(p []byte) (int, error) {
	const head, tail = `{"jsonrpc":"2.0","method":"tools/call","params":{"name":"weather","arguments":{"location":"`, `"}},"id":77}` + "\n"
	if e.read == e.n {
		return 0, io.EOF
	}
	for i := range p {
		switch at := e.read; {
		case at == e.n:
			return i, nil
		case at < int64(len(head)):
			p[i] = head[at]
		case at >= e.n-int64(len(tail)):
			p[i] = tail[at-(e.n-int64(len(tail)))]
		default:
			p[i] = 'x'
		}
		e.read++
	}
	return len(p), nil
}

// TestMessageLimitAtScale: a 128 MB line (1 GB in the full tier) costs the proxy what
// the limit allows and no more, and is answered with its id, which comes last.
func TestMessageLimitAtScale(t *testing.T) {
	const limit = 1 << 20
	size := 16 << 20
	if !testing.Short() {
		size = 1 << 30
	}
	p, err := New(Options{MaxMessage: limit})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	sr, sw := io.Pipe() // proxy -> server
	rr, rw := io.Pipe() // server -> proxy, ended when the server's input is
	var toServer atomic.Int64
	go func() {
		n, _ := io.Copy(io.Discard, sr)
		toServer.Store(n)
		rw.Close()
	}()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	if err := p.Serve(&endless{n: int64(size)}, &out, sw, rr); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	if got := after.TotalAlloc - before.TotalAlloc; got > 4*limit {
		t.Errorf("relaying a %d-byte line allocated %d bytes; want at most %d", size, got, 4*limit)
	}
	want := `{"jsonrpc":"2.0","id":77,"error":{"code":-32600,"message":"mcpvalidate proxy: the request is ` + strconv.Itoa(size-1) + ` bytes, over the proxy's limit of 1048576 bytes, so it was not passed on"}}` + "\n"
	if out.String() != want {
		t.Fatalf("the client got\n%.300s\nwant\n%s", out.String(), want)
	}
	if toServer.Load() != 0 {
		t.Errorf("the server got %d bytes", toServer.Load())
	}
}

// TestEventLimitAtScale: an SSE event of 128 MB (1 GB in the full tier), of many short
// data lines with a line over the limit among them and its id last, costs the event
// reader what the limit allows and no more, and its id is found.
func TestEventLimitAtScale(t *testing.T) {
	const limit = 1 << 20
	size := int64(16 << 20)
	if !testing.Short() {
		size = 1 << 30
	}
	head, tail := "event: message\ndata: {\"jsonrpc\":\"2.0\",\"result\":{\"pad\":[\n", "data: \"\"]},\ndata: \"id\":77}\n\n"
	line := []byte("data: \"" + strings.Repeat("x", 1000) + "\",\n")
	half := (size - int64(len(head)+len(tail)) - 4*limit) / 2 / int64(len(line))
	event := io.MultiReader(strings.NewReader(head), &repeated{b: line, n: half},
		strings.NewReader("data: \""), &repeated{b: []byte("y"), n: 4 * limit}, strings.NewReader("\",\n"),
		&repeated{b: line, n: half}, strings.NewReader(tail))
	total := int64(len(head)+len(tail)) + 2*half*int64(len(line)) + int64(len("data: \"\",\n")) + 4*limit
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	r := getEventReader(event, limit)
	ev, err := readEvent(r)
	putEventReader(r)
	runtime.ReadMemStats(&after)
	if err != nil || ev.over == nil || string(ev.over.id) != "77" || ev.over.method || ev.over.size != total {
		t.Fatalf("a %d-byte event: %v; over %+v", total, err, ev.over)
	}
	// The event's bytes, gathered up to the limit by doubling (up to 2× the limit in all),
	// and the long line's blocks up to the limit: 3.2 MB at 128 MB and at 1 GB alike.
	if got := after.TotalAlloc - before.TotalAlloc; got > 8*limit {
		t.Errorf("reading a %d-byte event allocated %d bytes; want at most %d", total, got, 8*limit)
	}
}

// repeated reads b n times.
type repeated struct {
	b  []byte
	n  int64
	at int
}

func (r *repeated) Read(p []byte) (int, error) {
	if r.n == 0 {
		return 0, io.EOF
	}
	k := 0
	for k < len(p) && r.n > 0 {
		c := copy(p[k:], r.b[r.at:])
		k += c
		if r.at += c; r.at == len(r.b) {
			r.at, r.n = 0, r.n-1
		}
	}
	return k, nil
}

// TestMessageLimitHTTP: a POST over the limit gets 413 and never reaches the upstream; an
// upstream's JSON answer over it, an error for its request; an SSE event over it, in one data line or in
// several, an error for its request in its place, and the stream goes on.
func TestMessageLimitHTTP(t *testing.T) {
	const limit = 64 << 10
	var reached atomic.Int64
	big := strings.Repeat("x", 2*limit)
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		reached.Add(1)
		switch b := string(body); {
		case strings.Contains(b, `"tools/list"`):
			id := b[strings.Index(b, `"id":`)+len(`"id":`) : strings.Index(b, `,"method"`)]
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"jsonrpc":"2.0","id":`+id+`,"result":`+toolsList+`}`)
		case strings.Contains(b, `"vendor/json"`):
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"jsonrpc":"2.0","id":3,"result":{"pad":"`+big+`"}}`)
		default:
			w.Header().Set("Content-Type", "text/event-stream")
			switch {
			case strings.Contains(b, `"vendor/sse"`):
				io.WriteString(w, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":4,\"result\":{\"pad\":\""+big+"\"}}\n\n")
			case strings.Contains(b, `"vendor/lines"`): // every line under the limit, the event over it
				io.WriteString(w, "data: {\"jsonrpc\":\"2.0\",\"result\":{\"pad\":[\n")
				for range 5 {
					io.WriteString(w, "data: \""+big[:limit/2]+"\",\n")
				}
				io.WriteString(w, "data: \"\"]},\ndata: \"id\":5}\n\n")
			case strings.Contains(b, `"vendor/mixed"`): // a line over the limit, the id after it
				io.WriteString(w, "data: {\"jsonrpc\":\"2.0\",\ndata: \"result\":{\"id\":1,\"pad\":\""+big+"\"},\ndata: \"id\":6}\n\n")
			}
			io.WriteString(w, "data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{}}\n\n")
		}
	}))
	t.Cleanup(upstream.Close)
	endpoint := startFront(t, upstream.URL+"/mcp", Options{MaxMessage: limit})

	tooLarge := `{"jsonrpc":"2.0","id":2,"method":"vendor/x","params":{"pad":"` + big + `"}}`
	status, _, body := postRaw(t, endpoint, tooLarge, http.Header{})
	if status != http.StatusRequestEntityTooLarge || !json.Valid([]byte(body)) || !strings.Contains(body, `"code":-32600`) || reached.Load() != 0 {
		t.Fatalf("a POST over the limit: %d %.300s; %d requests reached the upstream", status, body, reached.Load())
	}
	if resp, err := http.Post(endpoint, "application/json", strings.NewReader(tooLarge)); err != nil {
		t.Fatal(err)
	} else if resp.Body.Close(); !resp.Close { // the rest of its body was not read
		t.Errorf("a POST over the limit is answered %s on a connection that stays open", resp.Status)
	}
	status, _, body = postRaw(t, endpoint, `{"jsonrpc":"2.0","id":3,"method":"vendor/json"}`, http.Header{})
	if status != 200 || body != `{"jsonrpc":"2.0","id":3,"error":{"code":-32603,"message":"mcpvalidate proxy: the upstream server's answer is over the proxy's limit of 65536 bytes, so it was not passed on"}}` {
		t.Fatalf("a JSON answer over the limit: %d %.300s", status, body)
	}
	for id, method := range map[string]string{"4": "vendor/sse", "5": "vendor/lines", "6": "vendor/mixed"} {
		status, _, body = postRaw(t, endpoint, `{"jsonrpc":"2.0","id":`+id+`,"method":"`+method+`"}`, http.Header{})
		head := "data: {\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"error\":{\"code\":-32603,\"message\":\"mcpvalidate proxy: the MCP server's response is "
		tail := " bytes, over the proxy's limit of 65536 bytes, so it was not passed on\"}}\n\n" +
			"data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{}}\n\n"
		n, _, _ := strings.Cut(strings.TrimPrefix(body, head), " ")
		if size, err := strconv.Atoi(n); status != http.StatusOK || !strings.HasPrefix(body, head) || !strings.HasSuffix(body, tail) || err != nil || size < 2*limit {
			t.Errorf("%s, an event over the limit: %d\n%.400s", method, status, body)
		}
	}
}

// TestReadAll: a body is read whole whatever length it declares, in one allocation when
// the declaration holds, and a length declared beyond maxAhead makes no more room ahead.
func TestReadAll(t *testing.T) {
	body := strings.Repeat("x", 3000)
	for _, size := range []int64{-1, 0, 1, 2999, 3000, 3001, 1 << 40} {
		b, err := readAll(strings.NewReader(body), size, 1<<20)
		if err != nil || string(b) != body {
			t.Errorf("declared %d: %d bytes, %v", size, len(b), err)
		}
		if size == 1<<40 && cap(b) > maxAhead+1 {
			t.Errorf("declared %d: room for %d bytes made ahead", size, cap(b))
		}
	}
	r := strings.NewReader(body)
	if n := testing.AllocsPerRun(100, func() {
		r.Reset(body)
		if b, _ := readAll(r, int64(len(body)), 1<<20); len(b) != len(body) {
			t.Fatal("short")
		}
	}); n != 1 {
		t.Errorf("%v allocations for a body of the declared length, want 1", n)
	}
	if b, err := readAll(strings.NewReader(body), -1, 100); err != nil || len(b) != 101 {
		t.Errorf("a body over the bound: %d bytes read, %v; want 101", len(b), err)
	}
	big := strings.Repeat("y", 3<<20) // past maxAhead: the rest is made as it comes
	for _, size := range []int64{-1, 3 << 20, 1 << 40} {
		if b, err := readAll(strings.NewReader(big), size, 4<<20); err != nil || string(b) != big {
			t.Errorf("3 MiB declared %d: %d bytes, %v", size, len(b), err)
		}
		if b, err := readAll(strings.NewReader(big), size, 1<<20); err != nil || len(b) != 1<<20+1 {
			t.Errorf("3 MiB declared %d, bound 1 MiB: %d bytes read, %v; want 1 MiB and one", size, len(b), err)
		}
	}
	if _, err := readAll(iotest.ErrReader(io.ErrUnexpectedEOF), 10, 100); err != io.ErrUnexpectedEOF {
		t.Errorf("a failing body: %v", err)
	}
}
