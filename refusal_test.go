package mcpvalidate

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"unicode/utf8"
	"unsafe"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/mcpvalidate/mcpvalidate/guard"
)

// recursiveSchema takes objects of any names, nested at will, down to arrays of strings.
const recursiveSchema = `{"type":["object","array"],"additionalProperties":{"$ref":"#"},"items":{"type":"string"}}`

// nestedCall is a tools/call of tool "deep" whose arguments nest levels objects, each with
// one member named by nameLen copies of a letter (a different letter at each level), around
// an array of items numbers: items violations, all under one long path.
func nestedCall(levels, nameLen, items int) []byte {
	var b strings.Builder
	b.WriteString(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"deep","arguments":`)
	for i := range levels {
		fmt.Fprintf(&b, `{"%s":`, strings.Repeat(string(rune('a'+i%26)), nameLen))
	}
	b.WriteString("[" + strings.TrimSuffix(strings.Repeat("1,", items), ",") + "]")
	b.WriteString(strings.Repeat("}", levels) + "}}")
	return []byte(b.String())
}

// refusalText sends msg to srv and returns the text of the refusal it gets.
func refusalText(t *testing.T, srv *server.MCPServer, msg []byte) string {
	t.Helper()
	out, _ := json.Marshal(srv.HandleMessage(context.Background(), msg))
	var resp struct{ Result *mcp.CallToolResult }
	if err := json.Unmarshal(out, &resp); err != nil || resp.Result == nil || !resp.Result.IsError {
		t.Fatalf("want a refusal, got %.300s (%v)", out, err)
	}
	return textOf(resp.Result)
}

// nameBytes counts the bytes of distinct storage behind the names of vs's paths.
func nameBytes(vs []guard.Violation) int {
	seen := map[*byte]bool{}
	n := 0
	for _, v := range vs {
		for _, e := range v.Path {
			if p := unsafe.StringData(e.Name); len(e.Name) > 0 && !seen[p] {
				seen[p] = true
				n += len(e.Name)
			}
		}
	}
	return n
}

// TestRefusalsStayBounded: violations that each repeat a long path give a refusal, an
// observer event and a log line bounded by maxRefusal (and logPaths) and by a small
// multiple of the request, with long names and paths elided visibly and the cut said.
func TestRefusalsStayBounded(t *testing.T) {
	const k = 8 // the refusal is at most k times the request
	cases := []struct {
		name                   string
		levels, nameLen, items int
	}{
		{"60 levels of 16,000-character names (960 KB)", 60, 16_000, 30},
		{"60 levels of names as long as shown whole", 60, nameShown, 30},
		{"20 levels of names as long as shown whole", 20, nameShown, 30},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var events []guard.Event
			var log strings.Builder
			g := New(guard.WithObserver(func(e guard.Event) { events = append(events, e) }),
				guard.WithLogger(slog.New(slog.NewTextHandler(&log, nil))))
			var calls atomic.Int64
			srv, _ := weatherServer(t, g)
			srv.AddTool(mcp.NewToolWithRawSchema("deep", "", json.RawMessage(recursiveSchema)), forecast(&calls))
			msg := nestedCall(c.levels, c.nameLen, c.items)

			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			text := refusalText(t, srv, msg)
			runtime.ReadMemStats(&after)
			allocated := after.TotalAlloc - before.TotalAlloc

			t.Logf("request %d bytes, refusal %d, log %d, %d bytes allocated by the call", len(msg), len(text), log.Len(), allocated)
			if len(text) > maxRefusal || len(text) > k*len(msg) {
				t.Errorf("refusal of %d bytes for a request of %d; want at most %d and %d times the request",
					len(text), len(msg), maxRefusal, k)
			}
			shown := strings.Count(text, "must be string")
			cut := fmt.Sprintf("; and %d more violations not shown (the refusal is cut at %d bytes)", c.items-shown, maxRefusal)
			if shown == 0 || !strings.HasSuffix(text, cut) {
				t.Errorf("the refusal shows %d violations and does not end with %q:\n%.500s…%s", shown, cut, text, text[max(0, len(text)-200):])
			}
			if c.levels > pathShown && !strings.Contains(text, fmt.Sprintf("[…%d levels not shown…]", c.levels+1-2*pathEnds)) {
				t.Errorf("a path of %d steps is not elided visibly: %.500s", c.levels+1, text)
			}
			if c.nameLen > nameShown && !strings.Contains(text, fmt.Sprintf(`"…(%d characters not shown)…"`, c.nameLen-nameHead-nameTail)) {
				t.Errorf("names of %d characters are not elided visibly: %.500s", c.nameLen, text)
			}
			if calls.Load() != 0 {
				t.Error("the handler ran")
			}

			if len(events) != 1 || events[0].Outcome != guard.Refused {
				t.Fatalf("want one refusal event, got %d", len(events))
			}
			names := c.levels * c.nameLen
			if got := nameBytes(events[0].Violations); got > names {
				t.Errorf("the event's paths hold %d bytes of names; the request has %d", got, names)
			}
			if allocated > 20*uint64(len(msg))+1<<20 { // mcp-go's own work on one call is about 250 KB
				t.Errorf("the call allocated %d bytes for a request of %d", allocated, len(msg))
			}

			lines := strings.Split(strings.TrimSuffix(log.String(), "\n"), "\n")
			if len(lines) != 1 || len(lines[0]) > maxRefusal || !strings.Contains(lines[0], " more=") {
				t.Errorf("want one log line of at most %d bytes that counts the paths left out; got %d lines, the first of %d bytes: %.300s",
					maxRefusal, len(lines), len(lines[0]), lines[0])
			}
		})
	}
}

// TestFormatterOutputIsBounded: whatever a formatter returns, the refusal stays within
// maxRefusal, keeps whole the messages that fit, says how many violations it leaves out,
// stays valid UTF-8, and the formatter is not called for violations past the cut.
func TestFormatterOutputIsBounded(t *testing.T) {
	extra := map[string]any{"location": "Paris"}
	for i := range 100 {
		extra[fmt.Sprintf("x%03d", i)] = 1 // 100 unexpected members
	}
	cases := []struct {
		name    string
		message func(i int) string // the formatter's message for the i-th violation
		shown   int                // messages kept whole
		left    int                // violations said not shown
	}{
		{"1 MB messages", func(int) string { return strings.Repeat("x", 1<<20) }, 0, 99},
		{"1 MB of é", func(int) string { return strings.Repeat("é", 1<<19) }, 0, 99},
		{"a second message of 1 MB", func(i int) string {
			if i == 1 {
				return strings.Repeat("y", 1<<20)
			}
			return "short"
		}, 1, 99},
		{"1 KB messages", func(int) string { return strings.Repeat("z", 1<<10) }, 7, 93},
		{"short messages", func(int) string { return "short" }, 100, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			calls := 0
			srv, _ := weatherServer(t, New(guard.WithMaxViolations(1000), guard.WithFormatter(func(guard.Violation) string {
				calls++
				return c.message(calls - 1)
			})))
			text, isErr := invoke(t, srv, nil, "weather", extra)
			if !isErr || len(text) > maxRefusal || !utf8.ValidString(text) {
				t.Fatalf("refusal of %d bytes (at most %d), valid UTF-8 %v: %.200q", len(text), maxRefusal, utf8.ValidString(text), text)
			}
			whole := 0
			for i, m := range strings.Split(strings.TrimPrefix(text, refusalPrefix), "; ") {
				if m != c.message(i) {
					break
				}
				whole++
			}
			if whole != c.shown {
				t.Errorf("%d messages kept whole, want %d", whole, c.shown)
			}
			note := fmt.Sprintf("; and %d more violations not shown (the refusal is cut at %d bytes)", c.left, maxRefusal)
			if c.left == 0 {
				note = "short"
			}
			if !strings.HasSuffix(text, note) {
				t.Errorf("the refusal does not end with %q: …%q", note, text[max(0, len(text)-200):])
			}
			if want := min(100, c.shown+1); calls != want {
				t.Errorf("the formatter ran %d times; want %d", calls, want)
			}
		})
	}
}

// clientSession is a session whose client declared itself at initialize.
type clientSession struct {
	toolSession
	info mcp.Implementation
}

func (s *clientSession) GetClientInfo() mcp.Implementation     { return s.info }
func (s *clientSession) SetClientInfo(info mcp.Implementation) { s.info = info }
func (s *clientSession) GetClientCapabilities() mcp.ClientCapabilities {
	return mcp.ClientCapabilities{}
}
func (s *clientSession) SetClientCapabilities(mcp.ClientCapabilities) {}

// TestLogLineShowsNamesVisibly: the log line of a refusal shows member names as messages
// do, and the client's self-declared name escaped and elided like a name.
func TestLogLineShowsNamesVisibly(t *testing.T) {
	var log strings.Builder
	srv, _ := weatherServer(t, New(guard.WithLogger(slog.New(slog.NewJSONHandler(&log, nil)))))
	client := "evil\u202e" + strings.Repeat("x", 100_000)
	session := &clientSession{toolSession: toolSession{id: "s1"}, info: mcp.Implementation{Name: client, Version: "1"}}
	invoke(t, srv, session, "weather", map[string]any{"location": "x", "\u212a": 1, "a\u202eb": 2})
	var line struct {
		Client string
		Paths  []string
	}
	if err := json.Unmarshal([]byte(log.String()), &line); err != nil {
		t.Fatalf("%v: %.300s", err, log.String())
	}
	// In the order of the wire, which encoding/json sorts.
	if want := []string{`["a\u202eb"]`, `["\u212a"]`}; strings.Join(line.Paths, " ") != strings.Join(want, " ") {
		t.Errorf("paths %q, want %q", line.Paths, want)
	}
	want := `"evil\u202exxxxxxxxxxxxxxxxxxxxxxxxxxx"…(99957 characters not shown)…"xxxxxxxxxxxxxxxx"`
	if line.Client != want {
		t.Errorf("client %q, want %q", line.Client, want)
	}
	if log.Len() > 1<<10 {
		t.Errorf("a log line of %d bytes", log.Len())
	}
}

// TestRefusalCostsNoMoreThanBuiltin: a refused call, answered and marshalled as mcp-go
// sends it, allocates no more (in count and in bytes) than the same call refused by
// mcp-go's own input validation. Its violations as data, which mcp-go copies through three
// nested marshals, are what WithViolationMeta adds.
func TestRefusalCostsNoMoreThanBuiltin(t *testing.T) {
	if raceDetector {
		t.Skip("the race detector drops sync.Pool's items")
	}
	msg := []byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"weather","arguments":{"days": 2.5, "units": "k", "x": 1}}}`)
	cost := func(opt server.ServerOption) (allocs, bytes float64) {
		srv, calls := weatherServer(t, nil, opt)
		send := func() {
			out, err := json.Marshal(srv.HandleMessage(context.Background(), msg))
			if err != nil || !strings.Contains(string(out), `"isError":true`) {
				t.Fatalf("not refused: %s %v", out, err)
			}
		}
		send()
		const runs = 200
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		for range runs {
			send()
		}
		runtime.ReadMemStats(&after)
		if calls.Load() != 0 {
			t.Fatal("the tool ran")
		}
		return testing.AllocsPerRun(runs, send), float64(after.TotalAlloc-before.TotalAlloc) / runs
	}
	builtinAllocs, builtinBytes := cost(server.WithInputSchemaValidation())
	allocs, bytes := cost(server.WithToolHandlerMiddleware(Middleware()))
	metaAllocs, metaBytes := cost(server.WithToolHandlerMiddleware(New(guard.WithViolationMeta()).Middleware()))
	t.Logf("per refused call: builtin %.0f allocations, %.0f B; mcpvalidate %.0f, %.0f B; with its data %.0f, %.0f B",
		builtinAllocs, builtinBytes, allocs, bytes, metaAllocs, metaBytes)
	if allocs > builtinAllocs || bytes > builtinBytes {
		t.Errorf("a refusal allocates %.0f times, %.0f B; mcp-go's own %.0f times, %.0f B", allocs, bytes, builtinAllocs, builtinBytes)
	}
}
