package mcpvalidate

// How the adapter meets the guard's cache: mcp-go tools and session tools that declare the
// same schema, each from values of its own, share one compilation. The cache's own
// budget, eviction and counters are tested in internal/core.

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// enumTool is a tool with a 5,000-value enum, built afresh on each call as a session
// would build its own copy: the same schema text from values of its own.
func enumTool(name string) mcp.Tool {
	values := make([]string, 5000)
	for i := range values {
		values[i] = fmt.Sprintf("value-%d", i)
	}
	return mcp.NewTool(name, mcp.WithString("e", mcp.Enum(values...), mcp.Required()))
}

// enumSessions registers n sessions, each with its own copy of enumTool("pick").
func enumSessions(t testing.TB, srv *server.MCPServer, n int) []*toolSession {
	t.Helper()
	var sessions []*toolSession
	for i := range n {
		s := &toolSession{id: fmt.Sprint("s", i), ch: make(chan mcp.JSONRPCNotification, 10)}
		if err := srv.RegisterSession(context.Background(), s); err != nil {
			t.Fatal(err)
		}
		if err := srv.AddSessionTool(s.id, enumTool("pick"), forecast(new(atomic.Int64))); err != nil {
			t.Fatal(err)
		}
		sessions = append(sessions, s)
	}
	return sessions
}

func TestSchemaCompiledOncePerText(t *testing.T) {
	g := New()
	srv, _ := weatherServer(t, g)
	sessions := enumSessions(t, srv, 6)
	srv.AddTool(enumTool("choose"), forecast(new(atomic.Int64)))
	for range 3 {
		for _, s := range sessions {
			if text, isErr := invoke(t, srv, s, "pick", map[string]any{"e": "value-4999"}); isErr {
				t.Fatalf("session %s: %s", s.id, text)
			}
			if text, _ := invoke(t, srv, s, "pick", map[string]any{"e": "nope"}); text == "" {
				t.Fatalf("session %s: invalid call accepted", s.id)
			}
		}
		if _, isErr := invoke(t, srv, nil, "choose", map[string]any{"e": "value-0"}); isErr {
			t.Fatal("server tool refused a valid call")
		}
	}
	if st := g.core.CacheStats(); st.Compiled != 1 || st.Texts != 1 || st.Bindings != 7 {
		t.Errorf("7 tools with one schema text: %+v, want 1 compilation, 1 text and 7 bindings", st)
	}
}

// BenchmarkSessionTools calls a tool with a 5,000-value enum that each of 8 sessions
// registered as its own copy, round robin: the schema is compiled once for all of them.
func BenchmarkSessionTools(b *testing.B) {
	g := New()
	srv, _ := weatherServer(b, g)
	sessions := enumSessions(b, srv, 8)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		invoke(b, srv, sessions[i%len(sessions)], "pick", map[string]any{"e": "value-4999"})
		i++
	}
}

// BenchmarkCompileEnum compiles the 5,000-value enum tool's schema as the middleware does:
// its text made from the tool's values, then compiled.
func BenchmarkCompileEnum(b *testing.B) {
	tool := enumTool("pick")
	b.ReportAllocs()
	for b.Loop() {
		text, err := schemaOf(&tool)
		if err == nil {
			_, err = Compile(text)
		}
		if err != nil {
			b.Fatal(err)
		}
	}
}
