package proxy

import (
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// TestLargeMessages passes 10 MB messages both ways unchanged, and refuses a 10 MB
// invalid call with a refusal of a few kilobytes that the server never sees.
func TestLargeMessages(t *testing.T) {
	h := newHarness(t, Options{})
	h.listed()
	big := strings.Repeat("a", 10<<20)
	h.clientPasses(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"weather","arguments":{"location":"` + big + `"}}}`)
	h.serverPasses(`{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"` + big + `"}]}}`)
	h.client(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"weather","arguments":{"location":"x","` + big + `":1}}}`)
	if got := h.clientGets(); !strings.Contains(got, `"id":3,"result":{"content":[{"type":"text","text":"Invalid arguments: unexpected property`) || len(got) > 20<<10 {
		t.Fatalf("the client got %d bytes: %.200s", len(got), got)
	}
	deep := strings.Repeat("[", 1<<20) + strings.Repeat("]", 1<<20)
	h.client(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"weather","arguments":{"location":` + deep + `}}}`)
	if got := h.clientGets(); !strings.Contains(got, `"id":4,"result":{"content":[{"type":"text","text":"Invalid arguments: `) {
		t.Fatalf("the client got %.200s", got)
	}
	h.clientPasses(`{"jsonrpc":"2.0","id":5,"method":"vendor/deep","params":` + deep + `}`)
}

// TestRelayAllocations bounds what relaying megabyte lines allocates: the line itself
// once at most (read across the pipe's buffer), nothing per byte for deciding it.
func TestRelayAllocations(t *testing.T) {
	p, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	s := newSession("")
	s.learn(p, []byte(toolsList), true, 0)
	big := strings.Repeat("a", 4<<20)
	lines := [][]byte{
		[]byte(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"weather","arguments":{"location":"` + big + `"}}}`),
		[]byte(`{"jsonrpc":"2.0","id":2,"method":"vendor/x","params":{"data":"` + big + `"}}`),
	}
	for _, line := range lines {
		allocated := allocatedBy(func() {
			if forward, answer := p.fromClient(exchange{s: s}, line, nil); !sameBytes(forward, line) || answer != nil {
				t.Fatalf("%.80s was not passed on", line)
			}
			s.answered("2")
		}, 10)
		if allocated > 64<<10 {
			t.Errorf("deciding %.60s... of %d bytes allocates %d bytes", line, len(line), allocated)
		}
	}
	result := []byte(`{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"` + big + `"}]}}`)
	allocated := allocatedBy(func() {
		s.track("2", &pending{id: []byte("2"), method: "tools/call", name: "weather"})
		if out := p.fromServer(exchange{s: s}, result); !sameBytes(out, result) {
			t.Fatal("the result was not passed on")
		}
	}, 10)
	if allocated > 64<<10 {
		t.Errorf("passing a result of %d bytes allocates %d bytes", len(result), allocated)
	}
	// Reading: at most twice the line, for its buffer's growth.
	line := append(append([]byte(nil), lines[1]...), '\n')
	r := newLineReader(strings.NewReader(strings.Repeat(string(line), 10)), 0)
	allocated = allocatedBy(func() {
		if got, err := r.next(); len(got) != len(line) || err != nil {
			t.Fatalf("read %d bytes, %v", len(got), err)
		}
	}, 10)
	if allocated > 2*uint64(len(line))+64<<10 {
		t.Errorf("reading a line of %d bytes allocates %d bytes", len(line), allocated)
	}
}

// allocatedBy returns the bytes fn allocates, on average over n runs.
func allocatedBy(fn func(), n int) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for range n {
		fn()
	}
	runtime.ReadMemStats(&after)
	return (after.TotalAlloc - before.TotalAlloc) / uint64(n)
}

// TestPendingIsBounded: what the proxy keeps per request goes when it is answered, and a
// refused call leaves nothing behind.
func TestPendingIsBounded(t *testing.T) {
	p, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	s := newSession("")
	s.hearsAll = true // as over stdio
	s.learn(p, []byte(toolsList), true, 0)
	const n = maxPending
	for i := range n {
		id := strconv.Itoa(i)
		p.fromClient(exchange{s: s}, []byte(`{"jsonrpc":"2.0","id":`+id+`,"method":"tools/call","params":{"name":"weather","arguments":{"location":"x"}}}`), nil)
		if _, answer := p.fromClient(exchange{s: s}, []byte(`{"jsonrpc":"2.0","id":"r`+id+`","method":"tools/call","params":{"name":"weather","arguments":{}}}`), nil); answer == nil {
			t.Fatal("an invalid call was not refused")
		}
	}
	if s.requests.len() != n {
		t.Fatalf("%d requests in flight, want %d", s.requests.len(), n)
	}
	for i := range n {
		p.fromServer(exchange{s: s}, []byte(`{"jsonrpc":"2.0","id":`+strconv.Itoa(i)+`,"result":{"content":[]}}`))
	}
	if s.requests.len() != 0 {
		t.Fatalf("%d requests still in flight after all were answered", s.requests.len())
	}
	// A cancelled request is forgotten: the server need not answer it.
	for i := range n {
		id := strconv.Itoa(i)
		p.fromClient(exchange{s: s}, []byte(`{"jsonrpc":"2.0","id":`+id+`,"method":"tools/call","params":{"name":"weather","arguments":{"location":"x"}}}`), nil)
		p.fromClient(exchange{s: s}, []byte(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":`+id+`}}`), nil)
	}
	if s.requests.len() != 0 {
		t.Fatalf("%d cancelled requests still in flight", s.requests.len())
	}
	// An unknown tool of a complete list is not fetched for, however many calls name one.
	fetches := 0
	fetch := func(string, []byte) ([]byte, error) { fetches++; return nil, nil }
	for i := range 1000 {
		p.fromClient(exchange{s: s}, []byte(`{"jsonrpc":"2.0","method":"tools/call","params":{"name":"t`+strconv.Itoa(i)+`"}}`), fetch)
	}
	if fetches != 0 {
		t.Fatalf("%d fetches for tools the complete list does not have", fetches)
	}
}
