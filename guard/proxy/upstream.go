package proxy

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/textproto"
	"net/url"
	"strconv"
	"sync"
	"time"
)

// An upstream carries the HTTP front's requests to a plain-HTTP upstream over HTTP/1.1
// on the caller's own goroutine: it writes the request, then reads the answer, on a
// connection it keeps for the next request once the answer is read to its end.
// net/http's Transport hands each request to a goroutine that writes it and each answer
// back from one that reads it; at one hop a call those two handoffs cost more than the
// proxy's own checks. Requests and answers are written and parsed by net/http
// (Request.Write, ReadResponse). It stands in for the Transport when Options.Transport is
// nil, the upstream is http: and no proxy from the environment applies.
type upstream struct {
	addr   string // host:port
	dialer net.Dialer
	mu     sync.Mutex
	idle   []*upstreamConn // the most recently used last
}

// maxIdleConns bounds the connections an upstream keeps while no request uses them: one
// for each client's, up to this many.
const maxIdleConns = 256

// idleTimeout is how long a connection may stay unused and still be used again, as
// http.DefaultTransport's; an older one is closed when a request next looks for one.
const idleTimeout = 90 * time.Second

// maxAnswerHeader bounds, in bytes, the header of an answer (with those of any
// informational answers before it), as net/http's Transport does by default.
const maxAnswerHeader = 10 << 20

// An upstreamConn is a connection to the upstream and its buffers.
type upstreamConn struct {
	net.Conn
	header *headerBudget // under r: what the answer's header may still take
	r      *bufio.Reader
	w      *bufio.Writer
	since  time.Time // unused since
}

// A headerBudget reads from a connection, within a budget while the budget is on.
type headerBudget struct {
	net.Conn
	on   bool
	left int64
}

var errAnswerHeader = errors.New("the upstream server's answer has a header longer than 10 MiB")

func (h *headerBudget) Read(p []byte) (int, error) {
	if !h.on {
		return h.Conn.Read(p)
	}
	if h.left <= 0 {
		return 0, errAnswerHeader
	}
	n, err := h.Conn.Read(p[:min(int64(len(p)), h.left)])
	h.left -= int64(n)
	return n, err
}

// aLongTimeAgo is a deadline that has passed: it ends a read or a write at once.
var aLongTimeAgo = time.Unix(1, 0)

// RoundTrip sends req to the upstream, whatever host its URL names, and returns its
// answer, whose body must be read to its end or closed. A request the context of which
// ends is cut off where it stands, and its connection closed.
func (u *upstream) RoundTrip(req *http.Request) (*http.Response, error) {
	return u.roundTrip(req, nil)
}

// roundTrip is RoundTrip, or forward when fw is not nil.
func (u *upstream) roundTrip(req *http.Request, fw *forwarding) (*http.Response, error) {
	ctx := req.Context()
	c, err := u.conn(ctx)
	if err != nil {
		return nil, err
	}
	stop := context.AfterFunc(ctx, func() { _ = c.SetDeadline(aLongTimeAgo) })
	resp, err := c.exchange(req, fw)
	if err != nil {
		stop()
		_ = c.Close()
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, err
	}
	b := &upstreamBody{body: resp.Body, u: u, c: c, stop: stop, keep: !resp.Close && !req.Close}
	if resp.Body == http.NoBody {
		b.release()
		return resp, nil
	}
	resp.Body = b
	return resp, nil
}

// forward sends req on as RoundTrip does, with the headers of the client's request from
// that go on (sentOn), written as they come rather than copied into req's first, auth,
// when not "", as its Authorization unless from has one, and body, of req.ContentLength
// bytes, rather than req.Body. req.Host must be plainHost.
func (u *upstream) forward(req *http.Request, from http.Header, auth string, body []byte) (*http.Response, error) {
	return u.roundTrip(req, &forwarding{from, auth, body})
}

// A forwarding is what a forwarded request is written from besides req (see forward).
type forwarding struct {
	from http.Header
	auth string
	body []byte
}

// writeForwarded writes req as Request.Write would with what fw holds: the request line,
// Host, the headers of fw.from that go on and fw.auth, User-Agent as net/http sends it
// (the client's first, or net/http's own when the client names none), the body's length
// and fw.body. Header names that are not tokens are left out, line breaks in values
// written as spaces, and a URL with a control character refused, as net/http does.
func writeForwarded(w *bufio.Writer, req *http.Request, fw *forwarding) error {
	from := fw.from
	uri := req.URL.RequestURI()
	for i := 0; i < len(uri); i++ {
		if uri[i] < ' ' || uri[i] == 0x7f {
			return errControlInURL
		}
	}
	w.WriteString(req.Method)
	w.WriteByte(' ')
	w.WriteString(uri)
	w.WriteString(" HTTP/1.1\r\nHost: ")
	w.WriteString(req.Host)
	w.WriteString("\r\n")
	hop := namesIn(from["Connection"])
	agent, authorized := false, false
	for name, vs := range from {
		if !sentOn(name, hop) {
			continue
		}
		switch name {
		case "User-Agent":
			agent, vs = true, vs[:min(len(vs), 1)]
		case "Authorization":
			authorized = true
		}
		if !token(name) {
			continue
		}
		for _, v := range vs {
			if v = textproto.TrimString(v); name == "User-Agent" && v == "" {
				continue
			}
			w.WriteString(name)
			w.WriteString(": ")
			writeValue(w, v)
			w.WriteString("\r\n")
		}
	}
	if !agent {
		w.WriteString("User-Agent: Go-http-client/1.1\r\n")
	}
	if fw.auth != "" && !authorized {
		w.WriteString("Authorization: ")
		w.WriteString(fw.auth)
		w.WriteString("\r\n")
	}
	if req.ContentLength > 0 || req.Method == http.MethodPost {
		w.WriteString("Content-Length: ")
		w.Write(strconv.AppendInt(w.AvailableBuffer(), req.ContentLength, 10))
		w.WriteString("\r\n")
	}
	w.WriteString("\r\n")
	_, err := w.Write(fw.body)
	return err
}

var errControlInURL = errors.New("the request's URL holds a control character")

// writeValue writes a header's value with its line breaks as spaces.
func writeValue(w *bufio.Writer, v string) {
	from := 0
	for i := 0; i < len(v); i++ {
		if c := v[i]; c == '\r' || c == '\n' {
			w.WriteString(v[from:i])
			w.WriteByte(' ')
			from = i + 1
		}
	}
	w.WriteString(v[from:])
}

// token reports whether s is an HTTP token, as a header's name must be.
func token(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 0x80 || !tchar[c] {
			return false
		}
	}
	return true
}

var tchar = func() (t [128]bool) {
	for c := '0'; c <= '9'; c++ {
		t[c] = true
	}
	for c := 'a'; c <= 'z'; c++ {
		t[c], t[c-'a'+'A'] = true, true
	}
	for _, c := range "!#$%&'*+-.^_`|~" {
		t[c] = true
	}
	return t
}()

// plainHost reports whether the URL host hostport is written in a Host header as it is:
// ASCII letters, digits and the punctuation of names, addresses and ports, with no IPv6
// zone (net/http drops one) and nothing that would need Punycode.
func plainHost(hostport string) bool {
	for i := 0; i < len(hostport); i++ {
		switch c := hostport[i]; {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case c == '.', c == '-', c == ':', c == '[', c == ']', c == '_':
		default:
			return false
		}
	}
	return hostport != ""
}

// hostPort returns the address of the upstream u names, with HTTP's port when it names none.
func hostPort(u *url.URL) string {
	port := u.Port()
	if port == "" {
		port = "80"
	}
	return net.JoinHostPort(u.Hostname(), port)
}

// exchange writes req on c, forwarded when fw is not nil, and reads the answer's header,
// past informational answers. An upstream that answers before it has read the whole
// request, and closes, is heard.
func (c *upstreamConn) exchange(req *http.Request, fw *forwarding) (*http.Response, error) {
	var err error
	if fw != nil {
		err = writeForwarded(c.w, req, fw)
	} else {
		err = req.Write(c.w)
	}
	if err == nil {
		err = c.w.Flush()
	}
	if err != nil {
		if resp, rerr := c.answer(req); rerr == nil {
			resp.Close = true
			return resp, nil
		}
		return nil, err
	}
	return c.answer(req)
}

// answer reads the answer's header, past informational answers.
func (c *upstreamConn) answer(req *http.Request) (*http.Response, error) {
	c.header.on, c.header.left = true, maxAnswerHeader
	defer func() { c.header.on = false }()
	for {
		resp, err := http.ReadResponse(c.r, req)
		if err != nil && c.header.left <= 0 {
			return nil, errAnswerHeader // whatever net/http made of the header cut short
		}
		if err != nil {
			return nil, err
		}
		switch {
		case resp.StatusCode == http.StatusSwitchingProtocols:
			resp.Close = true // the connection is the new protocol's
			return resp, nil
		case resp.StatusCode >= 200:
			return resp, nil
		}
	}
}

// conn returns an idle connection that is still open, or a new one.
func (u *upstream) conn(ctx context.Context) (*upstreamConn, error) {
	now := time.Now()
	for {
		u.mu.Lock()
		n := len(u.idle)
		if n == 0 {
			u.mu.Unlock()
			break
		}
		c := u.idle[n-1]
		u.idle[n-1] = nil
		u.idle = u.idle[:n-1]
		u.mu.Unlock()
		if now.Sub(c.since) < idleTimeout && c.r.Buffered() == 0 && open(c.Conn) {
			return c, nil
		}
		_ = c.Close()
	}
	conn, err := u.dialer.DialContext(ctx, "tcp", u.addr)
	if err != nil {
		return nil, err
	}
	h := &headerBudget{Conn: conn}
	return &upstreamConn{Conn: conn, header: h, r: bufio.NewReader(h), w: bufio.NewWriter(conn)}, nil
}

// put keeps c for a later request, or closes it when as many are kept.
func (u *upstream) put(c *upstreamConn) {
	c.since = time.Now()
	u.mu.Lock()
	if len(u.idle) < maxIdleConns {
		u.idle = append(u.idle, c)
		c = nil
	}
	u.mu.Unlock()
	if c != nil {
		_ = c.Close()
	}
}

// An upstreamBody is an answer's body: its connection is kept once it is read to its end,
// and closed when the body is closed before.
type upstreamBody struct {
	body io.ReadCloser
	u    *upstream
	c    *upstreamConn
	stop func() bool // stops cutting the connection off when the request's context ends
	keep bool        // the connection may carry another request

	mu   sync.Mutex
	done bool
}

// end ends the body's use of its connection, and reports whether this call did: the
// first of a Close and the read of its end.
func (b *upstreamBody) end() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	first := !b.done
	b.done = true
	return first
}

func (b *upstreamBody) Read(p []byte) (int, error) {
	n, err := b.body.Read(p)
	if err == io.EOF {
		b.release()
	}
	return n, err
}

// Close closes the connection, unless the body was read to its end.
func (b *upstreamBody) Close() error {
	if b.end() {
		b.stop()
		_ = b.c.Close()
	}
	return nil
}

// release hands the connection back, once: kept when it may carry another request and
// the request's context did not cut it off.
func (b *upstreamBody) release() {
	if !b.end() {
		return
	}
	if b.stop() && b.keep {
		b.u.put(b.c)
		return
	}
	_ = b.c.Close()
}
