package proxy

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/mcpvalidate/mcpvalidate/guard/internal/jsontext"
)

// This file is what both fronts share: an MCP session's tools as its server lists them,
// its requests in flight, and what becomes of each message from either side.

// A tool is one tool of a tools/list answer: its schemas, bound in the guard's cache.
type tool struct {
	in, out *schema // out: nil when the tool declares no outputSchema
}

// pending is a client request the server has not answered yet.
type pending struct {
	key      string   // in the session's table
	keyBytes [24]byte // key's bytes, when they fit
	id       []byte   // as the client sent it
	method   string
	name     string // tools/call: the tool
	tool     *tool  // tools/call: the tool as checked; nil when not listed
	task     bool   // tools/call: task-augmented, answered with a task, not a result
	modern   bool   // tools/call, tasks/result, when results are checked: the protocol's results carry resultType
	slot     bool   // tools/call: task-augmented, of a tool whose results are checked: holds a task slot
	cursor   bool   // tools/list: asks for a page after the first
	gen      uint64 // tools/list: the list's generation when asked

	obs *observed // tools/call: as the guard's observers see it; nil without them
	// taskKey: tasks/result: the key of the task whose result it asks for; "" when none.
	taskKey string
}

// A session is one MCP session: one stdio pair, or one Mcp-Session-Id over HTTP (with the
// credentials of the client that started it), or the clients of a server that issues no
// Mcp-Session-Id that send the same credentials.
type session struct {
	id string // Mcp-Session-Id; "" over stdio and without one
	// caller is a digest of the headers of the client that may select its tools (over
	// HTTP; "" over stdio): what the server's lists are compared with from one to the next.
	caller string

	mu       sync.Mutex
	list     *toolList // the tools as last listed; nil before
	gen      uint64    // how many times the server said its list changed
	listGen  uint64    // gen when the pages list holds were asked for: stale unless gen
	hearsAll bool      // stdio: every message of the server's passes the proxy
	streams  int       // HTTP: the client's streams open through the proxy that carry list_changed
	listing  *listing  // the proxy's own listing in flight
	tokens   float64   // pages the session may ask for now, up to pageBurst; below 1, none
	filled   time.Time // when tokens were last counted; zero: never, tokens full
	// listedUntil: the session's own last listing vouches for its list until then, when
	// no stream of its carries list_changed (see lookup).
	listedUntil   time.Time
	requests      requests               // the client's requests in flight
	waiters       map[string]chan []byte // the proxy's own requests, by id key
	closed        string                 // why the server is gone; "" while it is there
	client        string
	clientVersion string
	version       string    // the MCP protocol version negotiated, when known
	tasks         tasks     // whose results are to be checked
	unchecked     unchecked // tasks of tools whose results are not checked, under Options.Output
	// kept: the session outlives the request; false for an HTTP request's own, which
	// cannot hold a task whose result is checked later.
	kept bool
	// broken: the exchanges whose SSE streams broke with requests unanswered, for a stream
	// resumed with Last-Event-ID to answer them.
	broken brokenStreams
	// elicitations: the server's form elicitation requests the client has yet to answer.
	elicitations elicitations
}

func newSession(id string) *session {
	return &session{id: id, waiters: map[string]chan []byte{}}
}

// An exchange is where the answers to a client's requests come: over stdio, the pipes;
// over HTTP, the answer to one POST (its JSON body or SSE stream, resumed or not) or a
// GET stream. A response is correlated with a request of its session under its
// exchange's tag, never by its id alone.
type exchange struct {
	s *session
	// tag prefixes the keys of the exchange's requests in s.requests: "" where request
	// ids are one client's, unique in flight (stdio, an MCP session); the exchange's own
	// where the session's clients may share ids (a server that issues no Mcp-Session-Id).
	tag string
	// version is the protocol version the transport gives for the exchange's requests
	// (HTTP's MCP-Protocol-Version header); "" when none.
	version string
	// mirrors are the HTTP headers that mirror the request's body; nil when none.
	mirrors *mirrors
}

// key is the key of the request id in the exchange.
func (x exchange) key(id []byte) string {
	var room [48]byte
	return string(appendIDKey(append(room[:0], x.tag...), id))
}

// maxPending bounds a session's requests in flight, those of broken streams awaiting
// their resumption included: past it, a request is refused.
const maxPending = 4096

// A fetcher sends the proxy's own request req, of the id key key, to the server and
// returns the server's answer to it.
type fetcher func(key string, req []byte) ([]byte, error)

// fromClient decides what becomes of b, one line or body from the client (a message, a
// batch, or bytes that are not JSON) in the exchange x: forward is what goes on to the
// server (b itself unless a refused call is taken out of a batch), answer what the client
// gets from the proxy; either may be nil.
func (p *Proxy) fromClient(x exchange, b []byte, fetch fetcher) (forward, answer []byte) {
	m, object, valid := checkedMessage(b)
	if !valid || !utf8.Valid(b) {
		return nil, errorResponse([]byte("null"), -32700, "Parse error: the message is not JSON, so it was not sent on")
	}
	switch i := jsontext.SkipSpace(b, 0); {
	case b[i] == '[':
	case object:
		if repl := p.elicitationAnswer(x, b); repl != nil {
			return repl, nil
		}
		ans, drop := p.clientMessage(x, b, m, fetch)
		switch {
		case ans != nil:
			return nil, ans
		case drop:
			return nil, nil
		}
		return b, nil
	default:
		return nil, errorResponse([]byte("null"), -32600, "Invalid Request: the message is JSON, but not a message or a batch, so it was not sent on")
	}
	var kept, answers [][]byte
	changed := false
	elements(b, func(e []byte) {
		if repl := p.elicitationAnswer(x, e); repl != nil {
			kept, changed = append(kept, repl), true
			return
		}
		m, _ := parseMessage(e)
		ans, drop := p.clientMessage(x, e, m, fetch)
		switch {
		case ans != nil:
			answers, changed = append(answers, ans), true
		case drop:
			changed = true
		default:
			kept = append(kept, e)
		}
	})
	if !changed {
		return b, nil
	}
	return batch(kept), batch(answers)
}

// fromServer decides what becomes of b, one line or body from the server: out is what the
// client gets, b itself unless a result is withheld; nil when the proxy keeps it (an
// answer to its own request) or withholds it unread (unreadable).
func (p *Proxy) fromServer(x exchange, b []byte) (out []byte) {
	m, _, valid := checkedMessage(b)
	// Invalid UTF-8 is read as U+FFFD a byte by Go, a sequence at a time by fetch and
	// Python: a string's length, a pattern's match, differ from reader to reader.
	if !valid || p.guard.ChecksResults() && !utf8.Valid(b) {
		if p.unreadable(x.s, b) {
			return nil
		}
		return b
	}
	if i := jsontext.SkipSpace(b, 0); b[i] != '[' {
		if repl, own := p.serverMessage(x, b, m); own {
			return nil
		} else if repl != nil {
			return repl
		}
		return b
	}
	var kept [][]byte
	changed := false
	elements(b, func(e []byte) {
		m, _ := parseMessage(e)
		repl, own := p.serverMessage(x, e, m)
		switch {
		case own:
			changed = true
		case repl != nil:
			kept, changed = append(kept, repl), true
		default:
			kept = append(kept, e)
		}
	})
	if !changed {
		return b
	}
	return batch(kept)
}

// unreadable decides b, a message of the server's that is not JSON the proxy reads, which
// a client may read all the same (a NaN, which Python's pydantic takes; a line ended by a
// lone CR), or, under Options.Output, not UTF-8: one that may hide a list_changed makes
// the list stale; under Options.Output, where it may hide a result the proxy could not
// check as the client reads it, it is withheld.
func (p *Proxy) unreadable(s *session, b []byte) (withheld bool) {
	if bytes.Contains(b, []byte("list_changed")) || bytes.IndexByte(b, '\\') >= 0 {
		s.listChanged()
	}
	return p.guard.ChecksResults()
}

// batch joins messages into a JSON-RPC batch; nil when there are none.
func batch(msgs [][]byte) []byte {
	if len(msgs) == 0 {
		return nil
	}
	return append(append([]byte{'['}, bytes.Join(msgs, []byte{','})...), ']')
}

// clientMessage decides one message from the client, b, read as m (the zero message when
// b is not an object): answer is the proxy's answer when it keeps the message from the
// server; drop, a refused notification, which gets none.
func (p *Proxy) clientMessage(x exchange, b []byte, m message, fetch fetcher) (answer []byte, drop bool) {
	s := x.s
	if !m.isRequest() && !m.ambiguous {
		return nil, false // a response to the server's request, or not JSON-RPC
	}
	if m.id != nil && !readableID(m.id) {
		return invalidRequest(m.id, unreadableID), false
	}
	var key string // the request's in the session's table
	if m.id != nil {
		if len(m.id) > maxIDLen || len(m.method) > maxIDLen {
			if gone := s.gone(); gone != "" {
				return serverGone(m.id, gone), false
			}
			id := m.id
			if len(id) > maxIDLen {
				id = nil
			}
			return invalidRequest(id, "the request's id or method is longer than "+strconv.Itoa(maxIDLen)+" bytes, more than the proxy holds for a request in flight"), false
		}
		key = x.key(m.id)
		switch gone, inFlight := s.admits(key); {
		case gone != "":
			return serverGone(m.id, gone), false
		case inFlight:
			return invalidRequest(m.id, idInFlight), false
		}
	}
	if why := x.mirrors.request(&m); why != "" {
		return x.mirrors.refuse(m.id, why), false
	}
	if scope, ok := inputScope(&m); ok {
		if ambiguousIn(m.params, "inputResponses", "requestState", "taskId") {
			return invalidRequest(m.id, "params give the input's answers, their request's state or their task twice or in two cases, so the server might read other answers than the ones checked"), false
		}
		if why := p.inputAnswers(s, scope, member(m.params, "inputResponses")); why != "" {
			if m.id == nil {
				return nil, true
			}
			return errorResponse(m.id, -32602, why), false
		}
	}
	if m.names("tools/call") {
		return p.clientCall(x, &m, key, fetch)
	}
	if m.ambiguous && (m.names("tools/list") || ambiguousIn(b, "id")) || m.method == "tools/list" && ambiguousIn(m.params, "cursor") {
		if m.id == nil {
			return nil, true
		}
		return invalidRequest(m.id, "the id, the method or the cursor of the request appears twice or in two cases, so the proxy could not tell what the server answers"), false
	}
	if m.id == nil {
		if m.method == "notifications/cancelled" {
			// The server need not answer a cancelled request: forget it.
			if id := member(m.params, "requestId"); id != nil {
				s.answered(x.key(id))
			}
		}
		return nil, false
	}
	q := &pending{id: bytes.Clone(m.id), method: m.method}
	switch m.method {
	case "tools/list":
		members(m.params, func(name string, _ []byte) { // Go's servers read "Cursor" as it
			q.cursor = q.cursor || strings.EqualFold(name, "cursor")
		})
		s.mu.Lock()
		q.gen = s.gen
		s.mu.Unlock()
	case "initialize":
		s.initialized(member(m.params, "clientInfo"))
	case "tasks/result":
		id, twice := memberFold(m.params, "taskId") // as Go's servers read it
		if twice {
			return invalidRequest(m.id, "params names the task twice, or in two cases, so the server might fetch another task's result than the one checked"), false
		}
		q.taskKey = taskKey(id)
		q.modern = p.guard.ChecksResults() && s.modern(member(m.params, "_meta"), x.version)
	}
	switch err := s.track(key, q); err {
	case errGone:
		return serverGone(m.id, s.gone()), false
	case errInFlight:
		return invalidRequest(m.id, idInFlight), false
	case errBusy:
		return errorResponse(m.id, -32603, busy), false
	}
	return nil, false
}

// clientCall decides a tools/call, of the key key when it is a request.
func (p *Proxy) clientCall(x exchange, m *message, key string, fetch fetcher) (answer []byte, drop bool) {
	s := x.s
	refuse := func(ans []byte) ([]byte, bool) {
		if m.id == nil {
			return nil, true
		}
		return ans, false
	}
	if m.ambiguous {
		return refuse(invalidRequest(m.id, "a member of the message appears twice or in two cases, so the server might read another call than the one checked"))
	}
	c, ok := paramsOf(m)
	if c.ambiguous {
		return refuse(invalidRequest(m.id, "params names the tool, its arguments or its task twice, in two cases, or the tool not as a string"))
	}
	if i := jsontext.SkipSpace(m.params, 0); !ok && m.params != nil && (i == len(m.params) || m.params[i] != '{') {
		return nil, false // params that are not an object: the server refuses them
	}
	// A call that names no tool, or has no params, is one of the tool "" to Go's servers
	// (mcp-go, go-sdk), which run a tool registered so: refused as a tool not listed.
	o := p.begin(s, m.id, &c)
	t, listErr := p.lookup(s, c.name, c.meta, fetch)
	if t == nil && listErr != nil {
		o.refused()
		if why := s.gone(); why != "" {
			return refuse(serverGone(m.id, why))
		}
		return refuse(p.refusal(m.id, unlisted(c.name, listErr), nil, s.replyTo(&c, x.version)))
	}
	if why := x.mirrors.arguments(t, c.arguments); why != "" {
		o.refused()
		return x.mirrors.refuse(m.id, why), false
	}
	if ans := p.checkCall(s, o, t, &c, m.id, x.version); ans != nil {
		o.refused()
		return refuse(ans)
	}
	if m.id == nil {
		return nil, false
	}
	q := &pending{id: bytes.Clone(m.id), method: "tools/call", name: c.name, tool: t, task: c.task != nil, obs: o}
	if p.checksResults(t) {
		q.modern = s.modern(c.meta, x.version)
	}
	switch tracked := s.trackCall(key, q, q.task && p.checksResults(t)); tracked {
	case nil:
	case errGone:
		o.refused()
		return serverGone(m.id, s.gone()), false
	case errInFlight:
		o.refused()
		return invalidRequest(m.id, idInFlight), false
	case errBusy:
		o.refused()
		return errorResponse(m.id, -32603, busy), false
	case errNotKept:
		o.refused()
		return p.refusal(m.id, notKept, nil, s.replyTo(&c, x.version)), false
	default:
		o.refused()
		return p.refusal(m.id, tooManyTasks, nil, s.replyTo(&c, x.version)), false
	}
	return nil, false
}

// serverMessage decides one message from the server, b, read as m (the zero message when
// b is not an object): repl replaces it; own, an answer to the proxy's own request, goes
// no further.
func (p *Proxy) serverMessage(x exchange, b []byte, m message) (repl []byte, own bool) {
	s := x.s
	if m.names("notifications/tools/list_changed") { // in any case a client may read
		s.listChanged()
	}
	if m.isRequest() {
		switch {
		case m.method == "notifications/tasks/status":
			s.taskStatus(m.params)
		case m.method == "notifications/tasks": // the tasks extension: a task's full state
			if detail := p.taskDetail(s, m.params, true); detail != nil {
				return append(append([]byte(`{"jsonrpc":"2.0","method":"notifications/tasks","params":`), detail...), '}'), false
			}
		case m.method == "elicitation/create" && m.id != nil:
			p.elicited(s, m.id, m.params)
		case m.method == "notifications/cancelled":
			if id := member(m.params, "requestId"); id != nil {
				s.mu.Lock()
				s.elicitations.forget(idKey(id))
				s.mu.Unlock()
			}
		}
		return nil, false
	}
	// Under Options.Output, a response the proxy cannot tie to one request, while a
	// result it checks is awaited, goes no further: a client may match it to that call
	// (reading 2.0 or "2" as 2, "Result" as result); one the client may read otherwise
	// (a member twice or in two cases) is withheld.
	if m.id == nil {
		return nil, m.ambiguous && p.awaitsCheck(s)
	}
	var room [64]byte
	tagged := appendIDKey(append(room[:0], x.tag...), m.id) // the key, made without an allocation
	if key := tagged[len(x.tag):]; p.ownKey(string(key)) {
		s.deliver(string(key), b)
		return nil, true
	}
	q := s.taken(tagged)
	if q == nil && (m.result != nil || m.ambiguous) && p.guard.ChecksResults() {
		return errorResponse(m.id, -32603, unmatched), false
	}
	if q == nil && p.awaitsCheck(s) {
		return nil, true
	}
	if q != nil && m.ambiguous && p.guard.ChecksResults() {
		s.freeSlot(q)
		q.obs.answered(nil, false)
		return errorResponse(q.id, -32603, "mcpvalidate proxy: the server's answer names a member twice or in two cases, so the client might read another answer than the one checked; it was withheld"), false
	}
	if q == nil || m.result == nil {
		if q != nil {
			s.freeSlot(q)
			q.obs.answered(nil, false)
		}
		return nil, false
	}
	switch q.method {
	case "initialize":
		s.negotiated(protocolVersion(m.result))
		p.named(member(m.result, "serverInfo"))
	case "tools/list":
		s.learn(p, m.result, !q.cursor, q.gen)
		p.named(member(member(m.result, "_meta"), "io.modelcontextprotocol/serverInfo"))
		if p.opts.SchemasFor != "" {
			return p.servedList(m.id, m.result), false
		}
	case "tools/call":
		var task []byte // read only for a task-augmented call: others' results are checked as they are
		if q.task {
			task = member(m.result, "task")
		}
		kind := resultKind(m.result)
		switch {
		case task != nil:
			s.taskMade(q, task, p.guard.ChecksResults())
		case kind == "task" && !q.task: // the tasks extension: a task the server chose to make
			s.taskChosen(q, m.result, p.checksResults(q.tool), p.guard.ChecksResults())
		case kind == "input_required":
			s.freeSlot(q)
			p.inputRequested(s, "s"+taskKey(member(m.result, "requestState")), member(m.result, "inputRequests"))
		default:
			s.freeSlot(q)
		}
		if task == nil || callResult(m.result) {
			repl = p.checkResult(s, q.tool, q.name, q.obs, m.id, m.result, q.modern)
		}
		q.obs.answered(m.result, repl != nil)
		return repl, false
	case "tasks/result":
		return p.taskResult(s, q, m.id, m.result), false
	case "tasks/get":
		if detail := p.taskDetail(s, m.result, true); detail != nil {
			return append(append(append(responseHead(m.id), `"result":`...), detail...), '}'), false
		}
	case "tasks/cancel":
		s.taskStatus(m.result)
	}
	return nil, false
}

// awaitsCheck reports whether a result the proxy checks is awaited in s.
func (p *Proxy) awaitsCheck(s *session) bool {
	if !p.guard.ChecksResults() {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for q := range s.requests.all() {
		if q.taskKey != "" || q.method == "tools/call" && p.checksResults(q.tool) {
			return true
		}
	}
	return false
}

// lookup returns the tool name as the server lists it, asking the server for its list
// first when the proxy cannot vouch that the list it has is the server's: it has not
// seen the tool listed since the list last changed, or it could not have heard of a
// change (over HTTP, while no stream of the session that carries list_changed is open)
// and its own last listing is older than its pages at pageRate (1/64 s a page): so a
// session without a stream, calling often, meets a list at most that old, and its
// listings never outrun pageRate.
// nil when the server does not list it. err says why the list could not be fetched: a
// call the proxy cannot check is not passed on, nor checked against a list that may be
// stale.
func (p *Proxy) lookup(s *session, name string, meta []byte, fetch fetcher) (t *tool, err error) {
	s.mu.Lock()
	tools, complete := s.list.get()
	fresh := s.listGen == s.gen && (s.hearsAll || s.streams > 0 || p.now().Before(s.listedUntil))
	s.mu.Unlock()
	if fetch == nil || fresh && tools != nil && (tools[name] != nil || complete) {
		return tools[name], nil
	}
	fetched, err := p.refetch(s, meta, fetch)
	if err == nil {
		return fetched[name], nil
	}
	if p.log != nil {
		p.log.Warn("mcpvalidate proxy: the server's tool list could not be fetched", "session", s.id, "error", err)
	}
	return nil, err
}

// unlisted is the text that refuses a call of the tool name, which the proxy could not
// look up in the server's list because fetching it failed with err.
func unlisted(name string, err error) string {
	return "The call of tool " + shownName(name) + " could not be checked: the mcpvalidate proxy could not fetch the server's tool list (" +
		err.Error() + "). Call tools/list, then call again."
}

// A listing is the proxy's own listing of a session's tools, which the calls that
// need it while it is in flight share.
type listing struct {
	done  chan struct{}
	tools map[string]*tool
	err   error
}

// A session's own listings ask for at most pageBurst pages in a row, and pageRate a
// second over time: a listing starts while the session has a page left, and the pages it
// took beyond are waited off before the next.
const (
	pageBurst = 256
	pageRate  = 64
)

var errListedTooOften = errors.New("the session's own listings asked for " + strconv.Itoa(pageBurst) +
	" pages in a row already; the proxy asks for at most " + strconv.Itoa(pageRate) + " a second")

// refetch lists the session's tools anew, or waits for the listing in flight, within the
// session's pages.
func (p *Proxy) refetch(s *session, meta []byte, fetch fetcher) (map[string]*tool, error) {
	s.mu.Lock()
	if l := s.listing; l != nil {
		s.mu.Unlock()
		<-l.done
		return l.tools, l.err
	}
	if !s.mayList(p.now()) {
		s.mu.Unlock()
		return nil, errListedTooOften
	}
	l := &listing{done: make(chan struct{})}
	s.listing = l
	s.mu.Unlock()
	var pages int
	l.tools, pages, l.err = p.listAll(s, meta, fetch)
	s.mu.Lock()
	s.listing = nil
	s.tokens -= float64(pages)
	if l.err == nil {
		s.listedUntil = p.now().Add(time.Duration(pages) * time.Second / pageRate)
	}
	s.mu.Unlock()
	close(l.done)
	return l.tools, l.err
}

// mayList counts the session's pages as of now, and reports whether one is left; s.mu
// is held.
func (s *session) mayList(now time.Time) bool {
	if s.filled.IsZero() {
		s.tokens = pageBurst
	} else if d := now.Sub(s.filled); d > 0 {
		s.tokens = min(pageBurst, s.tokens+d.Seconds()*pageRate)
	}
	s.filled = now
	return s.tokens >= 1
}

// listAll asks the server for every page of its tool list and makes it the session's;
// pages is how many it asked for. When the server says its list changed meanwhile, the
// pages may be of two lists: it lists them all again, maxListings times at most.
func (p *Proxy) listAll(s *session, meta []byte, fetch fetcher) (tools map[string]*tool, pages int, err error) {
	meta = withoutProgressToken(meta)
	for listings := 1; ; listings++ {
		s.mu.Lock()
		gen := s.gen
		s.mu.Unlock()
		tools, n, err := p.listPages(meta, fetch)
		pages += n
		if err != nil {
			return nil, pages, err
		}
		s.mu.Lock()
		if s.gen != gen { // its pages may be of two lists: none is learned
			s.mu.Unlock()
			if listings == maxListings {
				return nil, pages, errors.New("the server's tool list changed while the proxy listed it, " + strconv.Itoa(maxListings) + " times in a row")
			}
			continue
		}
		s.list, s.listGen = p.lists.take(tools, true, s.list), gen
		s.mu.Unlock()
		p.learned(s.caller, tools)
		return tools, pages, nil
	}
}

// maxListings bounds the listings in a row the proxy makes for a call while the server
// says its list changed during each.
const maxListings = 3

// listPages asks the server for every page of its tool list; pages is how many it asked
// for.
func (p *Proxy) listPages(meta []byte, fetch fetcher) (tools map[string]*tool, pages int, err error) {
	tools = map[string]*tool{}
	cursor := []byte(nil)
	for ; ; pages++ {
		if pages == maxPages {
			return nil, pages, errors.New("the server's tool list has more than " + strconv.Itoa(maxPages) + " pages")
		}
		key, req := p.ownRequest(cursor, meta)
		resp, err := fetch(key, req)
		if err != nil {
			return nil, pages + 1, err
		}
		m, _ := parseMessage(resp)
		if m.result == nil {
			return nil, pages + 1, errors.New("the server answered tools/list with " + string(clip(m.err)))
		}
		if !listsTools(m.result) {
			return nil, pages + 1, errors.New("the server answered tools/list without a tools array")
		}
		next := addTools(tools, m.result)
		if next == nil {
			break
		}
		if bytes.Equal(next, cursor) {
			return nil, pages + 1, errors.New("the server's tool list gives the same cursor twice")
		}
		cursor = next
	}
	return tools, pages + 1, nil
}

// maxPages bounds the pages of one tool list the proxy reads.
const maxPages = 10000

// ownRequest makes the proxy's own tools/list request for the page after cursor (nil: the
// first), with the _meta of the call that made it ask.
func (p *Proxy) ownRequest(cursor, meta []byte) (key string, req []byte) {
	n := p.ids.Add(1)
	id := p.idPrefix + strconv.FormatUint(n, 10)
	req = append([]byte(`{"jsonrpc":"2.0","id":"`), id...)
	req = append(req, `","method":"tools/list"`...)
	if cursor != nil || meta != nil {
		req = append(req, `,"params":{`...)
		if cursor != nil {
			req = append(append(req, `"cursor":`...), cursor...)
		}
		if meta != nil {
			if cursor != nil {
				req = append(req, ',')
			}
			req = append(append(req, `"_meta":`...), meta...)
		}
		req = append(req, '}')
	}
	return `"` + id, append(req, '}')
}

// ownKey reports whether an id key is of the proxy's own requests.
func (p *Proxy) ownKey(key string) bool {
	return len(key) > len(p.idPrefix) && key[0] == '"' && key[1:1+len(p.idPrefix)] == p.idPrefix
}

// withoutProgressToken returns the object meta without its progressToken (the server
// would report the proxy's request's progress to the client under the call's token).
func withoutProgressToken(meta []byte) []byte {
	if meta == nil || member(meta, "progressToken") == nil {
		return meta
	}
	var kept [][]byte
	members(meta, func(name string, v []byte) {
		if name != "progressToken" {
			kept = append(kept, append(append(appendString(nil, name), ':'), v...))
		}
	})
	return append(append([]byte{'{'}, bytes.Join(kept, []byte{','})...), '}')
}

// addTools adds the tools of one tools/list result to tools and returns its nextCursor
// (the raw JSON value), or nil on the last page. A tool that tools holds already with
// other schemas, from this page or another, is listed twice: it fails closed.
func addTools(tools map[string]*tool, result []byte) (next []byte) {
	members(result, func(name string, v []byte) {
		switch name {
		case "nextCursor":
			if string(v) != "null" {
				next = bytes.Clone(v)
			}
		case "tools":
			elements(v, func(e []byte) {
				var name string
				var in, out []byte
				named := members(e, func(k string, v []byte) {
					switch k {
					case "name":
						name, _ = stringValue(v)
					case "inputSchema":
						in = v
					case "outputSchema":
						out = v
					}
				})
				if !named || name == "" {
					return
				}
				if ambiguousIn(e, "name", "inputSchema", "outputSchema") {
					// Clients that bind members in any case read the last of them, the
					// proxy the one spelled as MCP spells it: every name it may go by fails closed.
					members(e, func(k string, v []byte) {
						if n, ok := stringValue(v); ok && strings.EqualFold(k, "name") && n != "" {
							tools[n] = &tool{in: newSchema(nil, errSpelledTwice)}
						}
					})
					return
				}
				t := &tool{in: newSchema(in, nil)}
				if in == nil {
					t.in = newSchema(nil, errNoInputSchema)
				}
				if out != nil && string(out) != "null" {
					t.out = newSchema(out, nil)
				}
				if old := tools[name]; old != nil && !old.same(t) {
					t = &tool{in: newSchema(nil, errListedTwice)}
				}
				tools[name] = t
			})
		}
	})
	return next
}

var (
	errNoInputSchema = errors.New("the server lists the tool without an inputSchema")
	errListedTwice   = errors.New("the server lists the tool twice, with different schemas")
	errSpelledTwice  = errors.New("the server lists the tool with its name or a schema given twice, or in two cases, which clients read otherwise than the proxy")
)

// learn takes a tools/list result the client asked for at the list's generation gen. A
// page of the whole list the session holds, unchanged, leaves it whole; else a first page
// starts the session's list anew, and a later page adds to the list of the pages before
// it when they were asked for at the same generation, else starts it anew too: pages
// from before and after the server said its list changed are never one list. The list is
// fresh once its pages were all asked for since the last change.
func (s *session) learn(p *Proxy, result []byte, first bool, gen uint64) {
	if !listsTools(result) {
		return // not a list of tools: nothing is learned from it
	}
	page := map[string]*tool{}
	next := addTools(page, result)
	if whole := first && next == nil; whole {
		defer p.learned(s.caller, page) // once s.mu is let go
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	tools, complete := s.list.get()
	switch {
	case complete && s.listGen == s.gen && contains(tools, page):
		return
	case first || complete || tools == nil || s.listGen != gen: // no earlier page of the same list to add it to
		s.list, s.listGen = p.lists.take(page, first && next == nil, s.list), gen
		return
	}
	merged := make(map[string]*tool, len(tools)+len(page))
	for name, t := range tools {
		merged[name] = t
	}
	for name, t := range page {
		if old := merged[name]; old != nil && !old.same(t) {
			t = &tool{in: newSchema(nil, errListedTwice)}
		}
		merged[name] = t
	}
	s.list = p.lists.take(merged, false, s.list)
}

// contains reports whether every tool of page is in tools, the same.
func contains(tools, page map[string]*tool) bool {
	for name, t := range page {
		if u := tools[name]; u == nil || !u.same(t) {
			return false
		}
	}
	return true
}

// listsTools reports whether a tools/list result has the shape of one: a tools array.
func listsTools(result []byte) bool {
	v := member(result, "tools")
	return len(v) > 0 && v[0] == '['
}

func (s *session) listChanged() {
	s.mu.Lock()
	s.gen++
	s.mu.Unlock()
}

// listen counts a stream of the client's open through the proxy over HTTP that carries
// the server's list_changed: a GET stream, or a subscriptions/listen stream. A change
// the server announced while none was open is not known: the list is stale when the
// first opens.
func (s *session) listen() {
	s.mu.Lock()
	if s.streams++; s.streams == 1 {
		s.gen++
	}
	s.mu.Unlock()
}

func (s *session) unlisten() {
	s.mu.Lock()
	s.streams--
	s.mu.Unlock()
}

// acknowledgesListChanged reports whether data is a server's acknowledgement of a
// subscriptions/listen stream (from 2026-07-28) that carries its list_changed.
func acknowledgesListChanged(data []byte) bool {
	if !jsontext.Valid(data) {
		return false
	}
	m, ok := parseMessage(data)
	return ok && m.method == "notifications/subscriptions/acknowledged" &&
		isTrue(member(member(m.params, "notifications"), "toolsListChanged"))
}

func (s *session) initialized(info []byte) {
	name, _ := stringValue(member(info, "name"))
	version, _ := stringValue(member(info, "version"))
	s.mu.Lock()
	s.client, s.clientVersion = name, version
	s.mu.Unlock()
}

// track records a request on its way to the server under key, as trackCall does.
func (s *session) track(key string, q *pending) error { return s.trackCall(key, q, false) }

// The reasons trackCall does not track a request.
var (
	errGone     = errors.New("the server is gone")
	errNoSlot   = errors.New("no task slot is left")
	errInFlight = errors.New("a request of the same id is in flight")
	errBusy     = errors.New("too many requests are in flight")
	errNotKept  = errors.New("the session is not kept")
)

// The texts of the refusals of requests trackCall does not track.
var (
	unmatched    = "mcpvalidate proxy: the server's result answers no request of this exchange in flight (it was answered already, or asked elsewhere), so it could not be checked, and was withheld"
	unreadableID = "the id is not a string, nor an integer below 2^53, so the server might answer it under another id; the mcpvalidate proxy sends on only requests whose ids every server reads alike"
	idInFlight   = "a request of the same id is in flight in this MCP session; the mcpvalidate proxy sends on a request only under an id not in flight"
	busy         = "mcpvalidate proxy: " + strconv.Itoa(maxPending) + " requests of this MCP session are in flight; the request was not sent on"
	notKept      = "The mcpvalidate proxy keeps no state for this MCP session (the upstream server did not start it through the proxy, or the proxy holds as many sessions as it can), " +
		"so it could not check the result of this task. Call the tool without a task, or start a new MCP session."
)

// trackCall records a request on its way to the server under key, with a task slot when
// it takes one; errGone when the server is gone, errInFlight when a request of the key is
// in flight, errBusy past maxPending, errNotKept for a task slot in a session not kept,
// errNoSlot when no task slot is left.
func (s *session) trackCall(key string, q *pending, slot bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.closed != "":
		return errGone
	case find(&s.requests, key) != nil:
		return errInFlight
	case s.requests.len() >= maxPending:
		return errBusy
	case slot && !s.kept:
		return errNotKept
	case slot && !s.tasks.reserve(q):
		return errNoSlot
	}
	q.setKey(key)
	s.requests.put(q)
	return nil
}

// inFlight reports whether a request of key is in flight.
func (s *session) inFlight(key string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return find(&s.requests, key) != nil
}

// admits tells, at once, why the server is gone ("" while it is there) and whether a
// request of key is in flight: what a client's request is first asked.
func (s *session) admits(key string) (gone string, inFlight bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closed, find(&s.requests, key) != nil
}

// anyPending reports whether any request is in flight.
func (s *session) anyPending() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.requests.len() > 0
}

// release lets the session go when it is idle (nothing in flight, and no task whose
// result awaits its check): it is kept no more, so that a request that holds it still
// makes no task in it; false when it is not idle.
func (s *session) release() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.requests.len() > 0 || len(s.waiters) > 0 || s.tasks.undelivered+s.tasks.calls > 0 {
		return false
	}
	s.kept = false
	return true
}

// answered removes the request the server answered under key, or that needs no answer
// now, frees its task slot, and returns it.
func (s *session) answered(key string) *pending {
	s.mu.Lock()
	defer s.mu.Unlock()
	q := take(&s.requests, key)
	s.tasks.free(q)
	return q
}

// taken removes the request the server answered under key and returns it, with its
// task slot, if any, for the answer to take or free.
func (s *session) taken(key []byte) *pending {
	s.mu.Lock()
	defer s.mu.Unlock()
	return take(&s.requests, key)
}

// freeSlot frees q's task slot, if it holds one; q is the caller's alone (taken).
func (s *session) freeSlot(q *pending) {
	if q == nil || !q.slot {
		return // as most calls: no lock to take
	}
	s.mu.Lock()
	s.tasks.free(q)
	s.mu.Unlock()
}

// await registers a waiter for the answer to the proxy's own request key; nil when the
// server is gone.
func (s *session) await(key string) chan []byte {
	c := make(chan []byte, 1)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed != "" {
		return nil
	}
	s.waiters[key] = c
	return c
}

func (s *session) deliver(key string, b []byte) {
	s.mu.Lock()
	c := s.waiters[key]
	delete(s.waiters, key)
	s.mu.Unlock()
	if c != nil {
		c <- bytes.Clone(b)
	}
}

func (s *session) gone() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closed
}

// close marks the server gone for why, and returns the answers to the client requests
// still in flight, in no particular order.
func (s *session) close(why string) [][]byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed == "" {
		s.closed = why
	}
	var answers [][]byte
	for q := range s.requests.all() {
		answers = append(answers, serverGone(q.id, s.closed))
		q.obs.refused()
		s.tasks.free(q)
	}
	s.requests = requests{}
	for key, c := range s.waiters {
		close(c)
		delete(s.waiters, key)
	}
	return answers
}

// responseHead is the start of a response to id, up to its result or error.
func responseHead(id []byte) []byte {
	b := make([]byte, 0, 128)
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = append(b, id...)
	return append(b, ',')
}

func errorResponse(id []byte, code int, msg string) []byte {
	b := append(responseHead(id), `"error":{"code":`...)
	b = strconv.AppendInt(b, int64(code), 10)
	b = append(b, `,"message":`...)
	b = appendString(b, msg)
	return append(b, "}}"...)
}

func serverGone(id []byte, why string) []byte {
	return errorResponse(id, -32603, "mcpvalidate proxy: "+why+"; the request was not answered")
}

func invalidRequest(id []byte, why string) []byte {
	if id == nil {
		id = []byte("null")
	}
	return errorResponse(id, -32600, "Invalid request: "+why)
}

// appendString appends s as a JSON string.
func appendString(b []byte, s string) []byte {
	q, _ := json.Marshal(s)
	return append(b, q...)
}

// clip returns at most the first 200 bytes of b, for messages.
func clip(b []byte) []byte {
	if len(b) > 200 {
		return b[:200]
	}
	return b
}

// isKept reports whether the session outlives the request.
func (s *session) isKept() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.kept
}

// brokenStreams are the exchanges whose SSE streams broke with requests unanswered, by
// the id of the last event relayed (eventKey), oldest first. Few clients resume a POST's
// stream, and one that goes away mid-stream leaves it broken too: past maxBroken, or
// once the requests in flight fill half the session's room, the oldest is given up, and
// its requests forgotten, as a stream that will not be resumed; the session's room is
// never taken by them.
type brokenStreams struct {
	tags  map[string]string // the exchange's tag, by the key of its last event id
	order []string          // tags' keys, oldest first
}

// maxBroken bounds the broken streams a session keeps for their resumption.
const maxBroken = 64

// maxEventKey bounds, in bytes, the event ids a session keeps as they are: a longer one
// is kept as a digest.
const maxEventKey = 64

// eventKey is the key of the event id last among a session's broken streams.
func eventKey(last string) string {
	if len(last) <= maxEventKey {
		return last
	}
	sum := sha256.Sum256([]byte(last))
	return "\x00" + string(sum[:]) // no client sends a NUL in Last-Event-ID: no short id is keyed so
}

// broke records that the SSE stream of the exchange tag ended with requests unanswered,
// after the event last: a stream resumed from it answers them.
func (s *session) broke(last, tag string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	b := &s.broken
	if b.tags == nil {
		b.tags = map[string]string{}
	}
	key := eventKey(last)
	if _, ok := b.tags[key]; !ok {
		b.order = append(b.order, key)
	}
	b.tags[key] = tag
	for len(b.tags) > maxBroken || len(b.tags) > 1 && s.requests.len() > maxPending/2 {
		oldest := b.order[0]
		b.order = b.order[1:]
		s.forgetUnder(b.tags[oldest])
		delete(b.tags, oldest)
	}
}

// forgetUnder forgets the requests of the exchange tag. s.mu is held.
func (s *session) forgetUnder(tag string) {
	var keys []string
	for q := range s.requests.all() {
		if strings.HasPrefix(q.key, tag) {
			keys = append(keys, q.key)
		}
	}
	for _, k := range keys {
		s.tasks.free(take(&s.requests, k))
	}
}

// resumed returns the tag of the exchange whose stream a stream resumed from the event
// last resumes.
func (s *session) resumed(last string) (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	b := &s.broken
	key := eventKey(last)
	tag, ok := b.tags[key]
	if ok {
		delete(b.tags, key)
		b.order = slices.DeleteFunc(b.order, func(k string) bool { return k == key })
	}
	return tag, ok
}

// pendingUnder reports whether requests of the exchange tag are in flight.
func (s *session) pendingUnder(tag string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for q := range s.requests.all() {
		if strings.HasPrefix(q.key, tag) {
			return true
		}
	}
	return false
}
