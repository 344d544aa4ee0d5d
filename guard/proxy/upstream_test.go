package proxy

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
)

// rawUpstream is an upstream on 127.0.0.1 that answers each request read on a
// connection with answer(n, request), n counting the connections from 1; answer returns
// false to close the connection. It returns the upstream's address and the number of
// connections accepted so far.
func rawUpstream(t *testing.T, answer func(conn net.Conn, n int64, req *http.Request) bool) (string, *atomic.Int64) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	var conns atomic.Int64
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			n := conns.Add(1)
			go func() {
				defer conn.Close()
				r := bufio.NewReader(conn)
				for {
					req, err := http.ReadRequest(r)
					if err != nil {
						return
					}
					io.Copy(io.Discard, req.Body)
					if !answer(conn, n, req) {
						return
					}
				}
			}()
		}
	}()
	return ln.Addr().String(), &conns
}

const okAnswer = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}"

// get sends a GET through u to addr, and returns the body read to its end.
func get(t *testing.T, u *upstream, ctx context.Context, addr string) (string, error) {
	t.Helper()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+addr+"/mcp", nil)
	resp, err := u.RoundTrip(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.Status + " " + string(b), err
}

// TestUpstreamKeepsConnections: an answer read to its end leaves its connection for the
// next request; one closed before its end, or that says Connection: close, does not.
func TestUpstreamKeepsConnections(t *testing.T) {
	addr, conns := rawUpstream(t, func(conn net.Conn, _ int64, req *http.Request) bool {
		if req.URL.Query().Get("close") != "" {
			io.WriteString(conn, "HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\n{}")
			return false
		}
		io.WriteString(conn, okAnswer)
		return true
	})
	u := &upstream{addr: addr}
	for range 3 {
		if got, err := get(t, u, context.Background(), addr); err != nil || got != "200 OK {}" {
			t.Fatalf("got %q, %v", got, err)
		}
	}
	if n := conns.Load(); n != 1 {
		t.Fatalf("%d connections for 3 requests, want 1", n)
	}
	req, _ := http.NewRequest(http.MethodGet, "http://"+addr+"/mcp", nil)
	resp, err := u.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close() // before its end: the connection goes
	req, _ = http.NewRequest(http.MethodGet, "http://"+addr+"/mcp?close=1", nil)
	if resp, err = u.RoundTrip(req); err != nil {
		t.Fatal(err)
	}
	io.ReadAll(resp.Body)
	resp.Body.Close()
	if got, err := get(t, u, context.Background(), addr); err != nil || got != "200 OK {}" {
		t.Fatalf("got %q, %v", got, err)
	}
	if n := conns.Load(); n != 3 {
		t.Errorf("%d connections, want 3: one closed early, one closed by the upstream", n)
	}
}

// TestUpstreamClosedWhileIdle: a connection the upstream closed while it was kept idle
// (as Node.js servers do after 5 s) is not used again: the next request goes on a new one.
func TestUpstreamClosedWhileIdle(t *testing.T) {
	closed := make(chan struct{}, 1)
	addr, conns := rawUpstream(t, func(conn net.Conn, n int64, _ *http.Request) bool {
		io.WriteString(conn, okAnswer)
		if n == 1 {
			conn.Close()
			closed <- struct{}{}
			return false
		}
		return true
	})
	u := &upstream{addr: addr}
	if got, err := get(t, u, context.Background(), addr); err != nil || got != "200 OK {}" {
		t.Fatalf("got %q, %v", got, err)
	}
	<-closed
	u.idle[0].r.Peek(1) // until the close has come: the idle connection reads its end
	if got, err := get(t, u, context.Background(), addr); err != nil || got != "200 OK {}" {
		t.Fatalf("after the upstream closed the idle connection: got %q, %v", got, err)
	}
	if n := conns.Load(); n != 2 {
		t.Errorf("%d connections, want 2", n)
	}
}

// TestUpstreamInformational: informational answers (103 Early Hints) before the answer
// are passed over.
func TestUpstreamInformational(t *testing.T) {
	addr, _ := rawUpstream(t, func(conn net.Conn, _ int64, _ *http.Request) bool {
		io.WriteString(conn, "HTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\nHTTP/1.1 102 Processing\r\n\r\n"+okAnswer)
		return true
	})
	if got, err := get(t, &upstream{addr: addr}, context.Background(), addr); err != nil || got != "200 OK {}" {
		t.Fatalf("got %q, %v", got, err)
	}
}

// TestUpstreamLongHeader: an answer whose header goes on past 10 MiB, or an endless run
// of informational answers, is an error, read no further than the limit.
func TestUpstreamLongHeader(t *testing.T) {
	for name, head := range map[string]string{
		"one header":     "HTTP/1.1 200 OK\r\nX-Pad: " + strings.Repeat("x", 11<<20) + "\r\n\r\n",
		"informational":  strings.Repeat("HTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\n", (11<<20)/40),
		"many of a name": "HTTP/1.1 200 OK\r\n" + strings.Repeat("X-Pad: x\r\n", (11<<20)/10) + "\r\n",
	} {
		t.Run(name, func(t *testing.T) {
			addr, _ := rawUpstream(t, func(conn net.Conn, _ int64, _ *http.Request) bool {
				io.WriteString(conn, head)
				return false
			})
			_, err := get(t, &upstream{addr: addr}, context.Background(), addr)
			if !errors.Is(err, errAnswerHeader) {
				t.Fatalf("got %v, want errAnswerHeader", err)
			}
		})
	}
}

// TestUpstreamCancelled: a request whose context ends while the upstream has not
// answered returns at once with the context's error, and its connection is closed.
func TestUpstreamCancelled(t *testing.T) {
	asked, gone := make(chan struct{}), make(chan struct{})
	addr, _ := rawUpstream(t, func(conn net.Conn, _ int64, _ *http.Request) bool {
		close(asked)
		conn.Read(make([]byte, 1)) // until the proxy closes the connection
		close(gone)
		return false
	})
	ctx, cancel := context.WithCancel(context.Background())
	errs := make(chan error)
	go func() {
		_, err := get(t, &upstream{addr: addr}, ctx, addr)
		errs <- err
	}()
	<-asked
	cancel()
	if err := <-errs; !errors.Is(err, context.Canceled) {
		t.Errorf("got %v, want context.Canceled", err)
	}
	<-gone
}

// TestUpstreamAnswersEarly: an upstream that answers before it has read the request's
// body, and closes, is heard: its answer is the request's.
func TestUpstreamAnswersEarly(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		conn, err := ln.Accept()
		if err != nil {
			return
		}
		r := bufio.NewReader(conn)
		if _, err := http.ReadRequest(r); err == nil {
			io.WriteString(conn, "HTTP/1.1 413 Request Entity Too Large\r\nContent-Length: 0\r\n\r\n")
		}
		conn.(*net.TCPConn).CloseWrite()
		io.Copy(io.Discard, io.LimitReader(r, 1<<20)) // then stop reading, and close
		conn.Close()
	}()
	req, _ := http.NewRequest(http.MethodPost, "http://"+ln.Addr().String()+"/mcp", strings.NewReader(strings.Repeat("x", 64<<20)))
	resp, err := (&upstream{addr: ln.Addr().String()}).RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Errorf("got %s, want 413", resp.Status)
	}
}

// TestHostPort: an upstream URL without a port is reached on HTTP's.
func TestHostPort(t *testing.T) {
	for raw, want := range map[string]string{
		"http://example.com/mcp": "example.com:80", "http://example.com:8080": "example.com:8080",
		"http://[::1]/mcp": "[::1]:80", "http://[::1]:9000/mcp": "[::1]:9000", "http://127.0.0.1:1/": "127.0.0.1:1",
	} {
		u, _ := url.Parse(raw)
		if got := hostPort(u); got != want {
			t.Errorf("%s: got %s, want %s", raw, got, want)
		}
	}
}

// TestForwardedAsNetHTTPWrites: a client's request written by the upstream from the
// client's own headers reads as net/http writes the headers that go on (sentHeader): the
// same method, target, Host, headers and body, whatever the client's headers are.
func TestForwardedAsNetHTTPWrites(t *testing.T) {
	cases := []struct {
		name   string
		method string
		query  string
		body   string
		auth   string
		header http.Header
	}{
		{name: "call", method: "POST", body: `{"jsonrpc":"2.0","id":1,"method":"tools/call"}`, header: http.Header{
			"Content-Type": {"application/json"}, "Accept": {"application/json, text/event-stream"},
			"Mcp-Session-Id": {"abc"}, "Mcp-Protocol-Version": {"2025-06-18"}, "User-Agent": {"client/1"},
			"Content-Length": {"46"}}},
		{name: "hop-by-hop", method: "POST", body: "{}", header: http.Header{
			"Connection": {"keep-alive, X-Private", "Upgrade"}, "Keep-Alive": {"timeout=5"}, "X-Private": {"p"},
			"Te": {"trailers"}, "Trailer": {"X"}, "Upgrade": {"h2c"}, "Proxy-Authorization": {"Basic eA=="},
			"Proxy-Authenticate": {"x"}, "Transfer-Encoding": {"chunked"}, "Accept-Encoding": {"gzip, br"},
			"X-Public": {"a", "b"}}},
		{name: "no user agent", method: "GET", query: "a=1&b=2", header: http.Header{"Accept": {"text/event-stream"}}},
		{name: "empty user agent", method: "DELETE", header: http.Header{"User-Agent": {""}, "Mcp-Session-Id": {"s"}}},
		{name: "two user agents", method: "POST", body: "[]", header: http.Header{"User-Agent": {" one ", "two"}}},
		{name: "user agent dropped", method: "POST", body: "{}", header: http.Header{"User-Agent": {"u"}, "Connection": {"user-agent"}}},
		{name: "upstream user", method: "POST", body: "{}", auth: "Basic dTpw", header: http.Header{}},
		{name: "client's authorization", method: "POST", body: "{}", auth: "Basic dTpw", header: http.Header{"Authorization": {"Bearer t"}}},
		{name: "authorization dropped", method: "POST", body: "{}", auth: "Basic dTpw", header: http.Header{"Authorization": {"Bearer t"}, "Connection": {"Authorization"}}},
		{name: "odd names and values", method: "POST", body: "{}", header: http.Header{
			"x_under": {"v"}, "Bad Name": {"v"}, "Bad:Name": {"v"}, "": {"v"}, "É": {"v"},
			"X-Lines": {"a\r\nb", "c\nd\re", " \t pad \t "}, "X-Empty": {""}, "accept-encoding": {"gzip"}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			u := &url.URL{Scheme: "http", Host: "127.0.0.1:8080", Path: "/mcp", RawQuery: c.query}
			request := func(header http.Header) *http.Request {
				r := &http.Request{Method: c.method, URL: u, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
					Header: header, Body: http.NoBody, Host: u.Host}
				if c.method == "POST" {
					r.Body, r.ContentLength = io.NopCloser(strings.NewReader(c.body)), int64(len(c.body))
				}
				return r
			}
			var want, got strings.Builder
			if err := request(sentHeader(c.header, c.auth)).Write(&want); err != nil {
				t.Fatal(err)
			}
			w := bufio.NewWriter(&got)
			forwarded := request(nil)
			forwarded.Body = http.NoBody
			if err := writeForwarded(w, forwarded, &forwarding{c.header, c.auth, []byte(c.body)}); err != nil {
				t.Fatal(err)
			}
			if err := w.Flush(); err != nil {
				t.Fatal(err)
			}
			read := func(s string) (*http.Request, string) {
				r, err := http.ReadRequest(bufio.NewReader(strings.NewReader(s)))
				if err != nil {
					t.Fatalf("%v reading %q", err, s)
				}
				b, err := io.ReadAll(r.Body)
				if err != nil {
					t.Fatal(err)
				}
				return r, string(b)
			}
			wr, wb := read(want.String())
			gr, gb := read(got.String())
			if gr.Method != wr.Method || gr.RequestURI != wr.RequestURI || gr.Host != wr.Host || gb != wb ||
				gr.ContentLength != wr.ContentLength || !reflect.DeepEqual(gr.Header, wr.Header) {
				t.Errorf("written\n%q\nnet/http writes\n%q", got.String(), want.String())
			}
		})
	}
}

// TestForwardedControlInURL: a request whose URL holds a control character is not written,
// as net/http writes none.
func TestForwardedControlInURL(t *testing.T) {
	u := &url.URL{Scheme: "http", Host: "127.0.0.1:8080", Path: "/mcp", RawQuery: "a=\x01"}
	r := &http.Request{Method: "GET", URL: u, Header: http.Header{}, Body: http.NoBody, Host: u.Host}
	if err := r.Write(io.Discard); err == nil {
		t.Fatal("net/http wrote it")
	}
	var out strings.Builder
	w := bufio.NewWriter(&out)
	err := writeForwarded(w, r, &forwarding{from: http.Header{}})
	if w.Flush(); err == nil || out.Len() > 0 {
		t.Errorf("err %v, %d bytes written; want an error and nothing written", err, out.Len())
	}
}

func TestPlainHost(t *testing.T) {
	for host, want := range map[string]bool{
		"127.0.0.1:8080": true, "localhost": true, "[::1]:80": true, "mcp.example.com:443": true, "a_b.internal": true,
		"": false, "[fe80::1%25eth0]:80": false, "bücher.example": false, "a b": false,
	} {
		if got := plainHost(host); got != want {
			t.Errorf("plainHost(%q) = %v, want %v", host, got, want)
		}
	}
}
