package proxy

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"

	"github.com/mcpvalidate/mcpvalidate/guard"
)

// servedList is a tools/list result of tools Gemini's parameters would refuse: one the
// proxy can serve rewritten, one it cannot (an array of anything), one it takes as is.
const servedList = `{"tools":[` +
	`{"name":"fetch","description":"Fetch a page","inputSchema":{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"url":{"type":"string","format":"uri"},"tries":{"type":["integer","null"],"exclusiveMinimum":0}},"required":["url"],"additionalProperties":false}},` +
	`{"name":"bag","inputSchema":{"type":"object","properties":{"items":{"type":"array"}}}},` +
	`{"name":"plain","inputSchema":{"type":"object","properties":{"q":{"type":"string"}}}}` +
	`],"nextCursor":"n"}`

// TestSchemasFor: under Options.SchemasFor, the client gets each tool's schema as the
// provider takes it, where that loses nothing the proxy does not check; calls are checked
// against the server's schemas, a call that breaks a constraint moved into a description
// refused with the usual message; a tool that cannot be served so goes as it was, and is
// logged.
func TestSchemasFor(t *testing.T) {
	var log bytes.Buffer
	h := newHarness(t, Options{SchemasFor: guard.Gemini, Logger: slog.New(slog.NewJSONHandler(&log, nil))})
	h.clientPasses(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	h.server(`{"jsonrpc":"2.0","id":1,"result":` + servedList + `}`)
	want := `{"jsonrpc":"2.0","id":1,"result":{"tools":[` +
		`{"name":"fetch","description":"Fetch a page","inputSchema":{"type":"object","properties":{"url":{"type":"string","description":"The server checks: format uri."},"tries":{"type":"integer","nullable":true,"description":"The server checks: exclusiveMinimum 0."}},"required":["url"],"description":"The server checks: no other properties."}},` +
		`{"name":"bag","inputSchema":{"type":"object","properties":{"items":{"type":"array"}}}},` +
		`{"name":"plain","inputSchema":{"type":"object","properties":{"q":{"type":"string"}}}}` +
		`],"nextCursor":"n"}}`
	got := h.clientGets()
	if got != want {
		t.Fatalf("the client got\n%s\nwant\n%s", got, want)
	}
	if !strings.Contains(log.String(), `"tool":"bag"`) || strings.Count(log.String(), "cannot be served") != 1 {
		t.Errorf("log %s; want one line of bag", log.String())
	}
	// What the client got, Gemini takes.
	for _, tool := range []string{"fetch", "plain"} {
		var schema []byte
		elements(member(member([]byte(got), "result"), "tools"), func(e []byte) {
			if name, _ := stringValue(member(e, "name")); name == tool {
				schema = member(e, "inputSchema")
			}
		})
		advice, err := guard.LintFor(guard.Gemini, schema)
		if err != nil || len(advice) > 0 {
			t.Errorf("%s: LintFor gemini: %v %v", tool, advice, err)
		}
	}
	// Calls are checked against the server's schemas: the moved format and bound, and the
	// closed object, still refuse.
	h.client(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"fetch","arguments":{"url":"not a uri","tries":0,"x":1}}}`)
	refusal := h.clientGets()
	for _, part := range []string{"Invalid arguments", "'url'", "'tries'", "unexpected property 'x'"} {
		if !strings.Contains(refusal, part) {
			t.Errorf("refusal %s lacks %s", refusal, part)
		}
	}
	h.clientPasses(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"fetch","arguments":{"url":"https://example.com/","tries":null}}}`)
}
