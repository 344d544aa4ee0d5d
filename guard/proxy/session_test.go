package proxy

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"
)

// A listServer is a scripted streamable HTTP MCP endpoint: each initialize makes a session
// (s-1, s-2, ...), tools/list answers pages of the tools the test sets, page i+1 under
// the cursor "i+1", each tools/call gets a result, and a GET stream, when allowed, stays
// open and carries what the test sends on events. It counts what it gets.
type listServer struct {
	url    string
	events chan string

	mu       sync.Mutex
	pages    []string // each the members of one page's tools array
	get      bool     // a GET stream is allowed; else 405
	sessions int
	lists    int // tools/list requests
	calls    int // tools/call requests
}

func newListServer(t *testing.T, get bool, pages ...string) *listServer {
	ls := &listServer{pages: pages, get: get, events: make(chan string)}
	quit := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(ls.serve(quit)))
	t.Cleanup(func() { close(quit); srv.Close() })
	ls.url = srv.URL + "/mcp"
	return ls
}

func (ls *listServer) setPages(pages ...string) {
	ls.mu.Lock()
	ls.pages = pages
	ls.mu.Unlock()
}

func (ls *listServer) counts() (lists, calls int) {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	return ls.lists, ls.calls
}

func (ls *listServer) serve(quit chan struct{}) func(http.ResponseWriter, *http.Request) {
	return func(w http.ResponseWriter, r *http.Request) {
		switch r.Method {
		case http.MethodGet:
			ls.mu.Lock()
			get := ls.get
			ls.mu.Unlock()
			if !get {
				w.WriteHeader(http.StatusMethodNotAllowed)
				return
			}
			w.Header().Set("Content-Type", "text/event-stream")
			ls.stream(w, r, quit)
			return
		case http.MethodDelete:
			w.WriteHeader(http.StatusOK)
			return
		}
		body, _ := io.ReadAll(r.Body)
		m, _ := parseMessage(body)
		switch {
		case m.id == nil:
			w.WriteHeader(http.StatusAccepted)
			return
		case m.method == "subscriptions/listen":
			w.Header().Set("Content-Type", "text/event-stream")
			io.WriteString(w, `data: {"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"notifications":`+
				string(member(m.params, "notifications"))+`}}`+"\n\n")
			ls.stream(w, r, quit)
			return
		}
		ls.mu.Lock()
		defer ls.mu.Unlock()
		result := `{}`
		switch m.method {
		case "initialize":
			ls.sessions++
			w.Header().Set(sessionHeader, "s-"+strconv.Itoa(ls.sessions))
			result = `{"protocolVersion":"2025-06-18","capabilities":{"tools":{"listChanged":true}},"serverInfo":{"name":"list","version":"1"}}`
		case "tools/list":
			ls.lists++
			page := 0
			if c, ok := stringValue(member(m.params, "cursor")); ok {
				page, _ = strconv.Atoi(c)
			}
			result = `{"tools":[` + ls.pages[min(page, len(ls.pages)-1)] + `]`
			if page+1 < len(ls.pages) {
				result += `,"nextCursor":"` + strconv.Itoa(page+1) + `"`
			}
			result += `}`
		case "tools/call":
			ls.calls++
			result = `{"content":[{"type":"text","text":"ran"}]}`
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(m.id)+`,"result":`+result+`}`)
	}
}

// stream sends the events the test sends, until the request or the test ends.
func (ls *listServer) stream(w http.ResponseWriter, r *http.Request, quit chan struct{}) {
	w.(http.Flusher).Flush()
	for {
		select {
		case ev := <-ls.events:
			io.WriteString(w, "data: "+ev+"\n\n")
			w.(http.Flusher).Flush()
		case <-r.Context().Done():
			return
		case <-quit:
			return
		}
	}
}

// frontOf starts the proxy p's handler in front of upstream on 127.0.0.1.
func frontOf(t *testing.T, p *Proxy, upstream string) string {
	t.Helper()
	h, err := p.Handler(upstream)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	return ts.URL + "/mcp"
}

// rpc posts body to endpoint in the session sid ("" for none) and returns the answer and
// the session it names.
func rpc(t *testing.T, endpoint, sid, body string) (answer, session string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, endpoint, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if sid != "" {
		req.Header.Set(sessionHeader, sid)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b), resp.Header.Get(sessionHeader)
}

// initialized starts a session through endpoint and returns its id.
func initialized(t *testing.T, endpoint string) string {
	t.Helper()
	_, sid := rpc(t, endpoint, "", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`)
	if sid == "" {
		t.Fatal("no session")
	}
	rpc(t, endpoint, sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return sid
}

// A stream is a GET stream open through the proxy: what it carried so far, and the
// rest as it comes.
type stream struct {
	got    strings.Builder
	events chan string
}

// listen opens the session's GET stream through endpoint and returns it once its headers
// came; the test closes it.
func listen(t *testing.T, endpoint, sid string) *stream {
	t.Helper()
	return openStream(t, http.MethodGet, endpoint, sid, "")
}

// openStream opens a stream through endpoint that stays open: a GET, or a POST of body
// answered by an SSE stream; the test closes it.
func openStream(t *testing.T, method, endpoint, sid, body string) *stream {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, method, endpoint, strings.NewReader(body))
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(sessionHeader, sid)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	st := &stream{events: make(chan string)}
	go func() {
		defer close(st.events)
		buf := make([]byte, 4096)
		for {
			n, err := resp.Body.Read(buf)
			if n > 0 {
				st.events <- string(buf[:n])
			}
			if err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() {
		cancel()
		for range st.events {
		}
		resp.Body.Close()
	})
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("%s: %d", method, resp.StatusCode)
	}
	return st
}

// heard waits until the stream has carried want.
func (st *stream) heard(t *testing.T, want string) {
	t.Helper()
	for !strings.Contains(st.got.String(), want) {
		ev, ok := <-st.events
		if !ok {
			t.Fatalf("the stream ended without %s", want)
		}
		st.got.WriteString(ev)
	}
}

const (
	looseTool  = `{"name":"weather","inputSchema":{"type":"object"}}`
	strictTool = `{"name":"weather","inputSchema":` + weatherSchema + `}`
	badWeather = `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"weather","arguments":{"days":70}}}`
	refusedHow = `"isError":true`
)

// TestToolListedTwiceAcrossPages: a tool listed on two pages with different schemas is
// refused, as one listed twice on a page is, whether the client listed the pages or the
// proxy fetched them.
func TestToolListedTwiceAcrossPages(t *testing.T) {
	for _, tc := range []struct {
		name   string
		pages  []string
		listed bool
		want   string
	}{
		{"fetched", []string{strictTool, looseTool}, false, "cannot be called"},
		{"listed", []string{strictTool, looseTool}, true, "cannot be called"},
		{"fetched, loose first", []string{looseTool, strictTool}, false, "cannot be called"},
		{"listed, loose first", []string{looseTool, strictTool}, true, "cannot be called"},
		{"the same twice", []string{strictTool, strictTool}, true, "Invalid arguments"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ls := newListServer(t, true, tc.pages...)
			endpoint := startFront(t, ls.url, Options{})
			sid := initialized(t, endpoint)
			listen(t, endpoint, sid)
			if tc.listed {
				rpc(t, endpoint, sid, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
				rpc(t, endpoint, sid, `{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"cursor":"1"}}`)
			}
			got, _ := rpc(t, endpoint, sid, badWeather)
			if _, calls := ls.counts(); calls != 0 || !strings.Contains(got, refusedHow) || !strings.Contains(got, tc.want) {
				t.Fatalf("the server got %d calls; the client got %s", calls, got)
			}
		})
	}
}

// TestListChangedUnheard: a session whose client opens no GET stream cannot hear the
// server say its list changed; its calls are checked against the list as it is now, not
// as it was.
func TestListChangedUnheard(t *testing.T) {
	ls := newListServer(t, false, looseTool)
	endpoint := startFront(t, ls.url, Options{})
	sid := initialized(t, endpoint)
	rpc(t, endpoint, sid, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	ls.setPages(strictTool) // and says so on a stream no one opened
	got, _ := rpc(t, endpoint, sid, badWeather)
	if _, calls := ls.counts(); calls != 0 || !strings.Contains(got, refusedHow) {
		t.Fatalf("the server got %d calls; the client got %s", calls, got)
	}
	got, _ = rpc(t, endpoint, sid, `{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"weather","arguments":{"location":"Oslo"}}}`)
	if _, calls := ls.counts(); calls != 1 || strings.Contains(got, refusedHow) {
		t.Fatalf("a valid call: the server got %d calls; the client got %s", calls, got)
	}
}

// TestListChangedHeard: while a stream the client opened to hear the list change is open
// (a GET stream, or from 2026-07-28 a subscriptions/listen stream whose server agreed to
// send list_changed) the proxy hears the list change there, and fetches the list only
// then.
func TestListChangedHeard(t *testing.T) {
	for _, tc := range []struct{ name, method, body string }{
		{"GET", http.MethodGet, ""},
		{"subscriptions/listen", http.MethodPost, `{"jsonrpc":"2.0","id":"listen","method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true}}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ls := newListServer(t, true, looseTool)
			endpoint := startFront(t, ls.url, Options{})
			sid := initialized(t, endpoint)
			stream := openStream(t, tc.method, endpoint, sid, tc.body)
			if tc.body != "" {
				stream.heard(t, "acknowledged")
			}
			listChangedHeard(t, ls, endpoint, sid, stream)
		})
	}
}

func listChangedHeard(t *testing.T, ls *listServer, endpoint, sid string, stream *stream) {
	rpc(t, endpoint, sid, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	valid := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"weather","arguments":{"location":"Oslo"}}}`
	for range 5 {
		rpc(t, endpoint, sid, valid)
	}
	if lists, calls := ls.counts(); lists != 1 || calls != 5 {
		t.Fatalf("%d lists, %d calls; want 1 and 5", lists, calls)
	}
	ls.setPages(strictTool)
	ls.events <- `{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`
	stream.heard(t, "list_changed")
	if got, _ := rpc(t, endpoint, sid, badWeather); !strings.Contains(got, refusedHow) {
		t.Fatalf("the client got %s", got)
	}
	if lists, calls := ls.counts(); lists != 2 || calls != 5 {
		t.Fatalf("%d lists, %d calls; want 2 and 5", lists, calls)
	}
}

// pagedTools returns n pages of one tool each, t0 to t<n-1>.
func pagedTools(n int) []string {
	pages := make([]string, n)
	for i := range pages {
		pages[i] = `{"name":"t` + strconv.Itoa(i) + `","inputSchema":{"type":"object","properties":{"n":{"type":"integer"}}}}`
	}
	return pages
}

func callOf(tool string, id int) string {
	return `{"jsonrpc":"2.0","id":` + strconv.Itoa(id) + `,"method":"tools/call","params":{"name":"` + tool + `","arguments":{"n":1}}}`
}

// TestRefetchBounded counts the proxy's own tools/list requests: a client listing the
// first page of a list the proxy holds whole does not make it fetch the list again;
// calls that arrive together share one fetch; a session's own listings ask for about
// pageBurst pages in a row, then pageRate a second: a call that would need one more
// listing before is refused, not passed.
func TestRefetchBounded(t *testing.T) {
	const pages = 200
	t.Run("first page", func(t *testing.T) {
		ls := newListServer(t, true, pagedTools(pages)...)
		endpoint := startFront(t, ls.url, Options{})
		sid := initialized(t, endpoint)
		listen(t, endpoint, sid)
		for i := range 10 {
			rpc(t, endpoint, sid, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
			if got, _ := rpc(t, endpoint, sid, callOf("t150", i+2)); strings.Contains(got, refusedHow) {
				t.Fatalf("refused: %s", got)
			}
		}
		if lists, calls := ls.counts(); lists > 10+pages || calls != 10 {
			t.Fatalf("%d tools/list upstream for 10 of the client's, %d calls", lists, calls)
		}
	})
	t.Run("together", func(t *testing.T) {
		ls := newListServer(t, true, pagedTools(pages)...)
		endpoint := startFront(t, ls.url, Options{})
		sid := initialized(t, endpoint)
		listen(t, endpoint, sid)
		var wg sync.WaitGroup
		for i := range 20 {
			wg.Go(func() { rpc(t, endpoint, sid, callOf("t"+strconv.Itoa(i), i+1)) })
		}
		wg.Wait()
		if lists, calls := ls.counts(); lists > pages || calls != 20 {
			t.Fatalf("%d tools/list upstream, %d calls", lists, calls)
		}
	})
	t.Run("changed each time", func(t *testing.T) {
		ls := newListServer(t, true, pagedTools(3)...)
		p, err := New(Options{})
		if err != nil {
			t.Fatal(err)
		}
		frozen := time.Unix(1e9, 0)
		p.now = func() time.Time { return frozen }
		endpoint := frontOf(t, p, ls.url)
		sid := initialized(t, endpoint)
		stream := listen(t, endpoint, sid)
		const rounds = pageBurst
		refused := 0
		for i := range rounds {
			ls.events <- `{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{"n":` + strconv.Itoa(i) + `}}`
			stream.heard(t, `"n":`+strconv.Itoa(i)+`}`)
			got, _ := rpc(t, endpoint, sid, callOf("t1", i+1))
			if strings.Contains(got, refusedHow) {
				if !strings.Contains(got, "could not be checked") {
					t.Fatalf("refused so: %s", got)
				}
				refused++
			}
		}
		lists, calls := ls.counts()
		if lists > pageBurst+3 || calls+refused != rounds || refused < rounds/2 {
			t.Fatalf("%d tools/list upstream, %d calls passed, %d refused", lists, calls, refused)
		}
		frozen = frozen.Add(time.Second)
		ls.events <- `{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`
		stream.heard(t, `list_changed"}`)
		if got, _ := rpc(t, endpoint, sid, callOf("t1", 0)); strings.Contains(got, refusedHow) {
			t.Fatalf("a second later: %s", got)
		}
	})
}

// manyTools is a tools/list result of n tools whose schemas are each about size bytes.
func manyTools(prefix string, n, size int) string {
	var b strings.Builder
	b.WriteString(`{"tools":[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"name":"` + prefix + strconv.Itoa(i) + `","inputSchema":{"type":"object","description":"`)
		b.WriteString(strings.Repeat("x", size))
		b.WriteString(`","properties":{"n":{"type":"integer"}}}}`)
	}
	b.WriteString(`]}`)
	return b.String()
}

// heapAfter returns the bytes in use on the heap after fn, once collected, less those before.
func heapAfter(fn func()) int64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	fn()
	runtime.GC()
	runtime.ReadMemStats(&after)
	return int64(after.HeapAlloc) - int64(before.HeapAlloc)
}

// TestListsShared: thousands of sessions that got the same tool list hold it once, and
// bind each schema once in the guard's cache, whatever their number.
func TestListsShared(t *testing.T) {
	const sessions, tools, size = 3000, 20, 1000
	p, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	answer := []byte(`{"jsonrpc":"2.0","id":1,"result":` + manyTools("t", tools, size) + `}`)
	var kept []*session
	grew := heapAfter(func() {
		for i := range sessions {
			s := newSession("s-" + strconv.Itoa(i))
			p.fromClient(exchange{s: s}, []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`), nil)
			p.fromServer(exchange{s: s}, answer)
			if _, refused := p.fromClient(exchange{s: s}, []byte(callOf("t"+strconv.Itoa(i%tools), 2)), nil); refused != nil {
				t.Fatalf("refused: %s", refused)
			}
			kept = append(kept, s)
		}
	})
	runtime.KeepAlive(kept)
	if per := grew / sessions; per > tools*size/8 {
		t.Errorf("each session holds %d bytes, a list is %d", per, tools*size)
	}
	if b := p.guard.CacheStats().Bindings; b > tools {
		t.Errorf("%d bindings for %d schemas", b, tools)
	}
}

// TestDeleteFreesLists: what sessions ended by DELETE held is freed: their lists, and
// their schemas' bindings beyond one a schema.
func TestDeleteFreesLists(t *testing.T) {
	const sessions, tools = 100, 20
	ls := newListServer(t, true, pagedTools(tools)...)
	p, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	endpoint := frontOf(t, p, ls.url)
	for i := range sessions {
		sid := initialized(t, endpoint)
		rpc(t, endpoint, sid, callOf("t"+strconv.Itoa(i%tools), 1))
		req, _ := http.NewRequest(http.MethodDelete, endpoint, nil)
		req.Header.Set(sessionHeader, sid)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	if b := p.guard.CacheStats().Bindings; b > tools {
		t.Errorf("%d bindings for %d schemas after every session ended", b, tools)
	}
	for i := 0; i < 100 && p.lists.size() > 0; i++ {
		runtime.GC()
		runtime.Gosched()
	}
	if n, held := p.lists.size(), p.lists.bytes(); n > 0 || held != 0 {
		t.Errorf("%d lists of %d bytes held after every session ended", n, held)
	}
}

// TestCacheBudget: sessions with lists of their own, more than the budget holds, hold
// no more than the budget; a session whose list was dropped fetches it again.
func TestCacheBudget(t *testing.T) {
	const sessions, tools, size, budget = 1000, 10, 1000, 1 << 20
	p, err := New(Options{CacheBudget: budget})
	if err != nil {
		t.Fatal(err)
	}
	var kept []*session
	grew := heapAfter(func() {
		for i := range sessions {
			s := newSession("s-" + strconv.Itoa(i))
			p.fromClient(exchange{s: s}, []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`), nil)
			p.fromServer(exchange{s: s}, []byte(`{"jsonrpc":"2.0","id":1,"result":`+manyTools("s"+strconv.Itoa(i)+"-", tools, size)+`}`))
			kept = append(kept, s)
		}
	})
	runtime.KeepAlive(kept)
	if limit := int64(3*budget + sessions*2048); grew > limit || p.lists.bytes() > budget {
		t.Errorf("the heap grew %d bytes for %d of lists, the budget %d; the lists hold %d", grew, sessions*tools*size, budget, p.lists.bytes())
	}
	first := kept[0]
	fetched := 0
	_, answer := p.fromClient(exchange{s: first}, []byte(callOf("s0-1", 5)), func(key string, _ []byte) ([]byte, error) {
		fetched++
		return []byte(`{"jsonrpc":"2.0","id":` + key + `","result":` + manyTools("s0-", tools, size) + `}`), nil
	})
	if answer != nil || fetched != 1 {
		t.Errorf("the first session's call: fetched %d times, answered %s", fetched, answer)
	}
}

// TestListingPagesWithinBudget: a client listing a long list page by page holds one list
// at a time, not each page's list so far: another session's list stays.
func TestListingPagesWithinBudget(t *testing.T) {
	const budget, pages, size = 1 << 20, 100, 5000
	p, err := New(Options{CacheBudget: budget})
	if err != nil {
		t.Fatal(err)
	}
	other := newSession("other")
	p.fromClient(exchange{s: other}, []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`), nil)
	p.fromServer(exchange{s: other}, []byte(`{"jsonrpc":"2.0","id":1,"result":`+manyTools("o", 50, size)+`}`))
	s := newSession("paging")
	for i := range pages {
		req := `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`
		if i > 0 {
			req = `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"cursor":"` + strconv.Itoa(i) + `"}}`
		}
		p.fromClient(exchange{s: s}, []byte(req), nil)
		page := manyTools("p"+strconv.Itoa(i)+"-", 1, size)
		p.fromServer(exchange{s: s}, []byte(`{"jsonrpc":"2.0","id":1,"result":`+page[:len(page)-1]+`,"nextCursor":"`+strconv.Itoa(i+1)+`"}}`))
	}
	if tools, _ := other.list.get(); len(tools) != 50 {
		t.Fatalf("the other session's list was dropped")
	}
	if tools, _ := s.list.get(); len(tools) != pages {
		t.Fatalf("the paging session holds %d tools, want %d", len(tools), pages)
	}
	if n := p.lists.size(); n != 2 {
		t.Fatalf("%d lists held, want 2", n)
	}
}

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

// TestListOfOneGeneration: pages of a tool list asked for before the server said its
// list changed are never one list with pages asked for after: a page after the change
// does not join one from before (the call then makes the proxy list the tools itself),
// nor does a late answer to a page asked for before the change join the list since; and
// the proxy's own listing, when the list changes while it reads its pages, lists them all
// again, so that a call is checked against the list as it is after the change.
func TestListOfOneGeneration(t *testing.T) {
	const (
		lenient = `{"name":"files","inputSchema":{"type":"object"}}`
		strict  = `{"name":"files","inputSchema":{"type":"object","properties":{"path":{"type":"string","pattern":"^/tmp/"}},"required":["path"]}}`
		other   = `{"name":"other","inputSchema":{"type":"object"}}`
		changed = `{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`
		call    = `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"files","arguments":{"path":"/etc/shadow"}}}`
	)
	// answerList answers the proxy's own tools/list request with the page of tools.
	answerList := func(t *testing.T, h *harness, tools, next string) {
		t.Helper()
		req := h.serverGets()
		m, _ := parseMessage([]byte(req))
		if m.method != "tools/list" {
			t.Fatalf("the server got %s, not the proxy's tools/list", req)
		}
		h.server(`{"jsonrpc":"2.0","id":` + string(m.id) + `,"result":{"tools":[` + tools + `]` + next + `}}`)
	}
	refused := func(t *testing.T, h *harness) {
		t.Helper()
		if got := h.clientGets(); !strings.Contains(got, `"isError":true`) || !strings.Contains(got, "path") {
			t.Fatalf("the client got %s", got)
		}
	}
	t.Run("a page after the change", func(t *testing.T) {
		h := newHarness(t, Options{})
		h.clientPasses(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
		h.serverPasses(`{"jsonrpc":"2.0","id":1,"result":{"tools":[` + lenient + `],"nextCursor":"2"}}`)
		h.serverPasses(changed)
		h.clientPasses(`{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"cursor":"2"}}`)
		h.serverPasses(`{"jsonrpc":"2.0","id":2,"result":{"tools":[` + other + `]}}`)
		h.client(call)
		answerList(t, h, strict+","+other, "")
		refused(t, h)
	})
	t.Run("a page asked for before the change", func(t *testing.T) {
		h := newHarness(t, Options{})
		h.clientPasses(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"cursor":"2"}}`)
		h.serverPasses(changed)
		h.clientPasses(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
		h.serverPasses(`{"jsonrpc":"2.0","id":2,"result":{"tools":[` + other + `],"nextCursor":"2"}}`)
		h.serverPasses(`{"jsonrpc":"2.0","id":1,"result":{"tools":[` + lenient + `]}}`)
		h.client(call)
		answerList(t, h, strict+","+other, "")
		refused(t, h)
	})
	t.Run("a change during the proxy's own listing", func(t *testing.T) {
		h := newHarness(t, Options{})
		h.client(call)
		answerList(t, h, lenient, `,"nextCursor":"2"`)
		h.serverPasses(changed)
		answerList(t, h, other, "")
		answerList(t, h, strict+","+other, "") // listed again
		refused(t, h)
	})
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

// TestBrokenStreamsBounded: the requests of broken streams, which wait for a client to
// resume them, never take a session's room: past maxBroken streams, or once requests in
// flight fill half the room, the oldest stream is given up and its requests forgotten;
// the newest can still be resumed. An event id is kept within maxEventKey bytes, however
// long, and a stream resumed from it is found all the same.
func TestBrokenStreamsBounded(t *testing.T) {
	p, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	s := newSession("")
	post := func(tag string, ids ...int) {
		x := exchange{s: s, tag: tag}
		for _, id := range ids {
			if forward, answer := p.fromClient(x, []byte(`{"jsonrpc":"2.0","id":`+strconv.Itoa(id)+`,"method":"ping"}`), nil); forward == nil || answer != nil {
				t.Fatalf("%q %d: %s", tag, id, answer)
			}
		}
	}
	last := func(i int) string { return strings.Repeat("e", i%2*maxEventKey) + strconv.Itoa(i) } // every other one long
	for i := range 4 * maxBroken {
		tag := "\x00" + strconv.Itoa(i) + "\x00"
		post(tag, 1, 2)
		s.broke(last(i), tag)
		if n := s.requests.len(); n > 2*maxBroken {
			t.Fatalf("after %d broken streams, %d requests in flight", i+1, n)
		}
	}
	if len(s.broken.order) != len(s.broken.tags) {
		t.Errorf("%d keys in order, %d broken streams", len(s.broken.order), len(s.broken.tags))
	}
	for k := range s.broken.tags {
		if len(k) > maxEventKey {
			t.Errorf("an event id of %d bytes kept", len(k))
		}
	}
	newest, oldest := 4*maxBroken-1, 0
	if tag, ok := s.resumed(last(newest)); !ok || tag != "\x00"+strconv.Itoa(newest)+"\x00" || !s.pendingUnder(tag) {
		t.Errorf("the newest stream: %q, %v", tag, ok)
	}
	if _, ok := s.resumed(last(oldest)); ok || s.pendingUnder("\x000\x00") {
		t.Error("the oldest stream is still kept")
	}

	// Event ids of a megabyte are kept as digests; a stream resumed, then broken again under
	// the same id, is kept as the newest.
	s = newSession("")
	huge := func(i int) string { return strings.Repeat("e", 1<<20) + strconv.Itoa(i) }
	for i := range 8 {
		tag := "\x00" + strconv.Itoa(i) + "\x00"
		post(tag, 1)
		s.broke(huge(i), tag)
	}
	held := 0
	for k := range s.broken.tags {
		held += len(k)
	}
	if held > 8*(maxEventKey+1) {
		t.Errorf("8 event ids of a megabyte held in %d bytes", held)
	}
	if tag, ok := s.resumed(huge(3)); !ok || tag != "\x003\x00" {
		t.Errorf("a megabyte id resumed: %q, %v", tag, ok)
	}
	s.broke(huge(3), "\x003\x00")
	if n := len(s.broken.order); n != 8 || s.broken.order[n-1] != eventKey(huge(3)) {
		t.Errorf("after resuming and breaking again: %d keys, the newest last: %v", n, s.broken.order[n-1] == eventKey(huge(3)))
	}

	s = newSession("") // live requests fill half the room: only the newest broken stream is kept
	post("\x00live\x00", func() []int {
		ids := make([]int, maxPending/2)
		for i := range ids {
			ids[i] = i
		}
		return ids
	}()...)
	for i := range 3 {
		tag := "\x00" + strconv.Itoa(i) + "\x00"
		post(tag, 1)
		s.broke(last(i), tag)
	}
	if n := len(s.broken.tags); n != 1 || !s.pendingUnder("\x002\x00") || s.pendingUnder("\x001\x00") || !s.pendingUnder("\x00live\x00") {
		t.Errorf("%d broken streams kept", n)
	}
}

// TestPendingHeldBounded: what a request in flight holds is bounded, whatever its id or
// method: a session holds at most maxPending of them, each a few hundred bytes, not a
// message's worth, so that a request with a long id or method is refused.
func TestPendingHeldBounded(t *testing.T) {
	p, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("x", 1<<20)
	for _, line := range []string{
		`{"jsonrpc":"2.0","id":"` + long + `","method":"ping"}`,
		`{"jsonrpc":"2.0","id":1,"method":"` + long + `"}`,
	} {
		x := exchange{s: newSession("")}
		if forward, answer := p.fromClient(x, []byte(line), nil); forward != nil || !strings.Contains(string(answer), `"code":-32600`) || len(answer) > 2<<10 {
			t.Errorf("%.60s...: forward %.60s, answer %.200s", line, forward, answer)
		}
	}
}

// TestStreamlessListings: a session with no stream that carries list_changed has its list
// fetched before a checked call unless the proxy's own last listing is younger than its
// pages at pageRate: calls of one instant share one listing, however many (none refused
// for listing too often), and the next listing comes once that time has passed.
func TestStreamlessListings(t *testing.T) {
	const pages = 3
	ls := newListServer(t, false, pagedTools(pages)...)
	p, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Unix(1e9, 0)
	p.now = func() time.Time { return now }
	endpoint := frontOf(t, p, ls.url)
	sid := initialized(t, endpoint)
	const n = 4 * pageBurst
	for i := range n {
		if got, _ := rpc(t, endpoint, sid, callOf("t1", i+1)); strings.Contains(got, refusedHow) {
			t.Fatalf("call %d refused: %s", i, got)
		}
	}
	if lists, calls := ls.counts(); lists != pages || calls != n {
		t.Fatalf("%d tools/list upstream for %d calls at one instant, want %d (one listing)", lists, calls, pages)
	}
	now = now.Add(pages*time.Second/pageRate - 1)
	rpc(t, endpoint, sid, callOf("t1", 0))
	if lists, _ := ls.counts(); lists != pages {
		t.Fatalf("%d tools/list upstream before the listing's time is up", lists)
	}
	now = now.Add(1)
	rpc(t, endpoint, sid, callOf("t1", 0))
	if lists, _ := ls.counts(); lists != 2*pages {
		t.Fatalf("%d tools/list upstream once it is up, want %d", lists, 2*pages)
	}
}

// TestToolSpelledTwice: a server lists a tool with "outputSchema" and, after it,
// "OutputSchema" (or its name or inputSchema so). The proxy reads the member spelled as
// MCP spells it; Go's encoding/json, as go-sdk's and mcp-go's clients decode the list, the
// last in any case. Such a tool fails closed under every name it may go by, as a tool
// listed twice does: its calls are refused, and no result checked against one schema
// reaches a client that holds the other.
func TestToolSpelledTwice(t *testing.T) {
	for _, tc := range []struct{ tool, call string }{
		{`{"name":"sum","inputSchema":{"type":"object"},"outputSchema":{"type":"object"},"OutputSchema":{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}}`, "sum"},
		{`{"name":"sum","inputSchema":{"type":"object"},"inputSchema":{"type":"object","required":["n"]}}`, "sum"},
		{`{"name":"sum","Name":"admin","inputSchema":{"type":"object"}}`, "admin"},
		{`{"name":"sum","Name":"admin","inputSchema":{"type":"object"}}`, "sum"},
	} {
		var reached atomic.Int64
		upstream := listingAnswering(`{"tools":[`+tc.tool+`]}`, `{"content":[],"structuredContent":{"n":"x"}}`, &reached)
		_, do := memoryFront(t, upstream, Options{Output: true})
		_, got := do("POST", "", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"`+tc.call+`","arguments":{}}}`)
		if reached.Load() != 0 || !strings.Contains(got, `"isError":true`) {
			t.Errorf("%s, a call of %s: reached the server %d times; the client got %.300s", tc.tool, tc.call, reached.Load(), got)
		}
	}
}

// TestResultNotUTF8Withheld: under Output, a result whose structuredContent holds invalid
// UTF-8, "\xe2\x82\xe2\x82", is withheld: the guard reads it as Go does, a U+FFFD a byte
// (4 characters, meeting minLength 4), where fetch's TextDecoder and Python's decoder read
// a U+FFFD a sequence (2 characters, which break it).
func TestResultNotUTF8Withheld(t *testing.T) {
	const list = `{"tools":[{"name":"code","inputSchema":{"type":"object"},"outputSchema":{"type":"object","properties":{"c":{"type":"string","minLength":4}},"required":["c"]}}]}`
	for _, c := range []string{"\xe2\x82\xe2\x82", "abcd"} {
		upstream := listingAnswering(list, `{"content":[],"structuredContent":{"c":"`+c+`"}}`, nil)
		_, do := memoryFront(t, upstream, Options{Output: true})
		_, got := do("POST", "", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"code","arguments":{}}}`)
		if passed := strings.Contains(got, c); passed != utf8.ValidString(c) {
			t.Errorf("a result with %q: %q", c, got)
		}
	}
}

// TestCallWithoutName: Go's servers (go-sdk, mcp-go) read a tools/call whose params name
// no tool, or that has no params, as a call of the tool "", which go-sdk registers with
// only a logged error and mcp-go without a word: such a call is refused as one of a tool
// the server does not list, never passed on unchecked.
func TestCallWithoutName(t *testing.T) {
	h := newHarness(t, Options{})
	h.clientPasses(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	h.serverPasses(`{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"","inputSchema":` + weatherSchema + `}]}}`)
	for i, call := range []string{
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"arguments":{"days":"3"}}}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"","arguments":{"days":"3"}}}`,
		`{"jsonrpc":"2.0","id":4,"method":"tools/call"}`,
	} {
		h.client(call)
		if got := h.clientGets(); !strings.Contains(got, `"id":`+strconv.Itoa(i+2)+`,"error"`) || !strings.Contains(got, "Unknown tool") {
			t.Errorf("%s: the client got %s", call, got)
		}
	}
	h.clientPasses(`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":[]}`) // not an object: the server refuses it
}

// listingAnswering is an upstream that lists list and answers every other request with
// result, counting them in reached when it is not nil.
func listingAnswering(list, result string, reached *atomic.Int64) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		req, _ := io.ReadAll(r.Body)
		m, _ := parseMessage(req)
		w.Header().Set("Content-Type", "application/json")
		if m.method == "tools/list" {
			io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(m.id)+`,"result":`+list+`}`)
			return
		}
		if reached != nil {
			reached.Add(1)
		}
		io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(m.id)+`,"result":`+result+`}`)
	})
}
