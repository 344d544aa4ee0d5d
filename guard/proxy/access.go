package proxy

import (
	"errors"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
)

// This file decides which requests the HTTP front serves at all: those of its methods,
// named by a host it answers to and sent from an origin it allows, so that a web page
// whose name is rebound to the proxy's address (DNS rebinding) cannot reach the server
// through it.

// access is what the front allows besides loopback names, normalised.
type access struct {
	hosts   map[string]bool // "name" for any port, "name:port" for one
	origins map[string]bool // "scheme://host[:port]", without a default port
}

func newAccess(o *Options) (access, error) {
	a := access{hosts: map[string]bool{}, origins: map[string]bool{}}
	for _, h := range o.AllowHosts {
		name, port := splitHost(h)
		if !hostName(name) || !digits(port) {
			return a, errors.New("proxy: AllowHosts: " + quote(h) + " is not a host (a name, or name:port)")
		}
		a.hosts[hostKey(name, port)] = true
	}
	for _, o := range o.AllowOrigins {
		key, _ := originKey(strings.TrimSuffix(o, "/"))
		if key == "" {
			return a, errors.New("proxy: AllowOrigins: " + quote(o) + " is not an origin (http or https://host[:port])")
		}
		a.origins[key] = true
	}
	return a, nil
}

// refused returns why r, whose headers are hd, is not served: its Host or Origin not
// allowed, its method not one of MCP's, or a header the proxy decides on that the server
// might not get or read otherwise; "" when it is served.
func (a *access) refused(r *http.Request, hd *heard) (why string, status int) {
	loopback := onLoopback(r)
	if name, port := splitHost(r.Host); !(loopback && isLoopbackName(name) || a.hosts[name] || a.hosts[hostKey(name, port)]) {
		return "mcpvalidate proxy: the host " + quote(r.Host) + " is not one the proxy answers to", http.StatusForbidden
	}
	for _, o := range r.Header["Origin"] {
		key, name := originKey(o)
		if key == "" || !(loopback && isLoopbackName(name) || a.origins[key]) {
			return "mcpvalidate proxy: requests from the origin " + quote(o) + " are not served", http.StatusForbidden
		}
	}
	switch r.Method {
	case http.MethodPost, http.MethodGet, http.MethodDelete:
	default:
		return "mcpvalidate proxy: the method " + quote(r.Method) + " is not one of MCP's", http.StatusMethodNotAllowed
	}
	if name := dropped(r.Header, hd); name != "" {
		return "mcpvalidate proxy: the header " + quote(name) + " is named in Connection, so the server would not get the value the proxy decides on", http.StatusBadRequest
	}
	if name := hd.twoWays; name != "" {
		return "mcpvalidate proxy: the header " + quote(name) + " comes twice, or spelled two ways, so the server might read another value than the proxy", http.StatusBadRequest
	}
	return "", 0
}

// decided reports whether the header name (canonical) is one whose value the proxy
// decides on, with those that mirror the body (mirrorHeader).
func decided(name string) bool {
	switch name {
	case "Mcp-Session-Id", "Mcp-Protocol-Version", "Last-Event-Id":
		return true
	}
	return false
}

// twoWays reports whether the header name, of the values vs, is one the proxy decides on
// that servers may read otherwise: with two values, or named with '_' for '-' (which
// CGI-style servers read as the same).
func twoWays(name string, vs []string) bool {
	if !mayDecide(name) {
		return false
	}
	canon := name
	if !decided(name) && !mirrorHeader(name) { // not spelled as it is read
		canon = http.CanonicalHeaderKey(strings.ReplaceAll(name, "_", "-"))
	}
	return (decided(canon) || mirrorHeader(canon)) && (len(vs) > 1 || name != canon)
}

// mayDecide reports whether the header name may be one the proxy decides on, in any case
// and with '_' for '-': whether it begins so. Most headers do not, and cost no more.
func mayDecide(name string) bool {
	return dashedPrefix(name, "mcp-") || dashedPrefix(name, "last-event-")
}

// dashedPrefix reports whether s begins with prefix, lower-case ASCII, in any case and with
// '_' for '-'.
func dashedPrefix(s, prefix string) bool {
	if len(s) < len(prefix) {
		return false
	}
	for i := 0; i < len(prefix); i++ {
		if c := s[i]; c|0x20 != prefix[i] && !(c == '_' && prefix[i] == '-') {
			return false
		}
	}
	return true
}

// dropped returns a header the proxy decides on that h's Connection header names as one
// of the connection's, which the proxy does not send on; "" when there is none. hd is
// what was heard of h.
func dropped(h http.Header, hd *heard) string {
	if len(hd.connection) == 0 || !hd.decides {
		return ""
	}
	hop := namesIn(hd.connection)
	for name := range h {
		if !mayDecide(name) {
			continue
		}
		if canon := http.CanonicalHeaderKey(name); (decided(canon) || mirrorHeader(canon)) && hop.has(name) {
			return name
		}
	}
	return ""
}

// onLoopback reports whether r came on a connection to a loopback address.
func onLoopback(r *http.Request) bool {
	addr, ok := r.Context().Value(http.LocalAddrContextKey).(*net.TCPAddr)
	return ok && addr.IP.IsLoopback()
}

// isLoopbackName reports whether name, a host name without its port, names this host's
// loopback interface whatever DNS says: localhost or a loopback address.
func isLoopbackName(name string) bool {
	switch name {
	case "localhost", "127.0.0.1", "::1": // as most clients write it: no parse
		return true
	}
	ip, err := netip.ParseAddr(name)
	return err == nil && ip.IsLoopback()
}

// splitHost splits a Host header's value, or an allowed host, into its name, lowercased,
// without brackets or a final dot, and its port, "" when it has none.
func splitHost(hostport string) (name, port string) {
	name, port, err := net.SplitHostPort(hostport)
	if err != nil {
		name, port = strings.TrimSuffix(strings.TrimPrefix(hostport, "["), "]"), ""
	}
	return strings.TrimSuffix(strings.ToLower(name), "."), port
}

func hostKey(name, port string) string {
	if port == "" {
		return name
	}
	return net.JoinHostPort(name, port)
}

// originKey returns an origin's key, "scheme://host[:port]" lowercased and without the
// scheme's default port, and its host's name; "" for what is not an http or https origin
// ("null", an origin with a path).
func originKey(origin string) (key, name string) {
	u, err := url.Parse(origin)
	if err != nil || u.Scheme != "http" && u.Scheme != "https" || u.Host == "" || u.User != nil ||
		u.Path != "" || u.RawQuery != "" || u.Fragment != "" || u.Opaque != "" || !digits(u.Port()) {
		return "", ""
	}
	scheme := strings.ToLower(u.Scheme)
	name, port := splitHost(u.Host)
	if scheme == "http" && port == "80" || scheme == "https" && port == "443" {
		port = ""
	}
	return scheme + "://" + hostKey(name, port), name
}

// hostName reports whether name is an IP address or a DNS name: letters, digits, '-',
// '_' and dots.
func hostName(name string) bool {
	if _, err := netip.ParseAddr(name); err == nil {
		return true
	}
	for _, c := range []byte(name) {
		if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-' || c == '_' || c == '.') {
			return false
		}
	}
	return name != ""
}

func digits(s string) bool {
	for _, c := range []byte(s) {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// quote quotes s for a message, at most 100 bytes of it.
func quote(s string) string { return strconv.Quote(bounded(s)) }

// bounded returns s, or its first 100 bytes when it is longer.
func bounded(s string) string {
	if len(s) > 100 {
		return s[:100] + "..."
	}
	return s
}
