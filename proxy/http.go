package proxy

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
)

// This file is the streamable HTTP front: an http.Handler that passes each request to the
// upstream server's endpoint, with its headers, and each answer back, JSON or an SSE
// stream event by event, checking tools/call requests on the way.

// Handler returns an http.Handler that fronts the streamable HTTP MCP server at upstream
// (its endpoint's URL, such as http://127.0.0.1:8080/mcp), wherever it is mounted. POST,
// GET and DELETE pass with their headers (Authorization, Mcp-Session-Id,
// MCP-Protocol-Version, Last-Event-ID and the rest, but the hop-by-hop ones) and bodies;
// answers come back with the upstream's status and headers, JSON bodies whole and SSE
// streams event by event, each event's bytes unchanged unless the proxy withholds a
// result in it. A POST whose only message is a refused call is answered by the proxy
// (200, application/json) and never reaches the upstream. Tools are kept per
// Mcp-Session-Id, for as long as the upstream keeps the MCP session (until a DELETE, or
// a 404 for its id). The proxy reads every answer as it checks it: it does not pass the
// client's Accept-Encoding on (its transport asks for gzip and decodes it), and answers
// 502 Bad Gateway to an answer encoded otherwise; a POST whose body is encoded (a
// Content-Encoding other than identity) is answered 415 Unsupported Media Type, unread.
// A request is served only when its Host names the proxy (a loopback name on a loopback
// connection, or one of Options.AllowHosts) and its Origin, if any, is allowed likewise
// (Options.AllowOrigins), or it gets 403 Forbidden; a method other than POST, GET or
// DELETE gets 405 Method Not Allowed. Neither reaches the upstream.
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
	transport := http.DefaultTransport.(*http.Transport).Clone()
	transport.MaxIdleConnsPerHost = 256 // one upstream: keep a connection for each client's
	return &front{p: p, upstream: u, access: a, sessions: map[string]*session{}, client: &http.Client{
		Transport:     transport,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}}, nil
}

type front struct {
	p        *Proxy
	upstream *url.URL
	client   *http.Client
	access   access

	mu       sync.Mutex
	sessions map[string]*session // by Mcp-Session-Id; "" for requests without one
}

const sessionHeader = "Mcp-Session-Id"

func (f *front) session(id string) *session {
	f.mu.Lock()
	defer f.mu.Unlock()
	s := f.sessions[id]
	if s == nil {
		s = newSession(id)
		f.keep(s)
	}
	return s
}

// maxSessions bounds the sessions a front keeps: past it, one is forgotten (its next
// call makes the proxy fetch its tools again).
const maxSessions = 10000

// keep adds s to the sessions, within maxSessions; f.mu is held.
func (f *front) keep(s *session) {
	if len(f.sessions) >= maxSessions {
		for id := range f.sessions {
			delete(f.sessions, id)
			break
		}
	}
	f.sessions[s.id] = s
}

func (f *front) forget(id string) {
	f.mu.Lock()
	delete(f.sessions, id)
	f.mu.Unlock()
	f.p.guard.ForgetSession(id)
}

// ServeHTTP refuses the requests the front does not serve, decides a POST's messages and
// passes them on, or answers them; GET and DELETE pass as they are.
func (f *front) ServeHTTP(rw http.ResponseWriter, r *http.Request) {
	w := &timedWriter{ResponseWriter: rw, rc: http.NewResponseController(rw), timeout: f.p.opts.writeTimeout()}
	_ = w.rc.SetWriteDeadline(time.Time{}) // the one the connection's last answer left
	if why, status := f.access.refused(r); why != "" {
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
	id := r.Header.Get(sessionHeader)
	s := f.session(id)
	var body []byte
	if r.Method == http.MethodPost {
		if coding := encoded(r.Header); coding != "" {
			http.Error(w, "mcpvalidate proxy: the request body is encoded ("+coding+"): the proxy reads only bodies sent as they are (no Content-Encoding)", http.StatusUnsupportedMediaType)
			return
		}
		var err error
		if body, err = f.readBody(w, r); err != nil {
			if tooBig := (*http.MaxBytesError)(nil); errors.As(err, &tooBig) {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusRequestEntityTooLarge)
				_, _ = w.Write(errorResponse([]byte("null"), -32600, tooLong("the request", -1, tooBig.Limit)))
				return
			}
			if errors.Is(err, os.ErrDeadlineExceeded) {
				http.Error(w, "mcpvalidate proxy: the request's body did not come within "+f.p.opts.bodyTimeout().String(), http.StatusRequestTimeout)
				return
			}
			http.Error(w, "mcpvalidate proxy: reading the request: "+err.Error(), http.StatusBadRequest)
			return
		}
		if f.p.observe {
			s.negotiated(r.Header.Get("MCP-Protocol-Version"))
		}
		forward, answer := f.p.fromClient(s, body, f.fetcher(r), r.Header.Get("MCP-Protocol-Version"))
		switch {
		case forward == nil && answer == nil:
			w.WriteHeader(http.StatusAccepted)
			return
		case forward == nil:
			writeJSON(w, answer)
			return
		}
		f.post(w, r, s, forward, answer)
		return
	}
	resp, err := f.send(r, r.Body)
	if err != nil {
		http.Error(w, "mcpvalidate proxy: the upstream server: "+err.Error(), http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	if id != "" && (r.Method == http.MethodDelete && resp.StatusCode < 300 || resp.StatusCode == http.StatusNotFound) {
		f.forget(id)
	}
	if r.Method == http.MethodGet && resp.StatusCode == http.StatusOK && isEventStream(resp.Header) {
		s.listen()
		defer s.unlisten()
	}
	f.relay(w, resp, s, nil, nil)
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

// readBody reads r's body, within the proxy's limits of size and time.
func (f *front) readBody(w *timedWriter, r *http.Request) ([]byte, error) {
	_ = w.rc.SetReadDeadline(time.Now().Add(f.p.opts.bodyTimeout())) // not supported: unbounded
	body, err := io.ReadAll(http.MaxBytesReader(w.ResponseWriter, r.Body, f.p.opts.maxMessage()))
	if err == nil { // an answer may take long: the client's end is watched meanwhile
		_ = w.rc.SetReadDeadline(time.Time{})
	}
	return body, err
}

// A timedWriter is a client's ResponseWriter each of whose writes and flushes must be
// done within its timeout, however long the answer, or the stream, lasts.
type timedWriter struct {
	http.ResponseWriter
	rc      *http.ResponseController
	timeout time.Duration
}

// Write writes b within the timeout.
func (t *timedWriter) Write(b []byte) (int, error) {
	_ = t.rc.SetWriteDeadline(time.Now().Add(t.timeout))
	return t.ResponseWriter.Write(b)
}

// Flush sends what was written on to the client, within the timeout.
func (t *timedWriter) Flush() {
	_ = t.rc.SetWriteDeadline(time.Now().Add(t.timeout))
	_ = t.rc.Flush()
}

// Unwrap returns the ResponseWriter, for http.ResponseController.
func (t *timedWriter) Unwrap() http.ResponseWriter { return t.ResponseWriter }

// post sends the client's messages on, and relays the answer, with the proxy's answers
// to refused members of a batch, if any.
func (f *front) post(w http.ResponseWriter, r *http.Request, s *session, forward, answer []byte) {
	resp, err := f.send(r, bytes.NewReader(forward))
	if err != nil {
		f.failed(w, s, forward, answer, "the upstream server could not be reached: "+err.Error())
		return
	}
	defer resp.Body.Close()
	if sid := resp.Header.Get(sessionHeader); sid != "" && sid != r.Header.Get(sessionHeader) {
		f.started(s, sid)
	}
	if resp.StatusCode == http.StatusNotFound && r.Header.Get(sessionHeader) != "" {
		f.forget(r.Header.Get(sessionHeader))
	}
	if answer != nil && resp.StatusCode == http.StatusAccepted {
		writeJSON(w, answer) // only notifications went on; the refusals are the answer
		return
	}
	f.relay(w, resp, s, forward, answer)
	forgetAll(s, forward) // what this answer did not answer, a broken stream will not
}

// failed answers the requests among forward (a message or a batch; nil for a GET or a
// DELETE), which the upstream server did not answer for the reason why, each with a
// JSON-RPC error, and with the proxy's answers to refused members of a batch, if any;
// with 502 Bad Gateway when there is no one to answer. It logs why.
func (f *front) failed(w http.ResponseWriter, s *session, forward, answer []byte, why string) {
	f.logFailed(s, why)
	gone := serverGoneAll(s, forward, why)
	switch {
	case gone == nil && answer == nil:
		http.Error(w, "mcpvalidate proxy: "+why, http.StatusBadGateway)
	case len(gone) == 1 && forward[skipSpace(forward, 0)] != '[':
		writeJSON(w, gone[0]) // one message, one answer
	default:
		writeJSON(w, batchOf(gone, answer))
	}
}

// forgetAll forgets the requests among msgs (a message or a batch) still in flight.
func forgetAll(s *session, msgs []byte) {
	each := func(b []byte) {
		if m, ok := parseMessage(b); ok && m.id != nil && m.isRequest() {
			s.answered(idKey(m.id))
		}
	}
	if !elements(msgs, each) {
		each(msgs)
	}
}

// streamBroke ends a stream the upstream broke off for the reason why: each request among
// forward that it did not answer gets an error event in its place.
func (f *front) streamBroke(out *eventWriter, s *session, forward []byte, why string) {
	f.logFailed(s, why)
	for _, m := range serverGoneAll(s, forward, why) {
		if out.write(append(append([]byte("data: "), m...), "\n\n"...)) != nil {
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

// started keeps the session the upstream just named, with what its initialize said.
func (f *front) started(from *session, id string) {
	s := newSession(id)
	from.mu.Lock()
	s.client, s.clientVersion, s.version = from.client, from.clientVersion, from.version
	from.mu.Unlock()
	f.mu.Lock()
	if f.sessions[id] == nil {
		f.keep(s)
	}
	f.mu.Unlock()
}

// send makes the upstream request that r stands for, with body.
func (f *front) send(r *http.Request, body io.Reader) (*http.Response, error) {
	u := *f.upstream
	if r.URL.RawQuery != "" {
		u.RawQuery = r.URL.RawQuery
	}
	out, err := http.NewRequestWithContext(r.Context(), r.Method, u.String(), body)
	if err != nil {
		return nil, err
	}
	copyHeaders(out.Header, r.Header)
	out.Header.Del("Accept-Encoding") // the transport asks for gzip, and decodes it
	if r.Method != http.MethodPost {
		out.ContentLength = r.ContentLength
	}
	return f.client.Do(out)
}

// fetcher returns the fetcher that asks the upstream for its tool list as the client's
// request r would: with its headers (its session, protocol version and credentials).
func (f *front) fetcher(r *http.Request) fetcher {
	return func(key string, req []byte) ([]byte, error) {
		header := http.Header{}
		copyHeaders(header, r.Header)
		header.Del("Last-Event-ID")
		b, _, err := postRPC(r.Context(), f.client, f.upstream.String(), header, req, key)
		return b, err
	}
}

// postRPC posts the JSON-RPC request req, of the id key key, to the MCP endpoint url with
// header, and returns the answer, whether it comes as JSON or in an SSE stream, and the
// answer's headers.
func postRPC(ctx context.Context, client *http.Client, url string, header http.Header, req []byte, key string) ([]byte, http.Header, error) {
	out, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(req))
	if err != nil {
		return nil, nil, err
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
		return nil, nil, errors.New("the server answered with " + resp.Status)
	}
	if coding := encoded(resp.Header); coding != "" {
		return nil, nil, errors.New("the server's answer is encoded (" + coding + "), which was not asked for")
	}
	if !isEventStream(resp.Header) {
		b, err := readAtMost(resp.Body, DefaultMaxMessage)
		if err == errOverlong {
			return nil, nil, errors.New(tooLong("the server's answer", -1, DefaultMaxMessage))
		}
		return b, resp.Header, err
	}
	events := getEventReader(resp.Body, DefaultMaxMessage)
	defer putEventReader(events)
	for {
		ev, err := readEvent(events)
		if ev.over != nil && ev.over.id != nil && idKey(ev.over.id) == key {
			return nil, nil, errors.New(tooLong("the server's answer", ev.over.size, DefaultMaxMessage))
		}
		if data := ev.data(); data != nil && valid(data) {
			if m, ok := parseMessage(data); ok && m.method == "" && idKey(m.id) == key {
				return data, resp.Header, nil
			}
		}
		if err != nil {
			return nil, nil, errors.New("the server's stream ended before it answered")
		}
	}
}

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
	b, got, err := postRPC(ctx, client, url, h, []byte(initialize), `"init`)
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
	if _, _, err := postRPC(ctx, client, url, h, []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`), ""); err != nil {
		return nil, fmt.Errorf("notifications/initialized: %w", err)
	}
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
		b, _, err := postRPC(ctx, client, url, h, req, `"list`)
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
// limit) goes no further: the requests it answers are answered with errors instead.
func (f *front) relay(w http.ResponseWriter, resp *http.Response, s *session, forward, answer []byte) {
	if coding := encoded(resp.Header); coding != "" {
		f.failed(w, s, forward, answer, "the upstream server's answer is encoded ("+coding+"), which the proxy did not ask for and cannot check")
		return
	}
	copyHeaders(w.Header(), resp.Header)
	switch {
	case isEventStream(resp.Header):
		w.Header().Del("Content-Length")
		w.WriteHeader(resp.StatusCode)
		out := newEventWriter(w)
		defer out.close()
		if answer != nil {
			_ = out.write(append(append([]byte("data: "), answer...), "\n\n"...))
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
					line := append([]byte("data: "), m...)
					ev = event{raw: append(line, "\n\n"...), lines: [][]byte{line}}
				}
			}
			if !listening && bytes.Contains(ev.raw, []byte("notifications/subscriptions/acknowledged")) && acknowledgesListChanged(ev.data()) {
				s.listen()
				listening = true
			}
			broken := err != nil && err != io.EOF && !errors.Is(err, context.Canceled)
			if len(ev.raw) > 0 && (!broken || ev.over != nil) { // an event cut off goes no further
				if b := ev.checked(f.p, s); b != nil && out.write(b) != nil {
					return
				}
				if !events.hasEvent() { // else it goes with the next one
					out.flush()
				}
			}
			if broken {
				f.streamBroke(out, s, forward, "the upstream server's stream broke off: "+err.Error())
			}
			if err != nil {
				return
			}
		}
	case isJSON(resp.Header):
		body, err := readAtMost(resp.Body, f.p.opts.maxMessage())
		if err == errOverlong {
			f.failed(w, s, forward, answer, strings.TrimPrefix(tooLong("the upstream server's answer", -1, f.p.opts.maxMessage()), "mcpvalidate proxy: "))
			return
		}
		if err != nil {
			f.failed(w, s, forward, answer, "the upstream server's answer could not be read: "+err.Error())
			return
		}
		out := f.p.fromServer(s, body)
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
	l.r.Reset(r)
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

// An event is one server-sent event: its bytes as read, up to and with the blank line
// that ends it.
type event struct {
	raw   []byte
	lines [][]byte  // raw's lines, without their ends
	over  *overlong // of an event over the limit, which was dropped: raw and lines are empty
}

// readEvent reads the next event; at the end of the stream, what was left with io.EOF.
// Its lines are slices of its own bytes: a line read is valid only until the next read.
func readEvent(r *lineReader) (event, error) {
	var ev event
	var ends []int // of the lines' bodies in raw, two a line
	for {
		r.before = ev.raw
		line, err := r.next()
		if err == errOverlong || r.max > 0 && int64(len(ev.raw)+len(line)) > r.max {
			return dropEvent(r, ev, line, err)
		}
		start := len(ev.raw)
		ev.raw = append(ev.raw, line...)
		body := bytes.TrimRight(line, "\r\n")
		if len(body) > 0 {
			ends = append(ends, start, start+len(body))
		}
		if len(line) > 0 && len(body) == 0 || err != nil { // the blank line, or the end
			for i := 0; i < len(ends); i += 2 {
				ev.lines = append(ev.lines, ev.raw[ends[i]:ends[i+1]])
			}
			return ev, err
		}
	}
}

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
	var data []byte
	for _, l := range ev.lines {
		field, value, _ := bytes.Cut(l, []byte(":"))
		if string(field) != "data" {
			continue
		}
		value = bytes.TrimPrefix(value, []byte(" "))
		if data != nil {
			data = append(data, '\n')
		} else {
			data = []byte{}
		}
		data = append(data, value...)
	}
	return data
}

// checked returns the event as it goes to the client: its own bytes, or, when the
// proxy replaces its message, its other fields and the new data; nil to drop it.
func (ev *event) checked(p *Proxy, s *session) []byte {
	data := ev.data()
	if data == nil {
		return ev.raw
	}
	out := p.fromServer(s, data)
	switch {
	case out == nil:
		return nil
	case sameBytes(out, data):
		return ev.raw
	}
	var b []byte
	for _, l := range ev.lines {
		if field, _, _ := bytes.Cut(l, []byte(":")); string(field) != "data" {
			b = append(append(b, l...), '\n')
		}
	}
	b = append(append(append(b, "data: "...), out...), '\n', '\n')
	return b
}

// serverGoneAll answers the requests among msgs (a message or a batch) that the
// session tracked, when they could not be sent.
func serverGoneAll(s *session, msgs []byte, why string) [][]byte {
	var answers [][]byte
	each := func(b []byte) {
		if m, ok := parseMessage(b); ok && m.id != nil && m.isRequest() && s.answered(idKey(m.id)) != nil {
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

func writeJSON(w http.ResponseWriter, b []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(b)))
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(b)
}

// hopByHop are the headers that concern one connection, not the request.
var hopByHop = map[string]bool{"Connection": true, "Keep-Alive": true, "Proxy-Authenticate": true,
	"Proxy-Authorization": true, "Te": true, "Trailer": true, "Transfer-Encoding": true, "Upgrade": true,
	"Content-Length": true, "Host": true}

func copyHeaders(dst, src http.Header) {
	for k, vs := range src {
		if hopByHop[http.CanonicalHeaderKey(k)] {
			continue
		}
		dst[k] = vs[:len(vs):len(vs)] // shared: neither side changes a value in place
	}
}

// encoded returns h's Content-Encoding when it is not identity; "" when the body is
// sent as it is.
func encoded(h http.Header) string {
	for _, v := range h.Values("Content-Encoding") {
		for c := range strings.SplitSeq(v, ",") {
			if c = strings.TrimSpace(c); c != "" && !strings.EqualFold(c, "identity") {
				return strings.Join(h.Values("Content-Encoding"), ", ")
			}
		}
	}
	return ""
}

func mediaType(h http.Header) string {
	t, _, _ := mime.ParseMediaType(h.Get("Content-Type"))
	return t
}

func isEventStream(h http.Header) bool { return mediaType(h) == "text/event-stream" }

func isJSON(h http.Header) bool { return mediaType(h) == "application/json" }
