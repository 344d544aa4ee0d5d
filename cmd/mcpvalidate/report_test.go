package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/mcpvalidate/mcpvalidate/guard"
)

var update = flag.Bool("update", false, "rewrite testdata/sample.log and the sample in docs/report.md")

const (
	sampleLog  = "testdata/sample.log"
	reportDoc  = "../../docs/report.md"
	docsBefore = "<!-- the output of mcpvalidate report testdata/sample.log, which TestReportSample compares -->\n```text\n"
	docsAfter  = "```\n"
)

// writeSampleLog writes the log of a scripted day of calls, as a guard with WithLogger at
// Debug and WithEnumMisses writes it, with a line of the proxy's own, one of another
// program, and one cut short.
func writeSampleLog(t *testing.T, w io.Writer) {
	t.Helper()
	g := guard.New(guard.WithOutputValidation(), guard.WithEnumMisses(),
		guard.WithLogger(slog.New(slog.NewJSONHandler(w, &slog.HandlerOptions{Level: slog.LevelDebug}))))
	schemas := map[string]*guard.Schema{
		"weather": g.Bind("weather", nil, []byte(`{"type":"object","properties":{"location":{"type":"string"},
			"days":{"type":"integer","minimum":1,"maximum":16},"units":{"enum":["c","f"]}},
			"required":["location"],"additionalProperties":false}`), nil),
		"search": g.Bind("search", nil, []byte(`{"type":"object","properties":{"query":{"type":"string"},
			"limit":{"type":"integer"},"sort":{"enum":["relevance","date"]}},"required":["query"],"additionalProperties":false}`), nil),
		"geocode": g.Bind("geocode", nil, []byte(`{"type":"object","properties":{"address":{"type":"strnig"}}}`), nil),
	}
	output := g.Bind("weather-output", nil, []byte(`{"type":"object","required":["forecast"]}`), nil)
	calls := []struct{ session, tool, args string }{
		{"s1", "weather", `{"location":"Paris","units":"C"}`},
		{"s1", "weather", `{"location":"Paris","units":"c"}`},
		{"s2", "weather", `{"city":"Oslo"}`},
		{"s2", "weather", `{"location":"Oslo"}`},
		{"s3", "weather", `{"city":"Rome","days":"3"}`},
		{"s3", "weather", `{"location":"Rome","days":"3"}`},
		{"s3", "weather", `{"location":"Rome","days":3}`},
		{"s4", "weather", `{"location":"Lima"}`},
		{"s4", "weather", `{"location":"Lima","units":"celsius"}`},
		{"s4", "weather", `{"location":"Lima","units":"C"}`},
		{"s4", "weather", `{"location":"Lima","units":"c"}`},
		{"s5", "weather", `{"location":"Kyiv","days":30}`},
		{"s5", "weather", `{"location":"Kyiv","days":14}`},
		{"s6", "weather", `{"city":"Bern"}`},
		{"s7", "weather", `{"location":"Quito","units":"C"}`},
		{"s7", "weather", `{"location":"Quito","units":"f"}`},
		{"s8", "weather", `{"location":"Accra"}`}, // its result is withheld
		{"s10", "weather", `{"location":"Nice","days":"two"}`},
		{"s10", "weather", `{"location":"Nice","days":2}`},
		{"s1", "search", `{"q":"mcp"}`},
		{"s1", "search", `{"query":"mcp","sort":"newest"}`},
		{"s1", "search", `{"query":"mcp","sort":"date"}`},
		{"s2", "search", `{"query":"go","limit":"10"}`},
		{"s2", "search", `{"query":"go","limit":10}`},
		{"s9", "search", `{"query":"json"}`},
		{"s9", "geocode", `{"address":"1 Main St"}`},
		{"s9", "geocode", `{"address":"1 Main St"}`},
	}
	for _, c := range calls {
		call := &guard.Call{Tool: c.tool, Session: c.session, Client: "assistant", ChecksResult: c.session == "s8"}
		if vd := g.Check(call, schemas[c.tool], []byte(c.args), nil); vd.Found() || !call.ChecksResult {
			continue
		}
		v, _ := g.ResultValidator(call, output)
		g.CheckResult(call, v, []byte(`{"error":"no data"}`))
	}
	for _, name := range []string{"Weather", "get_weather", "Weather"} {
		g.Unlisted(&guard.Call{Tool: name, Session: "s11", Client: "assistant"}, false)
	}
	fmt.Fprintln(w, `{"time":"2026-12-02T09:00:00Z","level":"WARN","msg":"mcpvalidate proxy: the server exited","error":"exit status 1"}`)
	fmt.Fprintln(w, `{"time":"2026-12-02T09:00:00Z","level":"INFO","msg":"listening","addr":"127.0.0.1:8080"}`)
	fmt.Fprintln(w, `{"time":"2026-12-02T09:00:00Z","level":"INFO","msg":"mcpvalidate: tool call ref`)
}

// runReport runs the report command and returns its stdout, failing on any other exit
// than 0.
func runReport(t *testing.T, stdin io.Reader, args ...string) string {
	t.Helper()
	var out, errOut bytes.Buffer
	if code := run(append([]string{"report"}, args...), stdin, &out, &errOut); code != 0 {
		t.Fatalf("report %v: exit %d, stderr %s", args, code, errOut.String())
	}
	return out.String()
}

// TestReportSample: the sample log is what the guard writes today (its report is the same
// whichever of the two is read), and docs/report.md shows what report prints of it.
func TestReportSample(t *testing.T) {
	var fresh bytes.Buffer
	writeSampleLog(t, &fresh)
	if *update {
		if err := os.WriteFile(sampleLog, fresh.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want := runReport(t, nil, sampleLog)
	if got := runReport(t, &fresh, "-"); got != want {
		t.Errorf("the guard's log today gives\n%s\nthe committed sample\n%s\n(go test . -run ReportSample -update rewrites it)", got, want)
	}
	doc, err := os.ReadFile(reportDoc)
	if err != nil {
		t.Fatal(err)
	}
	before, rest, ok := strings.Cut(string(doc), docsBefore)
	_, after, ok2 := strings.Cut(rest, docsAfter)
	if !ok || !ok2 {
		t.Fatalf("%s has no sample between %q and %q", reportDoc, docsBefore, docsAfter)
	}
	if *update {
		if err := os.WriteFile(reportDoc, []byte(before+docsBefore+want+docsAfter+after), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if sample, _, _ := strings.Cut(rest, docsAfter); sample != want {
		t.Errorf("%s shows\n%s\nreport prints\n%s\n(go test . -run ReportSample -update rewrites it)", reportDoc, sample, want)
	}
}

// TestReportOfSample: what report finds in the sample: each outcome counted, the repair
// ratios as ToolStats defines them, the values sent outside an enum, and the suggestions.
func TestReportOfSample(t *testing.T) {
	var r Report
	if err := json.Unmarshal([]byte(runReport(t, nil, "-json", sampleLog)), &r); err != nil {
		t.Fatal(err)
	}
	if r.Lines != 34 || r.Guard != 31 || r.Proxy != 1 || r.Unknown != 1 || r.Malformed != 1 || !r.AcceptedLogged || len(r.Tools) != 3 {
		t.Fatalf("lines %d, guard %d, proxy %d, unknown %d, malformed %d, accepted logged %v, %d tools",
			r.Lines, r.Guard, r.Proxy, r.Unknown, r.Malformed, r.AcceptedLogged, len(r.Tools))
	}
	if u := r.UnknownTools; u.Calls != 3 || fmt.Sprint(u.Names) != fmt.Sprint([]Count{{Tool: "Weather", Count: 2}, {Tool: "get_weather", Count: 1}}) {
		t.Errorf("unknown tools %+v", u)
	}
	w := r.Tools[0]
	// 19 calls: 10 refused, 9 accepted, of which 7 repaired 9 refusals (s6's is left) and
	// one had its result withheld.
	if w.Tool != "weather" || w.Calls != 19 || w.Refused != 10 || w.Accepted != 9 || w.Repaired != 7 || w.Retries != 9 || w.ResultRefused != 1 {
		t.Errorf("weather: %+v", w)
	}
	if w.CallsPerAccepted == nil || *w.CallsPerAccepted != 19.0/9 || w.RefusalsPerRepair == nil || *w.RefusalsPerRepair != 9.0/7 {
		t.Errorf("weather's ratios: %v, %v", w.CallsPerAccepted, w.RefusalsPerRepair)
	}
	wantMisses := []Count{{Path: "units", Sent: `"C"`, Count: 3}, {Path: "units", Sent: `"celsius"`, Count: 1}}
	if fmt.Sprint(w.EnumMisses) != fmt.Sprint(wantMisses) {
		t.Errorf("weather's enum misses %v, want %v", w.EnumMisses, wantMisses)
	}
	suggested := strings.Join(w.Suggestions, "\n")
	for _, want := range []string{"models leave out location (3 of 10 refusals)", "models send city, which the schema does not declare (3 of 10",
		"models send string where integer belongs for days (3 of 10 refusals)",
		`consider adding "C" to the enum`, "its results did not match its outputSchema (1 withheld)"} {
		if !strings.Contains(suggested, want) {
			t.Errorf("weather's suggestions lack %q:\n%s", want, suggested)
		}
	}
	if strings.Contains(suggested, "celsius") || strings.Contains(suggested, "maximum") {
		t.Errorf("a suggestion below the threshold:\n%s", suggested)
	}
	s, geo := r.Tools[1], r.Tools[2]
	if s.Tool != "search" || s.Refused != 3 || s.Accepted != 3 || s.Repaired != 2 || s.Retries != 3 || len(s.Suggestions) != 0 {
		t.Errorf("search: %+v", s)
	}
	if geo.Tool != "geocode" || geo.SchemaBroken != 2 || geo.Calls != 2 || geo.CallsPerAccepted != nil || !strings.Contains(geo.SchemaError, "strnig") ||
		len(geo.Suggestions) != 1 || !strings.Contains(geo.Suggestions[0], "does not compile") {
		t.Errorf("geocode: %+v", geo)
	}
}

// TestReportUnknownTools: calls of tools the server does not list, as the guard logs
// them, are counted apart, refused and passed on, with the names called most often as the
// log shows them; they make no tool of their own, whatever names a model makes up.
func TestReportUnknownTools(t *testing.T) {
	var log bytes.Buffer
	g := guard.New(guard.WithLogger(slog.New(slog.NewJSONHandler(&log, nil))))
	for range 5 {
		g.Unlisted(&guard.Call{Tool: "Weather"}, false)
	}
	g.Unlisted(&guard.Call{Tool: "weather "}, true)
	g.Unlisted(&guard.Call{Tool: "weather "}, true)
	g.Unlisted(&guard.Call{Tool: strings.Repeat("x", 100000) + "\u202e"}, false)
	for i := range 3000 {
		g.Unlisted(&guard.Call{Tool: fmt.Sprintf("made-up-%d", i)}, false)
	}
	g.Check(&guard.Call{Tool: "weather"}, g.Bind("weather", nil, []byte(`{"required":["location"]}`), nil), []byte(`{}`), nil)
	text := runReport(t, bytes.NewReader(log.Bytes()), "-top", "2", "-")
	var r Report
	if err := json.Unmarshal([]byte(runReport(t, bytes.NewReader(log.Bytes()), "-json", "-top", "2", "-")), &r); err != nil {
		t.Fatal(err)
	}
	u := r.UnknownTools
	want := []Count{{Tool: "Weather", Count: 5}, {Tool: "weather ", Count: 2}}
	if r.Guard != 3009 || len(r.Tools) != 1 || u.Calls != 3008 || u.Passed != 2 || fmt.Sprint(u.Names) != fmt.Sprint(want) || u.OtherNames != 3001 {
		t.Errorf("guard %d, %d tools; unknown tools %+v, want 3008 calls, 2 passed, names %v and 3001 others", r.Guard, len(r.Tools), u, want)
	}
	for _, want := range []string{"calls of tools the server does not list: 3008 (2 passed on unchecked)", "5  Weather\n", "2  \"weather \"\n", "3001  other names"} {
		if !strings.Contains(text, want) {
			t.Errorf("the report lacks %q:\n%s", want, text)
		}
	}
}

// TestReportReadsWhatItKnows: lines it does not know, or cannot read, are counted and
// skipped; without accepted calls in the log, calls per accepted call is not given.
func TestReportReadsWhatItKnows(t *testing.T) {
	refused := `{"msg":"mcpvalidate: tool call refused","tool":"t","kinds":["required","type"],"paths":["a","b"],"more":2}`
	repaired := `{"msg":"mcpvalidate: tool call repaired","tool":"t","retries":1}`
	for _, c := range []struct {
		name                                  string
		log                                   string
		lines, guard, proxy, unknown, broken  uint64
		calls, refused, violations, notListed uint64
	}{
		{"empty", "", 0, 0, 0, 0, 0, 0, 0, 0, 0},
		{"blank lines and CRLF", "\n\r\n" + refused + "\r\n\n" + repaired, 2, 2, 0, 0, 0, 2, 1, 2, 2},
		{"not JSON", "time=x level=INFO msg=hello\n" + refused, 2, 1, 0, 0, 1, 1, 1, 2, 2},
		{"not an object", "[1,2]\n\"x\"\nnull\n42\n" + refused, 5, 1, 0, 0, 4, 1, 1, 2, 2},
		{"wrong shape", `{"msg":"mcpvalidate: tool call refused","tool":"t","kinds":5}` + "\n" + refused, 2, 1, 0, 0, 1, 1, 1, 2, 2},
		{"cut short", refused[:40] + "\n" + refused, 2, 1, 0, 0, 1, 1, 1, 2, 2},
		{"another program", `{"msg":"listening"}` + "\n" + `{"level":"INFO"}` + "\n" + refused, 3, 1, 0, 2, 0, 1, 1, 2, 2},
		{"the proxy's own", `{"msg":"mcpvalidate proxy: the server exited"}` + "\n" + refused, 2, 1, 1, 0, 0, 1, 1, 2, 2},
		{"more paths than kinds", `{"msg":"mcpvalidate: tool call refused","tool":"t","kinds":["type"],"paths":["a","b","c"]}`, 1, 1, 0, 0, 0, 1, 1, 1, 0},
		{"a line too long", `{"msg":"` + strings.Repeat("x", 3<<20) + `"}` + "\n" + refused + "\n" + strings.Repeat("y", 2<<20), 3, 1, 0, 0, 2, 1, 1, 2, 2},
		{"no final newline", refused + "\n" + refused, 2, 2, 0, 0, 0, 2, 2, 4, 4},
		{"a long line, read whole", `{"msg":"mcpvalidate: tool call refused","tool":"t","client":"` + strings.Repeat("c", 200<<10) +
			`","kinds":["required"],"paths":["a"]}` + "\n" + refused, 2, 2, 0, 0, 0, 2, 2, 3, 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			var r Report
			if err := json.Unmarshal([]byte(runReport(t, strings.NewReader(c.log), "-json", "-")), &r); err != nil {
				t.Fatal(err)
			}
			if r.Lines != c.lines || r.Guard != c.guard || r.Proxy != c.proxy || r.Unknown != c.unknown || r.Malformed != c.broken {
				t.Errorf("lines %d, guard %d, proxy %d, unknown %d, malformed %d; want %d, %d, %d, %d, %d",
					r.Lines, r.Guard, r.Proxy, r.Unknown, r.Malformed, c.lines, c.guard, c.proxy, c.unknown, c.broken)
			}
			var calls, refusals, violations, notListed uint64
			for _, tool := range r.Tools {
				calls, refusals, violations, notListed = calls+tool.Calls, refusals+tool.Refused, violations+tool.Violations, notListed+tool.NotListed
				if tool.CallsPerAccepted != nil {
					t.Errorf("calls per accepted call given, though no accepted call is logged")
				}
			}
			if calls != c.calls || refusals != c.refused || violations != c.violations || notListed != c.notListed {
				t.Errorf("calls %d, refused %d, violations %d, not listed %d; want %d, %d, %d, %d",
					calls, refusals, violations, notListed, c.calls, c.refused, c.violations, c.notListed)
			}
		})
	}
}

// TestReportShowsWhatPrints: names, paths and values that would move a terminal's cursor
// or turn its text around are printed quoted and escaped.
func TestReportShowsWhatPrints(t *testing.T) {
	log := `{"msg":"mcpvalidate: tool call refused","tool":"evil\u001b[2J\u202e","kinds":["enum"],"paths":["a\u0007"],` +
		`"enum_misses":[{"path":"a\u0007","sent":"\"\u001b]0;title\u0007\""}]}`
	out := runReport(t, strings.NewReader(log), "-")
	if strings.ContainsAny(out, "\x1b\x07\u202e") {
		t.Errorf("the report prints control characters: %q", out)
	}
	for _, want := range []string{`"evil\x1b[2J\u202e"`, `"a\a"`, `"\"\x1b]0;title\a\""`} {
		if !strings.Contains(out, want) {
			t.Errorf("the report lacks %s:\n%s", want, out)
		}
	}
}

// TestReportUsage: mistakes in report's command line exit 2 with a message.
func TestReportUsage(t *testing.T) {
	for _, c := range []struct {
		args []string
		err  string
	}{
		{[]string{"report"}, "report needs one log file"},
		{[]string{"report", "a", "b"}, "report needs one log file"},
		{[]string{"report", "-top", "0", "-"}, "-top of at least 1"},
		{[]string{"report", "-share", "1.5", "-"}, "-share in (0, 1]"},
		{[]string{"report", filepath.Join(os.DevNull, "missing")}, "not a directory"},
	} {
		var out, errOut bytes.Buffer
		if code := run(c.args, strings.NewReader(""), &out, &errOut); code != 2 || !strings.Contains(errOut.String(), c.err) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args, code, errOut.String(), c.err)
		}
	}
}

// generatedLog is a log of n lines made as it is read: refusals of many tools at many paths
// with many values, a repair, an accepted call and a malformed line in turn.
type generatedLog struct {
	n, i  int
	buf   []byte
	bytes int // made so far
}

func (g *generatedLog) Read(p []byte) (int, error) {
	for len(g.buf) < len(p) && g.i < g.n {
		i := g.i
		switch i % 4 {
		case 0, 1:
			g.buf = fmt.Appendf(g.buf, `{"time":"2026-12-02T09:00:00.000000000Z","level":"INFO","msg":"mcpvalidate: tool call refused","tool":"tool-%d","session":"session-%d","client":"assistant","kinds":["required","enum","additional"],"paths":["location","units","extra-%d"],"enum_misses":[{"path":"units","sent":"\"value-%d\""}],"duration":12345}`+"\n",
				i%1500, i, i%30000, i%25000)
		case 2:
			g.buf = fmt.Appendf(g.buf, `{"time":"2026-12-02T09:00:00.000000000Z","level":"INFO","msg":"mcpvalidate: tool call repaired","tool":"tool-%d","session":"session-%d","client":"assistant","retries":2,"duration":2345}`+"\n", i%1500, i)
		case 3:
			g.buf = fmt.Appendf(g.buf, `{"time":"2026-12-02T09:00:00.000000000Z","level":"INFO","msg":"mcpvalidate: tool call refus`+"\n")
		}
		g.i++
	}
	if len(g.buf) == 0 {
		return 0, io.EOF
	}
	n := copy(p, g.buf)
	g.buf = g.buf[:copy(g.buf, g.buf[n:])]
	g.bytes += n
	return n, nil
}

// TestReportBounded: a log of many megabytes (115 MB in the full tier), with more tools,
// paths and values than report tracks, is read whole, its counts exact, in memory that
// does not grow with it, and with allocations linear in its lines.
func TestReportBounded(t *testing.T) {
	lines := 80_000 // about 18 MB
	if !testing.Short() {
		lines = 500_000
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	log := &generatedLog{n: lines}
	r, err := readLog(log, reportOptions{top: 10, share: 0.2, least: 3})
	if err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	var refused, repaired, retries, violations, misses uint64
	tracked := 0
	for _, tool := range r.Tools {
		refused, repaired, retries, violations = refused+tool.Refused, repaired+tool.Repaired, retries+tool.Retries, violations+tool.Violations
		for _, p := range tool.Paths {
			violations -= p.Count
		}
		violations -= tool.OtherPaths
		misses += tool.OtherMisses
		for _, m := range tool.EnumMisses {
			misses += m.Count
		}
		tracked += len(tool.Paths) + len(tool.EnumMisses)
	}
	n := uint64(lines)
	if r.Lines != n || r.Guard != n/4*3 || r.Malformed != n/4 || refused != n/2 || repaired != n/4 || retries != n/2 || violations != 0 || misses != n/2 {
		t.Errorf("lines %d, guard %d, malformed %d, refused %d, repaired %d, retries %d, misses %d, violations unaccounted %d; want %d lines",
			r.Lines, r.Guard, r.Malformed, refused, repaired, retries, misses, violations, n)
	}
	if len(r.Tools) != maxTools+1 || !r.Tools[maxTools].Other || tracked > 2*10*len(r.Tools) {
		t.Errorf("%d tools (the last other: %v), %d paths and values shown", len(r.Tools), r.Tools[len(r.Tools)-1].Other, tracked)
	}
	live := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	perLine := (after.TotalAlloc - before.TotalAlloc) / n
	t.Logf("%d lines, %d bytes: %d bytes live after, %d bytes allocated per line", lines, log.bytes, live, perLine)
	if live > 32<<20 || perLine > 4<<10 {
		t.Errorf("%d bytes live after reading, %d bytes allocated per line", live, perLine)
	}
}

// TestProxyLogFeedsReport: the proxy's log, with -log-accepted and -log-enum-values, is
// what report reads: every call counted, the repair, and the value sent outside the enum;
// without them, no value and no accepted call reaches the log.
func TestProxyLogFeedsReport(t *testing.T) {
	t.Setenv(serverRole, "1")
	in := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"weather","arguments":{"location":"Oslo"}}}` + "\n" +
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"weather","arguments":{"location":"SECRET-PLACE","units":"Kelvin\u202e"}}}` + "\n" +
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"weather","arguments":{"location":"SECRET-PLACE","units":"c"}}}` + "\n"
	for _, c := range []struct {
		flags          []string
		calls          uint64
		misses         []Count
		acceptedLogged bool
	}{
		{nil, 2, []Count{}, false},
		{[]string{"-log-accepted", "-log-enum-values"}, 3, []Count{{Path: "units", Sent: `"Kelvin\u202e"`, Count: 1}}, true},
	} {
		log := filepath.Join(t.TempDir(), "proxy.log")
		var out, errOut bytes.Buffer
		args := append(append([]string{"proxy", "-log", log}, c.flags...), "--", os.Args[0], "-test.run=^$")
		if code := run(args, strings.NewReader(in), &out, &errOut); code != 7 {
			t.Fatalf("%v: exit %d, stderr %s", c.flags, code, errOut.String())
		}
		text, err := os.ReadFile(log)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(text), "SECRET") || !c.acceptedLogged && strings.Contains(string(text), "Kelvin") {
			t.Errorf("%v: the log holds a value it should not:\n%s", c.flags, text)
		}
		var r Report
		if err := json.Unmarshal([]byte(runReport(t, nil, "-json", log)), &r); err != nil {
			t.Fatal(err)
		}
		if len(r.Tools) != 1 || r.Unknown+r.Malformed != 0 || r.AcceptedLogged != c.acceptedLogged {
			t.Fatalf("%v: %+v", c.flags, r)
		}
		w := r.Tools[0]
		if w.Tool != "weather" || w.Calls != c.calls || w.Refused != 1 || w.Repaired != 1 || w.Retries != 1 || fmt.Sprint(w.EnumMisses) != fmt.Sprint(c.misses) {
			t.Errorf("%v: %+v, want %d calls, one refused and repaired, misses %v", c.flags, w, c.calls, c.misses)
		}
	}
	var out, errOut bytes.Buffer
	if code := run([]string{"proxy", "-log-enum-values", "--", "x"}, strings.NewReader(""), &out, &errOut); code != 2 || !strings.Contains(errOut.String(), "need -log") {
		t.Errorf("-log-enum-values without -log: exit %d, %s", code, errOut.String())
	}
}

// TestReportSaturates: counts a log line gives (more, retries) are summed without
// wrapping around, whatever a line forged by whoever shares the log claims.
func TestReportSaturates(t *testing.T) {
	line := func(msg, field string) string {
		return `{"msg":"` + msg + `","tool":"t","kinds":["type"],"paths":["/a"],"` + field + `":18446744073709551615}` + "\n"
	}
	log := strings.Repeat(line("mcpvalidate: tool call refused", "more"), 2) +
		strings.Repeat(line("mcpvalidate: tool call repaired", "retries"), 2)
	r, err := readLog(strings.NewReader(log), reportOptions{top: 10, share: 0.2, least: 3})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Tools) != 1 || r.Tools[0].NotListed != math.MaxUint64 || r.Tools[0].Retries != math.MaxUint64 {
		t.Fatalf("%+v", r.Tools)
	}
}

// TestReportSeparatesServers: a log that proxies of two services, in front of two
// servers, wrote to, with a tool of one name on each, reports two tools, each named with
// its server and service, and their calls of tools the servers do not list apart too.
func TestReportSeparatesServers(t *testing.T) {
	var log bytes.Buffer
	for _, who := range []struct{ service, server string }{{"forecasts", "weather-server"}, {"travel", "trips"}} {
		g := guard.New(guard.WithLogger(slog.New(slog.NewJSONHandler(&log, nil)).With("service", who.service)))
		s := g.Bind("weather", nil, []byte(`{"required":["location"]}`), nil)
		refusals := 1
		if who.server == "trips" {
			refusals = 3
		}
		for range refusals {
			g.Check(&guard.Call{Tool: "weather", Session: "s", Server: who.server}, s, []byte(`{}`), nil)
		}
		g.Check(&guard.Call{Tool: "weather", Session: "s", Server: who.server}, s, []byte(`{"location":"Oslo"}`), nil)
		g.Unlisted(&guard.Call{Tool: "Weather", Server: who.server}, false)
	}
	var r Report
	if err := json.Unmarshal([]byte(runReport(t, bytes.NewReader(log.Bytes()), "-json", "-")), &r); err != nil {
		t.Fatal(err)
	}
	if len(r.Tools) != 2 {
		t.Fatalf("%d tools, want 2: %+v", len(r.Tools), r.Tools)
	}
	for i, want := range []struct {
		service, server string
		refused         uint64
	}{{"travel", "trips", 3}, {"forecasts", "weather-server", 1}} {
		if got := r.Tools[i]; got.Tool != "weather" || got.Service != want.service || got.Server != want.server || got.Refused != want.refused || got.Repaired != 1 {
			t.Errorf("tool %d: %+v, want %+v", i, got, want)
		}
	}
	if u := r.UnknownTools.Names; len(u) != 2 || u[0].Server == u[1].Server {
		t.Errorf("unknown tools %+v, want one of each server", u)
	}
	text := runReport(t, bytes.NewReader(log.Bytes()), "-")
	for _, want := range []string{"\nweather (server trips, service travel)\n", "\nweather (server weather-server, service forecasts)\n", "Weather (server trips, service travel)\n"} {
		if !strings.Contains(text, want) {
			t.Errorf("the report lacks %q:\n%s", want, text)
		}
	}
}

// TestReportSchemaChanges: a log that tells of a change of a tool's schema shows the
// tool's calls before its last change and since, and suggests looking at the change when
// refusals rose after it.
func TestReportSchemaChanges(t *testing.T) {
	var log bytes.Buffer
	g := guard.New(guard.WithLogger(slog.New(slog.NewJSONHandler(&log, &slog.HandlerOptions{Level: slog.LevelDebug}))))
	s := g.Bind("weather", nil, []byte(`{"required":["location"]}`), nil)
	call := func(args string, n int) {
		for range n {
			g.Check(&guard.Call{Tool: "weather", Server: "w"}, s, []byte(args), nil)
		}
	}
	call(`{"location":"Oslo"}`, 9)
	call(`{}`, 1)
	g.SchemaChanged(guard.SchemaChange{Server: "w", Added: []string{"station"}, Changed: []guard.ToolChange{{Tool: "weather", From: "a", To: "b"}}})
	call(`{}`, 5)
	call(`{"location":"Oslo"}`, 5)
	var r Report
	if err := json.Unmarshal([]byte(runReport(t, bytes.NewReader(log.Bytes()), "-json", "-")), &r); err != nil {
		t.Fatal(err)
	}
	var weather, station *ToolSummary
	for i := range r.Tools {
		switch r.Tools[i].Tool {
		case "weather":
			weather = &r.Tools[i]
		case "station":
			station = &r.Tools[i]
		}
	}
	if weather == nil || station == nil || weather.SchemaChanges != 1 || station.SchemaChanges != 1 {
		t.Fatalf("tools %+v", r.Tools)
	}
	if b, a := weather.Before, weather.After; b.Calls != 10 || b.Refused != 1 || a.Calls != 10 || a.Refused != 5 || *a.RefusedShare != 0.5 {
		t.Errorf("before %+v, after %+v", b, a)
	}
	text := runReport(t, bytes.NewReader(log.Bytes()), "-")
	for _, want := range []string{"schema changes: 1; before the last: 1 refused of 10 calls (10%); since: 5 refused of 10 calls (50%)",
		"refusals rose to 50% of its calls (from 10%) after its schema last changed"} {
		if !strings.Contains(text, want) {
			t.Errorf("the report lacks %q:\n%s", want, text)
		}
	}
}

// TestReportScales: in a large log, a count earns a suggestion from one in a thousand of
// the log's refusals (when that is over -min), and a tool refused that often and never
// repaired comes first, flagged, ahead of one refused more that models repair.
func TestReportScales(t *testing.T) {
	var log strings.Builder
	line := func(msg, tool string, n int) {
		for range n {
			log.WriteString(`{"msg":"mcpvalidate: tool call ` + msg + `","tool":"` + tool + `","kinds":["required"],"paths":["location"]}` + "\n")
		}
	}
	line("refused", "often", 10000)
	line("repaired", "often", 100)
	line("refused", "stuck", 30)
	line("refused", "rare", 5)
	var r Report
	if err := json.Unmarshal([]byte(runReport(t, strings.NewReader(log.String()), "-json", "-")), &r); err != nil {
		t.Fatal(err)
	}
	if r.Least != 11 || len(r.Tools) != 3 || r.Tools[0].Tool != "stuck" || r.Tools[1].Tool != "often" || r.Tools[2].Tool != "rare" {
		t.Fatalf("least %d, tools %v", r.Least, r.Tools)
	}
	if s := r.Tools[0].Suggestions; len(s) == 0 || !strings.HasPrefix(s[0], "refused 30 times and never repaired") {
		t.Errorf("stuck's suggestions %q", s)
	}
	if s := r.Tools[2].Suggestions; len(s) != 0 {
		t.Errorf("a tool refused 5 times in a log of 10,035 refusals earns suggestions: %q", s)
	}
	var small Report
	if err := json.Unmarshal([]byte(runReport(t, strings.NewReader(strings.Repeat(`{"msg":"mcpvalidate: tool call refused","tool":"rare","kinds":["required"],"paths":["location"]}`+"\n", 5)), "-json", "-")), &small); err != nil {
		t.Fatal(err)
	}
	if small.Least != 3 || len(small.Tools[0].Suggestions) < 2 {
		t.Errorf("in a small log: least %d, suggestions %q", small.Least, small.Tools[0].Suggestions)
	}
}
