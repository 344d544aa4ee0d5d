package proxy

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/iotest"
	"time"
)

// decodingUpstream is a scripted session-less upstream that reads each message as the
// SDKs do (encoding/json into any, or JSON.parse: a number id is a float, written back
// as the integer it equals), lists toolsList, and answers a call of sum with
// {"n":"x"}, which breaks its outputSchema. It counts the calls that reach it.
type decodingUpstream struct{ calls atomic.Int64 }

func (u *decodingUpstream) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var m struct {
		ID     any    `json:"id"`
		Method string `json:"method"`
	}
	body, _ := io.ReadAll(r.Body)
	if json.Unmarshal(body, &m) != nil {
		http.Error(w, "not JSON", http.StatusBadRequest)
		return
	}
	if f, ok := m.ID.(float64); ok && f == float64(int64(f)) {
		m.ID = int64(f)
	}
	id, _ := json.Marshal(m.ID)
	w.Header().Set("Content-Type", "application/json")
	switch m.Method {
	case "tools/list":
		io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(id)+`,"result":`+toolsList+`}`)
	case "tools/call":
		u.calls.Add(1)
		io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(id)+`,"result":{"content":[],"structuredContent":{"n":"x"}}}`)
	default:
		io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(id)+`,"result":{}}`)
	}
}

// TestHTTPNumberIDsAsServersReadThem: a number id is the number servers read, however it
// is spelled: a call under 1.0 is answered under 1, and its result is checked; an id that
// servers read as another number (a fraction, beyond 2^53) or that is neither a string
// nor a number is refused and never sent on.
func TestHTTPNumberIDsAsServersReadThem(t *testing.T) {
	call := func(id string) string {
		return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"sum","arguments":{}}}`
	}
	for _, id := range []string{"1.0", "1e0", "10E-1", "-0", "0.0e5", "1.000000000000000000001"} {
		t.Run("checked "+id, func(t *testing.T) {
			u := &decodingUpstream{}
			_, do := memoryFront(t, u, Options{Output: true})
			_, got := do("POST", "", call(id))
			if strings.Contains(got, `"n":"x"`) || !strings.Contains(got, "The tool failed on the server's side") {
				t.Errorf("the result of a call under the id %s: %.300s", id, got)
			}
		})
	}
	for _, id := range []string{"1.5", "-2.25", "9007199254740993", "1e400", "null", "true", "{}", `{"a":1}`, "[1]"} {
		t.Run("refused "+id, func(t *testing.T) {
			u := &decodingUpstream{}
			_, do := memoryFront(t, u, Options{Output: true})
			_, got := do("POST", "", call(id))
			if !strings.Contains(got, `"code":-32600`) {
				t.Errorf("a call under the id %s: %.300s", id, got)
			}
			if n := u.calls.Load(); n != 0 {
				t.Errorf("a call under the id %s reached the upstream", id)
			}
		})
	}
}

// TestHTTPHeadersReadTwoWays: a request that gives a header the proxy decides on
// (Mcp-Session-Id, MCP-Protocol-Version, Last-Event-ID) twice, or under a name servers
// may read as it ('_' for '-', as CGI does), is answered 400 and never reaches the
// upstream: the proxy would decide on one value and the upstream might read another.
func TestHTTPHeadersReadTwoWays(t *testing.T) {
	var reached atomic.Int64
	upstream := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reached.Add(1)
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":{}}`)
	})
	f, _ := memoryFront(t, upstream, Options{})
	for _, tc := range []struct {
		name   string
		method string
		header http.Header
		want   int
	}{
		{"one of each", "POST", http.Header{"Mcp-Session-Id": {"a"}, "Mcp-Protocol-Version": {"2025-11-25"}}, 200},
		{"two session ids", "POST", http.Header{"Mcp-Session-Id": {"a", "b"}}, 400},
		{"two session ids, on GET", "GET", http.Header{"Mcp-Session-Id": {"a", "b"}}, 400},
		{"two session ids, on DELETE", "DELETE", http.Header{"Mcp-Session-Id": {"a", "b"}}, 400},
		{"two protocol versions", "POST", http.Header{"Mcp-Protocol-Version": {"2025-11-25", "2026-07-28"}}, 400},
		{"two last event ids", "GET", http.Header{"Last-Event-Id": {"1", "2"}}, 400},
		{"a session id with underscores", "POST", http.Header{"Mcp_session_id": {"b"}}, 400},
		{"both spellings", "POST", http.Header{"Mcp-Session-Id": {"a"}, "Mcp_Session_Id": {"b"}}, 400},
		{"a protocol version with underscores", "POST", http.Header{"MCP_PROTOCOL_VERSION": {"2026-07-28"}}, 400},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := reached.Load()
			req := localRequest(tc.method, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
			req.Header.Set("Content-Type", "application/json")
			for k, v := range tc.header {
				req.Header[k] = v
			}
			rec := httptest.NewRecorder()
			f.ServeHTTP(rec, req)
			if rec.Code != tc.want {
				t.Errorf("got %d %.200s, want %d", rec.Code, rec.Body.String(), tc.want)
			}
			if got := reached.Load() - before; tc.want != 200 && got != 0 {
				t.Errorf("%d requests reached the upstream", got)
			}
		})
	}
}

// TestHTTPEventFraming: a result that breaks its outputSchema never reaches the client
// unchecked, however the upstream frames its SSE event: line ends of CR LF or a lone CR
// (which SSE allows, and clients read), data without a space, a message over several
// data lines, comments, an id with a NUL.
func TestHTTPEventFraming(t *testing.T) {
	const bad = `{"jsonrpc":"2.0","id":1,"result":{"content":[],"structuredContent":{"n":"x"}}}`
	for _, tc := range []struct{ name, stream string }{
		{"LF", "event: message\ndata: " + bad + "\n\n"},
		{"CR LF", "event: message\r\ndata: " + bad + "\r\n\r\n"},
		{"CR", "event: message\rdata: " + bad + "\r\r"},
		{"CR within", "event: message\ndata: " + bad + "\r\r\n"},
		{"CR then LF", "data: {}\r\rdata: " + bad + "\n\n"},
		{"data without a space", "data:" + bad + "\n\n"},
		{"several data lines", "data: " + bad[:24] + "\ndata: " + bad[24:] + "\n\n"},
		{"a comment", ": hello\ndata: " + bad + "\n\n"},
		{"an id with a NUL", "id: 1\x00\ndata: " + bad + "\n\n"},
		{"a BOM", "\xef\xbb\xbfdata: " + bad + "\n\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			upstream := answering([]string{"text/event-stream"}, tc.stream)
			_, do := memoryFront(t, upstream, Options{Output: true})
			_, got := do("POST", "", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"sum","arguments":{}}}`)
			if strings.Contains(got, `"structuredContent":{"n":"x"}`) {
				t.Errorf("the client got the result unchecked: %q", got)
			}
		})
	}
}

// pythonLineBreaks are the characters Python's str.splitlines ends a line at besides CR
// and LF: httpx's aiter_lines splits lines so, and httpx-sse up to 0.4.1, which the MCP
// Python SDK's client (httpx-sse>=0.4) reads every stream with, reads SSE lines from it.
var pythonLineBreaks = []string{"\v", "\f", "\x1c", "\x1d", "\x1e", "\u0085", "\u2028", "\u2029"}

// pythonEventData reads stream as httpx-sse 0.4.1 on httpx does, lines as str.splitlines
// makes them, and returns the data of each event it dispatches with data.
func pythonEventData(stream string) []string {
	for _, br := range append([]string{"\r\n", "\r"}, pythonLineBreaks...) {
		stream = strings.ReplaceAll(stream, br, "\n")
	}
	var events, data []string
	for line := range strings.SplitSeq(stream, "\n") {
		field, value, _ := strings.Cut(line, ":")
		switch {
		case line == "" && data != nil:
			events, data = append(events, strings.Join(data, "\n")), nil
		case field == "data":
			data = append(data, strings.TrimPrefix(value, " "))
		}
	}
	return events
}

// TestHTTPEventsReadAsPythonReadsThem: a client of the Python SDK reads the events the
// proxy read, though Python's readers end lines also at pythonLineBreaks. A comment or a
// field the proxy does not read is dropped, so that none hides an event it never checked
// (an event of comments alone goes on as an empty comment); an event whose id, event or
// retry holds such a character is dropped whole, and so is one whose data does when it
// is not JSON; in data's JSON, U+0085, U+2028 and U+2029 go as \u escapes, the same value
// to every reader, one data line for each line of what the proxy passes. An event
// without any of these passes byte for byte.
func TestHTTPEventsReadAsPythonReadsThem(t *testing.T) {
	const bad = `{"jsonrpc":"2.0","id":1,"result":{"content":[],"structuredContent":{"n":"x"}}}`
	const good = `{"jsonrpc":"2.0","id":1,"result":{"content":[],"structuredContent":{"n":1}}}`
	const call = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"sum","arguments":{}}}`
	relayed := func(t *testing.T, opts Options, stream string) string {
		t.Helper()
		_, do := memoryFront(t, answering([]string{"text/event-stream"}, stream), opts)
		_, got := do("POST", "", call)
		for _, br := range pythonLineBreaks {
			if strings.Contains(got, br) {
				t.Errorf("the client got %q, a line break to Python's readers, which read the events %q", br, pythonEventData(got))
			}
		}
		return got
	}
	for _, br := range pythonLineBreaks {
		hidden := br + "data: " + bad + br + br + "\ndata: " + good + "\n\n" // an event within a line
		for _, tc := range []struct{ name, stream, want string }{
			{"a comment", ": " + hidden, "data: " + good + "\n\n"},
			{"another field", "x: " + hidden, "data: " + good + "\n\n"},
			{"a field's name", "x" + hidden, "data: " + good + "\n\n"},
			{"an event field", "event: message" + hidden, ""},
			{"an id", "id: 7" + hidden, ""},
			{"a retry", "retry: 10" + hidden, ""},
		} {
			t.Run(tc.name+" "+strconv.QuoteToASCII(br), func(t *testing.T) {
				if got := relayed(t, Options{Output: true}, tc.stream); got != tc.want {
					t.Errorf("the client got %q, want %q", got, tc.want)
				}
			})
		}
		t.Run("data not JSON "+strconv.QuoteToASCII(br), func(t *testing.T) {
			if got := relayed(t, Options{}, "data: x"+hidden); got != "" {
				t.Errorf("the client got %q", got)
			}
		})
	}
	for _, br := range []string{"\u0085", "\u2028", "\u2029"} {
		t.Run("data's JSON "+strconv.QuoteToASCII(br), func(t *testing.T) {
			text := "a" + br + br + "b" + br
			message := `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"` + text + `"}],"structuredContent":{"n":1}}}`
			got := relayed(t, Options{Output: true}, "event: message\nid: 7\ndata: "+message+"\n\n")
			data := pythonEventData(got)
			var want, read any
			if err := json.Unmarshal([]byte(message), &want); err != nil {
				t.Fatal(err)
			}
			if len(data) != 1 || json.Unmarshal([]byte(data[0]), &read) != nil || !reflect.DeepEqual(read, want) {
				t.Fatalf("a Python client reads %q from %q", data, got)
			}
			if !strings.HasPrefix(got, "event: message\nid: 7\ndata: ") {
				t.Errorf("the event's fields: %q", got)
			}
		})
	}
	for _, tc := range []struct{ name, stream, want string }{
		{"an event as it is", "event: message\nid: 7\nretry: 100\ndata: " + good + "\n\n", ""},
		{"an event in CR LF", "event: message\r\nid: 7\r\ndata: " + good[:17] + "\r\ndata: " + good[17:] + "\r\n\r\n", ""},
		{"comments alone", ": ping\n\ndata: " + good + "\n\n", ":\n\ndata: " + good + "\n\n"},
		{"a batch over lines, a result replaced", "data: [{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\ndata: \"params\":{}}," + bad + "]\n\n", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := relayed(t, Options{Output: true}, tc.stream)
			switch want := tc.want; {
			case strings.Contains(tc.name, "replaced"):
				data := pythonEventData(got)
				if len(data) != 1 || !json.Valid([]byte(data[0])) || strings.Contains(data[0], `"n":"x"`) || !strings.Contains(data[0], "notifications/message") {
					t.Errorf("a client reads %q from %q", data, got)
				}
			case want == "" && got != tc.stream, want != "" && got != want:
				t.Errorf("the client got %q from %q", got, tc.stream)
			}
		})
	}
}

// TestSSEReader: the stream a line reader gets has an LF after each CR, CR LF once, and
// no opening BOM, however the upstream's bytes come and however small the reads.
func TestSSEReader(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"data: a\r\n\r\n", "data: a\r\n\r\n"},
		{"data: a\n\n", "data: a\n\n"},
		{"data: a\rdata: b\r\r", "data: a\r\ndata: b\r\n\r\n"},
		{"\xef\xbb\xbfdata: a\n\n", "data: a\n\n"},
		{"\xef\xbb\xbf", ""},
		{"\xef\xbbdata\r", "\xef\xbbdata\r\n"},
		{"a\r", "a\r\n"},
		{"\r\r\n\r", "\r\n\r\n\r\n"},
		{"", ""},
	} {
		for _, size := range []int{1, 2, 3, 4096} {
			r := &sseReader{r: iotest.OneByteReader(strings.NewReader(tc.in))}
			var got []byte
			buf := make([]byte, size)
			for range 100 {
				n, err := r.Read(buf)
				got = append(got, buf[:n]...)
				if err != nil {
					break
				}
			}
			if string(got) != tc.want {
				t.Errorf("%q, reads of %d: got %q, want %q", tc.in, size, got, tc.want)
			}
		}
	}
}

// TestHTTPBodiesOnlyOnPost: the body of a GET or a DELETE, which the proxy does not
// check, never reaches the upstream.
func TestHTTPBodiesOnlyOnPost(t *testing.T) {
	var got atomic.Int64
	upstream := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got.Add(int64(len(b)))
		w.WriteHeader(http.StatusNoContent)
	})
	f, _ := memoryFront(t, upstream, Options{})
	for _, method := range []string{"GET", "DELETE"} {
		for _, chunked := range []bool{false, true} {
			req := localRequest(method, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"weather","arguments":{}}}`))
			if chunked {
				req.ContentLength = -1
				req.TransferEncoding = []string{"chunked"}
			}
			f.ServeHTTP(httptest.NewRecorder(), req)
		}
	}
	if n := got.Load(); n != 0 {
		t.Errorf("the upstream got %d bytes of bodies", n)
	}
}

// TestTaskResultShapes: a result that carries a CallToolResult is checked, whatever else
// it carries (a task, a status), as the answer to a task-augmented call or to
// tasks/result; a task or a status alone passes.
func TestTaskResultShapes(t *testing.T) {
	created := func(id, more string) string {
		return `{"jsonrpc":"2.0","id":` + id + `,"result":{"task":{"taskId":"t1","status":"completed",` +
			`"createdAt":"2025-11-25T10:30:00Z","lastUpdatedAt":"2025-11-25T10:30:00Z","ttl":60000}` + more + `}}`
	}
	for _, tc := range []struct {
		name   string
		script []taskStep
	}{
		{"a task and a complete result", []taskStep{
			{'c', taskCall("2"), false}, {'s', created("2", `,"resultType":"complete","content":[],"structuredContent":{"n":"one"}`), true},
		}},
		{"a task and a result", []taskStep{
			{'c', taskCall("2"), false}, {'s', created("2", `,"content":[],"structuredContent":{"n":"one"}`), true},
		}},
		{"a task and a result without content", []taskStep{
			{'c', taskCall("2"), false}, {'s', created("2", `,"structuredContent":{"n":"one"}`), true},
		}},
		{"a result with a status", []taskStep{
			{'c', taskCall("2"), false}, {'s', taskCreated("2", `"t1"`), false},
			{'c', taskFetch("3", `"t1"`), false},
			{'s', `{"jsonrpc":"2.0","id":3,"result":{"status":"completed","content":[],"structuredContent":{"n":"one"}}}`, true},
		}},
		{"a result with a task", []taskStep{
			{'c', taskCall("2"), false}, {'s', taskCreated("2", `"t1"`), false},
			{'c', taskFetch("3", `"t1"`), false},
			{'s', `{"jsonrpc":"2.0","id":3,"result":{"task":{"taskId":"t1"},"content":[],"structuredContent":{"n":"one"}}}`, true},
		}},
		{"a status alone, then the result", []taskStep{
			{'c', taskCall("2"), false}, {'s', taskCreated("2", `"t1"`), false},
			{'c', taskFetch("3", `"t1"`), false},
			{'s', `{"jsonrpc":"2.0","id":3,"result":{"taskId":"t1","status":"working","createdAt":"2025-11-25T10:30:00Z","lastUpdatedAt":"2025-11-25T10:31:00Z","ttl":60000}}`, false},
			{'c', taskFetch("4", `"t1"`), false}, {'s', taskPayload("4", `"one"`), true},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) { runTaskScript(t, Options{Output: true}, tc.script) })
	}
}

// TestHTTPUnmatchedResults: under Options.Output, a result that answers no request in
// flight of its exchange (replayed on a stream resumed after it was delivered, sent on a
// GET stream, or sent twice) is not passed unchecked: the proxy cannot tell which check
// it needs.
func TestHTTPUnmatchedResults(t *testing.T) {
	const bad = `{"jsonrpc":"2.0","id":2,"result":{"content":[],"structuredContent":{"n":"x"}}}`
	const good = `{"jsonrpc":"2.0","id":2,"result":{"content":[],"structuredContent":{"n":1}}}`
	for _, tc := range []struct {
		name     string
		sessions bool
		call     string // the call's SSE stream
		get      string // a GET's SSE stream
		resume   bool   // the GET resumes from e1
	}{
		{"replayed after it was delivered", true, "id: e1\ndata: {}\n\nid: e2\ndata: " + bad + "\n\n", "id: e2\ndata: " + bad + "\n\n", true},
		{"replayed after it was delivered, without sessions", false, "id: e1\ndata: {}\n\nid: e2\ndata: " + bad + "\n\n", "id: e2\ndata: " + bad + "\n\n", true},
		{"on a GET stream, without sessions", false, "id: e1\ndata: {}\n\n", "data: " + bad + "\n\n", false},
		{"sent twice", true, "data: " + good + "\n\ndata: " + bad + "\n\n", "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			upstream := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				body, _ := io.ReadAll(r.Body)
				m, _ := parseMessage(body)
				if tc.sessions {
					w.Header().Set(sessionHeader, "s-1")
				}
				switch {
				case r.Method == http.MethodGet:
					w.Header().Set("Content-Type", "text/event-stream")
					io.WriteString(w, tc.get)
				case m.method == "tools/call":
					w.Header().Set("Content-Type", "text/event-stream")
					io.WriteString(w, tc.call)
				case m.method == "tools/list":
					w.Header().Set("Content-Type", "application/json")
					io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(m.id)+`,"result":`+toolsList+`}`)
				default:
					w.Header().Set("Content-Type", "application/json")
					io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(m.id)+`,"result":{"protocolVersion":"2025-11-25"}}`)
				}
			})
			f, do := memoryFront(t, upstream, Options{Output: true})
			sid := ""
			if tc.sessions {
				do("POST", "", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`)
				sid = "s-1"
			}
			do("POST", sid, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
			if _, got := do("POST", sid, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"sum","arguments":{}}}`); strings.Contains(got, `{"n":"x"}`) {
				t.Errorf("the call's stream: %q", got)
			}
			if tc.get == "" {
				return
			}
			req := localRequest("GET", nil)
			req.Header.Set("Accept", "text/event-stream")
			if sid != "" {
				req.Header.Set(sessionHeader, sid)
			}
			if tc.resume {
				req.Header.Set("Last-Event-ID", "e1")
			}
			rec := httptest.NewRecorder()
			f.ServeHTTP(rec, req)
			if got := rec.Body.String(); strings.Contains(got, `{"n":"x"}`) {
				t.Errorf("the GET stream: %q", got)
			}
		})
	}
}

// TestParamsInOtherCase: a tools/list naming its cursor, or a call its task, in another
// case, which Go's servers read as the member and others ignore, is refused and not sent
// on: the proxy would learn a page, or track a task, that one server gives and another
// does not.
func TestParamsInOtherCase(t *testing.T) {
	for _, msg := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"Cursor":"2"}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"sum","arguments":{},"Task":{"ttl":60000}}}`,
	} {
		h := newHarness(t, Options{Output: true, Unknown: PassUnknown})
		h.listed()
		h.client(msg)
		if got := h.clientGets(); !strings.HasPrefix(got, `{"jsonrpc":"2.0","id":1,"error":{"code":-32600,`) {
			t.Errorf("%s: the client got %s", msg, got)
		}
		h.markerNext()
	}
}

// TestTaskIDInOtherCase: a tasks/result naming its task under "TaskId", which Go's
// servers read as taskId, has its result checked; one naming it twice is refused.
func TestTaskIDInOtherCase(t *testing.T) {
	h := newHarness(t, Options{Output: true})
	h.listed()
	h.clientPasses(taskCall("2"))
	h.serverPasses(taskCreated("2", `"t1"`))
	h.clientPasses(`{"jsonrpc":"2.0","id":3,"method":"tasks/result","params":{"TaskId":"t1"}}`)
	h.server(taskPayload("3", `"one"`))
	if got := h.clientGets(); !resultRefused(got, "3") {
		t.Errorf("the task's result: %s", got)
	}
	u := &decodingUpstream{}
	_, do := memoryFront(t, u, Options{Output: true})
	if _, got := do("POST", "", `{"jsonrpc":"2.0","id":4,"method":"tasks/result","params":{"taskId":"t2","TASKID":"t1"}}`); !strings.HasPrefix(got, `{"jsonrpc":"2.0","id":4,"error":{"code":-32600,`) {
		t.Errorf("a tasks/result naming two tasks: %s", got)
	}
}

// TestHTTPAnswersReadAsClientsRead: an upstream answer is read as the most lenient
// client reads its Content-Type (any value holding application/json, in any case or
// parameter, is JSON; holding text/event-stream, a stream), so a result that breaks its
// outputSchema never reaches a client unchecked however the type is written; a type
// clients read both ways goes no further. A type no client reads passes as it is.
func TestHTTPAnswersReadAsClientsRead(t *testing.T) {
	const result = `{"jsonrpc":"2.0","id":1,"result":{"content":[],"structuredContent":{"n":"x"}}}`
	for _, c := range []struct {
		name   string
		types  []string
		body   string
		passes bool // the body reaches the client as it is
	}{
		{"JSON", []string{"application/json"}, result, false},
		{"JSON in capitals", []string{"APPLICATION/JSON"}, result, false},
		{"JSON with a broken parameter", []string{"application/json; charset"}, result, false},
		{"JSON named in a parameter", []string{"text/plain; profile=application/json"}, result, false},
		{"JSON as a second value", []string{"text/plain", "application/json"}, result, false},
		{"a stream with a broken parameter", []string{"text/event-stream;;"}, "data: " + result + "\n\n", false},
		{"a stream named in a parameter", []string{"text/plain; x=text/event-stream"}, "data: " + result + "\n\n", false},
		{"both", []string{"application/json, text/event-stream"}, result, false},
		{"neither", []string{"text/plain"}, "not a message", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			upstream := answering(c.types, c.body)
			_, do := memoryFront(t, upstream, Options{Output: true})
			_, got := do("POST", "", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"sum","arguments":{}}}`)
			if passed := strings.Contains(got, c.body); passed != c.passes {
				t.Errorf("the answer reached the client as it is: %v, want %v: %.300s", passed, c.passes, got)
			}
			if strings.Contains(got, `"n":"x"`) {
				t.Errorf("a result that breaks its outputSchema reached the client: %.300s", got)
			}
		})
	}
}

// answering is an upstream that lists toolsList and answers any other request with body,
// under the Content-Type values types.
func answering(types []string, body string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		req, _ := io.ReadAll(r.Body)
		if m, _ := parseMessage(req); m.method == "tools/list" {
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(m.id)+`,"result":`+toolsList+`}`)
			return
		}
		w.Header()["Content-Type"] = types
		io.WriteString(w, body)
	})
}

// TestHTTPCharset: a request body in another charset than UTF-8, however the Content-Type
// spells it, gets 415 and reaches no upstream: the TypeScript SDK's server decodes a body
// in the charset named, and under UTF-7 "+AC8-" is '/' and "+ACI-" is '"', so that
// "tools+AC8-call", a method the proxy does not know, or one valid string argument, is to
// the server a tools/call with arguments the schema refuses. UTF-8, in any spelling,
// passes. An upstream answer in another charset goes no further, nor does the proxy's
// own listing of the tools in one.
func TestHTTPCharset(t *testing.T) {
	var charset atomic.Value // appended to the Content-Type of the upstream's answers
	charset.Store("")
	var calls atomic.Int64
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		m, _ := parseMessage(body)
		w.Header().Set("Content-Type", "application/json"+charset.Load().(string))
		switch m.method {
		case "tools/list":
			io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(m.id)+`,"result":`+toolsList+`}`)
		case "tools/call":
			calls.Add(1)
			io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(m.id)+`,"result":{"content":[]}}`)
		default:
			calls.Add(1)
			io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(m.id)+`,"result":{}}`)
		}
	}))
	t.Cleanup(upstream.Close)
	endpoint := startFront(t, upstream.URL+"/mcp", Options{})
	const (
		method    = `{"jsonrpc":"2.0","id":2,"method":"tools+AC8-call","params":{"name":"weather","arguments":{"location":"Oslo","days":99}}}`
		arguments = `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"weather","arguments":{"location":"Oslo+ACIALAAiAGQAYQB5AHMAIgA6ADkAOQAsACIAdQBuAGkAdABzACIAOgAi-k"}}}`
		valid     = `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"weather","arguments":{"location":"Oslo"}}}`
	)
	for _, ct := range []string{
		"application/json; charset=utf-7", "application/json;charset=UTF-7", `application/json; charset="utf-7"`,
		"application/json; Charset = utf-16", "application/json; charset=", "application/json; charset=latin1; x=1",
		"application/json; charset=utf-8; charset=utf-7",
	} {
		for _, body := range []string{method, arguments} {
			if status, got := send(t, "POST", endpoint, body, "Content-Type", ct); status != http.StatusUnsupportedMediaType || !strings.Contains(got, "charset") {
				t.Errorf("%q: %d %q", ct, status, got)
			}
		}
	}
	if n := calls.Load(); n != 0 {
		t.Fatalf("%d messages in another charset reached the upstream", n)
	}
	for _, ct := range []string{"application/json", "application/json; charset=utf-8", `application/json; charset="UTF-8"`, "application/json;charset=utf8"} {
		if status, got := send(t, "POST", endpoint, valid, "Content-Type", ct); status != http.StatusOK || !strings.Contains(got, `"result":{"content":[]}`) {
			t.Errorf("%q: %d %q", ct, status, got)
		}
	}

	charset.Store("; charset=utf-7")
	if _, got := postJSON(t, endpoint, valid); !strings.Contains(got, `"error"`) || !strings.Contains(got, "another charset than UTF-8 (charset=utf-7)") {
		t.Errorf("an answer in UTF-7 passed: %q", got)
	}
	_, got := postJSON(t, endpoint, valid, "Authorization", "Bearer other") // a client whose tools the proxy lists itself
	if !strings.Contains(got, "could not fetch the server's tool list") || !strings.Contains(got, "charset=utf-7") {
		t.Errorf("the proxy's own listing in UTF-7 was read: %q", got)
	}
}

// TestHTTPUnreadableAnswers: under Options.Output, an upstream answer that is not JSON
// the proxy reads, which clients may read as a message all the same (a NaN, which
// Python's pydantic takes), is withheld, as over stdio: the call gets an error in its
// place, JSON body or SSE event. A BOM opening a JSON body, which fetch and Python's
// readers drop, is dropped, and the answer checked. Without Options.Output, an answer
// the proxy cannot read passes as it is.
func TestHTTPUnreadableAnswers(t *testing.T) {
	const call = `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"sum","arguments":{}}}`
	for _, c := range []struct {
		name, answer string
		sse, output  bool
		want         string // in the client's answer; "" for the answer itself
	}{
		{"NaN", `{"jsonrpc":"2.0","id":2,"result":{"content":[],"structuredContent":{"n":"x"},"_meta":{"x":NaN}}}`, false, true, "not JSON the proxy reads"},
		{"NaN in an event", `{"jsonrpc":"2.0","id":2,"result":{"content":[],"structuredContent":{"n":"x"},"_meta":{"x":NaN}}}`, true, true, "-not-"},
		{"BOM", "\xef\xbb\xbf" + `{"jsonrpc":"2.0","id":2,"result":{"content":[],"structuredContent":{"n":"x"}}}`, false, true, `"isError":true`},
		{"BOM, valid", "\xef\xbb\xbf" + `{"jsonrpc":"2.0","id":2,"result":{"content":[],"structuredContent":{"n":1}}}`, false, true,
			`{"jsonrpc":"2.0","id":2,"result":{"content":[],"structuredContent":{"n":1}}}`},
		{"NaN, results unchecked", `{"jsonrpc":"2.0","id":2,"result":{"content":[],"_meta":{"x":NaN}}}`, false, false, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				body, _ := io.ReadAll(r.Body)
				m, _ := parseMessage(body)
				if m.method == "tools/list" {
					w.Header().Set("Content-Type", "application/json")
					io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(m.id)+`,"result":`+toolsList+`}`)
					return
				}
				if c.sse {
					w.Header().Set("Content-Type", "text/event-stream")
					io.WriteString(w, "data: "+c.answer+"\n\n")
					return
				}
				w.Header().Set("Content-Type", "application/json")
				io.WriteString(w, c.answer)
			}))
			t.Cleanup(upstream.Close)
			endpoint := startFront(t, upstream.URL+"/mcp", Options{Output: c.output})
			_, got := postJSON(t, endpoint, call)
			switch {
			case c.want == "":
				if got != c.answer {
					t.Errorf("got %q, want the answer as it came", got)
				}
			case c.want == "-not-": // the event dropped, the call unanswered
				if strings.Contains(got, `"n":"x"`) {
					t.Errorf("the result that breaks the outputSchema passed: %q", got)
				}
			case !strings.Contains(got, c.want) || strings.Contains(got, `"n":"x"`):
				t.Errorf("got %q, want %q in it", got, c.want)
			}
		})
	}
}

// TestHTTPListChangedUnreadable: a list_changed the proxy cannot read (a NaN in it,
// which clients may read all the same) makes the list stale over HTTP too: the next
// call is checked against the list the server gives after it.
func TestHTTPListChangedUnreadable(t *testing.T) {
	ls := newListServer(t, true, looseTool)
	endpoint := startFront(t, ls.url, Options{})
	sid := initialized(t, endpoint)
	st := listen(t, endpoint, sid)
	rpc(t, endpoint, sid, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	ls.setPages(strictTool)
	ls.events <- `{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{"_meta":{"n":NaN}}}`
	st.heard(t, "list_changed")
	if got, _ := rpc(t, endpoint, sid, badWeather); !strings.Contains(got, refusedHow) {
		t.Fatalf("the client got %s", got)
	}
	if lists, calls := ls.counts(); lists != 2 || calls != 0 {
		t.Fatalf("%d lists, %d calls; want 2 and 0", lists, calls)
	}
}

// TestHTTPConnectionNamedToolset: a session-less upstream serves other tools for another
// X-MCP-Toolsets ("loose" takes weather {}, the default does not). A client that sends
// X-MCP-Toolsets: loose and names it in Connection sends it to the proxy alone: the
// upstream runs its call under the default tools, so the proxy checks it against them,
// not against the list of the clients that send the header on.
func TestHTTPConnectionNamedToolset(t *testing.T) {
	var mu sync.Mutex
	var ranUnder []string // the toolset of each call that reached the upstream
	upstream := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		m, _ := parseMessage(body)
		w.Header().Set("Content-Type", "application/json")
		toolset := r.Header.Get("X-Mcp-Toolsets")
		switch m.method {
		case "tools/list":
			list := toolsList // weather requires location
			if toolset == "loose" {
				list = looseList
			}
			io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(m.id)+`,"result":`+list+`}`)
		case "tools/call":
			mu.Lock()
			ranUnder = append(ranUnder, toolset)
			mu.Unlock()
			io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(m.id)+`,"result":{"content":[]}}`)
		default:
			io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(m.id)+`,"result":{}}`)
		}
	})
	f, _ := memoryFront(t, upstream, Options{})
	now := time.Now()
	f.p.now = func() time.Time { return now } // the loose clients' listing stays fresh
	send := func(connection, body string) string {
		req := localRequest("POST", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer same")
		req.Header.Set("X-Mcp-Toolsets", "loose")
		if connection != "" {
			req.Header.Set("Connection", connection)
		}
		rec := httptest.NewRecorder()
		f.ServeHTTP(rec, req)
		return rec.Body.String()
	}
	weather := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"weather","arguments":{}}}`
	if got := send("", weather); !strings.Contains(got, `"result"`) {
		t.Fatalf("a loose client's call: %s", got)
	}
	for _, connection := range []string{"X-Mcp-Toolsets", "keep-alive, x-mcp-toolsets", "a,b,c,d,e,f,g,h,i,X-MCP-TOOLSETS"} {
		if got := send(connection, weather); !strings.Contains(got, `"isError":true`) {
			t.Errorf("Connection: %s: %.200s", connection, got)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if !slices.Equal(ranUnder, []string{"loose"}) {
		t.Errorf("the upstream ran calls under the toolsets %q", ranUnder)
	}
}

func TestHopNames(t *testing.T) {
	many := strings.Repeat("x-a, ", 20) + "X-Last"
	for _, c := range []struct {
		connection []string
		name       string
		want       bool
	}{
		{nil, "X-A", false},
		{[]string{"keep-alive, X-Hop"}, "X-Hop", true},
		{[]string{"keep-alive", " x-hop ,"}, "X-Hop", true},
		{[]string{"X-HOP"}, "x-hop", true},
		{[]string{"X-Hop2"}, "X-Hop", false},
		{[]string{",,,"}, "", false},
		{[]string{many}, "X-A", true},
		{[]string{many}, "x-last", true},
		{[]string{many}, "X-Lost", false},
		{[]string{"\u212a"}, "K", false}, // the Kelvin sign is no ASCII K, as net/http's keys hold
		{[]string{many, strings.Repeat("y", 100)}, strings.Repeat("Y", 100), true},
	} {
		if got := namesIn(c.connection).has(c.name); got != c.want {
			t.Errorf("Connection %.40q has %.40q = %v, want %v", c.connection, c.name, got, c.want)
		}
	}
	if (hopNames{}).has("X") {
		t.Error("no names has one")
	}
}

// BenchmarkConnectionHeaders: a request whose Connection header names every one of its
// other headers, forwarded: the cost grows with the headers' bytes, not their square
// (40,000 names, within net/http's megabyte of headers, took 42 s a request).
func BenchmarkConnectionHeaders(b *testing.B) {
	for _, n := range []int{2500, 10000, 40000} {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			from := http.Header{}
			var connection strings.Builder
			for i := range n {
				name := "X-H" + strconv.Itoa(i)
				from[name] = []string{"v"}
				connection.WriteString(name + ", ")
			}
			from["Connection"] = []string{connection.String()}
			b.ResetTimer()
			for b.Loop() {
				copyHeaders(http.Header{}, from)
			}
		})
	}
}
