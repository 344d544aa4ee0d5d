package mcpvalidate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/mcpvalidate/mcpvalidate/guard"
)

// Tests of WithOutputValidation: results checked against the tool's outputSchema.

const readingSchema = `{"type":"object","properties":{"celsius":{"type":"number","minimum":-100},"station":{"type":"string"}},"required":["celsius"],"additionalProperties":false}`

// readingServer serves a tool "reading" declaring readingSchema as output, whose handler
// returns what result says, and counts its runs.
func readingServer(t *testing.T, g *Guard, result func() *mcp.CallToolResult) (*server.MCPServer, *atomic.Int64) {
	t.Helper()
	srv := server.NewMCPServer("s", "1", server.WithToolHandlerMiddleware(g.Middleware()))
	var ran atomic.Int64
	srv.AddTool(mcp.NewTool("reading", mcp.WithString("station", mcp.Required()),
		mcp.WithRawOutputSchema(json.RawMessage(readingSchema))),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			ran.Add(1)
			return result(), nil
		})
	return srv, &ran
}

func structured(content any) func() *mcp.CallToolResult {
	return func() *mcp.CallToolResult {
		r := mcp.NewToolResultText("a reading")
		r.StructuredContent = content
		return r
	}
}

// callResult sends one tools/call and returns the result as the client decodes it.
func callResult(t *testing.T, srv *server.MCPServer, tool, args string) map[string]any {
	t.Helper()
	out := srv.HandleMessage(context.Background(), []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"`+tool+`","arguments":`+args+`}}`))
	b, _ := json.Marshal(out)
	var resp struct{ Result map[string]any }
	if err := json.Unmarshal(b, &resp); err != nil || resp.Result == nil {
		t.Fatalf("no result: %s", b)
	}
	return resp.Result
}

func TestOutputValidation(t *testing.T) {
	type station struct {
		Celsius float64 `json:"celsius"`
		Station string  `json:"station"`
	}
	cases := []struct {
		name    string
		result  func() *mcp.CallToolResult
		refused bool
		kinds   string // of the violations in _meta
	}{
		{"a map that matches", structured(map[string]any{"celsius": 21.5}), false, ""},
		{"a struct that matches", structured(station{Celsius: 3, Station: "Orly"}), false, ""},
		{"raw bytes that match", func() *mcp.CallToolResult {
			r := mcp.NewToolResultText("a reading")
			r.RawStructuredContent = json.RawMessage(`{"celsius":-4}`)
			return r
		}, false, ""},
		{"a wrong type and an extra member", structured(map[string]any{"celsius": "warm", "wind": 3}), true, "type additional"},
		{"below the minimum", structured(station{Celsius: -300}), true, "minimum"},
		{"raw bytes that do not match", func() *mcp.CallToolResult {
			r := mcp.NewToolResultText("a reading")
			r.RawStructuredContent = json.RawMessage(`{"station":"x"}`)
			return r
		}, true, "required"},
		{"no structuredContent", func() *mcp.CallToolResult { return mcp.NewToolResultText("21.5") }, true, "required"},
		{"an error result is not checked", func() *mcp.CallToolResult {
			r := mcp.NewToolResultError("the station is down")
			r.StructuredContent = map[string]any{"celsius": "?"}
			return r
		}, false, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var events []guard.Event
			g := New(guard.WithOutputValidation(), guard.WithViolationMeta(), guard.WithObserver(func(e guard.Event) { events = append(events, e) }))
			srv, ran := readingServer(t, g, c.result)
			res := callResult(t, srv, "reading", `{"station":"Orly"}`)
			if ran.Load() != 1 {
				t.Fatalf("the handler ran %d times", ran.Load())
			}
			st := g.Guard().Stats()[0]
			if !c.refused {
				if res["content"].([]any)[0].(map[string]any)["text"] == badResultText {
					t.Errorf("refused: %v", res)
				}
				if st.ResultRefused != 0 || st.Accepted != 1 || len(events) != 1 || events[0].Outcome != guard.Accepted {
					t.Errorf("stats %+v, events %+v", st, events)
				}
				return
			}
			if res["isError"] != true || res["structuredContent"] != nil || len(res["content"].([]any)) != 1 ||
				res["content"].([]any)[0].(map[string]any)["text"] != badResultText {
				t.Errorf("result %v: want only the failure text", res)
			}
			meta := res["_meta"].(map[string]any)[guard.MetaKey].(map[string]any)
			var kinds []string
			for _, v := range meta["violations"].([]any) {
				kinds = append(kinds, v.(map[string]any)["kind"].(string))
			}
			if meta["of"] != "result" || strings.Join(kinds, " ") != c.kinds {
				t.Errorf("_meta %v: want the result's %s", meta, c.kinds)
			}
			if st.ResultRefused != 1 || st.Accepted != 1 || st.Refused != 0 || st.Unenforced != 0 {
				t.Errorf("stats %+v", st)
			}
			if len(events) != 2 || events[0].Outcome != guard.Accepted || events[1].Outcome != guard.ResultRefused || len(events[1].Violations) == 0 {
				t.Errorf("events %+v: want the call accepted, then its result refused", events)
			}
		})
	}
}

// TestWithheldResultRepairsNothing: a call whose result is withheld for not matching the
// outputSchema does not repair the refusals before it, through the middleware and through
// a bound handler; the next call whose result reaches the client does, and so does one
// whose handler fails, its error result reaching the client. The observers are told each
// repair, on the Accepted event of the call that made it, as the counters count it.
func TestWithheldResultRepairsNothing(t *testing.T) {
	for _, bound := range []bool{false, true} {
		t.Run(map[bool]string{false: "middleware", true: "handler"}[bound], func(t *testing.T) {
			var events []guard.Event
			g := New(guard.WithOutputValidation(), guard.WithObserver(func(e guard.Event) { events = append(events, e) }))
			var result atomic.Pointer[mcp.CallToolResult]
			h := func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) { return result.Load(), nil }
			tool := mcp.NewTool("reading", mcp.WithString("station", mcp.Required()),
				mcp.WithRawOutputSchema(json.RawMessage(readingSchema)))
			srv := server.NewMCPServer("s", "1", server.WithToolHandlerMiddleware(g.Middleware()))
			if bound {
				srv = server.NewMCPServer("s", "1")
				srv.AddTool(tool, g.Handler(tool, h))
			} else {
				srv.AddTool(tool, h)
			}
			s := &toolSession{id: "a", ch: make(chan mcp.JSONRPCNotification, 1)}
			good, bad := structured(map[string]any{"celsius": 4})(), structured(map[string]any{"celsius": "cold"})()
			result.Store(good)
			want := func(when string, repaired, retries uint64, pending int) {
				t.Helper()
				st := g.Guard().Stats()[0]
				if st.Repaired != repaired || st.Retries != retries {
					t.Errorf("%s: repaired %d, retries %d; want %d, %d (%+v)", when, st.Repaired, st.Retries, repaired, retries, st)
				}
				if held := g.Guard().SessionsAwaitingRepair(); held != pending {
					t.Errorf("%s: %d sessions awaiting repair, want %d", when, held, pending)
				}
				var told, repairs uint64
				for _, e := range events {
					told += uint64(e.Retries)
					if e.Retries > 0 {
						repairs++
						if e.Outcome != guard.Accepted {
							t.Errorf("%s: %d retries told on a %s event", when, e.Retries, e.Outcome)
						}
					}
				}
				if repairs != repaired || told != retries {
					t.Errorf("%s: events told %d repairs of %d retries; want %d, %d", when, repairs, told, repaired, retries)
				}
			}
			if _, isError := invoke(t, srv, s, "reading", map[string]any{}); !isError {
				t.Fatal("a call without station was not refused")
			}
			result.Store(bad)
			if text, _ := invoke(t, srv, s, "reading", map[string]any{"station": "Orly"}); text != badResultText {
				t.Fatalf("a result that does not match was sent: %q", text)
			}
			want("after a withheld result", 0, 0, 1)
			result.Store(good)
			if text, isError := invoke(t, srv, s, "reading", map[string]any{"station": "Orly"}); isError {
				t.Fatalf("a result that matches was refused: %q", text)
			}
			want("after a result sent", 1, 1, 0)

			invoke(t, srv, s, "reading", map[string]any{"station": 4})
			invoke(t, srv, s, "reading", map[string]any{})
			result.Store(mcp.NewToolResultError("the station is down"))
			if text, isError := invoke(t, srv, s, "reading", map[string]any{"station": "Orly"}); !isError || text != "the station is down" {
				t.Fatalf("the handler's error: %q", text)
			}
			want("after an error result", 2, 3, 0)
			if st := g.Guard().Stats()[0]; st.Accepted != 3 || st.Refused != 3 || st.ResultRefused != 1 {
				t.Errorf("stats %+v", st)
			}
			var outcomes []guard.Outcome
			for _, e := range events {
				outcomes = append(outcomes, e.Outcome)
			}
			if want := []guard.Outcome{guard.Refused, guard.Accepted, guard.ResultRefused, guard.Accepted, guard.Refused, guard.Refused, guard.Accepted}; !slices.Equal(outcomes, want) {
				t.Errorf("events %v, want %v", outcomes, want)
			}
		})
	}
}

func TestOutputValidationIsOptIn(t *testing.T) {
	g := New()
	srv, _ := readingServer(t, g, structured(map[string]any{"celsius": "warm"}))
	if res := callResult(t, srv, "reading", `{"station":"Orly"}`); res["isError"] == true || res["structuredContent"] == nil {
		t.Errorf("without WithOutputValidation the result must pass: %v", res)
	}
}

func TestOutputValidationReportOnly(t *testing.T) {
	var events []guard.Event
	var log strings.Builder
	g := New(guard.WithOutputValidation(), guard.WithReportOnly(), guard.WithObserver(func(e guard.Event) { events = append(events, e) }), guard.WithLogger(slog.New(slog.NewTextHandler(&log, nil))))
	srv, _ := readingServer(t, g, structured(map[string]any{"celsius": "warm"}))
	if res := callResult(t, srv, "reading", `{"station":"Orly"}`); res["isError"] == true || res["structuredContent"] == nil {
		t.Errorf("report-only must send the result: %v", res)
	}
	if st := g.Guard().Stats()[0]; st.ResultRefused != 1 || st.Unenforced != 1 {
		t.Errorf("stats %+v", st)
	}
	if len(events) != 2 || events[1].Outcome != guard.ResultRefused || !events[1].ReportOnly {
		t.Errorf("events %+v", events)
	}
	if !strings.Contains(log.String(), `level=WARN msg="mcpvalidate: tool result does not match its output schema; it was sent (report-only)"`) || strings.Contains(log.String(), "warm") {
		t.Errorf("log %q", log.String())
	}
}

func TestBrokenOutputSchemaFailsClosed(t *testing.T) {
	build := func(opts ...Option) (*server.MCPServer, *atomic.Int64) {
		srv := server.NewMCPServer("s", "1", server.WithToolHandlerMiddleware(New(opts...).Middleware()))
		var ran atomic.Int64
		srv.AddTool(mcp.NewTool("reading", mcp.WithRawOutputSchema(json.RawMessage(`{"type":"strnig"}`))),
			func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				ran.Add(1)
				return mcp.NewToolResultText("ok"), nil
			})
		return srv, &ran
	}
	srv, ran := build(guard.WithOutputValidation())
	if text, isErr := invoke(t, srv, nil, "reading", map[string]any{}); !isErr || text != brokenOutputText || ran.Load() != 0 {
		t.Errorf("%q isError=%v, ran %d: want the tool not called", text, isErr, ran.Load())
	}
	var te *guard.ToolError
	if err := New(guard.WithOutputValidation()).CheckServer(srv); !errors.As(err, &te) || te.Schema != "outputSchema" || !strings.Contains(err.Error(), "tool reading: outputSchema: ") {
		t.Errorf("CheckServer: %v", err)
	}
	if err := New().CheckServer(srv); err != nil {
		t.Errorf("CheckServer without WithOutputValidation: %v", err)
	}
	srv, ran = build()
	if _, isErr := invoke(t, srv, nil, "reading", map[string]any{}); isErr || ran.Load() != 1 {
		t.Errorf("without WithOutputValidation the tool runs")
	}
}

func TestOutputSchemaFromAStruct(t *testing.T) {
	type reading struct {
		Celsius float64 `json:"celsius" jsonschema:"required"`
	}
	g := New(guard.WithOutputValidation())
	srv := server.NewMCPServer("s", "1", server.WithToolHandlerMiddleware(g.Middleware()))
	var content any
	srv.AddTool(mcp.NewTool("reading", mcp.WithOutputSchema[reading]()),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			r := mcp.NewToolResultText("x")
			r.StructuredContent = content
			return r, nil
		})
	for _, c := range []struct {
		content any
		refused bool
	}{{reading{Celsius: 1}, false}, {map[string]any{"celsius": "1"}, true}, {map[string]any{}, true}} {
		content = c.content
		if text, isErr := invoke(t, srv, nil, "reading", map[string]any{}); isErr != c.refused || c.refused && text != badResultText {
			t.Errorf("%v: %q isError=%v", c.content, text, isErr)
		}
	}
}

// A handler bound with Handler under the middleware has its result checked once.
func TestBoundHandlerResultCheckedOnce(t *testing.T) {
	var events []guard.Event
	g := New(guard.WithOutputValidation(), guard.WithViolationMeta(), guard.WithObserver(func(e guard.Event) { events = append(events, e) }))
	tool := mcp.NewTool("reading", mcp.WithRawOutputSchema(json.RawMessage(readingSchema)))
	h := g.Handler(tool, func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return structured(map[string]any{"celsius": "warm"})(), nil
	})
	for _, name := range []string{"middleware", "alone"} {
		t.Run(name, func(t *testing.T) {
			events = nil
			var opts []server.ServerOption
			if name == "middleware" {
				opts = append(opts, server.WithToolHandlerMiddleware(g.Middleware()))
			}
			srv := server.NewMCPServer("s", "1", opts...)
			srv.AddTool(tool, h)
			if text, isErr := invoke(t, srv, nil, "reading", map[string]any{}); !isErr || text != badResultText {
				t.Errorf("%q isError=%v", text, isErr)
			}
			if len(events) != 2 || events[1].Outcome != guard.ResultRefused {
				t.Errorf("events %+v: want one call and one refused result", events)
			}
		})
	}
}

// TestBoundHandlerKeepsItsOutputSchema: with other middleware inside the guard's, a tool
// registered again during a call with the same inputSchema and a looser outputSchema
// leaves the middleware checking the looser one; the bound handler still holds its result
// to its own.
func TestBoundHandlerKeepsItsOutputSchema(t *testing.T) {
	g := New(guard.WithOutputValidation())
	var armed atomic.Bool
	var srv *server.MCPServer
	srv = server.NewMCPServer("s", "1",
		server.WithToolHandlerMiddleware(g.Middleware()),
		server.WithToolHandlerMiddleware(passthrough),
		server.WithToolFilter(func(ctx context.Context, tools []mcp.Tool) []mcp.Tool {
			if armed.CompareAndSwap(true, false) {
				loose := mcp.NewToolWithRawSchema("reading", "", json.RawMessage(`{"type":"object"}`))
				loose.RawOutputSchema = json.RawMessage(`{"type":"object"}`)
				srv.AddTool(loose, looseHandler)
			}
			return tools
		}))
	strict := mcp.NewToolWithRawSchema("reading", "", json.RawMessage(`{"type":"object"}`))
	strict.RawOutputSchema = json.RawMessage(readingSchema)
	srv.AddTool(strict, g.Handler(strict, func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return structured(map[string]any{"celsius": "warm"})(), nil
	}))
	armed.Store(true)
	if text, isErr := invoke(t, srv, nil, "reading", map[string]any{}); !isErr || text != badResultText {
		t.Errorf("a result its handler's own outputSchema refuses: %q (isError %v)", text, isErr)
	}
}

// TestInputRequiredResultIsNotChecked: a result that asks the client for input before the
// tool can finish (2026-07-28's multi round-trip), with no structuredContent, is not the
// tool's result: it reaches the client as it is, and the final result, when the client
// calls again with the input, is checked. mcp-go has such results from v1.1.0.
func TestInputRequiredResultIsNotChecked(t *testing.T) {
	if _, ok := reflect.TypeFor[mcp.CallToolResult]().FieldByName("ResultType"); !ok || !slices.Contains(protocols(), true) {
		t.Skip("this mcp-go has no input-required results")
	}
	const asks = `{"resultType":"input_required","inputRequests":{"unit":{"method":"elicitation/create","params":{"message":"Which unit?","requestedSchema":{"type":"object","properties":{}}}}},"requestState":"s1"}`
	for _, c := range []struct {
		final   any
		refused bool
	}{{map[string]any{"celsius": 4}, false}, {map[string]any{"celsius": "4"}, true}} {
		calls := 0
		g := New(guard.WithOutputValidation())
		srv, _ := readingServer(t, g, func() *mcp.CallToolResult {
			if calls++; calls > 1 {
				return structured(c.final)()
			}
			var res mcp.CallToolResult
			if err := json.Unmarshal([]byte(asks), &res); err != nil {
				t.Fatal(err)
			}
			return &res
		})
		var first struct{ Result map[string]any }
		if err := json.Unmarshal([]byte(call(t, srv, true, "reading", `{"station":"Orly"}`)), &first); err != nil {
			t.Fatal(err)
		}
		if r := first.Result; r["resultType"] != "input_required" || r["inputRequests"] == nil || r["isError"] != nil {
			t.Errorf("the input-required result was not sent as it is: %v", r)
		}
		final := call(t, srv, true, "reading", `{"station":"Orly"}`)
		if strings.Contains(final, badResultText) != c.refused {
			t.Errorf("final result %v: %s", c.final, final)
		}
		if st := g.Guard().Stats()[0]; st.ResultRefused != map[bool]uint64{false: 0, true: 1}[c.refused] {
			t.Errorf("stats %+v", st)
		}
	}
}

// TestInputRequiredResultWithStructuredContentIsChecked: a result that asks the client
// for input carries no structuredContent as a rule, but mcp-go sends one when the tool sets
// it, raw or as a value: then it is checked as any result's is, and one that breaks the
// outputSchema is withheld with the question; a matching one goes with the question.
func TestInputRequiredResultWithStructuredContentIsChecked(t *testing.T) {
	if _, ok := reflect.TypeFor[mcp.CallToolResult]().FieldByName("ResultType"); !ok || !slices.Contains(protocols(), true) {
		t.Skip("this mcp-go has no input-required results")
	}
	const asks = `{"resultType":"input_required","inputRequests":{"unit":{"method":"elicitation/create","params":{"message":"Which unit?","requestedSchema":{"type":"object","properties":{}}}}},"requestState":"s1"}`
	for _, c := range []struct {
		raw     string
		value   any
		refused bool
	}{
		{"", map[string]any{"celsius": "not-a-number"}, true},
		{`{"celsius":"not-a-number"}`, nil, true},
		{`{"celsius":-273}`, map[string]any{"celsius": 4}, true},
		{"", map[string]any{"celsius": 4}, false},
		{`{"celsius":4}`, nil, false},
	} {
		g := New(guard.WithOutputValidation())
		srv, _ := readingServer(t, g, func() *mcp.CallToolResult {
			var res mcp.CallToolResult
			if err := json.Unmarshal([]byte(asks), &res); err != nil {
				t.Fatal(err)
			}
			res.StructuredContent = c.value
			if c.raw != "" {
				res.RawStructuredContent = json.RawMessage(c.raw)
			}
			return &res
		})
		var resp struct{ Result map[string]any }
		if err := json.Unmarshal([]byte(call(t, srv, true, "reading", `{"station":"Orly"}`)), &resp); err != nil {
			t.Fatal(err)
		}
		r := resp.Result
		if refused := r["isError"] == true && strings.Contains(fmt.Sprint(r["content"]), badResultText); refused != c.refused {
			t.Errorf("raw %q, value %v: refused %v, want %v: %v", c.raw, c.value, refused, c.refused, r)
		}
		if !c.refused && (r["resultType"] != "input_required" || r["structuredContent"] == nil) {
			t.Errorf("raw %q, value %v: the question was not sent as it is: %v", c.raw, c.value, r)
		}
		if st := g.Guard().Stats()[0]; st.ResultRefused != map[bool]uint64{false: 0, true: 1}[c.refused] {
			t.Errorf("raw %q, value %v: stats %+v", c.raw, c.value, st)
		}
	}
}

// TestStructuredContentOfAnyType: structuredContent may be any JSON value (SEP-2106), and
// is checked against an outputSchema of its type. mcp-go sends a null one only as raw
// bytes: a nil StructuredContent is none.
func TestStructuredContentOfAnyType(t *testing.T) {
	cases := []struct {
		schema  string
		content any // json.RawMessage: as RawStructuredContent
		refused bool
	}{
		{`{"type":"array","items":{"type":"number"}}`, []any{1, 2.5}, false},
		{`{"type":"array","items":{"type":"number"}}`, []int{1, 2}, false},
		{`{"type":"array","items":{"type":"number"}}`, json.RawMessage(`[1,"two"]`), true},
		{`{"type":"array"}`, map[string]any{"a": 1}, true},
		{`{"type":"string","maxLength":3}`, "abc", false},
		{`{"type":"string","maxLength":3}`, "abcd", true},
		{`{"type":"number","minimum":0}`, 3.5, false},
		{`{"type":"number","minimum":0}`, json.RawMessage(`-1`), true},
		{`{"type":"number"}`, "3.5", true},
		{`{"type":"null"}`, json.RawMessage(`null`), false},
		{`{"type":"null"}`, 0, true},
		{`{"type":"string"}`, json.RawMessage(`null`), true},
		{`{"type":"null"}`, nil, true}, // no structuredContent at all
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("%s/%v", c.schema, c.content), func(t *testing.T) {
			g := New(guard.WithOutputValidation())
			srv := server.NewMCPServer("s", "1", server.WithToolHandlerMiddleware(g.Middleware()))
			srv.AddTool(mcp.NewTool("t", mcp.WithRawOutputSchema(json.RawMessage(c.schema))),
				func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
					r := mcp.NewToolResultText("done")
					if raw, ok := c.content.(json.RawMessage); ok {
						r.RawStructuredContent = raw
					} else {
						r.StructuredContent = c.content
					}
					return r, nil
				})
			res := callResult(t, srv, "t", `{}`)
			refused := res["isError"] == true && res["content"].([]any)[0].(map[string]any)["text"] == badResultText
			if refused != c.refused {
				t.Fatalf("refused %v: %v", refused, res)
			}
			if _, sent := res["structuredContent"]; !c.refused && !sent {
				t.Errorf("the structuredContent was not sent: %v", res)
			}
		})
	}
}

func TestTaskToolOutputValidation(t *testing.T) {
	g := New(guard.WithOutputValidation())
	srv := server.NewMCPServer("s", "1", server.WithTaskCapabilities(true, true, true))
	tool := mcp.NewTool("reading", mcp.WithRawOutputSchema(json.RawMessage(readingSchema)))
	tool.Execution = &mcp.ToolExecution{TaskSupport: mcp.TaskSupportRequired}
	var content any
	srv.AddTaskTool(tool, g.TaskHandler(tool, func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CreateTaskResult, error) {
		return &mcp.CreateTaskResult{Content: []mcp.Content{mcp.NewTextContent("done")}, StructuredContent: content}, nil
	}))
	for i, c := range []struct {
		content any
		refused bool
	}{{map[string]any{"celsius": 2}, false}, {map[string]any{"celsius": "2"}, true}, {nil, true}} {
		content = c.content
		text, isErr := runTask(t, srv, "reading", `{}`)
		if isErr != c.refused || c.refused && text != badResultText {
			t.Errorf("%d %v: %q isError=%v", i, c.content, text, isErr)
		}
	}
	if st := g.Guard().Stats()[0]; st.ResultRefused != 2 || st.Accepted != 3 {
		t.Errorf("stats %+v", st)
	}
}

// The violations as data: what each field holds, for a refusal of arguments.
func TestRefusalMeta(t *testing.T) {
	schema := `{"type":"object","properties":{
		"days":{"type":"integer","maximum":14},"units":{"enum":["c","f"]},"code":{"type":"string","pattern":"^[A-Z]{3}$"},
		"vars":{"anyOf":[{"type":"string"},{"type":"array","items":{"type":"string"}}]},"a/b~c":{"type":"boolean"},
		"tags":{"type":"array","uniqueItems":true},"scale":{"type":"integer"}},
		"dependentRequired":{"units":["scale"]},"required":["station"],"additionalProperties":false}`
	srv := server.NewMCPServer("s", "1", server.WithToolHandlerMiddleware(New(guard.WithFormatter(guard.GatewayFormat), guard.WithViolationMeta()).Middleware()))
	srv.AddTool(mcp.NewToolWithRawSchema("t", "", json.RawMessage(schema)), looseHandler)
	res := callResult(t, srv, "t", `{"units":"k","code":"ab","days":15,"vars":1,"a/b~c":"yes","tags":[1,1],"x":null}`)
	got, _ := json.Marshal(res["_meta"].(map[string]any)[guard.MetaKey])
	want := `{"notShown":0,"of":"arguments","violations":[` +
		`{"keyword":"required","kind":"required","message":"Missing required parameter: ` + "`station`" + `","pointer":"/station"},` +
		`{"keyword":"dependentRequired","kind":"dependent-required","message":"Missing required parameter: ` + "`scale` (required with `units`)" + `","name":"units","pointer":"/scale"},` +
		`{"keyword":"enum","kind":"enum","message":"Invalid value for ` + "`units`" + `: must be one of ['c', 'f']","pointer":"/units","values":["c","f"]},` +
		`{"keyword":"pattern","kind":"pattern","limit":"^[A-Z]{3}$","message":"Invalid value for ` + "`code`" + `: must match the pattern '^[A-Z]{3}$'","pointer":"/code"},` +
		`{"keyword":"maximum","kind":"maximum","limit":14,"message":"Invalid value for ` + "`days`" + `: must be at most 14","pointer":"/days"},` +
		`{"got":"integer","itemTypes":["string"],"keyword":"type","kind":"type","message":"Invalid type for ` + "`vars`" + `: expected string or array of strings","pointer":"/vars","types":["string","array"]},` +
		`{"got":"string","keyword":"type","kind":"type","message":"Invalid type for ` + "`\\\"a/b~c\\\"`" + `: expected boolean","pointer":"/a~1b~0c","types":["boolean"]},` +
		`{"indexes":[0,1],"keyword":"uniqueItems","kind":"unique-items","message":"Invalid value for ` + "`tags`" + `: must not contain equal items (items 0 and 1 are equal)","pointer":"/tags"},` +
		`{"keyword":"additionalProperties","kind":"additional","message":"Unknown parameter: ` + "`x`" + `","pointer":"/x"}]}`
	if string(got) != want {
		t.Errorf("\n got %s\nwant %s", got, want)
	}
	if text := fmt.Sprint(res["content"]); strings.Contains(string(got), "yes") || strings.Contains(text, "yes") {
		t.Error("a value of the arguments was copied")
	}
}

// The data stays within a refusal's bound: violations that do not fit whole are counted.
func TestRefusalMetaIsBounded(t *testing.T) {
	srv := server.NewMCPServer("s", "1", server.WithToolHandlerMiddleware(New(guard.WithMaxViolations(1000), guard.WithViolationMeta()).Middleware()))
	srv.AddTool(mcp.NewToolWithRawSchema("t", "", json.RawMessage(`{"type":"object","additionalProperties":false}`)), looseHandler)
	var args strings.Builder
	args.WriteString(`{"` + strings.Repeat("n", 20_000) + `":1`)
	for i := range 500 {
		fmt.Fprintf(&args, `,"extra_member_%04d":1`, i)
	}
	args.WriteString("}")
	res := callResult(t, srv, "t", args.String())
	raw := res["_meta"].(map[string]any)[guard.MetaKey]
	got, _ := json.Marshal(raw)
	var meta struct {
		Violations []struct{ Pointer string }
		NotShown   int
	}
	_ = json.Unmarshal(got, &meta)
	if len(got) > maxRefusal || len(meta.Violations) == 0 || len(meta.Violations)+meta.NotShown != 501 {
		t.Errorf("%d bytes, %d violations shown and %d not: want at most %d bytes and 501 in all", len(got), len(meta.Violations), meta.NotShown, maxRefusal)
	}
	if meta.Violations[0].Pointer != "/extra_member_0000" {
		t.Errorf("first shown %q: the 20,000-character name does not fit and is counted", meta.Violations[0].Pointer)
	}
}

// BenchmarkResultCheck compares the two ways of checking a result held as a Go value:
// marshalling it, as mcp-go will for the client, and validating those bytes; or validating
// the decoded value, which ValidateValue encodes in the schema's member order.
func BenchmarkResultCheck(b *testing.B) {
	v, err := Compile([]byte(`{"type":"object","properties":{"readings":{"type":"array","items":` + readingSchema + `}},"required":["readings"]}`))
	if err != nil {
		b.Fatal(err)
	}
	type reading struct {
		Celsius float64 `json:"celsius"`
		Station string  `json:"station"`
	}
	type readings struct {
		Readings []reading `json:"readings"`
	}
	for _, n := range []int{1, 100} {
		asMaps := make([]any, n)
		asStructs := readings{Readings: make([]reading, n)}
		for i := range n {
			asMaps[i] = map[string]any{"celsius": float64(i) / 4, "station": "Orly"}
			asStructs.Readings[i] = reading{Celsius: float64(i) / 4, Station: "Orly"}
		}
		for _, c := range []struct {
			name  string
			value any
		}{{"maps", map[string]any{"readings": asMaps}}, {"structs", asStructs}} {
			b.Run(fmt.Sprintf("%d-%s/marshal+validate", n, c.name), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					content, err := structuredContent(nil, c.value)
					if err != nil || v.Validate(content) != nil {
						b.Fatal("invalid")
					}
				}
			})
			b.Run(fmt.Sprintf("%d-%s/validate-value", n, c.name), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if v.ValidateValue(c.value) != nil {
						b.Fatal("invalid")
					}
				}
			})
		}
	}
}

// TestCheckedContentIsSentContent: a result with both raw and decoded structuredContent is
// checked on the one mcp-go sends; from v1.0.0 mcp-go sends the decoded value in place of
// raw bytes that are null or blank. The client never reads a structuredContent that does
// not match the outputSchema, and a matching one is not withheld.
func TestCheckedContentIsSentContent(t *testing.T) {
	const schema = `{"type":["object","null"],"properties":{"n":{"type":"integer"}}}`
	v, err := Compile([]byte(schema))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		raw   string
		value any
	}{
		{"null", map[string]any{"n": "x"}},
		{" null ", map[string]any{"n": "x"}},
		{"  ", map[string]any{"n": 1}},
		{`{"n":1}`, map[string]any{"n": "x"}},
		{`{"n":"x"}`, map[string]any{"n": 1}},
		{"null", nil},
	}
	for _, tt := range tests {
		srv := server.NewMCPServer("s", "1", server.WithToolHandlerMiddleware(New(guard.WithOutputValidation()).Middleware()))
		srv.AddTool(mcp.NewTool("t", mcp.WithRawOutputSchema(json.RawMessage(schema))), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			r := mcp.NewToolResultText("done")
			r.RawStructuredContent, r.StructuredContent = json.RawMessage(tt.raw), tt.value
			return r, nil
		})
		out := srv.HandleMessage(context.Background(), []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","arguments":{}}}`))
		b, err := json.Marshal(out)
		if err != nil {
			continue // mcp-go cannot send it: nothing reaches the client
		}
		var resp struct {
			Result *struct {
				IsError           bool            `json:"isError"`
				StructuredContent json.RawMessage `json:"structuredContent"`
			}
		}
		if err := json.Unmarshal(b, &resp); err != nil || resp.Result == nil || resp.Result.IsError {
			sentRaw, _ := json.Marshal(tt.value)
			if tt.raw != "  " || v.Validate(sentRaw) != nil {
				continue // refused, and rightly: the content mcp-go would send breaks the schema
			}
			t.Errorf("raw %q, value %v: a matching result withheld: %s", tt.raw, tt.value, b)
			continue
		}
		if sent := resp.Result.StructuredContent; sent != nil && v.Validate(sent) != nil {
			t.Errorf("raw %q, value %v: the client reads structuredContent %s, which the outputSchema refuses", tt.raw, tt.value, sent)
		}
	}
}

// TestCheckedContentIsSentContentOfTasks: the same for a task's result, which releases
// before v1.5.0 send as the decoded value, not the raw bytes: whichever mcp-go sends, the
// client never reads a structuredContent that does not match the outputSchema.
func TestCheckedContentIsSentContentOfTasks(t *testing.T) {
	v, err := Compile([]byte(readingSchema))
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		raw   string
		value map[string]any
	}{
		{`{"celsius":21}`, map[string]any{"celsius": "very hot", "secret": "leaked"}},
		{`{"celsius":"very hot"}`, map[string]any{"celsius": 21}},
		{`{"celsius":21}`, map[string]any{"celsius": 21}},
	} {
		srv := server.NewMCPServer("s", "1", server.WithToolHandlerMiddleware(New(guard.WithOutputValidation()).Middleware()), server.WithTaskCapabilities(true, true, true))
		tool := mcp.NewTool("reading", mcp.WithRawOutputSchema(json.RawMessage(readingSchema)))
		tool.Execution = &mcp.ToolExecution{TaskSupport: mcp.TaskSupportOptional}
		srv.AddTool(tool, func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			r := mcp.NewToolResultText("a reading") // as a gateway's handler decodes an upstream's result, then edits it
			r.RawStructuredContent, r.StructuredContent = json.RawMessage(tt.raw), tt.value
			return r, nil
		})
		b := taskResultOf(t, srv, nil, "reading", `{}`)
		var resp struct {
			Result struct {
				IsError           bool            `json:"isError"`
				StructuredContent json.RawMessage `json:"structuredContent"`
			} `json:"result"`
		}
		if err := json.Unmarshal(b, &resp); err != nil {
			t.Fatal(err)
		}
		if sent := resp.Result.StructuredContent; !resp.Result.IsError && sent != nil && v.Validate(sent) != nil {
			t.Errorf("raw %s, value %v: the client reads structuredContent %s, which the outputSchema refuses", tt.raw, tt.value, sent)
		}
		if matching := tt.raw == `{"celsius":21}` && tt.value["celsius"] == 21; matching && resp.Result.IsError {
			t.Errorf("raw %s, value %v: a matching result withheld: %s", tt.raw, tt.value, b)
		}
	}
}

// TestResultSentAsChecked: what the client reads of a result's structuredContent is what
// the guard checked, though mcp-go marshals the value again when it sends the result
// (for a task's, when tasks/result asks for it) and the tool's code changes the value in
// between, as a job that goes on updating the status it returned does. A tool that
// returns one result to every call has each call's content checked and sent as it is then.
func TestResultSentAsChecked(t *testing.T) {
	v, err := Compile([]byte(readingSchema))
	if err != nil {
		t.Fatal(err)
	}
	tool := mcp.NewTool("reading", mcp.WithRawOutputSchema(json.RawMessage(readingSchema)))
	for _, path := range []struct {
		name string
		// serve returns a server of tool, its result's structuredContent status, and a
		// call of the tool that runs change once the result is checked, before it is sent.
		serve func(status map[string]any) (call func(change func()) []byte)
	}{
		{"a call", func(status map[string]any) func(func()) []byte {
			var change func()
			hooks := &server.Hooks{}
			hooks.AddAfterCallTool(func(context.Context, any, *mcp.CallToolRequest, any) { change() })
			srv := server.NewMCPServer("s", "1", server.WithHooks(hooks), server.WithToolHandlerMiddleware(New(guard.WithOutputValidation()).Middleware()))
			res := mcp.NewToolResultText("a reading")
			res.StructuredContent = status
			srv.AddTool(tool, func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) { return res, nil })
			return func(c func()) []byte {
				change = c
				b, _ := json.Marshal(srv.HandleMessage(context.Background(), []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"reading","arguments":{}}}`)))
				return b
			}
		}},
		{"a regular tool's task", func(status map[string]any) func(func()) []byte {
			completed := make(chan struct{}, 1)
			hooks := &server.TaskHooks{}
			hooks.AddOnTaskCompleted(func(context.Context, server.TaskMetrics) { completed <- struct{}{} })
			srv := server.NewMCPServer("s", "1", server.WithToolHandlerMiddleware(New(guard.WithOutputValidation()).Middleware()),
				server.WithTaskCapabilities(true, true, true), server.WithTaskHooks(hooks))
			optional := tool
			optional.Execution = &mcp.ToolExecution{TaskSupport: mcp.TaskSupportOptional}
			res := mcp.NewToolResultText("a reading")
			res.StructuredContent = status
			srv.AddTool(optional, func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) { return res, nil })
			return func(c func()) []byte { return taskResultAfter(t, srv, completed, c) }
		}},
		{"a regular tool's task, raw", func(status map[string]any) func(func()) []byte {
			completed := make(chan struct{}, 1)
			hooks := &server.TaskHooks{}
			hooks.AddOnTaskCompleted(func(context.Context, server.TaskMetrics) { completed <- struct{}{} })
			srv := server.NewMCPServer("s", "1", server.WithToolHandlerMiddleware(New(guard.WithOutputValidation()).Middleware()),
				server.WithTaskCapabilities(true, true, true), server.WithTaskHooks(hooks))
			optional := tool
			optional.Execution = &mcp.ToolExecution{TaskSupport: mcp.TaskSupportOptional}
			buf := make([]byte, 0, 64) // the tool encodes its status into one buffer, again and again
			encode := func() { b, _ := json.Marshal(status); buf = append(buf[:0], b...) }
			srv.AddTool(optional, func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				encode()
				res := mcp.NewToolResultText("a reading")
				res.RawStructuredContent = buf
				return res, nil
			})
			return func(c func()) []byte { return taskResultAfter(t, srv, completed, func() { c(); encode() }) }
		}},
		{"a task tool's task", func(status map[string]any) func(func()) []byte {
			completed := make(chan struct{}, 1)
			hooks := &server.TaskHooks{}
			hooks.AddOnTaskCompleted(func(context.Context, server.TaskMetrics) { completed <- struct{}{} })
			srv := server.NewMCPServer("s", "1", server.WithTaskCapabilities(true, true, true), server.WithTaskHooks(hooks))
			required := tool
			required.Execution = &mcp.ToolExecution{TaskSupport: mcp.TaskSupportRequired}
			res := &mcp.CreateTaskResult{Content: []mcp.Content{mcp.NewTextContent("a reading")}, StructuredContent: status}
			srv.AddTaskTool(required, New(guard.WithOutputValidation()).TaskHandler(required, func(context.Context, mcp.CallToolRequest) (*mcp.CreateTaskResult, error) {
				return res, nil
			}))
			return func(c func()) []byte { return taskResultAfter(t, srv, completed, c) }
		}},
	} {
		t.Run(path.name, func(t *testing.T) {
			status := map[string]any{"celsius": 21}
			call := path.serve(status)
			for _, c := range []struct {
				celsius, then any // then: what the tool's job changes it to once checked
				sent          string
			}{
				{21, "classified", `{"celsius":21}`},
				{22, -273, `{"celsius":22}`},
				{"hot", 23, ""}, // withheld
			} {
				status["celsius"] = c.celsius
				b := call(func() { status["celsius"] = c.then })
				var resp struct {
					Result struct {
						IsError           bool            `json:"isError"`
						StructuredContent json.RawMessage `json:"structuredContent"`
					} `json:"result"`
				}
				if err := json.Unmarshal(b, &resp); err != nil {
					t.Fatalf("%s: %v", b, err)
				}
				sent := resp.Result.StructuredContent
				if !resp.Result.IsError && sent != nil && v.Validate(sent) != nil {
					t.Errorf("celsius %v, then %v: the client reads structuredContent %s, which the outputSchema refuses", c.celsius, c.then, sent)
				}
				if got := map[bool]string{false: string(sent)}[resp.Result.IsError]; got != c.sent {
					t.Errorf("celsius %v, then %v: sent %q, want %q: %s", c.celsius, c.then, got, c.sent, b)
				}
			}
		})
	}
}

// taskResultAfter starts a task-augmented call of "reading" on srv, runs change once the
// task has completed (completed receives), and returns the answer to its tasks/result.
func taskResultAfter(t *testing.T, srv *server.MCPServer, completed <-chan struct{}, change func()) []byte {
	t.Helper()
	b, _ := json.Marshal(srv.HandleMessage(t.Context(), []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"reading","arguments":{},"task":{}}}`)))
	var created struct {
		Result struct {
			Task struct {
				TaskID string `json:"taskId"`
			} `json:"task"`
		} `json:"result"`
	}
	if json.Unmarshal(b, &created) != nil || created.Result.Task.TaskID == "" {
		t.Fatalf("no task created: %s", b)
	}
	<-completed // a hang is left to go test's -timeout
	change()
	b, _ = json.Marshal(srv.HandleMessage(t.Context(), []byte(`{"jsonrpc":"2.0","id":2,"method":"tasks/result","params":{"taskId":"`+created.Result.Task.TaskID+`"}}`)))
	return b
}
