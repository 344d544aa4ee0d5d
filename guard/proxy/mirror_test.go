package proxy

import (
	"encoding/base64"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

// mirroringUpstream is a session-less upstream whose tool sql marks its arguments region,
// target.zone and dry with x-mcp-header, and one of its nested properties through
// items (which MCP does not mirror). It counts the requests other than tools/list that
// reach it, and keeps the headers of its last tools/list.
type mirroringUpstream struct {
	reached atomic.Int64
	listed  atomic.Pointer[http.Header]
}

const mirroringTools = `{"tools":[{"name":"sql","inputSchema":{"type":"object","properties":{` +
	`"region":{"type":"string","x-mcp-header":"Region"},` +
	`"target":{"type":"object","properties":{"zone":{"type":"integer","x-mcp-header":"Zone"}}},` +
	`"dry":{"type":"boolean","x-mcp-header":"Dry"},` +
	`"rows":{"type":"array","items":{"properties":{"k":{"type":"string","x-mcp-header":"K"}}}},` +
	`"query":{"type":"string"}}}}]}`

func (u *mirroringUpstream) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	m, _ := parseMessage(body)
	w.Header().Set("Content-Type", "application/json")
	if m.method == "tools/list" {
		h := r.Header.Clone()
		u.listed.Store(&h)
		io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(m.id)+`,"result":`+mirroringTools+`}`)
		return
	}
	u.reached.Add(1)
	io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(m.id)+`,"result":{"content":[]}}`)
}

// TestHTTPMirroredHeaders: a request whose Mcp-Method, Mcp-Name or Mcp-Param-{Name}
// headers say otherwise than its body is answered 400 with the HeaderMismatch error and
// never reaches the upstream, whatever the spelling (Base64, another case of the
// header's name, an integer written otherwise); headers that agree, are absent or that
// no property is marked for pass.
func TestHTTPMirroredHeaders(t *testing.T) {
	b64 := func(s string) string { return "=?base64?" + base64.StdEncoding.EncodeToString([]byte(s)) + "?=" }
	const args = `{"region":"us-west1","target":{"zone":7},"dry":false,"rows":[{"k":"a"}],"query":"q"}`
	call := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"sql","arguments":` + args + `}}`
	for _, tc := range []struct {
		name   string
		body   string
		header http.Header
		pass   bool
	}{
		{"no headers", call, nil, true},
		{"all agree", call, http.Header{"Mcp-Method": {"tools/call"}, "Mcp-Name": {"sql"}, "Mcp-Param-Region": {"us-west1"},
			"Mcp-Param-Zone": {"7"}, "Mcp-Param-Dry": {"false"}}, true},
		{"name in Base64", call, http.Header{"Mcp-Name": {b64("sql")}, "Mcp-Param-Region": {b64("us-west1")}}, true},
		{"header name in another case", call, http.Header{"mcp-param-region": {"us-west1"}}, true},
		{"an unmarked parameter", call, http.Header{"Mcp-Param-Query": {"other"}, "Mcp-Param-K": {"b"}}, true},
		{"another method", call, http.Header{"Mcp-Method": {"tools/list"}}, false},
		{"another tool", call, http.Header{"Mcp-Name": {"drop_table"}}, false},
		{"another tool in Base64", call, http.Header{"Mcp-Name": {b64("drop_table")}}, false},
		{"a name in broken Base64", call, http.Header{"Mcp-Name": {"=?base64?***?="}}, false},
		{"another region", call, http.Header{"Mcp-Param-Region": {"eu-west1"}}, false},
		{"another region in Base64", call, http.Header{"Mcp-Param-Region": {b64("eu-west1")}}, false},
		{"another nested zone", call, http.Header{"Mcp-Param-Zone": {"8"}}, false},
		{"a zone spelled as a fraction", call, http.Header{"Mcp-Param-Zone": {"7.0"}}, false},
		{"another boolean", call, http.Header{"Mcp-Param-Dry": {"true"}}, false},
		{"a header for an absent argument", strings.Replace(call, `"dry":false,`, "", 1), http.Header{"Mcp-Param-Dry": {"false"}}, false},
		{"an argument twice", strings.Replace(call, `"query":"q"`, `"Region":"eu-west1"`, 1), http.Header{"Mcp-Param-Region": {"us-west1"}}, false},
		{"an integer written otherwise in the body", strings.Replace(call, `"zone":7`, `"zone":7.0`, 1), http.Header{"Mcp-Param-Zone": {"7"}}, true},
		{"a notification of another method", `{"jsonrpc":"2.0","method":"notifications/initialized"}`, http.Header{"Mcp-Method": {"tools/call"}}, false},
		{"a ping under a tool's name", `{"jsonrpc":"2.0","id":2,"method":"ping"}`, http.Header{"Mcp-Name": {"sql"}}, false},
		{"a resource by its uri", `{"jsonrpc":"2.0","id":3,"method":"resources/read","params":{"uri":"file:///a"}}`,
			http.Header{"Mcp-Method": {"resources/read"}, "Mcp-Name": {"file:///a"}}, true},
		{"another resource", `{"jsonrpc":"2.0","id":3,"method":"resources/read","params":{"uri":"file:///a"}}`,
			http.Header{"Mcp-Name": {"file:///etc/passwd"}}, false},
		{"a name header twice", call, http.Header{"Mcp-Name": {"sql", "drop_table"}}, false},
		{"a parameter header with underscores", call, http.Header{"Mcp_Param_Region": {"eu-west1"}}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			u := &mirroringUpstream{}
			f, _ := memoryFront(t, u, Options{})
			req := localRequest("POST", strings.NewReader(tc.body))
			req.Header.Set("Content-Type", "application/json")
			for k, v := range tc.header { // as net/http reads them
				req.Header[http.CanonicalHeaderKey(k)] = v
			}
			rec := httptest.NewRecorder()
			f.ServeHTTP(rec, req)
			got := rec.Body.String()
			if reached := u.reached.Load() == 1; reached != tc.pass {
				t.Errorf("reached the upstream: %v, want %v (%d %.300s)", reached, tc.pass, rec.Code, got)
			}
			if !tc.pass && (rec.Code != http.StatusBadRequest || strings.Contains(got, `"id"`) && !strings.Contains(got, `"code":-32020`)) {
				t.Errorf("refused with %d %.300s, want 400 and -32020", rec.Code, got)
			}
			if h := u.listed.Load(); h != nil && (h.Get("Mcp-Name") != "" || h.Get("Mcp-Param-Region") != "") {
				t.Errorf("the proxy's own tools/list carried the call's mirrored headers: %v", *h)
			}
		})
	}
}
