package proxy

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

// TestAccess: a request from a host or an origin the front does not serve (a web page
// that rebound its name to the proxy's address), or with a method it does not take, is
// answered 403 or 405, and never reaches the upstream; the others pass.
func TestAccess(t *testing.T) {
	var reached atomic.Int64
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reached.Add(1)
		if r.Method == http.MethodPost {
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":{}}`)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(upstream.Close)
	var logged bytes.Buffer
	p, err := New(Options{
		AllowHosts:   []string{"mcp.example.com", "Other.Example:8443"},
		AllowOrigins: []string{"https://app.example.com", "http://LAN.example:8080/"},
		Logger:       slog.New(slog.NewJSONHandler(&logged, nil)),
	})
	if err != nil {
		t.Fatal(err)
	}
	h, err := p.Handler(upstream.URL + "/mcp")
	if err != nil {
		t.Fatal(err)
	}
	loopback := &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 8080}
	lan := &net.TCPAddr{IP: net.IPv4(192, 168, 1, 5), Port: 8080}
	v6loopback := &net.TCPAddr{IP: net.IPv6loopback, Port: 8080}
	for _, tc := range []struct {
		name   string
		local  net.Addr // nil: none known
		method string
		host   string
		origin []string
		want   int
	}{
		{"localhost", loopback, "POST", "localhost:8080", nil, 200},
		{"127.0.0.1, another port", loopback, "POST", "127.0.0.1:1234", nil, 200},
		{"[::1]", v6loopback, "POST", "[::1]:8080", nil, 200},
		{"localhost, no port", loopback, "POST", "localhost", nil, 200},
		{"LOCALHOST, a final dot", loopback, "POST", "LOCALHOST.:8080", nil, 200},
		{"a local origin", loopback, "POST", "127.0.0.1:8080", []string{"http://localhost:3000"}, 200},
		{"an allowed origin", loopback, "POST", "localhost:8080", []string{"https://app.example.com"}, 200},
		{"an allowed origin, its default port", loopback, "POST", "localhost:8080", []string{"https://app.example.com:443"}, 200},
		{"an allowed origin with a port", loopback, "POST", "localhost:8080", []string{"http://lan.example:8080"}, 200},
		{"an allowed host", loopback, "POST", "MCP.example.com:9000", nil, 200},
		{"an allowed host and port", loopback, "POST", "other.example:8443", nil, 200},
		{"GET", loopback, "GET", "localhost:8080", nil, 204},
		{"DELETE", loopback, "DELETE", "localhost:8080", nil, 204},

		{"a rebound name", loopback, "POST", "evil.example:8080", nil, 403},
		{"a rebound name, no port", loopback, "GET", "evil.example", nil, 403},
		{"a name under localhost's", loopback, "POST", "localhost.evil.example:8080", nil, 403},
		{"no host", loopback, "POST", "", nil, 403},
		{"another origin", loopback, "POST", "localhost:8080", []string{"http://evil.example"}, 403},
		{"another origin, on GET", loopback, "GET", "localhost:8080", []string{"http://evil.example"}, 403},
		{"an origin on another port of an allowed one", loopback, "POST", "localhost:8080", []string{"https://app.example.com:8443"}, 403},
		{"an allowed origin's other scheme", loopback, "POST", "localhost:8080", []string{"http://app.example.com"}, 403},
		{"an opaque origin", loopback, "POST", "localhost:8080", []string{"null"}, 403},
		{"an empty origin", loopback, "POST", "localhost:8080", []string{""}, 403},
		{"two origins, one foreign", loopback, "POST", "localhost:8080", []string{"http://localhost", "http://evil.example"}, 403},
		{"a host allowed on another port", loopback, "POST", "other.example:8444", nil, 403},

		{"localhost on a LAN address", lan, "POST", "localhost:8080", nil, 403},
		{"the LAN address itself", lan, "POST", "192.168.1.5:8080", nil, 403},
		{"an allowed host on a LAN address", lan, "POST", "mcp.example.com:8080", nil, 200},
		{"a local origin on a LAN address", lan, "POST", "mcp.example.com:8080", []string{"http://localhost:3000"}, 403},
		{"no local address known", nil, "POST", "localhost:8080", nil, 403},

		{"post", loopback, "post", "localhost:8080", nil, 405},
		{"Post", loopback, "Post", "localhost:8080", nil, 405},
		{"get", loopback, "get", "localhost:8080", nil, 405},
		{"PUT", loopback, "PUT", "localhost:8080", nil, 405},
		{"PATCH", loopback, "PATCH", "localhost:8080", nil, 405},
		{"OPTIONS", loopback, "OPTIONS", "localhost:8080", []string{"http://localhost:3000"}, 405},
		{"HEAD", loopback, "HEAD", "localhost:8080", nil, 405},
		{"a made-up method", loopback, "MCP", "localhost:8080", nil, 405},
		{"a method from another origin", loopback, "PUT", "localhost:8080", []string{"http://evil.example"}, 403},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := reached.Load()
			r := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
			r.Method, r.Host = tc.method, tc.host
			r.Header.Set("Content-Type", "application/json")
			for _, o := range tc.origin {
				r.Header.Add("Origin", o)
			}
			if tc.local != nil {
				r = r.WithContext(context.WithValue(r.Context(), http.LocalAddrContextKey, tc.local))
			}
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			if w.Code != tc.want {
				t.Fatalf("status %d, want %d: %s", w.Code, tc.want, w.Body)
			}
			if n := reached.Load() - before; tc.want >= 400 && n != 0 || tc.want < 400 && n != 1 {
				t.Fatalf("%d requests reached the upstream", n)
			}
			if tc.want == http.StatusMethodNotAllowed && w.Header().Get("Allow") != "GET, POST, DELETE" {
				t.Fatalf("Allow: %q", w.Header().Get("Allow"))
			}
		})
	}
	if !strings.Contains(logged.String(), `"host":"evil.example:8080"`) || !strings.Contains(logged.String(), `"origin":"http://evil.example"`) {
		t.Errorf("the refusals were not logged:\n%s", logged.String())
	}
}

// TestAccessOptions refuses hosts and origins that are not ones.
func TestAccessOptions(t *testing.T) {
	for _, o := range []Options{
		{AllowHosts: []string{""}},
		{AllowHosts: []string{"http://mcp.example.com"}},
		{AllowHosts: []string{"mcp.example.com/mcp"}},
		{AllowHosts: []string{"mcp.example.com:port"}},
		{AllowHosts: []string{"*"}},
		{AllowHosts: []string{"*.example.com"}},
		{AllowHosts: []string{"user@mcp.example.com"}},
		{AllowOrigins: []string{"app.example.com"}},
		{AllowOrigins: []string{"ftp://app.example.com"}},
		{AllowOrigins: []string{"https://app.example.com/path"}},
		{AllowOrigins: []string{"null"}},
		{AllowOrigins: []string{"*"}},
	} {
		p, err := New(o)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := p.Handler("http://127.0.0.1:1/mcp"); err == nil {
			t.Errorf("%q %q: no error", o.AllowHosts, o.AllowOrigins)
		}
	}
}

// localRequest is a request to the front's endpoint on a loopback connection, as a
// client on the same host sends it.
func localRequest(method string, body io.Reader) *http.Request {
	r := httptest.NewRequest(method, "/mcp", body)
	r.Host = "127.0.0.1:8080"
	return r.WithContext(context.WithValue(r.Context(), http.LocalAddrContextKey, &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 8080}))
}
