package proxy

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// A protocol is how a client makes its session speak a protocol version: the initialize
// it sends, if any (the server answers with the version), and the _meta its requests
// carry (2026-07-28 on, in place of initialize).
type protocol struct {
	name    string
	version string // what the server answers to initialize; "" when there is none
	meta    string // the params' _meta member with its comma, or ""
	modern  bool   // its results carry resultType
}

var protocols = []protocol{
	{name: "no initialize"},
	{name: "2025-06-18", version: "2025-06-18"},
	{name: "2025-11-25", version: "2025-11-25"},
	{name: "2026-07-28 in _meta", meta: `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"},`, modern: true},
	{name: "2026-07-28 in _meta of a 2025-11-25 session", version: "2025-11-25", meta: `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"},`, modern: true},
	{name: "a later version in _meta", meta: `"_meta":{"io.modelcontextprotocol/protocolVersion":"2027-03-01"},`, modern: true},
	{name: "2026-07-28 negotiated", version: "2026-07-28", modern: true},
	{name: "not a date in _meta", meta: `"_meta":{"io.modelcontextprotocol/protocolVersion":"9999"},`},
}

// start has the client of h open its session in protocol pr and list the tools.
func (pr protocol) start(h *harness) {
	h.t.Helper()
	if pr.version != "" {
		h.clientPasses(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"` + pr.version + `","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`)
		h.serverPasses(`{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"` + pr.version + `","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}}`)
	}
	h.listed()
}

// response decodes a JSON-RPC response line.
func response(t *testing.T, line string) (result, rpcErr map[string]any) {
	t.Helper()
	var r struct {
		Result map[string]any `json:"result"`
		Error  map[string]any `json:"error"`
	}
	if err := json.Unmarshal([]byte(line), &r); err != nil {
		t.Fatalf("the client got %s: %v", line, err)
	}
	return r.Result, r.Error
}

// isRefusal checks that result is an isError tool result of a text starting with prefix,
// with resultType "complete" exactly when modern, and returns its text.
func isRefusal(t *testing.T, line string, result map[string]any, prefix string, modern bool) {
	t.Helper()
	if result == nil || result["isError"] != true {
		t.Fatalf("the client got %s, want an isError result", line)
	}
	content, _ := result["content"].([]any)
	first, _ := content[0].(map[string]any)
	if text, _ := first["text"].(string); !strings.HasPrefix(text, prefix) {
		t.Errorf("the refusal says %q, want %q…", text, prefix)
	}
	rt, has := result["resultType"]
	if modern && rt != "complete" || !modern && has {
		t.Errorf("the client got %s: resultType %v, want it only on 2026-07-28 on", line, rt)
	}
}

// TestRefusalShapes answers each refusal in the shape the client's protocol expects: a
// task-augmented call is refused with JSON-RPC error -32602 under the 2025-11-25 tasks
// (whose client expects a task, not a tool result), the refusal's text as the message
// and its violations as data; every result the proxy writes (a refusal, a result
// withheld, of a call or a task) carries resultType "complete" on 2026-07-28 and later,
// and nothing before.
func TestRefusalShapes(t *testing.T) {
	for _, pr := range protocols {
		t.Run(pr.name, func(t *testing.T) {
			h := newHarness(t, Options{Output: true})
			pr.start(h)
			call := func(id, params string) string {
				return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{` + pr.meta + params + `}}`
			}

			h.client(call(`"plain"`, `"name":"weather","arguments":{}`))
			got := h.clientGets()
			result, _ := response(t, got)
			isRefusal(t, got, result, "Invalid arguments: missing required property 'location'", pr.modern)
			if meta, _ := result["_meta"].(map[string]any); meta["com.github.mcpvalidate/violations"] == nil {
				t.Errorf("the refusal %s carries no violations", got)
			}

			for _, c := range []struct{ params, text string }{
				{`"name":"weather","arguments":{},"task":{"ttl":60000}`, "Invalid arguments: missing required property 'location'"},
				{`"name":"broken","arguments":{},"task":{}`, "This tool cannot be called: its input schema is invalid"},
			} {
				h.client(call(`"task"`, c.params))
				got := h.clientGets()
				result, rpcErr := response(t, got)
				if pr.modern {
					isRefusal(t, got, result, c.text, true)
					continue
				}
				if rpcErr == nil || rpcErr["code"] != -32602.0 {
					t.Fatalf("the client got %s, want error -32602", got)
				}
				if msg, _ := rpcErr["message"].(string); !strings.HasPrefix(msg, c.text) {
					t.Errorf("the error says %q, want %q…", msg, c.text)
				}
				data, _ := rpcErr["data"].(map[string]any)
				if strings.HasPrefix(c.text, "Invalid arguments") {
					ours, _ := data["com.github.mcpvalidate/violations"].(map[string]any)
					if vs, _ := ours["violations"].([]any); ours["of"] != "arguments" || len(vs) != 1 {
						t.Errorf("the error's data is %v, want the violations", data)
					}
				}
			}

			// A result withheld: of a call, then of a task, fetched with tasks/result.
			h.clientPasses(call("2", `"name":"sum","arguments":{}`))
			h.server(`{"jsonrpc":"2.0","id":2,"result":{"content":[],"structuredContent":{"n":"one"}}}`)
			got = h.clientGets()
			result, _ = response(t, got)
			isRefusal(t, got, result, "The tool failed on the server's side", pr.modern)

			h.clientPasses(call("3", `"name":"sum","arguments":{},"task":{}`))
			h.serverPasses(taskCreated("3", `"t1"`))
			h.clientPasses(`{"jsonrpc":"2.0","id":4,"method":"tasks/result","params":{` + pr.meta + `"taskId":"t1"}}`)
			h.server(taskPayload("4", `"one"`))
			got = h.clientGets()
			result, _ = response(t, got)
			isRefusal(t, got, result, "The tool failed on the server's side", pr.modern)
		})
	}
}

// TestRetriedCallIsChecked checks a call retried with the answers to the server's input
// requests (2026-07-28's multi round-trip) on its arguments again, and never reads
// inputResponses or requestState as arguments.
func TestRetriedCallIsChecked(t *testing.T) {
	const meta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"},`
	for _, c := range []struct {
		name, params string
		refused      bool
	}{
		{"valid", `"name":"weather","arguments":{"location":"Oslo"},"inputResponses":{"unit":{"action":"accept","content":{"units":"x"}}},"requestState":"s1"`, false},
		{"invalid arguments", `"name":"weather","arguments":{"location":""},"inputResponses":{"unit":{"action":"accept","content":{"location":"Oslo"}}},"requestState":"s1"`, true},
		{"arguments only in inputResponses", `"name":"weather","inputResponses":{"arguments":{"location":"Oslo"}},"requestState":"s1"`, true},
		{"arguments only in requestState", `"name":"weather","requestState":{"arguments":{"location":"Oslo"}}`, true},
		{"valid, answers that break the schema", `"name":"weather","inputResponses":{"days":{"action":"accept","content":{"days":"many"}}},"requestState":"{\"location\":1}","arguments":{"location":"Oslo","days":2}`, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := newHarness(t, Options{})
			h.listed()
			line := `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{` + meta + c.params + `}}`
			if !c.refused {
				h.clientPasses(line)
				h.serverPasses(`{"jsonrpc":"2.0","id":5,"result":{"resultType":"complete","content":[]}}`)
				return
			}
			h.client(line)
			got := h.clientGets()
			result, _ := response(t, got)
			isRefusal(t, got, result, "Invalid arguments: ", true)
		})
	}
}

// TestInterceptorResultType gives the intercepted call's refusal resultType "complete"
// when the call's _meta declares 2026-07-28 or later, and none otherwise.
func TestInterceptorResultType(t *testing.T) {
	p, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	in, err := p.Interceptor([]byte(toolsList))
	if err != nil {
		t.Fatal(err)
	}
	for _, pr := range protocols {
		if pr.version != "" {
			continue // the gateway's call carries no initialize
		}
		t.Run(pr.name, func(t *testing.T) {
			for _, msg := range []string{
				`{"Params":{` + pr.meta + `"name":"weather","arguments":{}}}`,
				`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{` + pr.meta + `"name":"weather","arguments":{}}}`,
			} {
				out, err := in.Intercept([]byte(msg))
				if err != nil {
					t.Fatal(err)
				}
				var result map[string]any
				if err := json.Unmarshal(out, &result); err != nil {
					t.Fatalf("%s: %v", out, err)
				}
				isRefusal(t, string(out), result, "Invalid arguments: ", pr.modern)
			}
		})
	}
}

// TestRefusalAsErrorUnchanged: under RefuseAsError every refusal is the JSON-RPC error,
// in every protocol, task or not.
func TestRefusalAsErrorUnchanged(t *testing.T) {
	for _, pr := range protocols {
		t.Run(pr.name, func(t *testing.T) {
			h := newHarness(t, Options{RefuseAsError: true})
			pr.start(h)
			for _, task := range []string{``, `,"task":{}`} {
				h.client(`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{` + pr.meta + `"name":"weather","arguments":{}` + task + `}}`)
				got := h.clientGets()
				result, rpcErr := response(t, got)
				if result != nil || !reflect.DeepEqual(rpcErr["code"], -32602.0) {
					t.Fatalf("the client got %s", got)
				}
			}
		})
	}
}
