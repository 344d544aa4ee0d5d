package proxy

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpvalidate/mcpvalidate/guard/internal/jsontext"
)

// This file is the streamable HTTP front: an http.Handler that passes each request to the
// upstream server's endpoint, with its headers, and each answer back, JSON or an SSE
// stream event by event, checking tools/call requests on the way.

// Handler returns an http.Handler that fronts the streamable HTTP MCP server at upstream
// (its endpoint's URL, such as http://127.0.0.1:8080/mcp), wherever it is mounted. POST,
// GET and DELETE pass with their headers (Authorization, Mcp-Session-Id,
// MCP-Protocol-Version, Last-Event-ID and the rest, but the hop-by-hop ones), a POST
// with its body (a GET's or a DELETE's is not passed on);
// answers come back with the upstream's status and headers, JSON bodies whole and SSE
// streams event by event, each event's bytes unchanged unless the proxy withholds a
// result in it (but for a line ended by a lone CR, which gets an LF after it, and a BOM
// opening the stream, dropped: the proxy reads events as clients do). A POST whose only message is a refused call is answered by the proxy
// (200, application/json) and never reaches the upstream. Tools are kept per MCP session
// the upstream started (the Mcp-Session-Id of its answer to an initialize) and the
// credentials of its client, for as long as the upstream keeps it (until a DELETE, or a
// 404 for its id), or, for a server that issues no Mcp-Session-Id, per credentials; a
// request under another id makes no state, and its call is checked against a list
// fetched for it. Answers are correlated with the exchange they come in (a POST's
// answer, or a stream resumed with Last-Event-ID), never by id alone. The proxy reads
// every answer as it checks it: it does not pass the client's Accept-Encoding on
// (net/http's Transport, when it carries the requests, asks for gzip and decodes it), and
// an answer encoded otherwise fails (a JSON-RPC error for each request, else 502 Bad
// Gateway); a POST whose body is encoded (a Content-Encoding other than identity) is
// answered 415 Unsupported Media Type, unread.
// A request is served only when its Host names the proxy (a loopback name on a loopback
// connection, or one of Options.AllowHosts) and its Origin, if any, is allowed likewise
// (Options.AllowOrigins), or it gets 403 Forbidden; a method other than POST, GET or
// DELETE gets 405 Method Not Allowed, and one that gives Mcp-Session-Id,
// MCP-Protocol-Version or Last-Event-ID twice, or named with '_' for '-', 400 Bad
// Request. None reaches the upstream.
func (p *Proxy) Handler(upstream string) (http.Handler, error) {
	u, err := url.Parse(upstream)
	if err != nil {
		return nil, fmt.Errorf("proxy: upstream: %w", err)
	}
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return nil, fmt.Errorf("proxy: upstream %q is not an http or https URL", upstream)
	}
	a, err := newAccess(&p.opts)
	if err != nil {
		return nil, err
	}
	transport := p.opts.Transport
	if transport == nil {
		transport = defaultTransport(u)
	}
	f := &front{p: p, upstream: u, auth: basicAuth(u.User), access: a, transport: transport, client: &http.Client{
		Transport:     transport,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}}
	f.writer = writerOf(transport, u)
	return f, nil
}

// writerOf returns transport when it is an upstream that writes clients' requests to u
// itself; nil otherwise.
func writerOf(transport http.RoundTripper, u *url.URL) *upstream {
	if up, ok := transport.(*upstream); ok && plainHost(u.Host) {
		return up
	}
	return nil
}

// defaultTransport returns what carries requests to the upstream u when Options.Transport
// is nil: an upstream for plain HTTP reached directly, else a clone of
// http.DefaultTransport (TLS, or a proxy from the environment) that keeps a connection
// for each client's, under no bound over all hosts below it (net/http's default 100
// fails answers without a body, a 202 or a DELETE's, once more than 100 requests are in
// flight).
func defaultTransport(u *url.URL) http.RoundTripper {
	if via, err := http.ProxyFromEnvironment(&http.Request{URL: u}); u.Scheme == "http" && via == nil && err == nil {
		return &upstream{addr: hostPort(u), dialer: net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}}
	}
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConnsPerHost, t.MaxIdleConns = maxIdleConns, 0
	return t
}

type front struct {
	p         *Proxy
	upstream  *url.URL
	auth      string            // the Authorization of the upstream URL's user, or ""
	client    *http.Client      // for the proxy's own requests
	transport http.RoundTripper // the client's, for those of clients, sent on as they come
	writer    *upstream         // the transport, when it writes clients' requests from their own headers
	access    access
	tags      atomic.Uint64 // numbers the exchanges of sessions whose clients may share ids

	// sessions are by sessionKey: those the upstream started in its answer to an
	// initialize, and those of a server that issues none. Every request reads it; mu
	// orders its changes and count, the sessions in it.
	sessions sync.Map
	mu       sync.Mutex
	count    int
}

const sessionHeader = "Mcp-Session-Id"

// heard is what the front reads of a request's headers, in one pass over them.
type heard struct {
	id, version, lastEventID string   // Mcp-Session-Id, MCP-Protocol-Version, Last-Event-ID
	connection               []string // the values of Connection
	encoded                  bool     // Content-Encoding is given
	credentials              bool     // a header may carry a credential (credential)
	decides                  bool     // a header may be one the proxy decides on (mayDecide)
	mirrors                  bool     // a header mirrors the body (mirrorHeader)
	twoWays                  string   // a header the proxy decides on that servers may read otherwise; "" when none
}

// hear reads the headers h of a request.
func hear(h http.Header) (hd heard) {
	for name, vs := range h {
		switch name {
		case "Accept", "Content-Type", "Content-Length", "Accept-Encoding", "User-Agent", "Traceparent", "Tracestate":
			continue // those of most requests, none of the others: told at one comparison
		case "Connection":
			hd.connection = vs
			continue
		case "Content-Encoding":
			hd.encoded = true
			continue
		case sessionHeader, "Mcp-Protocol-Version": // of most requests: no credential, decided on, spelled as read
			hd.decides = true
			if hd.twoWays == "" && len(vs) > 1 {
				hd.twoWays = name
			}
			switch {
			case len(vs) == 0:
			case name == sessionHeader:
				hd.id = vs[0]
			default:
				hd.version = vs[0]
			}
			continue
		}
		hd.credentials = hd.credentials || credential(name)
		if !mayDecide(name) {
			continue
		}
		hd.decides = true
		if len(vs) > 0 {
			switch name {
			case sessionHeader:
				hd.id = vs[0]
			case "Mcp-Protocol-Version":
				hd.version = vs[0]
			case "Last-Event-Id":
				hd.lastEventID = vs[0]
			}
		}
		hd.mirrors = hd.mirrors || mirrorHeader(name)
		if hd.twoWays == "" && twoWays(name, vs) {
			hd.twoWays = name
		}
	}
	return hd
}

// coding returns encoded(h), h being the headers hd was heard from.
func (hd *heard) coding(h http.Header) string {
	if !hd.encoded {
		return "" // as most requests: no lookup
	}
	return encoded(h)
}

// sessionKey is the key of the session of r, whose headers are hd and whose query sent on
// is q: its Mcp-Session-Id and a digest of its credentials; without one, a digest of every
// header of r that may tell who the caller is or what it may see, and q (a server that
// issues no session ids may serve other tools for another X-MCP-Toolsets, or another
// ?toolset=, as for other credentials): clients of such a server share what the proxy
// learns only when they send the same.
func sessionKey(r *http.Request, hd *heard, q string) string {
	switch {
	case hd.id != "" && !hd.credentials:
		return hd.id // as idKeyed keys it
	case hd.id != "":
		return idKeyed(hd.id, r.Header)
	case q != "":
		return "\x00" + digest(r.Header, lasting) + "\x00?" + q
	}
	return "\x00" + digest(r.Header, lasting)
}

// query is the query of r that goes on to the upstream, and that the proxy's own requests
// for r's session send too: the client's, unless the upstream URL has one of its own,
// which the client does not replace.
func (f *front) query(r *http.Request) string {
	if f.upstream.RawQuery != "" {
		return ""
	}
	return r.URL.RawQuery
}

// idKeyed is the key of the session id of a client with the headers h.
func idKeyed(id string, h http.Header) string {
	if d := digest(h, credential); d != "" {
		return id + "\x00" + d
	}
	return id // net/http refuses a NUL in a header value: no id with credentials is keyed so
}

// digest returns a digest of the headers of h that go on to the upstream and whose name
// keep reports, "" when there are none: the secrets among them are not kept. A header
// h's Connection header names does not go on, and the upstream tells its clients apart
// without it.
func digest(h http.Header, keep func(name string) bool) string {
	hop := namesIn(h["Connection"])
	var names []string
	for name := range h {
		if keep(name) && !hop.has(name) {
			names = append(names, name)
		}
	}
	if names == nil {
		return ""
	}
	sort.Strings(names)
	d := sha256.New()
	for _, name := range names {
		for _, v := range h[name] {
			d.Write([]byte(strings.ToLower(name)))
			d.Write([]byte{0})
			d.Write([]byte(v))
			d.Write([]byte{0})
		}
	}
	return string(d.Sum(nil))
}

// credential reports whether the header name may carry a credential.
func credential(name string) bool {
	switch name { // those of every request, canonical, at the cost of one comparison
	case "Accept", "Content-Type", "Content-Length", "Accept-Encoding", "Mcp-Protocol-Version", "Connection", "Traceparent":
		return false
	}
	if strings.EqualFold(name, sessionHeader) || strings.EqualFold(name, "User-Agent") {
		return false
	}
	for _, w := range credentialWords {
		if containsFold(name, w) {
			return true
		}
	}
	return false
}

var credentialWords = []string{"auth", "cookie", "token", "key", "secret", "credential", "passw", "session", "signature", "tenant"}

// containsFold reports whether s holds word, lower-case ASCII, in any case, without
// making a lower-case copy of s.
func containsFold(s, word string) bool { return indexFold(s, word) >= 0 }

// indexFold returns the index of the first word, in any case, in s; -1 when none.
func indexFold(s, word string) int {
	for i := 0; i+len(word) <= len(s); i++ {
		j := 0
		for ; j < len(word) && s[i+j]|0x20 == word[j]; j++ {
		}
		if j == len(word) {
			return i
		}
	}
	return -1
}

// foreignCharset returns the first charset other than UTF-8 that the Content-Type v names,
// "" when none does. MCP's messages are UTF-8, and the proxy reads them so; but servers
// and clients that decode a body in the charset its Content-Type names (the TypeScript
// SDK's server, express.json(), Python's requests, httpx's streams) would read one in
// UTF-7, say, as another message than the one checked. Every "charset", in any case, in
// any parameter or quoted string, counts: read as the most lenient of them would.
func foreignCharset(v string) string {
	for i := 0; ; {
		j := indexFold(v[i:], "charset")
		if j < 0 {
			return ""
		}
		i += j + len("charset")
		rest := strings.TrimLeft(v[i:], " \t")
		if !strings.HasPrefix(rest, "=") {
			continue
		}
		cs := strings.TrimPrefix(strings.TrimLeft(rest[1:], " \t"), `"`)
		if end := strings.IndexAny(cs, "\";, \t"); end >= 0 {
			cs = cs[:end]
		}
		if !strings.EqualFold(cs, "utf-8") && !strings.EqualFold(cs, "utf8") {
			return "charset=" + cs
		}
	}
}

// lasting reports whether the header name (canonical) may be the same on each of a
// client's requests and tell who it is or what it may see: any but those of the
// connection, of the body, of one request (mirroring its body, resuming a stream,
// tracing it), and the protocol version, which an initialize does not carry.
func lasting(name string) bool {
	switch name {
	case "Accept", "Accept-Encoding", "Connection", "Content-Length", "Content-Type", "Expect", "Keep-Alive",
		"Te", "Trailer", "Transfer-Encoding", "Upgrade", "Cache-Control", "Pragma", "Date",
		"Last-Event-Id", "Mcp-Protocol-Version", "Traceparent", "Tracestate", "Baggage", "B3", "Sentry-Trace", "Uber-Trace-Id",
		"X-Request-Id", "Request-Id", "X-Correlation-Id", "X-Amzn-Trace-Id", "X-Cloud-Trace-Context":
		return false
	}
	return !mirrorHeader(name) && !strings.HasPrefix(name, "X-B3-") && !strings.HasPrefix(name, "X-Datadog-")
}

// session returns the session r, of the Mcp-Session-Id id, belongs to, under key; a new
// one, of r alone, when the proxy keeps none for it.
func (f *front) session(r *http.Request, id, key string) *session {
	if s, ok := f.sessions.Load(key); ok {
		return s.(*session)
	}
	s := newSession(id)
	s.caller = digest(r.Header, lasting)
	return s
}

// exchange returns the exchange of r, whose headers are hd, in s, and whether it resumes
// a stream that broke.
// In an MCP session, request ids are the client's alone, and any of its streams may
// answer them; the requests of a session whose clients may share ids (no
// Mcp-Session-Id) are told apart by a tag of each exchange's own, and a stream resumed
// with Last-Event-ID answers those of the stream it resumes.
func (f *front) exchange(r *http.Request, hd *heard, s *session) (x exchange, resumes bool) {
	x = exchange{s: s, version: hd.version}
	if r.Method == http.MethodPost && hd.mirrors {
		x.mirrors = &mirrors{h: r.Header}
	}
	if s.id != "" {
		return x, false
	}
	if last := hd.lastEventID; last != "" && r.Method == http.MethodGet {
		if x.tag, resumes = s.resumed(last); resumes {
			return x, true
		}
	}
	x.tag = "\x00" + strconv.FormatUint(f.tags.Add(1), 10) + "\x00"
	return x, false
}

// maxSessions bounds the sessions a front keeps: past it, one with nothing in flight and
// no task whose result awaits its check is forgotten (its next call makes the proxy fetch
// its tools again), and when there is none, no new session is kept.
const maxSessions = 10000

// keep adds s under key, when no session is kept under it and there is room.
func (f *front) keep(key string, s *session) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, kept := f.sessions.Load(key); kept || !f.room() {
		return
	}
	s.mu.Lock()
	s.kept = true
	s.mu.Unlock()
	f.sessions.Store(key, s)
	f.count++
}

// room makes room for one more session, if it can; f.mu is held.
func (f *front) room() bool {
	if f.count < maxSessions {
		return true
	}
	f.sessions.Range(func(key, s any) bool {
		if s.(*session).release() {
			f.sessions.Delete(key)
			f.count--
			return false
		}
		return true
	})
	return f.count < maxSessions
}

// full makes room for one more session, and reports whether it could not.
func (f *front) full() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return !f.room()
}

func (f *front) forget(key, id string) {
	f.mu.Lock()
	_, kept := f.sessions.LoadAndDelete(key)
	if kept {
		f.count--
	}
	f.mu.Unlock()
	if kept {
		f.p.guard.ForgetSession(id)
	}
}

// ServeHTTP refuses the requests the front does not serve, decides a POST's messages and
// passes them on, or answers them; GET and DELETE pass without their bodies.
func (f *front) ServeHTTP(rw http.ResponseWriter, r *http.Request) {
	w := &timedWriter{ResponseWriter: rw, rc: *http.NewResponseController(rw), timeout: f.p.opts.writeTimeout()}
	w.arm() // in place of the one the connection's last answer left
	defer w.finish()
	if r.ContentLength != 0 { // what the handler leaves of a body, net/http reads before the next request: as long
		_ = w.rc.SetReadDeadline(time.Now().Add(f.p.opts.bodyTimeout())) // not supported: unbounded
	}
	hd := hear(r.Header)
	if why, status := f.access.refused(r, &hd); why != "" {
		if f.p.log != nil {
			f.p.log.Warn("mcpvalidate proxy: a request was refused", "status", status, "method", bounded(r.Method),
				"host", bounded(r.Host), "origin", bounded(r.Header.Get("Origin")))
		}
		if status == http.StatusMethodNotAllowed {
			w.Header().Set("Allow", "GET, POST, DELETE")
		}
		http.Error(w, why, status)
		return
	}
	id := hd.id
	key := sessionKey(r, &hd, f.query(r))
	s := f.session(r, id, key)
	x, resumes := f.exchange(r, &hd, s)
	var body []byte
	if r.Method == http.MethodPost {
		if coding := hd.coding(r.Header); coding != "" {
			http.Error(w, "mcpvalidate proxy: the request body is encoded ("+coding+"): the proxy reads only bodies sent as they are (no Content-Encoding)", http.StatusUnsupportedMediaType)
			return
		}
		if cs := foreignCharset(contentType(r.Header)); cs != "" {
			http.Error(w, "mcpvalidate proxy: the request body is in another charset than UTF-8 ("+bounded(cs)+"): MCP's messages are UTF-8, and the proxy reads them so", http.StatusUnsupportedMediaType)
			return
		}
		var ok bool
		if body, ok = f.readBody(w, r); !ok {
			return
		}
		if f.p.observe {
			s.negotiated(x.version)
		}
		var unknown bool
		forward, answer := f.p.fromClient(x, body, f.fetcher(r, &unknown))
		if unknown && id != "" {
			// The upstream does not know the session: nor will it the request.
			f.forget(key, id)
			http.Error(w, "mcpvalidate proxy: the upstream server answered 404 Not Found for this MCP session", http.StatusNotFound)
			return
		}
		init := id == "" && forward != nil && initializes(forward)
		if init && f.full() {
			writeGone(w, forward, serverGoneAll(x, forward, tooManySessions), answer)
			return
		}
		switch {
		case forward == nil && answer == nil:
			w.WriteHeader(http.StatusAccepted)
			return
		case forward == nil && x.mirrors != nil && x.mirrors.mismatched:
			writeJSONStatus(w, http.StatusBadRequest, answer)
			return
		case forward == nil:
			writeJSON(w, answer)
			return
		}
		f.post(w, r, x, id, key, init, forward, answer)
		return
	}
	if r.ContentLength != 0 { // a GET's or a DELETE's body is not MCP's, nor checked: read, and dropped
		if _, ok := f.readBody(w, r); !ok {
			return
		}
	}
	resp, err := f.send(r, nil)
	if err != nil {
		f.unreachable(w, r, x, nil, nil, err)
		return
	}
	defer resp.Body.Close()
	if id != "" && (r.Method == http.MethodDelete && resp.StatusCode < 300 || resp.StatusCode == http.StatusNotFound) {
		f.forget(key, id)
	}
	// The session's own GET stream hears list_changed; a GET that resumes a stream (of a
	// POST's, as like as not) may not.
	if r.Method == http.MethodGet && hd.lastEventID == "" && resp.StatusCode == http.StatusOK && kindOf(resp.Header) == streamBody {
		s.listen()
		defer s.unlisten()
	}
	if last := f.relay(w, resp, x, nil, nil); resumes && last != "" && s.pendingUnder(x.tag) {
		s.broke(last, x.tag)
	}
}

// tooManySessions is why the proxy answers an initialize itself when it keeps as many
// sessions as it can, each with requests in flight or tasks whose results await their
// check.
var tooManySessions = "the proxy keeps " + strconv.Itoa(maxSessions) + " MCP sessions with requests in flight or task results awaiting their check, " +
	"and starts no other until one ends; the request was not sent on"

// initializes reports whether msgs (a message or a batch) hold an initialize request.
func initializes(msgs []byte) bool {
	found := false
	each := func(b []byte) {
		if m, ok := parseMessage(b); ok && m.method == "initialize" && m.id != nil {
			found = true
		}
	}
	if !elements(msgs, each) {
		each(msgs)
	}
	return found
}

// The HTTP front's bounds on a client's reads and writes by default.
const (
	DefaultBodyTimeout  = 30 * time.Second
	DefaultWriteTimeout = 30 * time.Second
)

func (o *Options) bodyTimeout() time.Duration {
	if o.BodyTimeout > 0 {
		return o.BodyTimeout
	}
	return DefaultBodyTimeout
}

func (o *Options) writeTimeout() time.Duration {
	if o.WriteTimeout > 0 {
		return o.WriteTimeout
	}
	return DefaultWriteTimeout
}

// readBody reads r's body, within the proxy's limits of size and time, or answers r and
// returns false.
func (f *front) readBody(w *timedWriter, r *http.Request) ([]byte, bool) {
	body, err := readAtMost(r.Body, r.ContentLength, f.p.opts.maxMessage())
	switch {
	case err == nil:
		if r.ContentLength != 0 { // an answer may take long: the client's end is watched meanwhile
			_ = w.rc.SetReadDeadline(time.Time{})
		}
		return body, true
	case err == errOverlong: // the rest of the body is not read: nor is the connection's next request
		w.Header().Set("Connection", "close")
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusRequestEntityTooLarge)
		_, _ = w.Write(errorResponse([]byte("null"), -32600, tooLong("the request", -1, f.p.opts.maxMessage())))
	case errors.Is(err, os.ErrDeadlineExceeded):
		http.Error(w, "mcpvalidate proxy: the request's body did not come within "+f.p.opts.bodyTimeout().String(), http.StatusRequestTimeout)
	default:
		http.Error(w, "mcpvalidate proxy: reading the request: "+err.Error(), http.StatusBadRequest)
	}
	return nil, false
}

// A timedWriter is a client's ResponseWriter each of whose writes and flushes must be
// done within its timeout, however long the answer, or the stream, lasts: each is given
// a deadline at least the timeout away, and at most a sixteenth more. The deadline set
// is moved only when it is nearer than the timeout: the writes of an answer, or of a
// stream's events, that come within the sixteenth set none. (Each deadline set is a
// timer moved, which wakes an idle core of the runtime's to watch it.)
type timedWriter struct {
	http.ResponseWriter
	rc      http.ResponseController // of ResponseWriter
	timeout time.Duration
	until   time.Time // the deadline set; zero before the first
	wrote   bool      // a write was asked for
}

// arm gives the next write at least the timeout.
func (t *timedWriter) arm() {
	now := time.Now()
	if t.until.Sub(now) >= t.timeout {
		return
	}
	t.until = now.Add(t.timeout + t.timeout/16)
	_ = t.rc.SetWriteDeadline(t.until)
}

// finish readies the answer net/http writes when the handler wrote nothing: a write
// that was asked for and failed is not given more time.
func (t *timedWriter) finish() {
	if !t.wrote {
		t.write()
	}
}

// write readies a write.
func (t *timedWriter) write() {
	t.wrote = true
	t.arm()
}

// WriteHeader writes the status line and headers within the timeout.
func (t *timedWriter) WriteHeader(status int) {
	t.write()
	t.ResponseWriter.WriteHeader(status)
}

// Write writes b within the timeout.
func (t *timedWriter) Write(b []byte) (int, error) {
	t.write()
	return t.ResponseWriter.Write(b)
}

// Flush sends what was written on to the client, within the timeout.
func (t *timedWriter) Flush() {
	t.write()
	_ = t.rc.Flush()
}

// Unwrap returns the ResponseWriter, for http.ResponseController.
func (t *timedWriter) Unwrap() http.ResponseWriter { return t.ResponseWriter }

// post sends the client's messages on, and relays the answer, with the proxy's answers
// to refused members of a batch, if any; id and key are r's Mcp-Session-Id and session
// key. The session of a POST without an Mcp-Session-Id is kept when the upstream answers
// it: under the Mcp-Session-Id the upstream gives in its answer to an initialize (init),
// or, when it gives none, as a session-less server's session of the client's credentials.
func (f *front) post(w http.ResponseWriter, r *http.Request, x exchange, id, key string, init bool, forward, answer []byte) {
	resp, err := f.send(r, forward)
	if err != nil {
		f.unreachable(w, r, x, forward, answer, err)
		return
	}
	defer resp.Body.Close()
	started := resp.Header.Get(sessionHeader)
	switch {
	case resp.StatusCode == http.StatusNotFound && id != "":
		f.forget(key, id)
	case resp.StatusCode >= 300 || id != "":
	case started != "" && init:
		f.started(x.s, started, r)
	case started == "" && !x.s.isKept():
		f.keep(key, x.s)
	}
	if answer != nil && resp.StatusCode == http.StatusAccepted {
		writeJSON(w, answer) // only notifications went on; the refusals are the answer
		return
	}
	last := f.relay(w, resp, x, forward, answer)
	if last != "" && x.s.isKept() && unanswered(x, forward) {
		if x.tag != "" {
			x.s.broke(last, x.tag) // a stream resumed from last answers them
		}
		return
	}
	forgetAll(x, forward) // what this answer did not answer, a broken stream will not
}

// writeGone writes the answers to the requests of forward, which were not sent on: gone,
// and the proxy's own answers to refused members of its batch.
func writeGone(w http.ResponseWriter, forward []byte, gone [][]byte, answer []byte) {
	if b := jsontext.SkipSpace(forward, 0); forward[b] != '[' && len(gone) == 1 {
		writeJSON(w, gone[0]) // one message, one answer
		return
	}
	writeJSON(w, batchOf(gone, answer))
}

// unanswered reports whether requests among msgs (a message or a batch) are in flight.
func unanswered(x exchange, msgs []byte) bool {
	found := false
	each := func(b []byte) {
		if m, ok := parseMessage(b); ok && m.id != nil && m.isRequest() && x.s.inFlight(x.key(m.id)) {
			found = true
		}
	}
	if !elements(msgs, each) {
		each(msgs)
	}
	return found
}

// failed answers the requests among forward (a message or a batch; nil for a GET or a
// DELETE), which the upstream server did not answer for the reason why, each with a
// JSON-RPC error, and with the proxy's answers to refused members of a batch, if any;
// with 502 Bad Gateway when there is no one to answer. It logs why.
func (f *front) failed(w http.ResponseWriter, x exchange, forward, answer []byte, why string) {
	f.logFailed(x.s, why)
	gone := serverGoneAll(x, forward, why)
	if gone == nil && answer == nil {
		http.Error(w, "mcpvalidate proxy: "+why, http.StatusBadGateway)
		return
	}
	writeGone(w, forward, gone, answer)
}

// unreachable answers r, whose messages forward (nil for a GET or a DELETE) the upstream
// could not be reached for, with err: as Options.ErrorHandler does, or as failed.
func (f *front) unreachable(w http.ResponseWriter, r *http.Request, x exchange, forward, answer []byte, err error) {
	why := "the upstream server could not be reached: " + err.Error()
	if h := f.p.opts.ErrorHandler; h != nil {
		f.logFailed(x.s, why)
		serverGoneAll(x, forward, why)
		h(w, r, err)
		return
	}
	f.failed(w, x, forward, answer, why)
}

// forgetAll forgets the requests among msgs (a message or a batch) still in flight.
func forgetAll(x exchange, msgs []byte) {
	if !x.s.anyPending() {
		return // as when every request was answered: nothing to read msgs for
	}
	each := func(b []byte) {
		if m, ok := parseMessage(b); ok && m.id != nil && m.isRequest() {
			x.s.answered(x.key(m.id))
		}
	}
	if !elements(msgs, each) {
		each(msgs)
	}
}

// streamBroke ends a stream the upstream broke off for the reason why: each request among
// forward that it did not answer gets an error event in its place.
func (f *front) streamBroke(out *eventWriter, x exchange, forward []byte, why string) {
	f.logFailed(x.s, why)
	for _, m := range serverGoneAll(x, forward, why) {
		if out.write(dataEvent(m)) != nil {
			return
		}
	}
	out.flush()
}

func (f *front) logFailed(s *session, why string) {
	if f.p.log != nil {
		f.p.log.Warn("mcpvalidate proxy: the upstream server failed", "session", s.id, "error", why)
	}
}

// started keeps, when there is room, the session the upstream just started under id in
// its answer to the initialize of r, with what the initialize said: from itself when it
// was r's alone.
func (f *front) started(from *session, id string, r *http.Request) {
	key := idKeyed(id, r.Header)
	if !from.isKept() {
		from.mu.Lock()
		from.id = id
		from.mu.Unlock()
		f.keep(key, from)
		return
	}
	s := newSession(id)
	s.caller = from.caller
	from.mu.Lock()
	s.client, s.clientVersion, s.version = from.client, from.clientVersion, from.version
	from.mu.Unlock()
	f.keep(key, s)
}

// send makes the upstream request that r stands for, with body.
func (f *front) send(r *http.Request, body []byte) (*http.Response, error) {
	target := f.upstream // only read, by the front's own client
	var o *outgoing
	if q := f.query(r); f.writer == nil || q != "" {
		o = &outgoing{url: *f.upstream}
		if q != "" {
			o.url.RawQuery = q
		}
		target = &o.url
	}
	req := http.Request{Method: r.Method, URL: target, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Body: http.NoBody, Host: target.Host}
	var resp *http.Response
	var err error
	if f.writer != nil {
		req.ContentLength = int64(len(body))
		resp, err = f.writer.forward(req.WithContext(r.Context()), r.Header, f.auth, body)
	} else {
		if body != nil {
			o.body.Reset(body)
			// A NopCloser of a bytes.Reader is a body net/http knows to be in memory: it writes
			// it with the header, in one piece, rather than flushing the header first.
			req.Body, req.ContentLength = io.NopCloser(&o.body), int64(len(body))
			if _, own := f.transport.(*upstream); !own { // net/http's Transport sends it again on a connection found closed
				req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
			}
		}
		req.Header = sentHeader(r.Header, f.auth)
		resp, err = f.transport.RoundTrip(req.WithContext(r.Context()))
	}
	switch {
	case err != nil && resp != nil && resp.Body != nil:
		resp.Body.Close()
	case err == nil && resp == nil:
		err = errors.New("the transport gave no answer and no error")
	case err == nil && resp.Body == nil:
		resp.Body = http.NoBody
	}
	if err != nil {
		return nil, &url.Error{Op: urlOp(r.Method), URL: target.Redacted(), Err: err}
	}
	return resp, nil
}

// sentHeader returns the headers of a client's request that go on to the upstream
// (sentOn), with auth, when not "", as its Authorization unless it has one.
func sentHeader(from http.Header, auth string) http.Header {
	h := make(http.Header, len(from))
	copyHeaders(h, from)
	delete(h, "Accept-Encoding") // as sentOn spells it
	if auth != "" && h["Authorization"] == nil {
		h["Authorization"] = []string{auth}
	}
	return h
}

// basicAuth returns the value of an Authorization header for user, as http.Client sends
// for a URL's user; "" for none.
func basicAuth(user *url.Userinfo) string {
	if user == nil {
		return ""
	}
	password, _ := user.Password()
	return "Basic " + base64.StdEncoding.EncodeToString([]byte(user.Username()+":"+password))
}

// An outgoing is what a request sent on through a transport holds besides http.Request
// itself, in one allocation.
type outgoing struct {
	url  url.URL
	body bytes.Reader
}

// urlOp names the method as http.Client's errors do.
func urlOp(method string) string {
	return method[:1] + strings.ToLower(method[1:])
}

// fetcher returns the fetcher that asks the upstream for its tool list as the client's
// request r would: with its headers (its session, protocol version and credentials). It
// sets notFound when the upstream answers 404 Not Found (it does not know the session).
func (f *front) fetcher(r *http.Request, notFound *bool) fetcher {
	return func(key string, req []byte) ([]byte, error) {
		header := http.Header{}
		copyHeaders(header, r.Header)
		header.Del("Last-Event-ID")
		for name := range header { // the client's request's, which its own does not mirror
			if mirrorHeader(name) {
				header.Del(name)
			}
		}
		if r.Header.Get("Mcp-Method") != "" {
			header.Set("Mcp-Method", "tools/list")
		}
		b, _, err := postRPC(r.Context(), f.client, f.upstream.String(), f.query(r), header, req, key, f.p.opts.maxMessage())
		if status := (*statusError)(nil); errors.As(err, &status) && status.code == http.StatusNotFound {
			*notFound = true
		}
		return b, err
	}
}

// postRPC posts the JSON-RPC request req, of the id key key, to the MCP endpoint url with
// header, and returns the answer, whether it comes as JSON or in an SSE stream, of max
// bytes at most, and the answer's headers. A query, when not "", replaces url's, and is
// sent as it is, as a client's is: a '#' in it is the query's, not a fragment.
func postRPC(ctx context.Context, client *http.Client, url, query string, header http.Header, req []byte, key string, max int64) ([]byte, http.Header, error) {
	out, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(req))
	if err != nil {
		return nil, nil, err
	}
	if query != "" {
		out.URL.RawQuery = query
	}
	copyHeaders(out.Header, header)
	out.Header.Del("Accept-Encoding") // the transport asks for gzip, and decodes it
	out.Header.Set("Content-Type", "application/json")
	out.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := client.Do(out)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusAccepted && key == "" {
		return nil, resp.Header, nil // a notification's answer
	}
	if resp.StatusCode != http.StatusOK {
		return nil, nil, &statusError{resp.StatusCode, resp.Status}
	}
	if coding := encoded(resp.Header); coding != "" {
		return nil, nil, errors.New("the server's answer is encoded (" + coding + "), which was not asked for")
	}
	if cs := foreignCharset(contentType(resp.Header)); cs != "" {
		return nil, nil, errors.New("the server's answer is in another charset than UTF-8 (" + bounded(cs) + ")")
	}
	if kindOf(resp.Header) != streamBody {
		b, err := readAtMost(resp.Body, resp.ContentLength, max)
		if err == errOverlong {
			return nil, nil, errors.New(tooLong("the server's answer", -1, max))
		}
		return b, resp.Header, err
	}
	events := getEventReader(resp.Body, max)
	defer putEventReader(events)
	for read := 0; ; read++ {
		if read == maxUnanswered {
			return nil, nil, fmt.Errorf("the server sent %d events without answering", maxUnanswered)
		}
		ev, err := readEvent(events)
		if ev.over != nil && ev.over.id != nil && idKey(ev.over.id) == key {
			return nil, nil, errors.New(tooLong("the server's answer", ev.over.size, max))
		}
		if data := ev.data(); data != nil && jsontext.Valid(data) {
			if m, ok := parseMessage(data); ok && m.method == "" && idKey(m.id) == key {
				return data, resp.Header, nil
			}
		}
		if err != nil {
			return nil, nil, errors.New("the server's stream ended before it answered")
		}
	}
}

// A statusError is an answer of an HTTP status other than 200 to the proxy's request.
type statusError struct {
	code   int
	status string
}

func (e *statusError) Error() string { return "the server answered with " + e.status }

// ListTools lists the tools of the streamable HTTP MCP endpoint at url, every page, as a
// client does (initialize, notifications/initialized, tools/list, and a DELETE of the
// MCP session at the end), with header on each request (credentials, for one). It
// returns them as one tools/list result, each tool with the bytes the server sent.
func ListTools(ctx context.Context, url string, header http.Header) ([]byte, error) {
	client := &http.Client{}
	h := http.Header{}
	copyHeaders(h, header)
	initialize := `{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-06-18",` +
		`"capabilities":{},"clientInfo":{"name":"mcpvalidate","version":"1"}}}`
	b, got, err := postRPC(ctx, client, url, "", h, []byte(initialize), `"init`, DefaultMaxMessage)
	if err != nil {
		return nil, fmt.Errorf("initialize: %w", err)
	}
	m, _ := parseMessage(b)
	if m.result == nil {
		return nil, fmt.Errorf("initialize: the server answered %s", clip(b))
	}
	if id := got.Get(sessionHeader); id != "" {
		h.Set(sessionHeader, id)
		defer func() {
			if req, err := http.NewRequestWithContext(ctx, http.MethodDelete, url, nil); err == nil {
				copyHeaders(req.Header, h)
				if resp, err := client.Do(req); err == nil {
					resp.Body.Close()
				}
			}
		}()
	}
	if v, ok := stringValue(member(m.result, "protocolVersion")); ok {
		h.Set("MCP-Protocol-Version", v)
	}
	if _, _, err := postRPC(ctx, client, url, "", h, []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`), "", DefaultMaxMessage); err != nil {
		return nil, fmt.Errorf("notifications/initialized: %w", err)
	}
	return listPages(func(req []byte) ([]byte, error) {
		b, _, err := postRPC(ctx, client, url, "", h, req, `"list`, DefaultMaxMessage)
		return b, err
	})
}

// listPages lists every page of a server's tools through call, which sends one tools/list
// request and returns the answer, and returns them as one tools/list result.
func listPages(call func(req []byte) ([]byte, error)) ([]byte, error) {
	var tools [][]byte
	var cursor []byte
	for page := 0; ; page++ {
		if page == maxPages {
			return nil, errors.New("the tool list has more than " + strconv.Itoa(maxPages) + " pages")
		}
		req := []byte(`{"jsonrpc":"2.0","id":"list","method":"tools/list"}`)
		if cursor != nil {
			req = append(append([]byte(`{"jsonrpc":"2.0","id":"list","method":"tools/list","params":{"cursor":`), cursor...), "}}"...)
		}
		b, err := call(req)
		if err != nil {
			return nil, fmt.Errorf("tools/list: %w", err)
		}
		m, _ := parseMessage(b)
		if m.result == nil {
			return nil, fmt.Errorf("tools/list: the server answered %s", clip(b))
		}
		elements(member(m.result, "tools"), func(e []byte) { tools = append(tools, bytes.Clone(e)) })
		next := member(m.result, "nextCursor")
		if next == nil || string(next) == "null" || bytes.Equal(next, cursor) {
			break
		}
		cursor = bytes.Clone(next)
	}
	if tools == nil {
		return []byte(`{"tools":[]}`), nil
	}
	return append(append([]byte(`{"tools":`), batch(tools)...), '}'), nil
}

// relay writes the upstream's answer to forward: status, headers, and the body, checked.
// A body the proxy cannot read (encoded in a way it did not ask for, broken off, over the
// limit) goes no further: the requests it answers are answered with errors instead, but
// for those of a stream broken off after an event with an id, which the client may
// resume. last is the id of the last SSE event relayed that has one, "" when none did.
func (f *front) relay(w http.ResponseWriter, resp *http.Response, x exchange, forward, answer []byte) (last string) {
	s := x.s
	if coding := encoded(resp.Header); coding != "" {
		f.failed(w, x, forward, answer, "the upstream server's answer is encoded ("+coding+"), which the proxy did not ask for and cannot check")
		return ""
	}
	kind := kindOf(resp.Header)
	if kind == bothKinds {
		f.failed(w, x, forward, answer, "the upstream server's answer is of a Content-Type ("+bounded(contentType(resp.Header))+") that clients read both as a stream and as JSON, so the proxy could not check it as they read it")
		return ""
	}
	if cs := foreignCharset(contentType(resp.Header)); cs != "" && kind != otherBody {
		f.failed(w, x, forward, answer, "the upstream server's answer is in another charset than UTF-8 ("+bounded(cs)+"), which some clients would read as another message than the one the proxy checked")
		return ""
	}
	copyHeaders(w.Header(), resp.Header)
	switch kind {
	case streamBody:
		w.Header().Del("Content-Length")
		w.WriteHeader(resp.StatusCode)
		out := newEventWriter(w)
		defer out.close()
		if answer != nil {
			_ = out.write(dataEvent(answer))
		}
		events := getEventReader(resp.Body, f.p.opts.maxMessage())
		defer putEventReader(events)
		listening := false
		defer func() {
			if listening {
				s.unlisten()
			}
		}()
		for {
			ev, err := readEvent(events)
			if ev.over != nil {
				if m := f.p.serverOverlong(s, ev.over, nil); m != nil {
					ev = event{raw: append(append([]byte("data: "), m...), "\n\n"...)}
				}
			}
			if !listening && bytes.Contains(ev.raw, []byte("notifications/subscriptions/acknowledged")) && acknowledgesListChanged(ev.data()) {
				s.listen()
				listening = true
			}
			broken := err != nil && err != io.EOF && !errors.Is(err, context.Canceled)
			if len(ev.raw) > 0 && (!broken || ev.over != nil) { // an event cut off goes no further
				b := ev.checked(f.p, x)
				if b != nil && out.write(b) != nil {
					return last
				}
				if id, ok := ev.id(); ok && b != nil {
					last = id
				}
				if !events.hasEvent() { // else it goes with the next one
					out.flush()
				}
			}
			switch why := "the upstream server's stream broke off: "; {
			case broken && last != "": // the client may resume it from last
				f.logFailed(s, why+err.Error())
			case broken:
				f.streamBroke(out, x, forward, why+err.Error())
			}
			if err != nil {
				return last
			}
		}
	case jsonBody:
		body, err := readAtMost(resp.Body, resp.ContentLength, f.p.opts.maxMessage())
		if err == errOverlong {
			f.failed(w, x, forward, answer, strings.TrimPrefix(tooLong("the upstream server's answer", -1, f.p.opts.maxMessage()), "mcpvalidate proxy: "))
			return ""
		}
		if err != nil {
			f.failed(w, x, forward, answer, "the upstream server's answer could not be read: "+err.Error())
			return ""
		}
		read := bytes.TrimPrefix(body, bom) // as fetch and Python's readers drop it
		out := f.p.fromServer(x, read)
		if out == nil { // a client's POST is answered on its own: withheld unread
			f.failed(w, x, forward, answer, "the upstream server's answer is not JSON the proxy reads, which clients might read as a message all the same; it was withheld")
			return ""
		}
		if answer != nil {
			out = batchOf([][]byte{out}, answer)
		}
		if !sameBytes(out, body) {
			w.Header().Set("Content-Length", strconv.Itoa(len(out)))
		}
		w.WriteHeader(resp.StatusCode)
		_, _ = w.Write(out)
	default:
		w.WriteHeader(resp.StatusCode)
		_, _ = io.Copy(w, resp.Body)
	}
	return ""
}

// An eventWriter writes an SSE stream to the client: the status and headers go with the
// first event, or headerDelay after them when no event comes sooner (a stream that stays
// open), so that an answer that comes at once costs one write, not two; each event is
// flushed, unless the next one is read already. Its methods may be called from its
// timer's goroutine and the handler's: mu orders them, and close ends the timer's use.
type eventWriter struct {
	mu      sync.Mutex
	w       http.ResponseWriter
	flusher http.Flusher // nil when w cannot flush
	timer   *time.Timer
	closed  bool
}

// headerDelay is how long a stream's headers may wait for its first event.
const headerDelay = 20 * time.Millisecond

func newEventWriter(w http.ResponseWriter) *eventWriter {
	e := &eventWriter{w: w}
	e.flusher, _ = w.(http.Flusher)
	if e.flusher != nil {
		e.mu.Lock() // the timer's goroutine reads timer
		e.timer = time.AfterFunc(headerDelay, e.flush)
		e.mu.Unlock()
	}
	return e
}

func (e *eventWriter) write(b []byte) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	_, err := e.w.Write(b)
	return err
}

// flush sends what was written, headers included, on to the client.
func (e *eventWriter) flush() {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed || e.flusher == nil {
		return
	}
	e.timer.Stop()
	e.flusher.Flush()
}

// close ends the writer's use of the ResponseWriter, before the handler returns.
func (e *eventWriter) close() {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.closed = true
	if e.timer != nil {
		e.timer.Stop()
	}
}

// eventReaders are line readers for SSE streams, reused: a stream's buffer is 4 KB, and
// a long line grows one of its own.
var eventReaders = sync.Pool{New: func() any { return newLineReaderSize(nil, 4<<10) }}

func getEventReader(r io.Reader, max int64) *lineReader {
	l := eventReaders.Get().(*lineReader)
	l.r.Reset(&sseReader{r: r})
	l.max, l.sse = max, true
	return l
}

func putEventReader(l *lineReader) {
	l.r.Reset(nil)
	l.before, l.cont, l.over = nil, false, overlong{}
	if cap(l.buf) > 64<<10 {
		l.buf = nil
	}
	eventReaders.Put(l)
}

// An sseReader reads an SSE stream as clients do, for a line reader that ends lines at
// LF alone: SSE ends them at CR LF, LF or a lone CR, which it follows with an LF, and
// clients skip a BOM that opens the stream, which it drops. CR LF and LF pass as they
// are.
type sseReader struct {
	r     io.Reader
	head  [3]byte // the stream's first bytes, which may be a BOM
	nhead int     // of head, yet to be read
	begun bool    // head was read
	err   error   // of reading head, once it is read
	skip  bool    // an LF was put after the CR read last: an LF that comes next is it
	lf    bool    // an LF is due before the next bytes, for want of room
}

var bom = []byte("\xef\xbb\xbf")

func (c *sseReader) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	if !c.begun {
		c.begun = true
		for c.nhead < len(c.head) && c.err == nil {
			var n int
			n, c.err = c.r.Read(c.head[c.nhead:])
			c.nhead += n
		}
		if bytes.Equal(c.head[:c.nhead], bom) {
			c.nhead = 0
		}
	}
	if c.lf {
		c.lf = false
		p[0] = '\n'
		return 1, nil
	}
	// Read into p's second half, and write it out from the start: each byte takes two
	// at most.
	start := len(p) - max(len(p)/2, 1)
	var n int
	var err error
	switch {
	case c.nhead > 0:
		n = copy(p[start:], c.head[:c.nhead])
		c.nhead = copy(c.head[:], c.head[n:c.nhead])
		if c.nhead == 0 {
			err = c.err
		}
	case c.err != nil:
		err = c.err
	default:
		n, err = c.r.Read(p[start:])
	}
	w := 0
	for _, b := range p[start : start+n] {
		if c.skip {
			c.skip = false
			if b == '\n' {
				continue
			}
		}
		p[w] = b
		w++
		if b == '\r' {
			c.skip = true
			if w < len(p) {
				p[w] = '\n'
				w++
			} else {
				c.lf = true
			}
		}
	}
	if c.lf && err != nil {
		return w, nil // the LF, then err again
	}
	return w, err
}

// An event is one server-sent event: its bytes as read, up to and with the blank line
// that ends it. Its lines are read from raw where they are needed, not indexed: an
// event of many short lines costs what its bytes do.
type event struct {
	raw  []byte
	over *overlong // of an event over the limit, which was dropped: raw is empty
}

// readEvent reads the next event; at the end of the stream, what was left with io.EOF.
// Its bytes grow by doubling up to the reader's limit: an event allocates at most four
// times its size in all, about twice, and holds at most twice its size, never more than
// the limit.
func readEvent(r *lineReader) (event, error) {
	var ev event
	for {
		r.before = ev.raw
		line, err := r.next()
		if err == errOverlong || r.max > 0 && int64(len(ev.raw)+len(line)) > r.max {
			return dropEvent(r, ev, line, err)
		}
		if need := len(ev.raw) + len(line); need > cap(ev.raw) { // need is within r.max
			size := max(2*cap(ev.raw), need, 256)
			if r.max > 0 {
				size = min(size, int(r.max))
			}
			ev.raw = append(make([]byte, 0, size), ev.raw...)
		}
		ev.raw = append(ev.raw, line...)
		if blank(line) || err != nil { // the blank line, or the end
			return ev, err
		}
	}
}

// lineOf returns a line of bytes.Lines without its end.
func lineOf(l []byte) []byte { return bytes.TrimRight(l, "\r\n") }

// dropEvent reads the rest of an event over the limit, of which ev and line are read
// (or, with errOverlong, scanned into r.over), and returns it dropped, with what its
// data says.
func dropEvent(r *lineReader, ev event, line []byte, err error) (event, error) {
	if err != errOverlong {
		r.over = overlong{sse: true}
		r.over.feed(ev.raw)
		r.over.feed(line)
	}
	r.before, r.cont = nil, true
	for err == nil && !blank(line) || err == errOverlong {
		if line, err = r.next(); err != errOverlong {
			r.over.feed(line)
		}
	}
	r.cont = false
	o := r.over
	return event{over: &o}, err
}

// blank reports whether line is an empty line, with its end.
func blank(line []byte) bool { return len(line) > 0 && len(bytes.TrimRight(line, "\r\n")) == 0 }

// data returns the event's data, its data lines joined by newlines; nil when it has none.
func (ev *event) data() []byte {
	size, n := -1, 0 // the newlines between n lines, and their values
	for l := range bytes.Lines(ev.raw) {
		if value, ok := fieldValue(lineOf(l), "data"); ok {
			size, n = size+1+len(value), n+1
		}
	}
	if n == 0 {
		return nil
	}
	data := make([]byte, 0, size) // made once: n lines cost no more than one
	first := true
	for l := range bytes.Lines(ev.raw) {
		if value, ok := fieldValue(lineOf(l), "data"); ok {
			if !first {
				data = append(data, '\n')
			}
			data, first = append(data, value...), false
		}
	}
	return data
}

// fieldValue returns the value of line, an event's line without its end, when its field
// is name: what follows the colon, less one space.
func fieldValue(line []byte, name string) ([]byte, bool) {
	field, value, _ := bytes.Cut(line, []byte(":"))
	if string(field) != name {
		return nil, false
	}
	return bytes.TrimPrefix(value, []byte(" ")), true
}

// id returns the event's id field, if it has one.
func (ev *event) id() (string, bool) {
	var id []byte
	ok := false
	for l := range bytes.Lines(ev.raw) {
		if value, is := fieldValue(lineOf(l), "id"); is {
			id, ok = value, true
		}
	}
	return string(id), ok
}

// checked returns the event as it goes to the client, nil to drop it: its own bytes when
// every line is a data, id, event or retry field and the proxy passes its data as it is;
// else its id, event and retry lines and its data as the proxy passes it, each line of
// it a data line, and nothing else (an event left with no lines is an empty comment,
// which keeps the stream alive as the event's comments did). An event the stream's end
// cut off stays so, unless the proxy replaced its message.
//
// Python's readers (httpx-sse up to 0.4.1 on httpx's aiter_lines, which the MCP Python
// SDK's client reads every stream with) end a line also where str.splitlines does: at
// \v \f \x1c \x1d \x1e U+0085 U+2028 U+2029. So that they read the lines the proxy
// read, no such character goes on: comments and other fields, which the proxy does not
// read, are dropped; U+0085, U+2028 and U+2029 in data, which JSON holds only within a
// string, are written as \u escapes, the same value to every reader; an event whose id,
// event or retry holds one is dropped (an id is kept for resumption: another one would
// resume elsewhere), and so is one whose data holds one and is not JSON.
func (ev *event) checked(p *Proxy, x exchange) []byte {
	plain := true // every line a data, id, event or retry field
	for l := range bytes.Lines(ev.raw) {
		line := lineOf(l)
		if len(line) == 0 { // the blank line that ends it
			continue
		}
		field, _, _ := bytes.Cut(line, []byte(":"))
		switch string(field) {
		case "data":
		case "id", "event", "retry":
			if hasLineBreak(line) {
				return nil
			}
		default:
			plain = false
		}
	}
	data := ev.data()
	var out []byte
	replaced := false
	if data != nil {
		if out = p.fromServer(x, data); out == nil {
			return nil
		}
		replaced = !sameBytes(out, data)
		if hasLineBreak(out) {
			if !jsontext.Valid(out) { // no escape keeps it the same
				return nil
			}
			out = escapeLineBreaks(out)
		}
	}
	if plain && sameBytes(out, data) {
		return ev.raw
	}
	var b []byte
	for l := range bytes.Lines(ev.raw) {
		line := lineOf(l)
		switch field, _, _ := bytes.Cut(line, []byte(":")); string(field) {
		case "id", "event", "retry":
			b = append(append(b, line...), '\n')
		}
	}
	if data != nil {
		b = appendData(b, out)
	}
	switch ended := bytes.HasSuffix(ev.raw, []byte("\n\n")) || bytes.HasSuffix(ev.raw, []byte("\n\r\n")); {
	case !ended && !replaced: // the stream's end cut it off, and clients drop it: it stays so
		return b
	case b == nil:
		return []byte(":\n\n")
	}
	return append(b, '\n')
}

// appendData appends to b the data lines that carry data: one a line of it.
func appendData(b, data []byte) []byte {
	for line := range bytes.SplitSeq(data, []byte("\n")) {
		b = append(append(append(b, "data: "...), line...), '\n')
	}
	return b
}

// dataEvent returns an event of the proxy's own message m, its line breaks escaped.
func dataEvent(m []byte) []byte {
	return append(appendData(nil, escapeLineBreaks(m)), '\n')
}

// hasLineBreak reports whether b holds a character at which Python's str.splitlines ends
// a line, besides CR and LF: \v \f \x1c \x1d \x1e U+0085 U+2028 U+2029.
func hasLineBreak(b []byte) bool {
	for _, c := range [...]byte{'\v', '\f', 0x1c, 0x1d, 0x1e} {
		if bytes.IndexByte(b, c) >= 0 {
			return true
		}
	}
	return bytes.Contains(b, []byte("\u0085")) || bytes.Contains(b, []byte("\u2028")) || bytes.Contains(b, []byte("\u2029"))
}

// escapeLineBreaks returns b with U+0085, U+2028 and U+2029 written as JSON's \u
// escapes: the same JSON value, which Python's readers do not split; b itself when it
// holds none.
func escapeLineBreaks(b []byte) []byte {
	for _, r := range [...]struct{ raw, escaped string }{{"\u0085", `\u0085`}, {"\u2028", `\u2028`}, {"\u2029", `\u2029`}} {
		if bytes.Contains(b, []byte(r.raw)) {
			b = bytes.ReplaceAll(b, []byte(r.raw), []byte(r.escaped))
		}
	}
	return b
}

// serverGoneAll answers the requests among msgs (a message or a batch) that the
// session tracked, when they could not be sent.
func serverGoneAll(x exchange, msgs []byte, why string) [][]byte {
	var answers [][]byte
	each := func(b []byte) {
		if m, ok := parseMessage(b); ok && m.id != nil && m.isRequest() && x.s.answered(x.key(m.id)) != nil {
			answers = append(answers, errorResponse(m.id, -32603, "mcpvalidate proxy: "+why))
		}
	}
	if !elements(msgs, each) {
		each(msgs)
	}
	return answers
}

// batchOf joins messages and batches into one batch.
func batchOf(msgs [][]byte, more []byte) []byte {
	var all [][]byte
	for _, b := range append(msgs, more) {
		if b == nil {
			continue
		}
		if !elements(b, func(e []byte) { all = append(all, e) }) {
			all = append(all, b)
		}
	}
	return batch(all)
}

func writeJSON(w http.ResponseWriter, b []byte) { writeJSONStatus(w, http.StatusOK, b) }

func writeJSONStatus(w http.ResponseWriter, status int, b []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(b)))
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

// hopNames are the names a message's Connection header gives, of headers that concern
// its connection only. A few are looked for in the header's values, as most messages
// give them, at no cost; past maxScanned, they are read once into a set, so that telling
// whether a header is one costs a lookup however many headers and names there are.
// Names compare in any ASCII case, as net/http's header keys do.
type hopNames struct {
	values []string            // the Connection header's values, when they give few names
	many   map[string]struct{} // every name in lower case, when they give more
}

// maxScanned bounds the names of a Connection header looked for in its values.
const maxScanned = 8

// namesIn reads the names that the values of a Connection header give.
func namesIn(connection []string) hopNames {
	n := 0
	for _, v := range connection {
		n += strings.Count(v, ",") + 1
	}
	if n <= maxScanned {
		return hopNames{values: connection}
	}
	h := hopNames{many: make(map[string]struct{})}
	for _, v := range connection {
		for name := range strings.SplitSeq(v, ",") {
			if name = strings.TrimSpace(name); name != "" {
				h.many[lowerASCII(name)] = struct{}{}
			}
		}
	}
	return h
}

// has reports whether the header name is one of h's.
func (h hopNames) has(name string) bool {
	if h.many != nil {
		var room [64]byte
		_, ok := h.many[string(appendLowerASCII(room[:0], name))]
		return ok
	}
	for _, v := range h.values {
		for n := range strings.SplitSeq(v, ",") {
			if n = strings.TrimSpace(n); n != "" && equalFoldASCII(n, name) {
				return true
			}
		}
	}
	return false
}

// lowerASCII returns s with its ASCII letters in lower case.
func lowerASCII(s string) string { return string(appendLowerASCII(nil, s)) }

// appendLowerASCII appends s to b with its ASCII letters in lower case.
func appendLowerASCII(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		b = append(b, c)
	}
	return b
}

// equalFoldASCII reports whether a and b are equal in any ASCII case.
func equalFoldASCII(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		if x, y := a[i], b[i]; x != y && (x|0x20 != y|0x20 || x|0x20 < 'a' || x|0x20 > 'z') {
			return false
		}
	}
	return true
}

// hopByHop reports whether the header name, in any case, concerns one connection, not
// the request.
func hopByHop(name string) bool {
	switch name { // as net/http's readers spell them: one comparison
	case "Content-Type", "Mcp-Session-Id", "Date", "Accept", "User-Agent", "Cache-Control", "Mcp-Protocol-Version":
		return false
	case "Content-Length", "Connection", "Transfer-Encoding", "Keep-Alive":
		return true
	}
	switch len(name) {
	case 2:
		return strings.EqualFold(name, "Te")
	case 4:
		return strings.EqualFold(name, "Host")
	case 7:
		return strings.EqualFold(name, "Trailer") || strings.EqualFold(name, "Upgrade")
	case 10:
		return strings.EqualFold(name, "Connection") || strings.EqualFold(name, "Keep-Alive")
	case 14:
		return strings.EqualFold(name, "Content-Length")
	case 17:
		return strings.EqualFold(name, "Transfer-Encoding")
	case 18:
		return strings.EqualFold(name, "Proxy-Authenticate")
	case 19:
		return strings.EqualFold(name, "Proxy-Authorization")
	}
	return false
}

// copyHeaders copies the headers of src to dst but for the hop-by-hop ones: those of
// hopByHop, and those src's Connection header names.
func copyHeaders(dst, src http.Header) {
	hop := namesIn(src["Connection"])
	for k, vs := range src {
		if endToEnd(k, hop) {
			dst[k] = vs[:len(vs):len(vs)] // shared: neither side changes a value in place
		}
	}
}

// endToEnd reports whether the header name goes on past this hop: it is not hop-by-hop,
// nor one of the names hop of the message's Connection header.
func endToEnd(name string, hop hopNames) bool {
	return !hopByHop(name) && !hop.has(name)
}

// sentOn reports whether a client's request's header name goes on to the upstream: it
// is end-to-end, and not Accept-Encoding, since answers are read as they come (no
// encoding but net/http's Transport's own gzip, which it decodes).
func sentOn(name string, hop hopNames) bool {
	return name != "Accept-Encoding" && endToEnd(name, hop)
}

// encoded returns h's Content-Encoding when it is not identity; "" when the body is
// sent as it is.
func encoded(h http.Header) string {
	for _, v := range h["Content-Encoding"] {
		for c := range strings.SplitSeq(v, ",") {
			if c = strings.TrimSpace(c); c != "" && !strings.EqualFold(c, "identity") {
				return strings.Join(h["Content-Encoding"], ", ")
			}
		}
	}
	return ""
}

// An answer's body is read as clients read it, by its Content-Type: the most lenient of
// them (the TypeScript SDK's) take any value holding text/event-stream as a stream, else
// any holding application/json as JSON, in any parameter and whatever else the value
// says; Python's take any value that begins so, in any case. So does the proxy, that no
// answer a client reads as a message passes unchecked. A value that holds both is one
// clients read two ways: none is read, and the answer goes no further (bothKinds).

// A bodyKind is what clients read an answer's body as.
type bodyKind int

const (
	otherBody  bodyKind = iota // neither JSON nor a stream: passed as it is
	jsonBody                   // application/json
	streamBody                 // text/event-stream
	bothKinds                  // named both ways
)

// kindOf returns what clients read a body of the headers h as.
func kindOf(h http.Header) bodyKind {
	v := contentType(h)
	json, stream := containsFold(v, "application/json"), containsFold(v, "text/event-stream")
	switch {
	case json && stream:
		return bothKinds
	case json:
		return jsonBody
	case stream:
		return streamBody
	}
	return otherBody
}

// contentType is h's Content-Type as fetch reads it: its values joined.
func contentType(h http.Header) string {
	vs := h["Content-Type"]
	if len(vs) == 1 {
		return vs[0]
	}
	return strings.Join(vs, ", ")
}
