package proxy

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// looseList is what a session-less upstream lists for the credentials "Bearer loose":
// weather takes anything, sum declares no outputSchema.
const looseList = `{"tools":[{"name":"weather","inputSchema":{"type":"object"}},{"name":"sum","inputSchema":{"type":"object"}}]}`

// postJSON posts body to endpoint with the headers given as name, value pairs, and returns
// the status and body of the answer.
func postJSON(t testing.TB, endpoint, body string, header ...string) (int, string) {
	t.Helper()
	return send(t, "POST", endpoint, body, append([]string{"Content-Type", "application/json"}, header...)...)
}

// send sends a request of method to endpoint, with body and the headers given as name,
// value pairs, as a client that takes JSON and SSE answers, and returns the status and
// body of the answer.
func send(t testing.TB, method, endpoint, body string, header ...string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(method, endpoint, strings.NewReader(body))
	req.Header.Set("Accept", "application/json, text/event-stream")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestHTTPSessionlessClientsApart: two clients of an upstream that issues no session ids,
// with the same request ids and other credentials, each get their own tool list and the
// checks of their own calls' results, though their calls are in flight at once.
func TestHTTPSessionlessClientsApart(t *testing.T) {
	strictArrived, strictRelease := make(chan struct{}), make(chan struct{})
	var calls sync.Map // what reached the upstream: Authorization and body
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		m, _ := parseMessage(body)
		w.Header().Set("Content-Type", "application/json")
		auth := r.Header.Get("Authorization")
		switch m.method {
		case "tools/list":
			list := toolsList
			if auth == "Bearer loose" {
				list = looseList
			}
			io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(m.id)+`,"result":`+list+`}`)
		case "tools/call":
			calls.Store(auth+" "+string(body), true)
			if auth == "Bearer strict" && strings.Contains(string(body), `"sum"`) {
				close(strictArrived)
				<-strictRelease
			}
			io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(m.id)+`,"result":{"content":[],"structuredContent":{"n":"x"}}}`)
		default:
			io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(m.id)+`,"result":{}}`)
		}
	}))
	defer upstream.Close()
	endpoint := startFront(t, upstream.URL+"/mcp", Options{Output: true})
	list := `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`
	sum := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"sum","arguments":{}}}`
	postJSON(t, endpoint, list, "Authorization", "Bearer strict")
	postJSON(t, endpoint, list, "Authorization", "Bearer loose")

	strictGot := make(chan string, 1)
	go func() {
		req, _ := http.NewRequest("POST", endpoint, strings.NewReader(sum))
		req.Header.Set("Authorization", "Bearer strict")
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			strictGot <- err.Error()
			return
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		strictGot <- string(b)
	}()
	<-strictArrived
	if _, got := postJSON(t, endpoint, sum, "Authorization", "Bearer loose"); got != `{"jsonrpc":"2.0","id":2,"result":{"content":[],"structuredContent":{"n":"x"}}}` {
		t.Errorf("the loose client's result, which its sum does not check, became %.300s", got)
	}
	close(strictRelease)
	if got := <-strictGot; !resultRefused(got, "2") {
		t.Errorf("the strict client's result, which breaks its sum's outputSchema, came as %.300s", got)
	}

	// Each client's calls meet its own list, listed or not.
	weather := `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"weather","arguments":{}}}`
	for _, tc := range []struct {
		auth    string
		refused bool
	}{{"Bearer strict", true}, {"Bearer loose", false}, {"Bearer unlisted", true}, {"", true}} {
		_, got := postJSON(t, endpoint, weather, "Authorization", tc.auth)
		refused := strings.Contains(got, "Invalid arguments: missing required property 'location'")
		_, reached := calls.Load(tc.auth + " " + weather)
		if refused != tc.refused || reached == tc.refused {
			t.Errorf("%q: refused %v, reached the upstream %v: %.300s", tc.auth, refused, reached, got)
		}
	}
}

// handlerTransport serves each request with a handler in memory.
type handlerTransport struct{ h http.Handler }

func (t handlerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	rec := httptest.NewRecorder()
	t.h.ServeHTTP(rec, r)
	return rec.Result(), nil
}

// sessionUpstream is a scripted upstream that starts an MCP session for each initialize,
// answers 404 to a session id it did not issue, lists toolsList, answers a call of sum with
// a task (taskCreated), and a task's result with an invalid payload.
type sessionUpstream struct {
	n     atomic.Int64
	known sync.Map
	calls atomic.Int64 // tools/call requests that reached it
}

func (u *sessionUpstream) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	m, _ := parseMessage(body)
	sid := r.Header.Get(sessionHeader)
	if m.method == "initialize" {
		sid = "s-" + strconv.FormatInt(u.n.Add(1), 10)
		u.known.Store(sid, true)
		w.Header().Set(sessionHeader, sid)
	} else if _, ok := u.known.Load(sid); !ok {
		http.Error(w, "no such session", http.StatusNotFound)
		return
	}
	if r.Method == http.MethodDelete {
		u.known.Delete(sid)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	switch m.method {
	case "initialize":
		io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(m.id)+`,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"u","version":"1"}}}`)
	case "tools/list":
		io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(m.id)+`,"result":`+toolsList+`}`)
	case "tools/call":
		u.calls.Add(1)
		io.WriteString(w, taskCreated(string(m.id), `"t-`+sid+`"`))
	case "tasks/result":
		io.WriteString(w, taskPayload(string(m.id), `"one"`))
	default:
		io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(m.id)+`,"result":{}}`)
	}
}

// memoryFront returns a front for upstream, served in memory, and a function that sends it
// a request and returns the answer.
func memoryFront(t testing.TB, upstream http.Handler, opts Options) (*front, func(method, sid, body string) (*http.Response, string)) {
	opts.Transport = handlerTransport{upstream}
	p, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	h, err := p.Handler("http://upstream.test/mcp")
	if err != nil {
		t.Fatal(err)
	}
	f := h.(*front)
	return f, func(method, sid, body string) (*http.Response, string) {
		req := localRequest(method, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if sid != "" {
			req.Header.Set(sessionHeader, sid)
		}
		rec := httptest.NewRecorder()
		f.ServeHTTP(rec, req)
		resp := rec.Result()
		b, _ := io.ReadAll(resp.Body)
		return resp, string(b)
	}
}

// TestHTTPMadeUpSessionIDs: session ids the upstream never issued make no state in the
// proxy, however many, and a call under one is never passed unchecked: the list fetched
// for it is answered 404, as the call is then.
func TestHTTPMadeUpSessionIDs(t *testing.T) {
	if testing.Short() {
		t.Skip("full tier: runs without -short")
	}
	u := &sessionUpstream{}
	f, do := memoryFront(t, u, Options{})
	const n = 2 * maxSessions
	for i := range n {
		sid := "made-up-" + strconv.Itoa(i)
		switch i % 4 {
		case 0:
			resp, got := do("POST", sid, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"weather","arguments":{"location":"x"}}}`)
			if resp.StatusCode != http.StatusNotFound {
				t.Fatalf("a call under a made-up session id: %d %.300s", resp.StatusCode, got)
			}
		case 1:
			do("POST", sid, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
		case 2:
			do("GET", sid, "")
		case 3:
			do("DELETE", sid, "")
		}
	}
	if got := u.calls.Load(); got != 0 {
		t.Errorf("%d calls reached the upstream", got)
	}
	f.mu.Lock()
	kept := f.count
	f.mu.Unlock()
	if kept != 0 {
		t.Errorf("%d made-up session ids kept state", kept)
	}
}

// TestHTTPSessionsWithChecksPendingKept: sessions whose tasks' results await their check
// are never forgotten to make room: a new session is refused, saying so, and every task's
// result is still checked.
func TestHTTPSessionsWithChecksPendingKept(t *testing.T) {
	if testing.Short() {
		t.Skip("full tier: runs without -short")
	}
	if testing.Short() {
		t.Skip("makes 10,000 MCP sessions")
	}
	u := &sessionUpstream{}
	_, do := memoryFront(t, u, Options{Output: true})
	const initialize = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`
	for i := range maxSessions {
		resp, _ := do("POST", "", initialize)
		sid := resp.Header.Get(sessionHeader)
		if got, _ := do("POST", sid, taskCall("2")); got.StatusCode != 200 {
			t.Fatalf("session %d: %d", i, got.StatusCode)
		}
	}
	resp, got := do("POST", "", initialize)
	if resp.Header.Get(sessionHeader) != "" || !strings.HasPrefix(got, `{"jsonrpc":"2.0","id":0,"error":{`) || !strings.Contains(got, "sessions") {
		t.Fatalf("a session past the bound: %v %.300s", resp.Header, got)
	}
	for i := 1; i <= maxSessions; i++ {
		if _, got := do("POST", "s-"+strconv.Itoa(i), taskFetch("3", `"t-s-`+strconv.Itoa(i)+`"`)); !resultRefused(got, "3") {
			t.Fatalf("session %d's task result came unchecked: %.300s", i, got)
		}
	}
}

// TestHTTPResumedStreamChecked: a result that comes on a stream resumed with Last-Event-ID
// is checked as on the stream it resumes, in a session and without one; a client with
// other credentials resuming it is not given the check.
func TestHTTPResumedStreamChecked(t *testing.T) {
	for _, sessions := range []bool{true, false} {
		t.Run("sessions "+strconv.FormatBool(sessions), func(t *testing.T) {
			upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				body, _ := io.ReadAll(r.Body)
				m, _ := parseMessage(body)
				if sessions {
					w.Header().Set(sessionHeader, "s-1")
				}
				switch {
				case r.Method == http.MethodGet && r.Header.Get("Last-Event-ID") == "e1":
					w.Header().Set("Content-Type", "text/event-stream")
					io.WriteString(w, "id: e2\ndata: {\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"content\":[],\"structuredContent\":{\"n\":\"x\"}}}\n\n")
				case m.method == "tools/call":
					w.Header().Set("Content-Type", "text/event-stream")
					io.WriteString(w, "id: e1\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":1,\"progress\":1}}\n\n")
				case m.method == "tools/list":
					w.Header().Set("Content-Type", "application/json")
					io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(m.id)+`,"result":`+toolsList+`}`)
				default:
					w.Header().Set("Content-Type", "application/json")
					io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(m.id)+`,"result":{"protocolVersion":"2025-11-25"}}`)
				}
			}))
			defer upstream.Close()
			endpoint := startFront(t, upstream.URL+"/mcp", Options{Output: true})
			header := []string{"Authorization", "Bearer a"}
			if sessions {
				postJSON(t, endpoint, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`, header...)
				header = append(header, sessionHeader, "s-1")
			}
			postJSON(t, endpoint, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, header...)
			if _, got := postJSON(t, endpoint, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"sum","arguments":{}}}`, header...); !strings.HasPrefix(got, "id: e1\n") {
				t.Fatalf("the call's stream: %q", got)
			}
			resume := func(header ...string) string {
				_, b := send(t, "GET", endpoint, "", append([]string{"Last-Event-ID", "e1"}, header...)...)
				return b
			}
			other := append([]string{}, header...)
			other[1] = "Bearer b"
			if got := resume(other...); strings.Contains(got, "The tool failed") {
				t.Errorf("another client's resumed stream took the check: %q", got)
			}
			got := resume(header...)
			if !strings.HasPrefix(got, "id: e2\ndata: ") || !resultRefused(strings.TrimPrefix(got, "id: e2\ndata: "), "2") {
				t.Errorf("the resumed stream: %q", got)
			}
		})
	}
}

// TestHTTPIDInFlight: in an MCP session, a request under the id of one in flight is
// answered with an error and never sent on, and a ping's answer is never the tool list.
func TestHTTPIDInFlight(t *testing.T) {
	arrived, release := make(chan struct{}), make(chan struct{})
	var lists atomic.Int64
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		m, _ := parseMessage(body)
		w.Header().Set(sessionHeader, "s-1")
		w.Header().Set("Content-Type", "application/json")
		switch m.method {
		case "ping":
			close(arrived)
			<-release
			io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(m.id)+`,"result":{}}`)
		case "tools/list":
			lists.Add(1)
			io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(m.id)+`,"result":`+toolsList+`}`)
		default:
			io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(m.id)+`,"result":{}}`)
		}
	}))
	defer upstream.Close()
	endpoint := startFront(t, upstream.URL+"/mcp", Options{})
	postJSON(t, endpoint, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`)
	pinged := make(chan string, 1)
	go func() {
		_, got := postJSON(t, endpoint, `{"jsonrpc":"2.0","id":1,"method":"ping"}`, sessionHeader, "s-1")
		pinged <- got
	}()
	<-arrived
	if _, got := postJSON(t, endpoint, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, sessionHeader, "s-1"); !strings.HasPrefix(got, `{"jsonrpc":"2.0","id":1,"error":{"code":-32600,`) {
		t.Errorf("a tools/list under the ping's id: %.300s", got)
	}
	close(release)
	if got := <-pinged; got != `{"jsonrpc":"2.0","id":1,"result":{}}` {
		t.Errorf("the ping: %s", got)
	}
	if n := lists.Load(); n != 0 {
		t.Errorf("the upstream got %d tools/list", n)
	}
	if _, got := postJSON(t, endpoint, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"weather","arguments":{}}}`, sessionHeader, "s-1"); !strings.Contains(got, "Invalid arguments: ") {
		t.Errorf("the call after the ping: %.300s", got)
	}
}

// TestHTTPUnknownSessionChecked: under a session id the proxy keeps no state for, of an
// upstream that takes any id, a call is checked against a list fetched for it alone, a
// task-augmented call whose result would be checked later is refused, and nothing is
// kept.
func TestHTTPUnknownSessionChecked(t *testing.T) {
	var calls atomic.Int64
	lenient := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		m, _ := parseMessage(body)
		w.Header().Set("Content-Type", "application/json")
		switch m.method {
		case "tools/list":
			io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(m.id)+`,"result":`+toolsList+`}`)
		case "tools/call":
			calls.Add(1)
			io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(m.id)+`,"result":{"content":[]}}`)
		}
	})
	f, do := memoryFront(t, lenient, Options{Output: true})
	for i := range 100 {
		sid := "unknown-" + strconv.Itoa(i)
		if _, got := do("POST", sid, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"weather","arguments":{}}}`); !strings.Contains(got, "Invalid arguments: missing required property 'location'") {
			t.Fatalf("an invalid call: %.300s", got)
		}
		if _, got := do("POST", sid, taskCall("2")); !strings.Contains(got, "keeps no state for this MCP session") {
			t.Fatalf("a task-augmented call: %.300s", got)
		}
		if _, got := do("POST", sid, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"weather","arguments":{"location":"x"}}}`); got != `{"jsonrpc":"2.0","id":3,"result":{"content":[]}}` {
			t.Fatalf("a valid call: %.300s", got)
		}
	}
	if n := calls.Load(); n != 100 {
		t.Errorf("%d calls reached the upstream, want the 100 valid ones", n)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.count != 0 {
		t.Errorf("%d sessions kept", f.count)
	}
}

// TestHTTPSessionlessToolsets: clients of an upstream that issues no session ids, with
// the same credentials but another header that selects their tools (X-MCP-Toolsets), are
// of two sessions, which share no tool list nor a listing in flight, and each call meets
// its client's tools; headers of one request (tracing, mirroring the body) do not part a
// client's requests.
func TestHTTPSessionlessToolsets(t *testing.T) {
	var reached sync.Map // the toolset of each call that reached the upstream
	upstream := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		m, _ := parseMessage(body)
		w.Header().Set("Content-Type", "application/json")
		toolset := r.Header.Get("X-Mcp-Toolsets")
		switch m.method {
		case "tools/list":
			list := toolsList
			if toolset == "loose" {
				list = looseList
			}
			io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(m.id)+`,"result":`+list+`}`)
		case "tools/call":
			reached.Store(toolset, true)
			io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(m.id)+`,"result":{"content":[]}}`)
		default:
			io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(m.id)+`,"result":{}}`)
		}
	})
	f, _ := memoryFront(t, upstream, Options{})
	request := func(toolset, traceparent, body string) *http.Request {
		req := localRequest("POST", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer same")
		req.Header.Set("X-Mcp-Toolsets", toolset)
		req.Header.Set("Traceparent", traceparent)
		return req
	}
	send := func(toolset, traceparent, body string) string {
		rec := httptest.NewRecorder()
		f.ServeHTTP(rec, request(toolset, traceparent, body))
		return rec.Body.String()
	}
	for _, toolset := range []string{"strict", "loose"} { // the proxy keeps a session of each
		send(toolset, "", `{"jsonrpc":"2.0","id":0,"method":"ping"}`)
	}
	strict, loose := request("strict", "1", ""), request("loose", "1", "")
	sessionOf := func(r *http.Request) *session {
		hd := hear(r.Header)
		return f.session(r, hd.id, sessionKey(r, &hd, ""))
	}
	if sessionOf(strict) == sessionOf(loose) {
		t.Fatal("clients of the same credentials and other toolsets share a session")
	}
	if again := request("strict", "2", ""); sessionOf(again) != sessionOf(strict) {
		t.Error("two requests of a client that differ by their tracing are of two sessions")
	}
	weather := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"weather","arguments":{}}}`
	if got := send("loose", "3", weather); strings.Contains(got, "Invalid arguments") {
		t.Errorf("the loose client's call, which its weather takes, was refused: %.300s", got)
	}
	if got := send("strict", "4", weather); !strings.Contains(got, "Invalid arguments: missing required property 'location'") {
		t.Errorf("the strict client's call was not refused: %.300s", got)
	}
	if _, ok := reached.Load("strict"); ok {
		t.Error("the strict client's invalid call reached the upstream")
	}
	r1, r2 := localRequest("POST", nil), localRequest("POST", nil)
	for i, r := range []*http.Request{r1, r2} {
		r.Header.Set("Authorization", "Bearer same")
		r.Header.Set("Mcp-Name", strconv.Itoa(i))
		r.Header.Set("Mcp-Protocol-Version", strconv.Itoa(i))
	}
	if hd1, hd2 := hear(r1.Header), hear(r2.Header); sessionKey(r1, &hd1, "") != sessionKey(r2, &hd2, "") {
		t.Error("two requests of a client that differ by their mirrored headers and protocol version are of two sessions")
	}
}

// queryServer is a session-less MCP server whose tools depend on the query, as servers
// that take a toolset, a profile or a key in it do: under toolset=admin, run takes only
// {"cmd":"ls"}; otherwise anything. It records the query of each call it runs.
type queryServer struct {
	mu    sync.Mutex
	calls []string
}

func (qs *queryServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	m, _ := parseMessage(body)
	if m.id == nil {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	result := `{}`
	switch m.method {
	case "tools/list":
		result = `{"tools":[{"name":"run","inputSchema":{"type":"object"}}]}`
		if r.URL.Query().Get("toolset") == "admin" {
			result = `{"tools":[{"name":"run","inputSchema":{"type":"object","properties":{"cmd":{"enum":["ls"]}},"required":["cmd"],"additionalProperties":false}}]}`
		}
	case "tools/call":
		qs.mu.Lock()
		qs.calls = append(qs.calls, r.URL.RawQuery)
		qs.mu.Unlock()
		result = `{"content":[]}`
	}
	w.Header().Set("Content-Type", "application/json")
	io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(m.id)+`,"result":`+result+`}`)
}

func (qs *queryServer) ran() []string {
	qs.mu.Lock()
	defer qs.mu.Unlock()
	return slices.Clone(qs.calls)
}

// TestHTTPQueryChoosesTools: a client's query goes on to the upstream, and a call is
// checked against the tools listed under that query, whoever listed them, never against
// those of another query; the proxy's own listings send it too. An upstream URL with a
// query of its own keeps it: the client's does not replace it.
func TestHTTPQueryChoosesTools(t *testing.T) {
	const bad = `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"run","arguments":{"cmd":"rm -rf /"}}}`
	front := func(t *testing.T, upstreamQuery string) (*queryServer, string) {
		qs := &queryServer{}
		upstream := httptest.NewServer(qs)
		t.Cleanup(upstream.Close)
		return qs, startFront(t, upstream.URL+"/mcp"+upstreamQuery, Options{})
	}
	t.Run("listed by the client", func(t *testing.T) {
		qs, endpoint := front(t, "")
		postJSON(t, endpoint+"?toolset=admin", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
		if _, got := postJSON(t, endpoint+"?toolset=admin", bad); !strings.Contains(got, `"isError":true`) || len(qs.ran()) != 0 {
			t.Fatalf("the server ran %q; the client got %s", qs.ran(), got)
		}
	})
	t.Run("listed under another query", func(t *testing.T) {
		qs, endpoint := front(t, "")
		postJSON(t, endpoint, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
		if _, got := postJSON(t, endpoint+"?toolset=admin", bad); !strings.Contains(got, `"isError":true`) || len(qs.ran()) != 0 {
			t.Fatalf("the server ran %q; the client got %s", qs.ran(), got)
		}
		if _, got := postJSON(t, endpoint, bad); strings.Contains(got, `"isError":true`) || !slices.Equal(qs.ran(), []string{""}) {
			t.Fatalf("without the query: the server ran %q; the client got %s", qs.ran(), got)
		}
	})
	t.Run("the upstream's own", func(t *testing.T) {
		qs, endpoint := front(t, "?toolset=admin")
		if _, got := postJSON(t, endpoint+"?toolset=other", bad); !strings.Contains(got, `"isError":true`) || len(qs.ran()) != 0 {
			t.Fatalf("the server ran %q; the client got %s", qs.ran(), got)
		}
		if _, got := postJSON(t, endpoint+"?toolset=other", `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"run","arguments":{"cmd":"ls"}}}`); strings.Contains(got, `"isError":true`) ||
			!slices.Equal(qs.ran(), []string{"toolset=admin"}) {
			t.Fatalf("the server ran %q; the client got %s", qs.ran(), got)
		}
	})
}

// TestHTTPBrokenStreamsDoNotWedge: clients of a session-less upstream that give up on
// their calls after a first event, which has an id, leave streams no one resumes; however
// many (as many as a session's room here), the next call under the same credentials is
// answered, not refused as one too many in flight.
func TestHTTPBrokenStreamsDoNotWedge(t *testing.T) {
	if testing.Short() {
		t.Skip("the full tier fills a session's room")
	}
	var n atomic.Int64
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		m, _ := parseMessage(body)
		if string(m.id) == "0" {
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"jsonrpc":"2.0","id":0,"result":{}}`)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "id: e"+strconv.FormatInt(n.Add(1), 10)+"\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":1,\"progress\":1}}\n\n")
		w.(http.Flusher).Flush()
		<-r.Context().Done() // the call goes on until the proxy gives it up
	}))
	t.Cleanup(upstream.Close)
	endpoint := startFront(t, upstream.URL+"/mcp", Options{})
	client := &http.Client{}
	t.Cleanup(client.CloseIdleConnections)
	post := func(id int, giveUp bool) string {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		req, _ := http.NewRequestWithContext(ctx, "POST", endpoint, strings.NewReader(`{"jsonrpc":"2.0","id":`+strconv.Itoa(id)+`,"method":"ping"}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Authorization", "Bearer c")
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if giveUp { // the first event, then the client goes
			r := bufio.NewReader(resp.Body)
			for line, err := r.ReadString('\n'); err == nil && line != "\n"; line, err = r.ReadString('\n') {
			}
			return ""
		}
		b, _ := io.ReadAll(resp.Body)
		return string(b)
	}
	for i := 1; i <= maxPending; i++ {
		post(i, true)
	}
	if got := post(0, false); !strings.Contains(got, `"result":{}`) {
		t.Errorf("after %d calls given up by their clients: %.300s", maxPending, got)
	}
}

// TestHTTPResumedStreamHearsNoListChanged: a GET with Last-Event-ID resumes a stream of
// a POST's (servers replay it under that stream, and send list_changed only on the
// session's own GET stream), so, held open, it tells the proxy of no change to the tools:
// a call after the server tightened a schema is checked against the list as it is now,
// not against the proxy's listing from before.
func TestHTTPResumedStreamHearsNoListChanged(t *testing.T) {
	const loose = `{"tools":[{"name":"weather","inputSchema":{"type":"object"}}]}`
	var tightened atomic.Bool
	var badCalls atomic.Int64
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			w.Header().Set("Content-Type", "text/event-stream")
			w.WriteHeader(http.StatusOK)
			w.(http.Flusher).Flush()
			<-r.Context().Done()
			return
		}
		body, _ := io.ReadAll(r.Body)
		m, _ := parseMessage(body)
		w.Header().Set(sessionHeader, "s-1")
		w.Header().Set("Content-Type", "application/json")
		switch m.method {
		case "initialize":
			io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(m.id)+`,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{"listChanged":true}},"serverInfo":{"name":"u","version":"1"}}}`)
		case "tools/list":
			list := loose
			if tightened.Load() {
				list = toolsList // weather requires location
			}
			io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(m.id)+`,"result":`+list+`}`)
		case "tools/call":
			if c, _ := parseCallParams(m.params); member(c.arguments, "location") == nil {
				badCalls.Add(1)
			}
			io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(m.id)+`,"result":{"content":[]}}`)
		default:
			w.WriteHeader(http.StatusAccepted)
		}
	}))
	defer upstream.Close()
	p, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	h, err := p.Handler(upstream.URL + "/mcp")
	if err != nil {
		t.Fatal(err)
	}
	var later atomic.Int64 // how far the proxy's clock is ahead
	now := time.Now()
	h.(*front).p.now = func() time.Time { return now.Add(time.Duration(later.Load())) }
	ts := httptest.NewServer(h)
	defer ts.Close()
	front := ts.URL + "/mcp"
	postJSON(t, front, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, front, nil)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set(sessionHeader, "s-1")
	req.Header.Set("Last-Event-ID", "post-stream-7")
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("resuming: %v %v", resp, err)
	}
	defer resp.Body.Close()

	post := func(body string) string {
		_, got := postJSON(t, front, body, sessionHeader, "s-1", "Mcp-Protocol-Version", "2025-11-25")
		return got
	}
	if got := post(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"weather","arguments":{"location":"x"}}}`); !strings.Contains(got, `"result"`) {
		t.Fatalf("first call: %s", got)
	}
	tightened.Store(true)
	later.Store(int64(time.Second)) // past what the proxy's own listing vouches for
	got := post(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"weather","arguments":{"nope":1}}}`)
	if n := badCalls.Load(); n != 0 || !strings.Contains(got, `"isError":true`) {
		t.Errorf("%d call(s) the server's schema refuses now reached it, checked against its list from before: %.200s", n, got)
	}
}

// TestHTTPQueryWithHash: a client's query that holds a '#' (the query's own, to an HTTP
// server: a request-target has no fragment) goes on whole, with the call and with the
// proxy's own tools/list alike: with "?x#&toolset=admin" the call is checked against the
// admin tools the upstream runs it under, not against those of no toolset.
func TestHTTPQueryWithHash(t *testing.T) {
	qs := &queryServer{}
	upstream := httptest.NewServer(qs)
	defer upstream.Close()
	endpoint := startFront(t, upstream.URL+"/mcp", Options{})
	u, _ := url.Parse(endpoint)
	u.RawQuery = "x#&toolset=admin" // written as it is in the request line
	req := &http.Request{Method: "POST", URL: u, Header: http.Header{}, Host: u.Host,
		Body: io.NopCloser(strings.NewReader(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"run","arguments":{"cmd":"rm -rf /"}}}`))}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if ran := qs.ran(); len(ran) != 0 || !strings.Contains(string(got), `"isError":true`) {
		t.Errorf("the upstream ran %q, a call its toolset=admin list refuses; the client got %s", ran, got)
	}
}
