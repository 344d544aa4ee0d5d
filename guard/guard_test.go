package guard

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"strings"
	"testing"
)

// BenchmarkRefusalText: the cost of a refusal's text, validation aside: the weather tool's four
// violations, and the 20 violations (and a closing count) of 960 KB of arguments that
// nest 60 objects under 16,000-character names around an array of 30 numbers.
func BenchmarkRefusalText(b *testing.B) {
	g := New()
	weather, err := Compile([]byte(weatherSchema))
	if err != nil {
		b.Fatal(err)
	}
	deep, err := Compile([]byte(`{"type":["object","array"],"additionalProperties":{"$ref":"#"},"items":{"type":"string"}}`))
	if err != nil {
		b.Fatal(err)
	}
	var args strings.Builder
	for i := range 60 {
		fmt.Fprintf(&args, `{"%s":`, strings.Repeat(string(rune('a'+i%26)), 16_000))
	}
	args.WriteString("[" + strings.TrimSuffix(strings.Repeat("1,", 30), ",") + "]" + strings.Repeat("}", 60))
	for _, c := range []struct {
		name string
		vs   []Violation
	}{
		{"weather", weather.Validate([]byte(`{"days": 2.5, "units": "k", "x": 1}`))},
		{"960KB-nested", deep.Validate([]byte(args.String()))},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				g.render(c.vs)
			}
		})
	}
}

// TestCheck: the guard's verdict on a call's arguments, raw or decoded, and the outcome
// its observers are told.
func TestCheck(t *testing.T) {
	weatherRefusal := refusalPrefix + "property 'days' must be integer"
	notObject := refusalPrefix + "arguments must be an object"
	for _, c := range []struct {
		name    string
		args    string // raw; when empty, value is checked
		value   any
		want    string
		outcome Outcome
	}{
		{"valid", `{"location":"Paris"}`, nil, "", Accepted},
		{"invalid", `{"location":"Paris","days":"two"}`, nil, weatherRefusal, Refused},
		{"absent arguments count as {}", ``, nil, refusalPrefix + "missing required property 'location'", Refused},
		{"null counts as {}", ` null`, nil, refusalPrefix + "missing required property 'location'", Refused},
		{"not an object", `["Paris"]`, nil, notObject, Refused},
		{"not JSON", `[Paris`, nil, refusalPrefix + "arguments are not valid JSON: expected a value at offset 1", Refused},
		{"decoded, valid", ``, map[string]any{"location": "Paris"}, "", Accepted},
		{"decoded, invalid", ``, map[string]any{"location": "Paris", "days": "two"}, weatherRefusal, Refused},
		{"decoded, not an object", ``, []any{"Paris"}, notObject, Refused},
	} {
		t.Run(c.name, func(t *testing.T) {
			var got []Outcome
			g := New(WithObserver(func(e Event) { got = append(got, e.Outcome) }))
			s := g.Bind("weather", nil, []byte(weatherSchema), nil)
			var args []byte
			if c.args != "" {
				args = []byte(c.args)
			}
			vd := g.Check(&Call{Tool: "weather"}, s, args, c.value)
			if vd.Text() != c.want || vd.Found() != (c.want != "") || vd.Refused() != (c.want != "") {
				t.Errorf("verdict %q (found %v, refused %v), want %q", vd.Text(), vd.Found(), vd.Refused(), c.want)
			}
			if len(got) != 1 || got[0] != c.outcome {
				t.Errorf("observed %v, want %v", got, c.outcome)
			}
		})
	}
}

// TestReportOnlyVerdicts: under WithReportOnly a fault is found, never refused, and the
// counters say so.
func TestReportOnlyVerdicts(t *testing.T) {
	g := New(WithReportOnly())
	good := g.Bind("good", nil, []byte(weatherSchema), nil)
	broken := g.Bind("broken", nil, []byte(`{"type":"strnig"}`), nil)
	for _, c := range []struct {
		s    *Schema
		args string
	}{
		{good, `{}`},
		{broken, `{}`},
	} {
		if vd := g.Check(&Call{Tool: "t"}, c.s, []byte(c.args), nil); !vd.Found() || vd.Refused() {
			t.Errorf("found %v, refused %v; want found and not refused", vd.Found(), vd.Refused())
		}
	}
	if st := g.Stats(); len(st) != 1 || st[0].Refused != 1 || st[0].SchemaBroken != 1 || st[0].Unenforced != 2 {
		t.Errorf("stats %+v, want one refused, one broken, both unenforced", st)
	}
}

// TestCheckResult: a result without structured content, or whose content the output
// schema refuses, is withheld with the server's fault told; a matching one goes on.
func TestCheckResult(t *testing.T) {
	var events []Event
	g := New(WithOutputValidation(), WithObserver(func(e Event) { events = append(events, e) }))
	call := &Call{Tool: "t"}
	v, vd := g.ResultValidator(call, g.Bind("out", nil, []byte(`{"type":"object","required":["celsius"]}`), nil))
	if v == nil || vd.Found() {
		t.Fatalf("a good output schema: %v, %q", v, vd.Text())
	}
	for _, c := range []struct {
		content  string
		withheld bool
		path     string
	}{
		{`{"celsius":20}`, false, ""},
		{`{"kelvin":293}`, true, "celsius"},
		{``, true, ""},
	} {
		events = events[:0]
		var content []byte
		if c.content != "" {
			content = []byte(c.content)
		}
		vd := g.CheckResult(call, v, content)
		if vd.Refused() != c.withheld || c.withheld && vd.Text() != badResultText {
			t.Errorf("%q: refused %v, %q; want refused %v", c.content, vd.Refused(), vd.Text(), c.withheld)
		}
		if c.withheld && (len(events) != 1 || events[0].Outcome != ResultRefused || !events[0].Violations[0].InResult ||
			events[0].Violations[0].Path.String() != c.path) {
			t.Errorf("%q: events %+v, want one ResultRefused at %q in the result", c.content, events, c.path)
		}
	}
	if _, vd := g.ResultValidator(call, g.Bind("broken", nil, []byte(`{"type":1}`), nil)); !vd.Refused() || vd.Text() != brokenOutputText {
		t.Errorf("a broken output schema: %q, want the call refused", vd.Text())
	}
}

// TestReplaced: a call whose tool changed on its way is refused and the model asked to
// call again; the observers are told why.
func TestReplaced(t *testing.T) {
	var events []Event
	g := New(WithObserver(func(e Event) { events = append(events, e) }))
	if vd := g.Replaced(&Call{Tool: "t"}); !vd.Refused() || vd.Text() != replacedText {
		t.Errorf("Replaced: %q", vd.Text())
	}
	if len(events) != 1 || events[0].Outcome != Refused || !errors.Is(events[0].Err, errReplaced) {
		t.Errorf("events %+v, want one refusal with errReplaced", events)
	}
}

// TestFaultsInFormattersAndObservers: a formatter that panics leaves the default wording;
// an observer that panics decides nothing, and the next observer is still told.
func TestFaultsInFormattersAndObservers(t *testing.T) {
	told := 0
	g := New(WithFormatter(func(Violation) string { panic("formatter") }),
		WithObserver(func(Event) { panic("observer") }),
		WithObserver(func(Event) { told++ }))
	s := g.Bind("weather", nil, []byte(weatherSchema), nil)
	if vd := g.Check(&Call{Tool: "weather"}, s, []byte(`{"location":"Paris","days":"two"}`), nil); vd.Text() != refusalPrefix+"property 'days' must be integer" {
		t.Errorf("refusal %q, want the default wording", vd.Text())
	}
	if vd := g.Check(&Call{Tool: "weather"}, s, []byte(`{"location":"Paris"}`), nil); vd.Found() {
		t.Errorf("valid call refused: %q", vd.Text())
	}
	if told != 2 {
		t.Errorf("the second observer was told of %d calls, want 2", told)
	}
}

// TestJoinWithin: messages joined within a bound, the ones that do not fit counted.
func TestJoinWithin(t *testing.T) {
	words := func(v Violation) string { return v.Detail }
	vs := func(details ...string) []Violation {
		var out []Violation
		for _, d := range details {
			out = append(out, Violation{Kind: KindOther, Detail: d})
		}
		return out
	}
	long := strings.Repeat("x", 300)
	for _, c := range []struct {
		name  string
		vs    []Violation
		most  int
		want  string
		shown int
	}{
		{"all fit", vs("a", "b"), 200, "P: a; b", 2},
		{"a truncated count left out counts its violations", append(vs("a", long), Violation{Kind: KindTruncated, Count: 5}), 200,
			"P: a; and 6 more violations not shown (the refusal is cut at 8192 bytes)", 1},
		{"the rest counted", vs("a", "b", long), 200, "P: a; b; and 1 more violation not shown (the refusal is cut at 8192 bytes)", 2},
		{"the first cut short", vs(long, "b"), 200, "P: " + long[:200-3-128] + "…; and 1 more violation not shown (the refusal is cut at 8192 bytes)", 1},
	} {
		text, shown := joinWithin(c.vs, words, "P: ", c.most)
		if text != c.want || len(shown) != c.shown {
			t.Errorf("%s:\n got %q (%d shown)\nwant %q (%d shown)", c.name, text, len(shown), c.want, c.shown)
		}
	}
}

func TestOutcomeString(t *testing.T) {
	for o, want := range map[Outcome]string{Accepted: "accepted", Refused: "refused", SchemaBroken: "schema broken",
		ResultRefused: "result refused", UnknownTool: "unknown tool", Outcome(99): "outcome(99)"} {
		if got := o.String(); got != want {
			t.Errorf("Outcome(%d).String() = %q, want %q", uint8(o), got, want)
		}
	}
}

// TestUnlisted: a call of a tool the server does not list is told to the observers under
// the name sent, reported only when passed on, and logged with the name bounded; it counts
// in no tool's counters.
func TestUnlisted(t *testing.T) {
	var log bytes.Buffer
	var events []Event
	g := New(WithLogger(slog.New(slog.NewJSONHandler(&log, nil))), WithObserver(func(e Event) { events = append(events, e) }))
	long := strings.Repeat("w", 100000)
	g.Unlisted(&Call{Tool: long, Session: "s", Client: "c", ProtocolVersion: "2025-06-18"}, false)
	g.Unlisted(&Call{Tool: "Weather"}, true)
	if len(events) != 2 || events[0].Outcome != UnknownTool || events[0].Tool != long || events[0].ReportOnly || events[0].SessionID != "s" ||
		events[0].ProtocolVersion != "2025-06-18" || events[1].Tool != "Weather" || !events[1].ReportOnly {
		t.Errorf("events %.300v", events)
	}
	lines := strings.Split(strings.TrimSpace(log.String()), "\n")
	var first, second struct{ Msg, Tool, Session string }
	if len(lines) != 2 || json.Unmarshal([]byte(lines[0]), &first) != nil || json.Unmarshal([]byte(lines[1]), &second) != nil ||
		first.Msg != "mcpvalidate: call of a tool the server does not list refused" || len(first.Tool) > 100 || first.Session != "s" ||
		second.Msg != "mcpvalidate: call of a tool the server does not list passed on unchecked" || second.Tool != "Weather" {
		t.Errorf("logged %.600s", log.String())
	}
	if st := g.Stats(); len(st) != 0 {
		t.Errorf("stats %+v", st)
	}
}

// TestLoggedPathsBounded: a log line lists the kinds and paths of the first violations
// that fit in logPaths bytes; a first path too long is cut short.
func TestLoggedPathsBounded(t *testing.T) {
	at := func(name string, n int) []Violation {
		out := make([]Violation, n)
		for i := range out {
			out[i] = Violation{Kind: KindRequired, Path: Path{{Name: name}, {Index: i, IsIndex: true}}}
		}
		return out
	}
	for _, c := range []struct {
		name string
		vs   []Violation
		want int
	}{
		{"a few", at("a", 3), 3},
		{"many", at("a", 2000), logPaths / len("required") / 2},
		{"one very long", at(strings.Repeat("é", 10_000), 1), 1},
	} {
		kinds, paths := logged(c.vs)
		size := 0
		for i := range paths {
			size += len(kinds[i]) + len(paths[i]) + 4
		}
		if len(kinds) != len(paths) || len(paths) == 0 || len(paths) > c.want || size > logPaths {
			t.Errorf("%s: %d paths in %d bytes, want at most %d paths within %d bytes", c.name, len(paths), size, c.want, logPaths)
		}
	}
}

// TestLoggerTellsRepairsAndAcceptedCalls: an accepted call that repairs refusals of its
// session is logged at Info with how many; any other accepted call only at Debug, and
// then without allocating when the logger's level leaves Debug out.
func TestLoggerTellsRepairsAndAcceptedCalls(t *testing.T) {
	for _, c := range []struct {
		level slog.Level
		want  []string // the lines' messages and retries
	}{
		{slog.LevelInfo, []string{"refused 0", "refused 0", "repaired 2"}},
		{slog.LevelDebug, []string{"accepted 0", "refused 0", "refused 0", "repaired 2", "accepted 0", "accepted 0"}},
	} {
		var log bytes.Buffer
		g := New(WithLogger(slog.New(slog.NewJSONHandler(&log, &slog.HandlerOptions{Level: c.level}))))
		s := g.Bind("weather", nil, []byte(weatherSchema), nil)
		for _, call := range []struct{ session, args string }{
			{"s1", `{"location":"Paris"}`},
			{"s1", `{}`},
			{"s1", `{"location":1}`},
			{"s1", `{"location":"Paris"}`}, // repairs the two before it
			{"s1", `{"location":"Paris"}`},
			{"s2", `{"location":"Paris"}`},
		} {
			g.Check(&Call{Tool: "weather", Session: call.session}, s, []byte(call.args), nil)
		}
		var got []string
		for line := range strings.Lines(log.String()) {
			var l struct {
				Msg     string
				Retries int
			}
			if err := json.Unmarshal([]byte(line), &l); err != nil {
				t.Fatal(err)
			}
			got = append(got, strings.TrimPrefix(l.Msg, "mcpvalidate: tool call ")+" "+strconv.Itoa(l.Retries))
		}
		if strings.Join(got, "|") != strings.Join(c.want, "|") {
			t.Errorf("at %v: lines %q, want %q", c.level, got, c.want)
		}
	}
	if raceDetector {
		t.Skip("the race detector allocates")
	}
	g := New(WithLogger(slog.New(slog.NewJSONHandler(io.Discard, nil))))
	s := g.Bind("weather", nil, []byte(weatherSchema), nil)
	args := []byte(`{"location":"Paris"}`)
	call := &Call{Tool: "weather", Session: "s1"}
	if n := testing.AllocsPerRun(100, func() { g.Check(call, s, args, nil) }); n != 0 {
		t.Errorf("an accepted call logged at Info allocates %v times, want 0", n)
	}
}

// TestLoggedServer: every line about a call names the server it went to when the adapter
// knows it (a proxy), and Events carry it; none does when it is unknown.
func TestLoggedServer(t *testing.T) {
	for _, server := range []string{"weather-server", ""} {
		var log bytes.Buffer
		var events []Event
		g := New(WithLogger(slog.New(slog.NewJSONHandler(&log, &slog.HandlerOptions{Level: slog.LevelDebug}))),
			WithObserver(func(e Event) { events = append(events, e) }))
		s := g.Bind("weather", nil, []byte(weatherSchema), nil)
		broken := g.Bind("broken", nil, []byte(`{"type":"nonsense"}`), nil)
		call := func(tool string) *Call { return &Call{Tool: tool, Session: "s1", Server: server} }
		g.Check(call("weather"), s, []byte(`{}`), nil)
		g.Check(call("weather"), s, []byte(`{"location":"Paris"}`), nil)
		g.Check(call("weather"), s, []byte(`{"location":"Paris"}`), nil)
		g.Check(call("broken"), broken, []byte(`{}`), nil)
		g.Unlisted(call("Weather"), false)
		lines := strings.Split(strings.TrimSpace(log.String()), "\n")
		if len(lines) != 5 || len(events) != 5 {
			t.Fatalf("%d lines, %d events: %s", len(lines), len(events), log.String())
		}
		for i, line := range lines {
			var l struct{ Msg, Server string }
			if err := json.Unmarshal([]byte(line), &l); err != nil {
				t.Fatal(err)
			}
			if l.Server != server || events[i].ServerName != server || strings.Contains(line, `"server"`) != (server != "") {
				t.Errorf("line %q, event's server %q, want %q", line, events[i].ServerName, server)
			}
		}
	}
}
