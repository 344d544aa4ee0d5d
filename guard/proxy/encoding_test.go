package proxy

import (
	"bytes"
	"compress/flate"
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

// encodedUpstream starts an MCP endpoint that lists toolsList, answers a call of sum with
// a structuredContent that breaks its outputSchema, and encodes its answers as encode
// does; calls counts the tools/call requests that reach it. It takes gzipped requests.
func encodedUpstream(t *testing.T, encode func(r *http.Request, w http.ResponseWriter, body []byte)) (url string, calls *atomic.Int64) {
	calls = new(atomic.Int64)
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var in io.Reader = r.Body
		if r.Header.Get("Content-Encoding") == "gzip" {
			z, err := gzip.NewReader(r.Body)
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			in = z
		}
		body, _ := io.ReadAll(in)
		var answer string
		switch b := string(body); {
		case strings.Contains(b, `"tools/list"`):
			id := b[strings.Index(b, `"id":`)+len(`"id":`) : strings.Index(b, `,"method"`)]
			answer = `{"jsonrpc":"2.0","id":` + id + `,"result":` + toolsList + `}`
		case strings.Contains(b, `"tools/call"`):
			calls.Add(1)
			answer = `{"jsonrpc":"2.0","id":2,"result":{"content":[],"structuredContent":{"n":"one"}}}`
		default:
			answer = `{"jsonrpc":"2.0","id":3,"result":{}}`
		}
		w.Header().Set("Content-Type", "application/json")
		encode(r, w, []byte(answer))
	}))
	t.Cleanup(upstream.Close)
	return upstream.URL + "/mcp", calls
}

// gzipped returns b gzipped.
func gzipped(b []byte) []byte {
	var buf bytes.Buffer
	z := gzip.NewWriter(&buf)
	z.Write(b)
	z.Close()
	return buf.Bytes()
}

// postRaw posts body to endpoint with header, as a client that asks for every encoding
// and decodes none itself, and returns the status and the body as it came.
func postRaw(t *testing.T, endpoint, body string, header http.Header) (int, http.Header, string) {
	t.Helper()
	req, _ := http.NewRequest("POST", endpoint, strings.NewReader(body))
	req.Header = header.Clone()
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Accept-Encoding", "gzip, deflate, br")
	resp, err := (&http.Client{Transport: &http.Transport{DisableCompression: true}}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, string(b)
}

// TestHTTPEncodedAnswers: the upstream's answers reach the proxy as it can read them,
// whatever the client accepts, and are checked; an answer encoded in a way the proxy did
// not ask for goes no further.
func TestHTTPEncodedAnswers(t *testing.T) {
	const (
		list       = `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`
		invalid    = `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"weather","arguments":{}}}`
		breaksSum  = `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"sum","arguments":{}}}`
		refusedSum = `{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"The tool failed on the server's side`
	)
	t.Run("gzip when asked", func(t *testing.T) {
		upstream, calls := encodedUpstream(t, func(r *http.Request, w http.ResponseWriter, body []byte) {
			if strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
				w.Header().Set("Content-Encoding", "gzip")
				body = gzipped(body)
			}
			w.Write(body)
		})
		endpoint := startFront(t, upstream, Options{Output: true})
		for _, listFirst := range []bool{true, false} {
			session := http.Header{sessionHeader: {"listed"}}
			if listFirst {
				if status, h, got := postRaw(t, endpoint, list, session); status != 200 || h.Get("Content-Encoding") != "" || !strings.Contains(got, `"name":"sum"`) {
					t.Fatalf("tools/list: %d %v %.200q", status, h, got)
				}
			} else {
				session = http.Header{sessionHeader: {"fetched"}} // the proxy lists the tools itself
			}
			if status, _, got := postRaw(t, endpoint, invalid, session); status != 200 || !strings.Contains(got, `"text":"Invalid arguments:`) {
				t.Fatalf("an invalid call (listed first: %v): %d %.200q", listFirst, status, got)
			}
			if status, _, got := postRaw(t, endpoint, breaksSum, session); status != 200 || !strings.HasPrefix(got, refusedSum) {
				t.Fatalf("a result that breaks the outputSchema (listed first: %v): %d %.200q", listFirst, status, got)
			}
		}
		if n := calls.Load(); n != 2 {
			t.Fatalf("%d calls reached the upstream, want the 2 valid ones", n)
		}
	})
	for _, coding := range []string{"deflate", "br"} {
		t.Run(coding+" unasked", func(t *testing.T) {
			upstream, calls := encodedUpstream(t, func(r *http.Request, w http.ResponseWriter, body []byte) {
				w.Header().Set("Content-Encoding", coding)
				z, _ := flate.NewWriter(w, flate.DefaultCompression)
				z.Write(body)
				z.Close()
			})
			endpoint := startFront(t, upstream, Options{Output: true})
			if status, _, got := postRaw(t, endpoint, list, http.Header{}); status != 200 || !strings.HasPrefix(got, `{"jsonrpc":"2.0","id":1,"error":{"code":-32603,`) ||
				!strings.Contains(got, "encoded ("+coding+")") {
				t.Fatalf("%s: %d %.200q", list, status, got)
			}
			// The proxy cannot read the tool list to check the call: it answers it, and
			// the call never reaches the upstream.
			status, _, got := postRaw(t, endpoint, breaksSum, http.Header{})
			if status != 200 || !strings.Contains(got, `"isError":true`) || !strings.Contains(got, "could not be checked") ||
				!strings.Contains(got, "encoded ("+coding+")") {
				t.Fatalf("%s: %d %.300q", breaksSum, status, got)
			}
			if n := calls.Load(); n != 0 {
				t.Fatalf("%d calls reached the upstream, want none", n)
			}
		})
	}
}

// TestHTTPEncodedRequests: a POST whose body is encoded is refused with 415, unread,
// and never reaches the upstream, however large it would be decoded.
func TestHTTPEncodedRequests(t *testing.T) {
	upstream, calls := encodedUpstream(t, func(_ *http.Request, w http.ResponseWriter, body []byte) { w.Write(body) })
	endpoint := startFront(t, upstream, Options{})
	invalid := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"weather","arguments":{}}}`
	if status, _, got := postRaw(t, upstream, string(gzipped([]byte(invalid))), http.Header{"Content-Encoding": {"gzip"}}); status != 200 || calls.Load() != 1 {
		t.Fatalf("the upstream does not take gzipped calls: %d %.200q", status, got)
	}
	calls.Store(0)
	for _, coding := range []string{"gzip", "deflate", "br", "identity, gzip", "GZIP"} {
		status, _, got := postRaw(t, endpoint, string(gzipped([]byte(invalid))), http.Header{"Content-Encoding": {coding}})
		if status != http.StatusUnsupportedMediaType || !strings.Contains(got, "the request body is encoded") {
			t.Fatalf("%s: %d %.200q", coding, status, got)
		}
	}
	if status, _, got := postRaw(t, endpoint, invalid, http.Header{"Content-Encoding": {"identity"}}); status != 200 || !strings.Contains(got, `"text":"Invalid arguments:`) {
		t.Fatalf("identity: %d %.200q", status, got)
	}
	// A gzip bomb: 1 GB of zeros in 1024 members of 1 MB each, about 1 MB sent.
	member := gzipped(make([]byte, 1<<20))
	bomb := bytes.Repeat(member, 1024)
	p, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	h, err := p.Handler(upstream)
	if err != nil {
		t.Fatal(err)
	}
	var rec *httptest.ResponseRecorder
	allocated := allocatedBy(func() {
		req := localRequest("POST", bytes.NewReader(bomb))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Content-Encoding", "gzip")
		rec = httptest.NewRecorder()
		h.ServeHTTP(rec, req)
	}, 4)
	if rec.Code != http.StatusUnsupportedMediaType || allocated > 64<<10 {
		t.Fatalf("a gzip bomb of %d bytes: %d, %d bytes allocated", len(bomb), rec.Code, allocated)
	}
	if n := calls.Load(); n != 0 {
		t.Fatalf("%d calls reached the upstream", n)
	}
}
