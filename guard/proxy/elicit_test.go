package proxy

import (
	"bytes"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
)

// elicitAge is a server's form elicitation request, id 9, for an age and a name.
const elicitAge = `{"jsonrpc":"2.0","id":9,"method":"elicitation/create","params":{"mode":"form","message":"Your age?",` +
	`"requestedSchema":{"type":"object","properties":{"age":{"type":"integer","minimum":0},"name":{"type":"string"}},"required":["age"]}}}`

// TestElicitationAnswers: a client's content that breaks the requestedSchema of the
// request it answers never reaches the server, which gets a -32602 error naming what was
// wrong and no value; every other answer passes with its bytes.
func TestElicitationAnswers(t *testing.T) {
	refused := `{"jsonrpc":"2.0","id":9,"error":{"code":-32602,"message":"Invalid elicitation response: `
	for _, c := range []struct {
		name, request, answer string
		want                  string // what the server gets: the answer itself when ""
	}{
		{"valid", elicitAge, `{"jsonrpc":"2.0","id":9,"result":{"action":"accept","content":{"age":42,"name":"Ada"}}}`, ""},
		{"a string for an integer", elicitAge, `{"jsonrpc":"2.0","id":9,"result":{"action":"accept","content":{"age":"old"}}}`,
			refused + `property 'age' must be integer"}}`},
		{"below the minimum, and a member too many", elicitAge, `{"jsonrpc":"2.0","id":9,"result":{"action":"accept","content":{"age":-1,"nick":"x"}}}`,
			refused + `property 'age' must be at least 0"}}`},
		{"no content", elicitAge, `{"jsonrpc":"2.0","id":9,"result":{"action":"accept"}}`,
			refused + `missing required property 'age'"}}`},
		{"declined", elicitAge, `{"jsonrpc":"2.0","id":9,"result":{"action":"decline"}}`, ""},
		{"cancelled", elicitAge, `{"jsonrpc":"2.0","id":9,"result":{"action":"cancel"}}`, ""},
		{"an error", elicitAge, `{"jsonrpc":"2.0","id":9,"error":{"code":-1,"message":"no"}}`, ""},
		{"another request's answer", elicitAge, `{"jsonrpc":"2.0","id":10,"result":{"action":"accept","content":{"age":"old"}}}`, ""},
		{"url mode", `{"jsonrpc":"2.0","id":9,"method":"elicitation/create","params":{"mode":"url","message":"Sign in","url":"https://example.com/","elicitationId":"e"}}`,
			`{"jsonrpc":"2.0","id":9,"result":{"action":"accept"}}`, ""},
		{"content twice", elicitAge, `{"jsonrpc":"2.0","id":9,"result":{"action":"accept","content":{"age":1},"content":{"age":"old"}}}`,
			refused + `a member appears twice or in two cases, so the server might read other content than the one checked"}}`},
		// As servers read answers: mcp-go's before anything else, its members in any case,
		// an id "9" as 9.
		{"the id as a string", elicitAge, `{"jsonrpc":"2.0","id":" 9","result":{"action":"accept","content":{"age":"old"}}}`,
			`{"jsonrpc":"2.0","id":" 9","error":{"code":-32602,"message":"Invalid elicitation response: property 'age' must be integer"}}`},
		{"Action in another case", elicitAge, `{"jsonrpc":"2.0","id":9,"result":{"Action":"accept","content":{"age":"old"}}}`,
			refused + `a member appears twice or in two cases, so the server might read other content than the one checked"}}`},
		{"a declined result, then Result", elicitAge, `{"jsonrpc":"2.0","id":9,"result":{"action":"decline"},"Result":{"action":"accept","content":{"age":"old"}}}`,
			refused + `a member appears twice or in two cases, so the server might read other content than the one checked"}}`},
		{"Result alone", elicitAge, `{"jsonrpc":"2.0","id":9,"Result":{"action":"accept","content":{"age":"old"}}}`,
			refused + `a member appears twice or in two cases, so the server might read other content than the one checked"}}`},
		{"decline, then Action", elicitAge, `{"jsonrpc":"2.0","id":9,"result":{"action":"decline","Action":"accept","content":{"age":"old"}}}`,
			refused + `a member appears twice or in two cases, so the server might read other content than the one checked"}}`},
		{"with a method too", elicitAge, `{"jsonrpc":"2.0","id":9,"method":"ping","result":{"action":"accept","content":{"age":"old"}}}`,
			refused + `property 'age' must be integer"}}`},
		{"in a batch", elicitAge, `[{"jsonrpc":"2.0","id":9,"result":{"action":"accept","content":{"age":"old"}}},{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}}]`,
			`[` + refused + `property 'age' must be integer"}},{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}}]`},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := newHarness(t, Options{})
			h.serverPasses(c.request)
			h.client(c.answer)
			want := c.want
			if want == "" {
				want = c.answer
			}
			if got := h.serverGets(); got != want {
				t.Errorf("the server got\n%s\nwant\n%s", got, want)
			}
			// The request is answered: a second answer of its id passes.
			if strings.Contains(c.answer, `"id":9`) {
				h.clientPasses(`{"jsonrpc":"2.0","id":9,"result":{"action":"accept","content":{"age":"old"}}}`)
			}
		})
	}
}

// TestElicitationOutsideTheSubset: a requestedSchema outside what MCP allows is reported,
// and the answer checked against it all the same.
func TestElicitationOutsideTheSubset(t *testing.T) {
	var log bytes.Buffer
	h := newHarness(t, Options{Logger: slog.New(slog.NewJSONHandler(&log, nil))})
	h.serverPasses(`{"jsonrpc":"2.0","id":"e","method":"elicitation/create","params":{"message":"Where?","requestedSchema":{"type":"object","properties":{"at":{"type":"object","properties":{"x":{"type":"number"}},"required":["x"]}}}}}`)
	if !strings.Contains(log.String(), "outside what MCP allows") || !strings.Contains(log.String(), "member at is not of a primitive type") {
		t.Errorf("log: %s", log.String())
	}
	h.client(`{"jsonrpc":"2.0","id":"e","result":{"action":"accept","content":{"at":{}}}}`)
	if got := h.serverGets(); !strings.Contains(got, `"code":-32602`) || !strings.Contains(got, "missing required property 'at.x'") {
		t.Errorf("the server got %s", got)
	}
}

// TestHTTPElicitationAnswers: over streamable HTTP, the server asks on the SSE stream of
// a call's answer, and the client's answer, a POST of its own, is checked as over stdio.
func TestHTTPElicitationAnswers(t *testing.T) {
	var mu sync.Mutex
	var answers []string
	upstream := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		m, _ := parseMessage(body)
		w.Header().Set(sessionHeader, "s-1")
		switch m.method {
		case "initialize":
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(m.id)+`,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}}`)
		case "tools/list":
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(m.id)+`,"result":`+toolsList+`}`)
		case "tools/call":
			w.Header().Set("Content-Type", "text/event-stream")
			io.WriteString(w, "event: message\ndata: "+elicitAge+"\n\n")
			io.WriteString(w, "event: message\ndata: "+`{"jsonrpc":"2.0","id":`+string(m.id)+`,"result":{"content":[]}}`+"\n\n")
		case "":
			mu.Lock()
			answers = append(answers, string(body))
			mu.Unlock()
			w.WriteHeader(http.StatusAccepted)
		default:
			w.WriteHeader(http.StatusAccepted)
		}
	})
	_, send := memoryFront(t, upstream, Options{})
	send("POST", "", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{}},"clientInfo":{"name":"c","version":"1"}}}`)
	if _, got := send("POST", "s-1", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"weather","arguments":{"location":"Oslo"}}}`); !strings.Contains(got, `"method":"elicitation/create"`) {
		t.Fatalf("the call's stream: %s", got)
	}
	for _, answer := range []string{
		`{"jsonrpc":"2.0","id":9,"result":{"action":"accept","content":{"age":"old"}}}`,
		`{"jsonrpc":"2.0","id":9,"result":{"action":"accept","content":{"age":"old"}}}`, // answered already: passes
	} {
		if resp, _ := send("POST", "s-1", answer); resp.StatusCode != http.StatusAccepted {
			t.Errorf("%s: status %d", answer, resp.StatusCode)
		}
	}
	want := []string{`{"jsonrpc":"2.0","id":9,"error":{"code":-32602,"message":"Invalid elicitation response: property 'age' must be integer"}}`,
		`{"jsonrpc":"2.0","id":9,"result":{"action":"accept","content":{"age":"old"}}}`}
	mu.Lock()
	defer mu.Unlock()
	if !slices.Equal(answers, want) {
		t.Errorf("the server got\n%s\nwant\n%s", strings.Join(answers, "\n"), strings.Join(want, "\n"))
	}
}

// TestInputResponses: from 2026-07-28 a server asks for input in a result (inputRequests:
// of a tools/call, with its requestState; of a task's state, with its taskId), and the
// client answers in the request that follows (inputResponses: the tools/call again, or
// tasks/update). An elicitation's answer whose content breaks its requestedSchema never
// reaches the server, as an answer to elicitation/create does not; others pass.
func TestInputResponses(t *testing.T) {
	const v = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}`
	const asks = `"inputRequests":{"who":{"method":"elicitation/create","params":{"message":"Age?",` +
		`"requestedSchema":{"type":"object","properties":{"age":{"type":"integer","minimum":0}},"required":["age"]}}}}`
	h := newHarness(t, Options{})
	h.listed()
	h.clientPasses(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"weather","arguments":{"location":"Oslo"},` + v + `}}`)
	h.serverPasses(`{"jsonrpc":"2.0","id":2,"result":{"resultType":"input_required",` + asks + `,"requestState":"s1"}}`)
	retry := func(id, answer string) string {
		return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"weather","arguments":{"location":"Oslo"},` +
			`"inputResponses":{"who":` + answer + `},"requestState":"s1",` + v + `}}`
	}
	h.client(retry("3", `{"action":"accept","content":{"age":"old"}}`))
	if got := h.clientGets(); !strings.Contains(got, `"id":3,"error":{"code":-32602,"message":"Invalid elicitation response: property 'age' must be integer"`) {
		t.Errorf("content that breaks the requestedSchema: the client got %s", got)
	}
	h.client(retry("4", `{"Action":"accept","content":{"age":"old"}}`))
	if got := h.clientGets(); !strings.Contains(got, "twice or in two cases") {
		t.Errorf("an ambiguous answer: the client got %s", got)
	}
	h.clientPasses(retry("5", `{"action":"decline"}`))
	h.serverPasses(`{"jsonrpc":"2.0","id":5,"result":{"content":[]}}`)
	h.clientPasses(retry("6", `{"action":"accept","content":{"age":42}}`))
	h.serverPasses(`{"jsonrpc":"2.0","id":6,"result":{"content":[]}}`)

	// A task's state asks; tasks/update answers.
	h.clientPasses(`{"jsonrpc":"2.0","id":7,"method":"tasks/get","params":{"taskId":"T1",` + v + `}}`)
	h.serverPasses(`{"jsonrpc":"2.0","id":7,"result":{"resultType":"complete","taskId":"T1","status":"input_required",` + asks + `}}`)
	update := func(id, answer string) string {
		return `{"jsonrpc":"2.0","id":` + id + `,"method":"tasks/update","params":{"taskId":"T1","inputResponses":{"who":` + answer + `},` + v + `}}`
	}
	h.client(update("8", `{"action":"accept","content":{"age":-1}}`))
	if got := h.clientGets(); !strings.Contains(got, `"id":8,"error":{"code":-32602,"message":"Invalid elicitation response: property 'age' must be at least 0"`) {
		t.Errorf("tasks/update: the client got %s", got)
	}
	h.clientPasses(update("9", `{"action":"accept","content":{"age":1}}`))
}
