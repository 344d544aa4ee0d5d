package proxy

import (
	"io"
	"strconv"
	"strings"
	"testing"
)

// ownListAnswered reads the proxy's own tools/list from the server's side and answers it
// with result.
func (h *harness) ownListAnswered(result string) {
	h.t.Helper()
	got := h.serverGets()
	m, ok := parseMessage([]byte(got))
	if !ok || m.method != "tools/list" || !h.p.ownKey(idKey(m.id)) {
		h.t.Fatalf("the server got %.300s, want the proxy's own tools/list", got)
	}
	h.server(`{"jsonrpc":"2.0","id":` + string(m.id) + `,"result":` + result + `}`)
}

// markerNext sends a notification, without waiting for the proxy to read it, and checks
// that it is the next thing the server gets: the request before it was not sent on.
func (h *harness) markerNext() {
	h.t.Helper()
	const marker = `{"jsonrpc":"2.0","method":"notifications/marker"}`
	go io.WriteString(h.clientSend, marker+"\n")
	if got := h.serverGets(); got != marker {
		h.t.Fatalf("the server got %.300s", got)
	}
}

// clientNext reads the next line the client gets, without waiting for it.
func (h *harness) clientNext() <-chan string {
	answer := make(chan string, 1)
	go func() {
		line, _ := h.clientGot.ReadString('\n')
		answer <- strings.TrimSuffix(line, "\n")
	}()
	return answer
}

// TestAnswerLearnedAsItsRequest: a response is learned only as the answer to the request
// it answers, a request may not take the id of one in flight, and a tools/list result
// without a tools array is never learned, so that a ping's {} never becomes the list.
func TestAnswerLearnedAsItsRequest(t *testing.T) {
	const invalidCall = `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"weather","arguments":{}}}`
	for _, tc := range []struct {
		name string
		run  func(h *harness)
	}{
		{"a tools/list under a ping's id in flight", func(h *harness) {
			h.clientPasses(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)
			answer := h.clientNext()
			h.client(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
			h.markerNext()
			if got := <-answer; !strings.HasPrefix(got, `{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"Invalid request: `) ||
				!strings.Contains(got, "in flight") {
				h.t.Fatalf("the client got %.300s", got)
			}
			h.serverPasses(`{"jsonrpc":"2.0","id":1,"result":{}}`)
		}},
		{"both in one batch", func(h *harness) {
			answer := h.clientNext()
			h.client(`[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":1,"method":"tools/list"}]`)
			if got := h.serverGets(); got != `[{"jsonrpc":"2.0","id":1,"method":"ping"}]` {
				h.t.Fatalf("the server got %.300s", got)
			}
			if got := <-answer; !strings.HasPrefix(got, `[{"jsonrpc":"2.0","id":1,"error":{"code":-32600,`) {
				h.t.Fatalf("the client got %.300s", got)
			}
			h.serverPasses(`[{"jsonrpc":"2.0","id":1,"result":{}}]`)
		}},
		{"a call under a listing's id in flight", func(h *harness) {
			h.clientPasses(`{"jsonrpc":"2.0","id":9,"method":"tools/list"}`)
			answer := h.clientNext()
			h.client(`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"weather","arguments":{"location":"x"}}}`)
			h.markerNext()
			if got := <-answer; !strings.HasPrefix(got, `{"jsonrpc":"2.0","id":9,"error":{"code":-32600,`) {
				h.t.Fatalf("the client got %.300s", got)
			}
			h.serverPasses(`{"jsonrpc":"2.0","id":9,"result":{}}`)
		}},
		{"a tools/list result without tools", func(h *harness) {
			h.clientPasses(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
			h.serverPasses(`{"jsonrpc":"2.0","id":1,"result":{}}`)
		}},
		{"a tools/list result whose tools are not an array", func(h *harness) {
			h.clientPasses(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
			h.serverPasses(`{"jsonrpc":"2.0","id":1,"result":{"tools":{"weather":{}}}}`)
		}},
		{"a tools/list result whose tools are null", func(h *harness) {
			h.clientPasses(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
			h.serverPasses(`{"jsonrpc":"2.0","id":1,"result":{"tools":null}}`)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, Options{})
			tc.run(h)
			// Nothing was learned: the proxy lists the tools itself before the call.
			h.client(invalidCall)
			h.ownListAnswered(toolsList)
			if got := h.clientGets(); !strings.HasPrefix(got, `{"jsonrpc":"2.0","id":9,"result":{"content":[{"type":"text","text":"Invalid arguments: `) {
				t.Fatalf("the call was answered %.300s", got)
			}
		})
	}
}

// TestInFlightIDFreed: once answered, or cancelled, an id may be used again.
func TestInFlightIDFreed(t *testing.T) {
	h := newHarness(t, Options{})
	h.clientPasses(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)
	h.serverPasses(`{"jsonrpc":"2.0","id":1,"result":{}}`)
	h.clientPasses(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)
	h.clientPasses(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`)
	h.listed()
}

// TestPendingBound: a session holds at most maxPending requests in flight; past it, a
// request is answered with an error and not sent on, until one is answered.
func TestPendingBound(t *testing.T) {
	p, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	x := exchange{s: newSession("")}
	ping := func(id int) []byte { return []byte(`{"jsonrpc":"2.0","id":` + strconv.Itoa(id) + `,"method":"ping"}`) }
	for i := range maxPending {
		if forward, answer := p.fromClient(x, ping(i), nil); forward == nil || answer != nil {
			t.Fatalf("ping %d: %s", i, answer)
		}
	}
	if forward, answer := p.fromClient(x, ping(maxPending), nil); forward != nil || !strings.Contains(string(answer), "requests of this MCP session are in flight") {
		t.Fatalf("a request past the bound: forward %s, answer %s", forward, answer)
	}
	p.fromServer(x, []byte(`{"jsonrpc":"2.0","id":0,"result":{}}`))
	if forward, answer := p.fromClient(x, ping(maxPending), nil); forward == nil || answer != nil {
		t.Fatalf("a request once one was answered: %s", answer)
	}
}
