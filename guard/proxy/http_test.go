package proxy

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httptrace"
	"net/url"
	"reflect"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// startFront starts the proxy's handler in front of upstream on 127.0.0.1.
func startFront(t testing.TB, upstream string, opts Options) string {
	t.Helper()
	p, err := New(opts)
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

// TestHTTPPassesThrough checks, against a scripted upstream, what the handler passes:
// headers both ways, SSE events unchanged (a comment without its text), one event
// rewritten when its result is withheld, GET and DELETE, and a refused call that never reaches the upstream.
func TestHTTPPassesThrough(t *testing.T) {
	var mu sync.Mutex
	var seen []string // what reached the upstream: method, headers that matter, body
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		seen = append(seen, r.Method+" "+r.Header.Get("Authorization")+" "+r.Header.Get(sessionHeader)+" "+
			r.Header.Get("MCP-Protocol-Version")+" "+r.Header.Get("Last-Event-ID")+" "+ownID.ReplaceAllString(string(body), `"own"`))
		mu.Unlock()
		w.Header().Set(sessionHeader, "s-1")
		w.Header().Set("X-Upstream", "yes")
		switch {
		case r.Method == http.MethodGet:
			w.Header().Set("Content-Type", "text/event-stream")
			io.WriteString(w, "id: 7\nevent: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/tools/list_changed\"}\n\n: a comment\n\n")
		case r.Method == http.MethodDelete:
			w.WriteHeader(http.StatusNoContent)
		case strings.Contains(string(body), `"tools/list"`):
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":`+toolsList+`}`)
		case strings.Contains(string(body), `"sum"`):
			w.Header().Set("Content-Type", "text/event-stream")
			io.WriteString(w, "id: 1\r\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\r\ndata: \"params\":{\"progressToken\":1,\"progress\":1}}\r\n\r\n")
			io.WriteString(w, "id: 2\nevent: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"content\":[],\"structuredContent\":{\"n\":\"x\"}}}\n\n")
		default:
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"jsonrpc":"2.0","id":0,"result":{"content":[]}}`)
		}
	}))
	defer upstream.Close()
	p, err := New(Options{Output: true})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Unix(1e9, 0)
	p.now = func() time.Time { return now }
	endpoint := frontOf(t, p, upstream.URL+"/mcp")

	do := func(method, body string, header ...string) (*http.Response, string) {
		t.Helper()
		req, _ := http.NewRequest(method, endpoint, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer t")
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		for i := 0; i+1 < len(header); i += 2 {
			req.Header.Set(header[i], header[i+1])
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		return resp, string(b)
	}
	list := `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`
	initialize := `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{}}`
	resp, body := do("POST", initialize)
	if body != `{"jsonrpc":"2.0","id":0,"result":{"content":[]}}` || resp.Header.Get(sessionHeader) != "s-1" || resp.Header.Get("X-Upstream") != "yes" {
		t.Fatalf("initialize: %v %s", resp.Header, body)
	}
	if _, body = do("POST", list, sessionHeader, "s-1", "MCP-Protocol-Version", "2025-06-18"); body != `{"jsonrpc":"2.0","id":1,"result":`+toolsList+`}` {
		t.Fatalf("tools/list: %s", body)
	}
	resp, body = do("POST", `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"sum","arguments":{}}}`, sessionHeader, "s-1")
	if resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("the SSE answer came as %q", resp.Header.Get("Content-Type"))
	}
	want := "id: 1\r\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\r\ndata: \"params\":{\"progressToken\":1,\"progress\":1}}\r\n\r\n" +
		"id: 2\nevent: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"The tool failed on the server's side"
	if !strings.HasPrefix(body, want) || !strings.HasSuffix(body, "}}\n\n") {
		t.Fatalf("the SSE answer\n%q\nwant it to begin\n%q", body, want)
	}
	now = now.Add(time.Second) // the proxy's own listing vouches for the list no longer
	resp, body = do("POST", `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"weather","arguments":{"days":9}}}`, sessionHeader, "s-1")
	if resp.StatusCode != 200 || !strings.HasPrefix(body, `{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"Invalid arguments: missing required property 'location'`) {
		t.Fatalf("the refusal: %d %s", resp.StatusCode, body)
	}
	resp, body = do("POST", `{"jsonrpc":"2.0","method":"tools/call","params":{"name":"weather","arguments":{}}}`, sessionHeader, "s-1")
	if resp.StatusCode != http.StatusAccepted || body != "" {
		t.Fatalf("a refused notification: %d %s", resp.StatusCode, body)
	}
	_, body = do("GET", "", sessionHeader, "s-1", "Last-Event-ID", "6")
	if body != "id: 7\nevent: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/tools/list_changed\"}\n\n:\n\n" { // a comment's text is dropped
		t.Fatalf("the GET stream: %q", body)
	}
	if resp, _ = do("DELETE", "", sessionHeader, "s-1"); resp.StatusCode != http.StatusNoContent {
		t.Fatalf("DELETE: %d", resp.StatusCode)
	}
	mu.Lock()
	defer mu.Unlock()
	wantSeen := []string{
		"POST Bearer t    " + initialize,
		"POST Bearer t s-1 2025-06-18  " + list,
		// No GET stream is open: the proxy cannot hear the list change, and lists it
		// before a call it checks, unless its own listing is younger than 1/64 s a page
		// (the notification, at the same instant as the call before it).
		`POST Bearer t s-1   {"jsonrpc":"2.0","id":"own","method":"tools/list"}`,
		`POST Bearer t s-1   {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"sum","arguments":{}}}`,
		`POST Bearer t s-1   {"jsonrpc":"2.0","id":"own","method":"tools/list"}`,
		"GET Bearer t s-1  6 ",
		"DELETE Bearer t s-1   ",
	}
	if !reflect.DeepEqual(seen, wantSeen) {
		t.Fatalf("the upstream got\n%s\nwant\n%s", strings.Join(seen, "\n"), strings.Join(wantSeen, "\n"))
	}
}

// ownID matches the ids of the proxy's own requests.
var ownID = regexp.MustCompile(`"mcpvalidate-[0-9a-f]+-[0-9]+"`)

// TestHTTPUpstreamGone answers each request of a POST with a JSON-RPC error when the
// upstream cannot be reached, and other requests with 502.
func TestHTTPUpstreamGone(t *testing.T) {
	gone := httptest.NewServer(http.NotFoundHandler())
	upstream := gone.URL + "/mcp"
	gone.Close()
	endpoint := startFront(t, upstream, Options{})
	resp, err := http.Post(endpoint, "application/json", strings.NewReader(`[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/initialized"}]`))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.HasPrefix(string(body), `[{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"mcpvalidate proxy: the upstream server could not be reached: `) {
		t.Fatalf("got %d %s", resp.StatusCode, body)
	}
	resp, err = http.Post(endpoint, "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":2,"method":"ping"}`))
	if err != nil {
		t.Fatal(err)
	}
	body, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.HasPrefix(string(body), `{"jsonrpc":"2.0","id":2,"error":{"code":-32603,`) {
		t.Fatalf("got %s", body)
	}
	resp, err = http.Get(endpoint)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadGateway {
		t.Fatalf("GET: %d", resp.StatusCode)
	}
}

// TestHTTPBatch takes a refused call out of a batch: the upstream gets the rest, and the
// client one answer holding the upstream's and the proxy's, JSON or SSE.
func TestHTTPBatch(t *testing.T) {
	var got []string
	var mu sync.Mutex
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if m, _ := parseMessage(body); m.method == "tools/list" {
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(m.id)+`,"result":`+toolsList+`}`)
			return
		}
		mu.Lock()
		got = append(got, string(body))
		mu.Unlock()
		answer := `[{"jsonrpc":"2.0","id":1,"result":{"content":[]}}]`
		if r.URL.Query().Get("sse") != "" {
			w.Header().Set("Content-Type", "text/event-stream")
			io.WriteString(w, "data: "+answer+"\n\n")
			return
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, answer)
	}))
	defer upstream.Close()
	p, _ := New(Options{})
	h, err := p.Handler(upstream.URL + "/mcp")
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(h)
	defer ts.Close()
	// The tools, as if the client had listed them.
	s := newSession("")
	s.learn(p, []byte(toolsList), true, 0)
	h.(*front).keep("\x00", s) // the session of a session-less server's clients without credentials
	valid := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"weather","arguments":{"location":"x"}}}`
	invalid := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"weather","arguments":{}}}`
	for _, query := range []string{"", "?sse=1"} {
		resp, err := http.Post(ts.URL+"/mcp"+query, "application/json", strings.NewReader("["+valid+","+invalid+"]"))
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		want := `[{"jsonrpc":"2.0","id":1,"result":{"content":[]}},{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"Invalid arguments: missing required property 'location'"`
		if query != "" {
			want = `data: [{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"Invalid arguments: missing required property 'location'"`
		}
		if !strings.HasPrefix(string(body), want) {
			t.Errorf("%q: the client got\n%s\nwant it to begin\n%s", query, body, want)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 2 || got[0] != "["+valid+"]" || got[1] != "["+valid+"]" {
		t.Fatalf("the upstream got %q", got)
	}
}

// TestHandlerUpstream refuses an upstream that is not an http or https URL.
func TestHandlerUpstream(t *testing.T) {
	p, _ := New(Options{})
	for _, bad := range []string{"ftp://x/mcp", "http:///mcp", "::"} {
		if _, err := p.Handler(bad); err == nil {
			t.Errorf("Handler took %q", bad)
		}
	}
}

// TestReadEventLongLines reads events whose lines outgrow the reader's buffer: each line
// as sent, whatever the reads in between.
func TestReadEventLongLines(t *testing.T) {
	long := strings.Repeat("x", 10<<10)
	for _, tc := range []struct {
		name, stream string
		data         []string
	}{
		{"short", "id: 1\nevent: message\ndata: a\n\n", []string{"a"}},
		{"a long data line after short ones", "id: 1\nevent: message\ndata: " + long + "\n\nid: 2\ndata: b\r\n\r\n", []string{long, "b"}},
		{"data lines on either side of a long one", "data: a\ndata: " + long + "\ndata: c\n\n", []string{"a\n" + long + "\nc"}},
		{"many short lines", strings.Repeat("id: 123456789\n", 1000) + "data: d\n\n", []string{"d"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newLineReaderSize(strings.NewReader(tc.stream), 4<<10)
			var raw string
			for i, want := range tc.data {
				ev, err := readEvent(r)
				raw += string(ev.raw)
				if string(ev.data()) != want {
					t.Fatalf("event %d: data %.40q... of %d bytes, want %.40q... of %d (%v)", i, ev.data(), len(ev.data()), want, len(want), err)
				}
			}
			if raw != tc.stream {
				t.Fatal("the events' bytes are not the stream's")
			}
		})
	}
}

// TestReadEventMemoryPerByte: an event of many short lines (comments, data lines, ids, a
// field the proxy does not read) costs its reader a few bytes for each of its bytes,
// whatever its size, and holds no more than twice its size: its lines are read from its
// bytes where they are needed, not indexed one by one. Reading it, its data and its id
// allocate at most 5 bytes a byte in all, and hold at most 2.5 once read: at 8 MiB, and
// at 32 MiB in the full tier, under the default limit.
func TestReadEventMemoryPerByte(t *testing.T) {
	sizes := []int{8 << 20}
	if !testing.Short() {
		sizes = append(sizes, 32<<20)
	}
	for _, size := range sizes {
		for _, line := range []string{":\n", "data:\n", "id:\n", "x\n"} {
			stream := append(bytes.Repeat([]byte(line), size/len(line)), '\n')
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			r := getEventReader(bytes.NewReader(stream), DefaultMaxMessage)
			ev, err := readEvent(r)
			data := ev.data()
			_, hasID := ev.id()
			putEventReader(r)
			runtime.GC()
			runtime.ReadMemStats(&after)
			if len(ev.raw) != len(stream) || err != nil {
				t.Fatalf("%q × %d: an event of %d bytes read (%v)", line, size/len(line), len(ev.raw), err)
			}
			if hasID != (line == "id:\n") || (data != nil) != (line == "data:\n") {
				t.Errorf("%q × %d: data of %d bytes, id %v", line, size/len(line), len(data), hasID)
			}
			runtime.KeepAlive(ev)
			runtime.KeepAlive(data)
			runtime.KeepAlive(stream)
			allocated := float64(after.TotalAlloc-before.TotalAlloc) / float64(len(stream))
			held := float64(int64(after.HeapAlloc)-int64(before.HeapAlloc)) / float64(len(stream))
			t.Logf("%q × %d: %.2f bytes allocated a byte, %.2f held", line, size/len(line), allocated, held)
			if allocated > 5 || held > 2.5 {
				t.Errorf("an event of %d MiB of %q lines: %.0f MiB allocated, %.0f MiB held", size>>20, line,
					allocated*float64(len(stream))/(1<<20), held*float64(len(stream))/(1<<20))
			}
		}
	}
}

// TestHTTPStreamStaysOpen: a stream's headers reach the client before its first event,
// and each event before the next, when the upstream waits in between.
func TestHTTPStreamStaysOpen(t *testing.T) {
	step := make(chan struct{})
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		w.(http.Flusher).Flush()
		for _, ev := range []string{"id: 1\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"ping\",\"id\":1}\n\n", ": a comment\n\n"} {
			<-step // the client got what came before
			io.WriteString(w, ev)
			w.(http.Flusher).Flush()
		}
	}))
	defer upstream.Close()
	endpoint := startFront(t, upstream.URL+"/mcp", Options{})
	req, _ := http.NewRequest("GET", endpoint, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d", resp.StatusCode)
	}
	r := bufio.NewReader(resp.Body)
	for _, want := range []string{"id: 1\n", "data: {\"jsonrpc\":\"2.0\",\"method\":\"ping\",\"id\":1}\n", "\n", ":\n", "\n"} { // a comment's text is dropped
		if want == "id: 1\n" || want == ":\n" {
			step <- struct{}{}
		}
		if got, err := r.ReadString('\n'); got != want {
			t.Fatalf("got %q (%v), want %q", got, err, want)
		}
	}
}

// TestHTTPAnswerStreamStaysOpen: the answer to a POST reaches the client though the
// upstream keeps its stream open after it.
func TestHTTPAnswerStreamStaysOpen(t *testing.T) {
	done := make(chan struct{})
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n")
		w.(http.Flusher).Flush()
		<-done // the client got the answer
	}))
	defer upstream.Close()
	endpoint := startFront(t, upstream.URL+"/mcp", Options{})
	resp, err := http.Post(endpoint, "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	got, err := bufio.NewReader(resp.Body).ReadString('\n')
	close(done)
	if got != "data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n" {
		t.Fatalf("got %q, %v", got, err)
	}
}

// TestHTTPRefusalShapePerRequest answers each client of a server without sessions in the
// shape of the protocol its own request gives in MCP-Protocol-Version, whatever another
// client of the same server speaks: a task-augmented call refused with error -32602 for
// 2025-11-25, with an isError result carrying resultType for 2026-07-28.
func TestHTTPRefusalShapePerRequest(t *testing.T) {
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		m, _ := parseMessage(body)
		if m.method != "tools/list" {
			t.Errorf("the server got %s", body)
			w.WriteHeader(http.StatusAccepted)
			return
		}
		writeJSON(w, []byte(`{"jsonrpc":"2.0","id":`+string(m.id)+`,"result":`+toolsList+`}`))
	}))
	defer upstream.Close()
	front := startFront(t, upstream.URL, Options{})
	call := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"weather","arguments":{},"task":{}}}`
	for _, version := range []string{"2026-07-28", "2025-11-25", "2026-07-28", "2025-11-25"} {
		req, err := http.NewRequest(http.MethodPost, front, strings.NewReader(call))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("MCP-Protocol-Version", version)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		result, rpcErr := response(t, string(got))
		if version == "2025-11-25" {
			if rpcErr == nil || rpcErr["code"] != -32602.0 {
				t.Errorf("%s: the client got %s, want error -32602", version, got)
			}
			continue
		}
		isRefusal(t, string(got), result, "Invalid arguments: ", true)
	}
}

// TestHTTPUpstreamAnswerBroken: an upstream JSON answer that cannot be read to its end
// (shorter than its Content-Length, encoded unasked, gzip that is not, over the limit) is logged, and each
// request of the POST is answered with a JSON-RPC error, one or a batch.
func TestHTTPUpstreamAnswerBroken(t *testing.T) {
	notGzip := func(w http.ResponseWriter) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Encoding", "gzip")
		io.WriteString(w, `{"jsonrpc":"2.0","id":7,"result":{}}`)
	}
	gzipCutShort := func(w http.ResponseWriter) {
		var b bytes.Buffer
		z := gzip.NewWriter(&b)
		io.WriteString(z, `{"jsonrpc":"2.0","id":7,"result":{"content":[]}}`)
		z.Close()
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Encoding", "gzip")
		w.Write(b.Bytes()[:b.Len()-10])
	}
	for _, tc := range []struct {
		name      string
		answer    func(w http.ResponseWriter)
		why       string
		transport bool // carried by net/http's Transport, which asks for gzip and decodes it
	}{
		{"short", func(w http.ResponseWriter) {
			conn, buf, _ := http.NewResponseController(w).Hijack()
			buf.WriteString("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"jsonrpc\":\"2.0\"")
			buf.Flush()
			conn.Close()
		}, "could not be read: unexpected EOF", false},
		{"not gzip", notGzip, "is encoded (gzip), which the proxy did not ask for", false},
		{"not gzip, through net/http's Transport", notGzip, "could not be read: gzip: invalid header", true},
		{"gzip cut short", gzipCutShort, "is encoded (gzip), which the proxy did not ask for", false},
		{"gzip cut short, through net/http's Transport", gzipCutShort, "could not be read: unexpected EOF", true},
		{"over the limit", func(w http.ResponseWriter) {
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"jsonrpc":"2.0","id":7,"result":{"pad":"`+strings.Repeat("x", 2<<10)+`"}}`)
		}, "is over the proxy's limit of 1024 bytes", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				io.Copy(io.Discard, r.Body)
				tc.answer(w)
			}))
			t.Cleanup(upstream.Close)
			var logged bytes.Buffer
			opts := Options{MaxMessage: 1 << 10, Logger: slog.New(slog.NewJSONHandler(&logged, nil))}
			if tc.transport {
				opts.Transport = http.DefaultTransport.(*http.Transport).Clone()
			}
			endpoint := startFront(t, upstream.URL+"/mcp", opts)
			head := func(id string) string {
				return `{"jsonrpc":"2.0","id":` + id + `,"error":{"code":-32603,"message":"mcpvalidate proxy: the upstream server's answer `
			}
			status, _, body := postRaw(t, endpoint, `{"jsonrpc":"2.0","id":7,"method":"ping"}`, http.Header{})
			if status != 200 || !strings.HasPrefix(body, head("7")) || !strings.Contains(body, tc.why) || !json.Valid([]byte(body)) {
				t.Fatalf("one request: %d %q", status, body)
			}
			status, _, body = postRaw(t, endpoint, `[{"jsonrpc":"2.0","id":8,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/x"},{"jsonrpc":"2.0","id":"9","method":"ping"}]`, http.Header{})
			if status != 200 || !strings.HasPrefix(body, "["+head("8")) || !strings.Contains(body, "},"+head(`"9"`)) || !json.Valid([]byte(body)) {
				t.Fatalf("a batch: %d %q", status, body)
			}
			if n := strings.Count(logged.String(), `"level":"WARN","msg":"mcpvalidate proxy: the upstream server failed"`); n != 2 || !strings.Contains(logged.String(), tc.why) {
				t.Fatalf("logged %d times:\n%s", n, logged.String())
			}
		})
	}
}

// TestHTTPSlowBody: a client that sends half a body and waits is answered 408 and its
// connection closed once the body's time is up; nothing reaches the upstream.
func TestHTTPSlowBody(t *testing.T) {
	var reached atomic.Int64
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { reached.Add(1) }))
	t.Cleanup(upstream.Close)
	endpoint := startFront(t, upstream.URL+"/mcp", Options{BodyTimeout: time.Millisecond})
	u, _ := url.Parse(endpoint)
	conn, err := net.Dial("tcp", u.Host)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	io.WriteString(conn, "POST /mcp HTTP/1.1\r\nHost: "+u.Host+"\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"jsonrpc\":")
	got, err := io.ReadAll(conn) // until the proxy closes the connection
	if err != nil || !strings.HasPrefix(string(got), "HTTP/1.1 408 ") {
		t.Fatalf("got %q, %v", got, err)
	}
	if n := reached.Load(); n != 0 {
		t.Fatalf("%d requests reached the upstream", n)
	}
}

// TestHTTPSlowReader: a client that reads nothing of a stream it asked for is cut off
// once a write to it has waited its time, and the upstream's stream with it.
func TestHTTPSlowReader(t *testing.T) {
	cut := make(chan struct{})
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer close(cut)
		w.Header().Set("Content-Type", "text/event-stream")
		event := []byte("data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"pad\":\"" + strings.Repeat("x", 64<<10) + "\"}}\n\n")
		for {
			if _, err := w.Write(event); err != nil {
				return // the proxy closed the stream
			}
		}
	}))
	t.Cleanup(upstream.Close)
	endpoint := startFront(t, upstream.URL+"/mcp", Options{WriteTimeout: time.Millisecond})
	u, _ := url.Parse(endpoint)
	conn, err := net.Dial("tcp", u.Host)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	io.WriteString(conn, "GET /mcp HTTP/1.1\r\nHost: "+u.Host+"\r\nAccept: text/event-stream\r\n\r\n")
	<-cut
}

// TestHTTPAnswerAfterWriteTimeout: an answer that comes after longer than the write
// timeout, a body or only a status, is written whole, and so is the next one on the same
// connection after it was left idle as long: the deadline a write is given is set when
// the write comes, not before. The timeout is a second, which a write of a few bytes on
// loopback never takes, however busy the machine; the waits, longer, only make sure the
// deadline set before them has passed.
func TestHTTPAnswerAfterWriteTimeout(t *testing.T) {
	if testing.Short() {
		t.Skip("the full tier waits past a write timeout of a second, three times")
	}
	const timeout, wait = time.Second, 1200 * time.Millisecond
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if !bytes.Contains(body, []byte(`"id":3`)) {
			time.Sleep(wait)
		}
		if !bytes.Contains(body, []byte(`"id"`)) {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":{}}`)
	}))
	t.Cleanup(upstream.Close)
	endpoint := startFront(t, upstream.URL+"/mcp", Options{WriteTimeout: timeout})
	client := &http.Client{Transport: &http.Transport{MaxConnsPerHost: 1}}
	t.Cleanup(client.CloseIdleConnections)
	var conns atomic.Int64
	for i, body := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"ping"}`,               // answered after the wait
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`, // a status after the wait
		`{"jsonrpc":"2.0","id":3,"method":"ping"}`,               // answered at once, after the connection idled
	} {
		if i == 2 {
			time.Sleep(wait)
		}
		req, _ := http.NewRequest("POST", endpoint, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		trace := &httptrace.ClientTrace{GotConn: func(c httptrace.GotConnInfo) {
			if !c.Reused {
				conns.Add(1)
			}
		}}
		resp, err := client.Do(req.WithContext(httptrace.WithClientTrace(req.Context(), trace)))
		if err != nil {
			t.Fatalf("request %d: %v", i, err)
		}
		got, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if want := map[bool]string{true: `{"jsonrpc":"2.0","id":1,"result":{}}`, false: ""}[i != 1]; err != nil || string(got) != want {
			t.Fatalf("request %d: %d %q, %v", i, resp.StatusCode, got, err)
		}
	}
	if n := conns.Load(); n != 1 {
		t.Fatalf("%d connections, want the one kept", n)
	}
}

// TestHTTPStatusAnswerTimed: an answer that is a status alone (a notification's 202) is
// written within the write timeout as any other: the deadline the connection's last
// answer left is replaced by one set for it, neither cleared nor left as it was. (Without
// one, a client that sends request after request and reads none of the answers holds
// the handler for good once its connection's buffers are full.)
func TestHTTPStatusAnswerTimed(t *testing.T) {
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.WriteHeader(http.StatusAccepted)
	}))
	t.Cleanup(upstream.Close)
	p, err := New(Options{WriteTimeout: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	h, err := p.Handler(upstream.URL + "/mcp")
	if err != nil {
		t.Fatal(err)
	}
	for _, body := range []string{
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,                                       // passed on, the upstream's 202 relayed
		`{"jsonrpc":"2.0","method":"tools/call","params":{"name":"weather","arguments":{"days":"x"}}}`, // refused, dropped: the proxy's own 202
	} {
		rec := &deadlineRecorder{ResponseRecorder: *httptest.NewRecorder()}
		req := httptest.NewRequest("POST", "http://127.0.0.1/mcp", strings.NewReader(body))
		req = req.WithContext(context.WithValue(req.Context(), http.LocalAddrContextKey, &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 80}))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		before := time.Now()
		h.ServeHTTP(rec, req)
		if rec.Code != http.StatusAccepted {
			t.Fatalf("%s: %d %q", body, rec.Code, rec.Body)
		}
		if n := len(rec.set); n == 0 || rec.set[n-1].Sub(before) < time.Hour {
			t.Errorf("%s: the write deadlines set were %v: none for the answer", body, rec.set)
		}
	}
}

// TestHTTPUpstreamStreamBroken: an upstream SSE stream that breaks off mid-event is
// logged; the event cut off goes no further, and each request of the POST it had not
// answered gets a JSON-RPC error event in its place.
func TestHTTPUpstreamStreamBroken(t *testing.T) {
	const notification = "data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{}}\n\n"
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		conn, buf, _ := http.NewResponseController(w).Hijack()
		defer conn.Close()
		buf.WriteString("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n")
		events := notification
		if bytes.HasPrefix(body, []byte("[")) {
			events += "data: {\"jsonrpc\":\"2.0\",\"id\":8,\"result\":{}}\n\n"
		}
		events += "data: {\"jsonrpc\":\"2.0\",\"id\":"
		fmt.Fprintf(buf, "%x\r\n%s\r\n", len(events), events)
		buf.Flush()
	}))
	t.Cleanup(upstream.Close)
	var logged bytes.Buffer
	endpoint := startFront(t, upstream.URL+"/mcp", Options{Logger: slog.New(slog.NewJSONHandler(&logged, nil))})
	errorEvent := func(id string) string {
		return `data: {"jsonrpc":"2.0","id":` + id + `,"error":{"code":-32603,"message":"mcpvalidate proxy: the upstream server's stream broke off: unexpected EOF"}}` + "\n\n"
	}
	if status, _, body := postRaw(t, endpoint, `{"jsonrpc":"2.0","id":7,"method":"ping"}`, http.Header{}); status != 200 || body != notification+errorEvent("7") {
		t.Fatalf("one request: %d %q", status, body)
	}
	body := `[{"jsonrpc":"2.0","id":8,"method":"ping"},{"jsonrpc":"2.0","id":9,"method":"ping"}]`
	if status, _, got := postRaw(t, endpoint, body, http.Header{}); status != 200 || got != notification+"data: {\"jsonrpc\":\"2.0\",\"id\":8,\"result\":{}}\n\n"+errorEvent("9") {
		t.Fatalf("a batch: %d %q", status, got)
	}
	if n := strings.Count(logged.String(), `"msg":"mcpvalidate proxy: the upstream server failed"`); n != 2 {
		t.Fatalf("logged %d times:\n%s", n, logged.String())
	}
}

// TestHTTPConnectionHeaders: headers a message's Connection header names are the
// connection's, and go no further either way, as HTTP says of an intermediary; a request
// that names so a header the proxy decides on gets 400, unsent: the upstream would not
// get the value the proxy decided on.
func TestHTTPConnectionHeaders(t *testing.T) {
	var got atomic.Pointer[http.Header]
	var reached atomic.Int64
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reached.Add(1)
		h := r.Header.Clone()
		got.Store(&h)
		w.Header().Set("Connection", "X-Upstream-Hop")
		w.Header().Set("X-Upstream-Hop", "internal")
		w.Header().Set("X-Upstream-End", "kept")
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":{}}`)
	}))
	defer upstream.Close()
	endpoint := startFront(t, upstream.URL+"/mcp", Options{})
	ping := `{"jsonrpc":"2.0","id":1,"method":"ping"}`

	req, _ := http.NewRequest("POST", endpoint, strings.NewReader(ping))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Connection", "keep-alive, X-Client-Hop")
	req.Header.Set("X-Client-Hop", "hop")
	req.Header.Set("X-Client-End", "end")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if h := got.Load(); h == nil || h.Get("X-Client-Hop") != "" || h.Get("X-Client-End") != "end" {
		t.Errorf("the upstream got the client's headers %v", h)
	}
	if resp.Header.Get("X-Upstream-Hop") != "" || resp.Header.Get("X-Upstream-End") != "kept" {
		t.Errorf("the client got the upstream's headers %v", resp.Header)
	}

	for _, name := range []string{"Mcp-Session-Id", "mcp-protocol-version", "Mcp-Name"} {
		before := reached.Load()
		status, body := postJSON(t, endpoint, ping, "Connection", "close, "+name, name, "x")
		if status != http.StatusBadRequest || reached.Load() != before {
			t.Errorf("Connection naming %s: %d %.200s, the upstream reached %d times", name, status, body, reached.Load()-before)
		}
	}
}

// TestHTTPUpstreamTransport: Options.Transport carries the front's requests, such as to
// an upstream over TLS whose certificate only it trusts (the default transport refuses
// it), the proxy's own tools/list included.
func TestHTTPUpstreamTransport(t *testing.T) {
	upstream := httptest.NewTLSServer(listingUpstream(nil))
	defer upstream.Close()
	call := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"weather","arguments":{}}}`
	if _, body := postJSON(t, startFront(t, upstream.URL+"/mcp", Options{}), call); strings.Contains(body, "Invalid arguments") {
		t.Fatalf("without the transport, the upstream's certificate was trusted: %.200s", body)
	}
	endpoint := startFront(t, upstream.URL+"/mcp", Options{Transport: upstream.Client().Transport})
	if _, body := postJSON(t, endpoint, call); !strings.Contains(body, "Invalid arguments: missing required property 'location'") {
		t.Errorf("over TLS: %.300s", body)
	}
	valid := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"weather","arguments":{"location":"Oslo"}}}`
	if _, body := postJSON(t, endpoint, valid); body != `{"jsonrpc":"2.0","id":2,"result":{"content":[]}}` {
		t.Errorf("a valid call over TLS: %.300s", body)
	}
}

// listingUpstream is an MCP server that lists toolsList and answers any other request
// with an empty result, telling called, if any, of each such request.
func listingUpstream(called func(*http.Request)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		m, _ := parseMessage(body)
		w.Header().Set("Content-Type", "application/json")
		if m.method == "tools/list" {
			io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(m.id)+`,"result":`+toolsList+`}`)
			return
		}
		if called != nil {
			called(r)
		}
		io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(m.id)+`,"result":{"content":[]}}`)
	}
}

// TestHTTPUpstreamUserInfo: an upstream URL with a user and password authenticates each
// request sent on, as http.Client does, unless the client's request has its own
// Authorization.
func TestHTTPUpstreamUserInfo(t *testing.T) {
	var mu sync.Mutex
	var got []string // the Authorization of each call
	upstream := httptest.NewServer(listingUpstream(func(r *http.Request) {
		mu.Lock()
		got = append(got, r.Header.Get("Authorization"))
		mu.Unlock()
	}))
	defer upstream.Close()
	endpoint := startFront(t, strings.Replace(upstream.URL, "http://", "http://user:pw@", 1)+"/mcp", Options{})
	call := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"weather","arguments":{"location":"Oslo"}}}`
	postJSON(t, endpoint, call)
	req, _ := http.NewRequest("POST", endpoint, strings.NewReader(call))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer own")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	mu.Lock()
	defer mu.Unlock()
	if want := []string{"Basic dXNlcjpwdw==", "Bearer own"}; !reflect.DeepEqual(got, want) {
		t.Errorf("the upstream got %q, want %q", got, want)
	}
}

// TestHTTPErrorHandler: Options.ErrorHandler answers a request the upstream could not be
// reached for, with the error, once the proxy forgot its requests: the same id may be
// sent again.
func TestHTTPErrorHandler(t *testing.T) {
	gone := httptest.NewServer(http.NotFoundHandler())
	gone.Close()
	var errs atomic.Int64
	endpoint := startFront(t, gone.URL+"/mcp", Options{ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
		errs.Add(1)
		if err == nil {
			t.Error("the handler got no error")
		}
		http.Error(w, "upstream down", http.StatusServiceUnavailable)
	}})
	ping := `{"jsonrpc":"2.0","id":1,"method":"ping"}`
	for i := range 2 {
		if status, body := postJSON(t, endpoint, ping); status != http.StatusServiceUnavailable || !strings.Contains(body, "upstream down") {
			t.Errorf("POST %d: %d %.200s", i, status, body)
		}
	}
	if status, _ := send(t, "GET", endpoint, ""); status != http.StatusServiceUnavailable {
		t.Errorf("GET: %d", status)
	}
	if n := errs.Load(); n != 3 {
		t.Errorf("the handler was called %d times, want 3", n)
	}
}

// TestSessionKeyAllocations: reading a request's headers and its session key, on every
// request, costs no allocation when it carries no credential, whatever its other headers.
func TestSessionKeyAllocations(t *testing.T) {
	r := localRequest("POST", nil)
	for k, v := range map[string]string{"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
		"Mcp-Session-Id": "abc", "Mcp-Protocol-Version": "2025-06-18", "User-Agent": "node", "X-Forwarded-For": "10.0.0.1"} {
		r.Header.Set(k, v)
	}
	if n := testing.AllocsPerRun(100, func() { hd := hear(r.Header); sessionKey(r, &hd, "") }); n != 0 {
		t.Errorf("a session key costs %v allocations, want none", n)
	}
	for name, want := range map[string]bool{"Authorization": true, "X-Api-Key": true, "COOKIE": true, "Mcp-Session-Id": false,
		"User-Agent": false, "Accept": false, "X-Tenant": true, "Proxy-Authorization": true, "X-Auth": true, "Keep-Alive": false} {
		if credential(name) != want {
			t.Errorf("credential(%q) = %v, want %v", name, !want, want)
		}
	}
}

// TestListToolsChatty: a server whose stream talks without answering ends the listing
// with an error, not a wait without end.
func TestListToolsChatty(t *testing.T) {
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		event := []byte("event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{}}\n\n")
		for range maxUnanswered {
			if _, err := w.Write(event); err != nil {
				return
			}
		}
	}))
	defer upstream.Close()
	if _, err := ListTools(context.Background(), upstream.URL, nil); err == nil || !strings.Contains(err.Error(), "without answering") {
		t.Errorf("err %v, want the server's silence on the request", err)
	}
}

// BenchmarkHTTPCall measures the front's own work on a valid tools/call in a session, a
// client's request made once: with an upstream that answers at once, in memory, so that
// what is measured is the handler's, not HTTP's; and with the same answers from a server
// on loopback that allocates nothing, through the front's own client.
func BenchmarkHTTPCall(b *testing.B) {
	b.Run("memory", func(b *testing.B) {
		benchmarkHTTPCall(b, Options{Transport: cannedUpstream{}}, "http://127.0.0.1:9/mcp")
	})
	b.Run("memory stream", func(b *testing.B) {
		benchmarkHTTPCall(b, Options{Transport: cannedUpstream{stream: true}}, "http://127.0.0.1:9/mcp")
	})
	b.Run("loopback", func(b *testing.B) { benchmarkHTTPCall(b, Options{}, leanUpstream(b)) })
}

func benchmarkHTTPCall(b *testing.B, opts Options, upstream string) {
	p, err := New(opts)
	if err != nil {
		b.Fatal(err)
	}
	h, err := p.Handler(upstream)
	if err != nil {
		b.Fatal(err)
	}
	post := func(w *sinkWriter, session, body string) {
		r := localRequest("POST", strings.NewReader(body))
		r.RemoteAddr = "127.0.0.1:40000"
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("Accept", "application/json, text/event-stream")
		r.Header.Set("User-Agent", "Go-http-client/1.1")
		if session != "" {
			r.Header.Set("Mcp-Session-Id", session)
			r.Header.Set("Mcp-Protocol-Version", "2025-06-18")
		}
		w.reset()
		h.ServeHTTP(w, r)
		if w.status != http.StatusOK && w.status != http.StatusAccepted {
			b.Fatalf("%s: %d %s", body, w.status, w.body)
		}
	}
	w := &sinkWriter{}
	post(w, "", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}`)
	session := w.header.Get("Mcp-Session-Id")
	post(w, session, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	post(w, session, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	call := []byte(`{"jsonrpc":"2.0","id":12345,"method":"tools/call","params":{"name":"weather","arguments":{"location":"Oslo","days":3}}}`)
	r := localRequest("POST", nil)
	r.RemoteAddr = "127.0.0.1:40000"
	for k, v := range map[string]string{"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
		"User-Agent": "Go-http-client/1.1", "Mcp-Session-Id": session, "Mcp-Protocol-Version": "2025-06-18"} {
		r.Header.Set(k, v)
	}
	body := &bytes.Reader{}
	rc := io.NopCloser(body)
	b.ReportAllocs()
	for b.Loop() {
		body.Reset(call)
		r.Body, r.ContentLength = rc, int64(len(call))
		w.reset()
		h.ServeHTTP(w, r)
		if w.status != http.StatusOK || !bytes.Contains(w.body, []byte(`"sunny"`)) {
			b.Fatalf("%d %s", w.status, w.body)
		}
	}
}

// cannedUpstream is an MCP server in memory that answers initialize, tools/list (weather)
// and tools/call (sunny) with JSON; with stream, it answers tools/call with an SSE event as
// the TypeScript SDK's servers write one (event, id, data).
type cannedUpstream struct{ stream bool }

func (u cannedUpstream) RoundTrip(r *http.Request) (*http.Response, error) {
	req, err := io.ReadAll(r.Body)
	if err != nil {
		return nil, err
	}
	id := func() string {
		var m struct{ ID json.RawMessage }
		_ = json.Unmarshal(req, &m)
		return string(m.ID)
	}
	resp := &http.Response{StatusCode: http.StatusOK, Header: http.Header{"Content-Type": {"application/json"}}, Request: r}
	var answer string
	switch {
	case bytes.Contains(req, []byte(`"tools/call"`)):
		answer = `{"jsonrpc":"2.0","id":12345,"result":{"content":[{"type":"text","text":"sunny"}]}}`
		if u.stream {
			resp.Header.Set("Content-Type", "text/event-stream")
			answer = "event: message\nid: 0f9c2d4e_1\ndata: " + answer + "\n\n"
		}
	case bytes.Contains(req, []byte(`"tools/list"`)):
		answer = `{"jsonrpc":"2.0","id":` + id() + `,"result":` + toolsList + `}`
	case bytes.Contains(req, []byte(`"initialize"`)):
		answer = `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"canned","version":"1"}}}`
		resp.Header.Set("Mcp-Session-Id", "mcp-session-0f9c2d4e-8b1a-4c3e-9d7f-1a2b3c4d5e6f")
	default:
		resp.StatusCode = http.StatusAccepted
	}
	resp.Body = io.NopCloser(strings.NewReader(answer))
	resp.ContentLength = int64(len(answer))
	return resp, nil
}

// leanUpstream serves cannedUpstream's answers over HTTP/1.1 on loopback, reading each
// request into buffers of its own and writing answers made once: it allocates nothing a
// request, so that a benchmark's allocations are the front's. It returns the MCP endpoint.
func leanUpstream(tb testing.TB) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	var (
		mu     sync.Mutex
		open   []net.Conn
		closed bool
		served sync.WaitGroup
	)
	tb.Cleanup(func() { // the front keeps its connections: they are closed here
		l.Close()
		mu.Lock()
		closed = true
		for _, c := range open {
			c.Close()
		}
		mu.Unlock()
		served.Wait()
	})
	serve := func(c net.Conn) {
		defer served.Done()
		defer c.Close()
		answers := map[string][]byte{} // made once for each request's bytes
		r := bufio.NewReader(c)
		body := make([]byte, 64<<10)
		for {
			length := 0
			for {
				line, err := r.ReadSlice('\n')
				if err != nil {
					return
				}
				if len(bytes.TrimSpace(line)) == 0 {
					break
				}
				if name, value, ok := bytes.Cut(line, []byte(":")); ok && strings.EqualFold(string(name), "Content-Length") {
					length, _ = strconv.Atoi(string(bytes.TrimSpace(value)))
				}
			}
			if _, err := io.ReadFull(r, body[:length]); err != nil {
				return
			}
			answer, ok := answers[string(body[:length])]
			if !ok {
				resp, err := cannedUpstream{}.RoundTrip(httptest.NewRequest("POST", "/mcp", bytes.NewReader(body[:length])))
				if err != nil {
					return
				}
				resp.ProtoMajor, resp.ProtoMinor = 1, 1
				var out bytes.Buffer
				if err := resp.Write(&out); err != nil {
					return
				}
				answer = out.Bytes()
				answers[string(body[:length])] = answer
			}
			if _, err := c.Write(answer); err != nil {
				return
			}
		}
	}
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			if closed {
				mu.Unlock()
				c.Close()
				return
			}
			open = append(open, c)
			served.Add(1)
			mu.Unlock()
			go serve(c)
		}
	}()
	return "http://" + l.Addr().String() + "/mcp"
}

// sinkWriter is a ResponseWriter that keeps the last answer.
type sinkWriter struct {
	header http.Header
	status int
	body   []byte
}

func (w *sinkWriter) reset() { w.header, w.status, w.body = http.Header{}, 0, w.body[:0] }

func (w *sinkWriter) Header() http.Header { return w.header }

func (w *sinkWriter) WriteHeader(status int) {
	if w.status == 0 {
		w.status = status
	}
}

func (w *sinkWriter) Write(b []byte) (int, error) {
	w.WriteHeader(http.StatusOK)
	w.body = append(w.body, b...)
	return len(b), nil
}

func (w *sinkWriter) SetReadDeadline(time.Time) error  { return nil }
func (w *sinkWriter) SetWriteDeadline(time.Time) error { return nil }

// TestRequestWrittenOnce: a request the front sends on is written in one piece, its
// header and body together, as net/http writes a body it knows is in memory: not in two,
// which would cost the upstream a read and the proxy a write on every call.
func TestRequestWrittenOnce(t *testing.T) {
	var writes []int
	p, err := New(Options{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		w := bufio.NewWriter(writerFunc(func(b []byte) (int, error) { writes = append(writes, len(b)); return len(b), nil }))
		if err := r.Write(w); err != nil {
			return nil, err
		}
		if err := w.Flush(); err != nil {
			return nil, err
		}
		return &http.Response{StatusCode: http.StatusAccepted, Header: http.Header{}, Body: http.NoBody, Request: r}, nil
	})})
	if err != nil {
		t.Fatal(err)
	}
	h, err := p.Handler("http://127.0.0.1:9/mcp")
	if err != nil {
		t.Fatal(err)
	}
	r := localRequest("POST", strings.NewReader(`{"jsonrpc":"2.0","method":"notifications/initialized"}`))
	r.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, r)
	if rec.Code != http.StatusAccepted || len(writes) != 1 {
		t.Errorf("%d; the request was written in %d pieces %v, want 1", rec.Code, len(writes), writes)
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(b []byte) (int, error) { return f(b) }

// TestHopByHop: the hop-by-hop headers in any case, and no other.
func TestHopByHop(t *testing.T) {
	hop := []string{"Connection", "Keep-Alive", "Proxy-Authenticate", "Proxy-Authorization", "Te", "Trailer",
		"Transfer-Encoding", "Upgrade", "Host", "Content-Length"}
	for _, name := range hop {
		for _, spelled := range []string{name, strings.ToLower(name), strings.ToUpper(name)} {
			if !hopByHop(spelled) {
				t.Errorf("hopByHop(%q) = false", spelled)
			}
		}
	}
	for _, name := range []string{"Content-Type", "content-type", "Mcp-Session-Id", "Date", "Accept", "User-Agent",
		"Mcp-Protocol-Version", "Authorization", "Tee", "Hosts", "Content-Lengths", "X-Connection", ""} {
		if hopByHop(name) {
			t.Errorf("hopByHop(%q) = true", name)
		}
	}
}

// TestHear: what one pass over a request's headers hears of the session, the protocol
// version, the headers the proxy decides on and those that come two ways.
func TestHear(t *testing.T) {
	for _, c := range []struct {
		header  http.Header
		want    heard
		twoWays string
	}{
		{http.Header{"Mcp-Session-Id": {"s"}, "Mcp-Protocol-Version": {"2025-06-18"}, "Accept": {"a"}},
			heard{id: "s", version: "2025-06-18", decides: true}, ""},
		{http.Header{"Mcp-Session-Id": {"s", "t"}}, heard{id: "s", decides: true}, "Mcp-Session-Id"},
		{http.Header{"Mcp-Protocol-Version": {"a", "b"}}, heard{version: "a", decides: true}, "Mcp-Protocol-Version"},
		{http.Header{"Mcp-Session-Id": {}}, heard{decides: true}, ""},
		{http.Header{"mcp_session_id": {"s"}}, heard{decides: true, credentials: true}, "mcp_session_id"},
		{http.Header{"Last-Event-Id": {"9"}, "Authorization": {"x"}}, heard{lastEventID: "9", decides: true, credentials: true}, ""},
		{http.Header{"Mcp-Method": {"tools/call"}}, heard{decides: true, mirrors: true}, ""},
		{http.Header{"Connection": {"close"}, "User-Agent": {"u"}}, heard{connection: []string{"close"}}, ""},
		{http.Header{"Content-Encoding": {"gzip"}, "Content-Type": {"application/json"}}, heard{encoded: true}, ""},
	} {
		got := hear(c.header)
		c.want.twoWays = c.twoWays
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%v: heard %+v, want %+v", c.header, got, c.want)
		}
	}
}

// deadlineRecorder is a ResponseWriter that records the write deadlines set on it.
type deadlineRecorder struct {
	httptest.ResponseRecorder
	set []time.Time
}

func (d *deadlineRecorder) SetWriteDeadline(t time.Time) error {
	d.set = append(d.set, t)
	return nil
}

// TestTimedWriter: a write is given a deadline at least the timeout away and at most a
// sixteenth more; the writes that come while the deadline set is that far set none;
// one nearer, as one already passed, is moved; a handler that wrote nothing has the
// deadline set for net/http's answer, one whose write was asked for is given no more.
func TestTimedWriter(t *testing.T) {
	const timeout = time.Hour
	passed := time.Unix(1, 0)
	for _, c := range []struct {
		name  string
		until time.Time // the deadline set before
		do    func(w *timedWriter)
		sets  int
	}{
		{"the first", time.Time{}, func(w *timedWriter) { w.arm() }, 1},
		{"an answer's writes", time.Time{}, func(w *timedWriter) {
			w.arm()
			w.WriteHeader(200)
			w.Write([]byte("a"))
			w.Flush()
			w.Write([]byte("b"))
			w.finish()
		}, 1},
		{"a write after a deadline passed", passed, func(w *timedWriter) { w.Write([]byte("a")) }, 1},
		{"a status after a deadline passed", passed, func(w *timedWriter) { w.WriteHeader(202) }, 1},
		{"a flush after a deadline passed", passed, func(w *timedWriter) { w.Flush() }, 1},
		{"nothing written", passed, func(w *timedWriter) { w.finish() }, 1},
		{"a write asked for", passed, func(w *timedWriter) {
			w.wrote = true
			w.finish()
		}, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			rec := &deadlineRecorder{ResponseRecorder: *httptest.NewRecorder()}
			w := &timedWriter{ResponseWriter: rec, rc: *http.NewResponseController(rec), timeout: timeout, until: c.until}
			before := time.Now()
			c.do(w)
			after := time.Now()
			if len(rec.set) != c.sets {
				t.Fatalf("%d deadlines set, want %d", len(rec.set), c.sets)
			}
			for _, d := range rec.set {
				if d.Sub(before) < timeout || d.Sub(after) > timeout+timeout/16 {
					t.Fatalf("a deadline %v from the write, want %v to %v", d.Sub(before), timeout, timeout+timeout/16)
				}
			}
		})
	}
}

// TestHTTPUnreadBodyNotAwaited: a request that declares a body it never sends is
// answered, and its connection closed, once the body timeout has passed, whether the
// proxy reads its body (a POST's, or a GET's or a DELETE's, read and dropped) or refuses
// it unread (for its Host, method, encoding or charset), which net/http then waits for
// before it answers: it is not held for as long as the client keeps the connection.
func TestHTTPUnreadBodyNotAwaited(t *testing.T) {
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(upstream.Close)
	u, _ := url.Parse(startFront(t, upstream.URL+"/mcp", Options{BodyTimeout: time.Millisecond}))
	for _, c := range []struct{ name, head, status string }{
		{"POST", "POST /mcp HTTP/1.1\r\nHost: " + u.Host + "\r\nContent-Type: application/json\r\nContent-Length: 10\r\n\r\n", "408"},
		{"GET", "GET /mcp HTTP/1.1\r\nHost: " + u.Host + "\r\nAccept: text/event-stream\r\nContent-Length: 10\r\n\r\n", "408"},
		{"GET chunked", "GET /mcp HTTP/1.1\r\nHost: " + u.Host + "\r\nAccept: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n", "408"},
		{"DELETE", "DELETE /mcp HTTP/1.1\r\nHost: " + u.Host + "\r\nMcp-Session-Id: s\r\nContent-Length: 10\r\n\r\n", "408"},
		{"POST encoded", "POST /mcp HTTP/1.1\r\nHost: " + u.Host + "\r\nContent-Type: application/json\r\nContent-Encoding: gzip\r\nContent-Length: 10\r\n\r\n", "415"},
		{"POST in UTF-7", "POST /mcp HTTP/1.1\r\nHost: " + u.Host + "\r\nContent-Type: application/json; charset=utf-7\r\nContent-Length: 10\r\n\r\n", "415"},
		{"foreign Host", "POST /mcp HTTP/1.1\r\nHost: evil.example\r\nContent-Type: application/json\r\nContent-Length: 10\r\n\r\n", "403"},
		{"PUT", "PUT /mcp HTTP/1.1\r\nHost: " + u.Host + "\r\nContent-Length: 10\r\n\r\n", "405"},
	} {
		t.Run(c.name, func(t *testing.T) {
			conn, err := net.Dial("tcp", u.Host)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			io.WriteString(conn, c.head)
			got, err := io.ReadAll(conn) // until the proxy closes the connection
			if err != nil || !strings.HasPrefix(string(got), "HTTP/1.1 "+c.status+" ") || !strings.Contains(string(got), "\r\nConnection: close\r\n") {
				t.Fatalf("got %q, %v", got, err)
			}
		})
	}
}
