package mcpvalidate

// How the adapter meets the guard's cache: mcp-go tools and session tools that declare the
// same schema, each from values of its own, share one compilation. The cache's own
// budget, eviction and counters are tested in package guard.

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/mcpvalidate/mcpvalidate/guard"
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

// listedSchema returns the inputSchema tools/list advertises for the tool name.
func listedSchema(t *testing.T, srv *server.MCPServer, name string) []byte {
	t.Helper()
	out, _ := json.Marshal(srv.HandleMessage(context.Background(), []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)))
	var list struct {
		Result struct {
			Tools []struct {
				Name        string
				InputSchema json.RawMessage
			}
		}
	}
	if err := json.Unmarshal(out, &list); err != nil {
		t.Fatal(err)
	}
	for _, tool := range list.Result.Tools {
		if tool.Name == name {
			return tool.InputSchema
		}
	}
	t.Fatalf("tools/list lacks %s: %s", name, out)
	return nil
}

// TestInPlaceSchemaChanges: a tool whose schema values change in place, registered again
// or not, has its calls checked against the schema tools/list then shows, never the one
// bound before the change.
func TestInPlaceSchemaChanges(t *testing.T) {
	prop := func(tool *mcp.Tool, name string) map[string]any {
		return tool.InputSchema.Properties[name].(map[string]any)
	}
	cases := []struct {
		name   string
		tool   func() mcp.Tool
		change func(*mcp.Tool)
		probe  map[string]any // valid before the change, invalid after
	}{
		{"a bound tightened", func() mcp.Tool { return mcp.NewTool("t", mcp.WithNumber("amount", mcp.Max(1e9))) },
			func(tool *mcp.Tool) { prop(tool, "amount")["maximum"] = 10.0 }, map[string]any{"amount": 1000000}},
		{"an enum's value replaced", func() mcp.Tool { return mcp.NewTool("t", mcp.WithString("unit", mcp.Enum("c", "f"))) },
			func(tool *mcp.Tool) { prop(tool, "unit")["enum"].([]string)[0] = "k" }, map[string]any{"unit": "c"}},
		{"a property added", func() mcp.Tool { return mcp.NewTool("t", mcp.WithString("a")) },
			func(tool *mcp.Tool) { tool.InputSchema.Properties["n"] = map[string]any{"type": "integer"} }, map[string]any{"n": "x"}},
		{"a required name replaced", func() mcp.Tool { return mcp.NewTool("t", mcp.WithString("a", mcp.Required()), mcp.WithString("b")) },
			func(tool *mcp.Tool) { tool.InputSchema.Required[0] = "b" }, map[string]any{"a": "x"}},
		{"additionalProperties changed", func() mcp.Tool {
			tool := mcp.NewTool("t", mcp.WithString("a"))
			tool.InputSchema.AdditionalProperties = map[string]any{"type": "string"}
			return tool
		}, func(tool *mcp.Tool) { tool.InputSchema.AdditionalProperties.(map[string]any)["type"] = "integer" }, map[string]any{"z": "x"}},
		{"a definition changed", func() mcp.Tool {
			tool := mcp.NewTool("t")
			tool.InputSchema.Properties = map[string]any{"x": map[string]any{"$ref": "#/$defs/n"}}
			tool.InputSchema.Defs = map[string]any{"n": map[string]any{"type": "string"}}
			return tool
		}, func(tool *mcp.Tool) { tool.InputSchema.Defs["n"].(map[string]any)["type"] = "integer" }, map[string]any{"x": "s"}},
		{"a nested list changed", func() mcp.Tool {
			return mcp.NewTool("t", mcp.WithArray("xs", mcp.Items(map[string]any{"anyOf": []any{map[string]any{"type": "string"}}})))
		}, func(tool *mcp.Tool) {
			prop(tool, "xs")["items"].(map[string]any)["anyOf"].([]any)[0] = map[string]any{"type": "integer"}
		}, map[string]any{"xs": []any{"s"}}},
		{"raw bytes rewritten", func() mcp.Tool {
			return mcp.NewToolWithRawSchema("t", "", json.RawMessage(`{"type":"object","properties":{"n":{"maximum":9}}}`))
		}, func(tool *mcp.Tool) { copy(tool.RawInputSchema, `{"type":"object","properties":{"n":{"maximum":1}}}`) }, map[string]any{"n": 5}},
	}
	for _, c := range cases {
		for _, again := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s, registered again %v", c.name, again), func(t *testing.T) {
				g := New()
				srv, calls := weatherServer(t, g)
				tool := c.tool()
				srv.AddTool(tool, forecast(calls))
				if text, isErr := invoke(t, srv, nil, "t", c.probe); isErr {
					t.Fatalf("refused before the change: %s", text)
				}
				c.change(&tool)
				if again {
					srv.AddTool(tool, forecast(calls))
				}
				listed, err := Compile(listedSchema(t, srv, "t"))
				if err != nil {
					t.Fatal(err)
				}
				args, _ := json.Marshal(c.probe)
				if listed.Validate(args) == nil {
					t.Fatalf("the change does not show in tools/list: %s", listedSchema(t, srv, "t"))
				}
				if text, isErr := invoke(t, srv, nil, "t", c.probe); !isErr {
					t.Errorf("checked against the schema before the change: %q", text)
				}
			})
		}
	}
}

// builtTool is a tool of each sort mcp-go's builder makes, its schema distinct by i.
func builtTool(i int) mcp.Tool {
	return mcp.NewTool(fmt.Sprint("built-", i), mcp.WithDescription("A tool built with mcp-go's builder"),
		mcp.WithString("location", mcp.Required(), mcp.Description(fmt.Sprint("The city, number ", i)), mcp.MinLength(1), mcp.MaxLength(80)),
		mcp.WithNumber("days", mcp.Min(1), mcp.Max(float64(7+i))),
		mcp.WithString("units", mcp.Enum("celsius", "fahrenheit", "kelvin")),
		mcp.WithBoolean("hourly", mcp.DefaultBool(false)),
		mcp.WithArray("fields", mcp.WithStringItems(mcp.Enum("temperature", "wind", "rain"))),
		mcp.WithObject("where", mcp.Properties(map[string]any{"lat": map[string]any{"type": "number"}, "lon": map[string]any{"type": "number"}})))
}

// TestBuiltSchemasCountedAtWhatTheyHold: schemas made with mcp-go's builder, bound and
// compiled, their tools then dropped, are counted at no less than the heap the guard's
// cache keeps for them, and at no more than twice it.
func TestBuiltSchemasCountedAtWhatTheyHold(t *testing.T) {
	const n = 2000
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	g := New(guard.WithCacheBudget(1 << 40))
	for i := range n {
		tool := builtTool(i)
		if _, err := g.core.Compiled(g.schemaFor(&tool, keyOf(tool.RawInputSchema, &tool.InputSchema))); err != nil {
			t.Fatal(err)
		}
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	retained := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	st := g.core.CacheStats()
	t.Logf("%d schemas: %d bytes counted, %d retained, %.2f", n, st.Held, retained, float64(st.Held)/float64(retained))
	if st.Held < retained || st.Held > 2*retained {
		t.Errorf("%d built schemas counted at %d bytes, %.2f times the %d they hold: want 1 to 2", n, st.Held, float64(st.Held)/float64(retained), retained)
	}
	runtime.KeepAlive(g)
}

// TestSameSchemaAgainWithinBudget: a tool registered again and again with the same schema
// made afresh, and sessions each with their own copy of the same tool, each called once,
// keep the guard's cache within its budget, with the text compiled once.
func TestSameSchemaAgainWithinBudget(t *testing.T) {
	n := 2_000
	if !testing.Short() {
		n = 100_000
	}
	const budget = 256 << 10
	valid := map[string]any{"location": "Paris", "days": 2}
	for _, sessions := range []bool{false, true} {
		t.Run(fmt.Sprint("sessions ", sessions), func(t *testing.T) {
			g := New(guard.WithCacheBudget(budget))
			srv, calls := weatherServer(t, g)
			most := int64(0)
			for i := range n {
				var s *toolSession
				if sessions {
					s = &toolSession{id: fmt.Sprint("s", i), ch: make(chan mcp.JSONRPCNotification, 10)}
					if err := srv.RegisterSession(context.Background(), s); err != nil {
						t.Fatal(err)
					}
					if err := srv.AddSessionTool(s.id, builtTool(0), forecast(calls)); err != nil {
						t.Fatal(err)
					}
				} else {
					srv.AddTool(builtTool(0), forecast(calls))
				}
				var session server.ClientSession
				if s != nil {
					session = s
				}
				if text, isErr := invoke(t, srv, session, "built-0", valid); isErr {
					t.Fatalf("call %d refused: %s", i, text)
				}
				if s != nil {
					srv.UnregisterSession(context.Background(), s.id)
				}
				most = max(most, g.core.CacheStats().Held)
			}
			if st := g.core.CacheStats(); most > budget || st.Compiled != 1 {
				t.Errorf("%d registrations of one schema: %+v, up to %d bytes held: want 1 compilation within %d bytes", n, st, most, budget)
			}
		})
	}
}

// TestInPlaceOutputSchemaChange: under WithOutputValidation, a result is checked against
// the outputSchema as its maps hold it now, after a change in place.
func TestInPlaceOutputSchemaChange(t *testing.T) {
	g := New(guard.WithOutputValidation())
	srv, _ := weatherServer(t, g)
	tool := mcp.NewTool("reading", mcp.WithString("station"))
	tool.OutputSchema = mcp.ToolOutputSchema{Type: "object", Properties: map[string]any{"celsius": map[string]any{"type": "number", "maximum": 100}}}
	srv.AddTool(tool, readingHandler)
	if text, isErr := invoke(t, srv, nil, "reading", map[string]any{"station": "Orly"}); isErr {
		t.Fatalf("a result within the outputSchema refused: %s", text)
	}
	tool.OutputSchema.Properties["celsius"].(map[string]any)["maximum"] = 20
	if text, isErr := invoke(t, srv, nil, "reading", map[string]any{"station": "Orly"}); !isErr {
		t.Errorf("a result checked against the outputSchema before its change: %q", text)
	}
}

// TestSchemaHoldingItselfRefused: a schema whose maps hold themselves has no text, and its
// calls are refused, as those of a schema that does not compile.
func TestSchemaHoldingItselfRefused(t *testing.T) {
	g := New()
	srv, calls := weatherServer(t, g)
	tool := mcp.NewTool("loop")
	inner := map[string]any{"type": "object"}
	inner["properties"] = map[string]any{"again": inner}
	tool.InputSchema.Properties = map[string]any{"a": inner}
	srv.AddTool(tool, forecast(calls))
	for range 2 {
		if text, isErr := invoke(t, srv, nil, "loop", map[string]any{"a": map[string]any{}}); !isErr {
			t.Fatalf("a call to a schema without text accepted: %q", text)
		}
	}
	if calls.Load() != 0 {
		t.Error("the handler ran")
	}
}

// TestSchemaChangesTold: a tool registered again with another schema, or changed in place,
// is told as a change once its next call binds it, with the paths that differ; a call of
// the same schema, or the first, tells nothing.
func TestSchemaChangesTold(t *testing.T) {
	var changes []guard.SchemaChange
	g := New(guard.WithSchemaChanges(func(c guard.SchemaChange) { changes = append(changes, c) }))
	srv, calls := weatherServer(t, g)
	call(t, srv, false, "weather", `{"location":"Oslo"}`)
	call(t, srv, false, "weather", `{"location":"Oslo"}`)
	if len(changes) != 0 {
		t.Fatalf("changes told before any: %+v", changes)
	}
	tighter := strings.Replace(weatherSchema, `"days":{"type":"integer"}`, `"days":{"type":"integer","maximum":3}`, 1)
	if tighter == weatherSchema {
		t.Fatal("the schema has no days")
	}
	srv.AddTool(mcp.NewToolWithRawSchema("weather", "Forecast for a city", json.RawMessage(tighter)), forecast(calls))
	call(t, srv, false, "weather", `{"location":"Oslo"}`)
	call(t, srv, false, "weather", `{"location":"Oslo"}`)
	if len(changes) != 1 || len(changes[0].Changed) != 1 {
		t.Fatalf("changes %+v, want one", changes)
	}
	c := changes[0].Changed[0]
	if c.Tool != "weather" || c.From == c.To || strings.Join(c.Paths, " ") != "/inputSchema/properties/days/maximum" {
		t.Errorf("change %+v", c)
	}
}
