package guard

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"testing"
)

// TestShownValue: a value sent outside an enum is shown on one line, escaped as names are,
// in a bounded number of bytes whatever its size.
func TestShownValue(t *testing.T) {
	long := strings.Repeat("x", 1<<20)
	for _, c := range []struct {
		name, value, want string
	}{
		{"plain string", `"C"`, `"C"`},
		{"escapes decoded, then shown visibly", `"a\nb\u0000c"`, `"a\nb\u0000c"`},
		{"bidi control escaped", "\"evil\u202etxt\"", `"evil\u202etxt"`},
		{"invisible escaped", "\"a\u200bb\"", `"a\u200bb"`},
		{"quote and backslash", `"say \"hi\" \\"`, `"say \"hi\" \\"`},
		{"number", `42.5`, `42.5`},
		{"literal", `true`, `true`},
		{"null", `null`, `null`},
		{"object", `{"a":"secret"}`, `{…}`},
		{"array", `["secret"]`, `[…]`},
		{"huge string elided", `"` + long + `"`, `"` + strings.Repeat("x", 32) + `"…(1048528 characters not shown)…"` + strings.Repeat("x", 16) + `"`},
		{"huge number elided", `1` + strings.Repeat("0", 100), `1` + strings.Repeat("0", 31) + `…(53 characters not shown)…` + strings.Repeat("0", 16)},
	} {
		got := shownValue([]byte(c.value), 0)
		if got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
		if len(got) > 256 || strings.ContainsAny(got, "\n\r\u202e\u200b\x00") {
			t.Errorf("%s: %d bytes, or a character a reader could misread: %q", c.name, len(got), got)
		}
	}
}

// TestEnumMissesOnlyInTheLog: without WithEnumMisses no value sent reaches the log (the
// types sent do); with it, only the values sent outside an enum do, bounded and escaped,
// and never the refusal's text or _meta.
func TestEnumMissesOnlyInTheLog(t *testing.T) {
	const schema = `{"type":"object","properties":{"units":{"enum":["c","f"]},"mode":{"enum":["a","b"]},
		"days":{"type":"integer"},"note":{"type":"string","maxLength":3},"list":{"type":"array","items":{"enum":[1,2]}}},
		"additionalProperties":false}`
	huge := strings.Repeat("h", 1<<20)
	args := `{"units":"secret-units\u202e\u0007","mode":"` + huge + `","days":"secret-days",` +
		`"note":"secret-note","list":[1,{"k":"secret-item"},3],"extra":"secret-value"}`
	for _, c := range []struct {
		name    string
		opts    []Option
		decoded bool
		want    []enumMiss
	}{
		{"off", nil, false, nil},
		{"off, decoded", nil, true, nil},
		{"on", []Option{WithEnumMisses()}, false, []enumMiss{
			{"units", `"secret-units\u202e\u0007"`},
			{"mode", `"` + strings.Repeat("h", 32) + `"…(1048528 characters not shown)…"` + strings.Repeat("h", 16) + `"`},
			{"list[1]", `{…}`},
			{"list[2]", `3`},
		}},
		{"on, decoded", []Option{WithEnumMisses()}, true, []enumMiss{
			{"units", `"secret-units\u202e\u0007"`},
			{"mode", `"` + strings.Repeat("h", 32) + `"…(1048528 characters not shown)…"` + strings.Repeat("h", 16) + `"`},
			{"list[1]", `{…}`},
			{"list[2]", `3`},
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var log bytes.Buffer
			var events []Event
			g := New(append(c.opts, WithViolationMeta(), WithFormatter(DetailedFormat),
				WithObserver(func(e Event) { events = append(events, e) }),
				WithLogger(slog.New(slog.NewJSONHandler(&log, nil))))...)
			s := g.Bind("t", nil, []byte(schema), nil)
			var vd Verdict
			if c.decoded {
				var value map[string]any
				if err := json.Unmarshal([]byte(args), &value); err != nil {
					t.Fatal(err)
				}
				vd = g.Check(&Call{Tool: "t"}, s, nil, value)
			} else {
				vd = g.Check(&Call{Tool: "t"}, s, []byte(args), nil)
			}
			if !vd.Refused() {
				t.Fatal("the call was not refused")
			}
			var line struct {
				Paths      []string
				TypeMisses []typeMiss `json:"type_misses"`
				EnumMisses []enumMiss `json:"enum_misses"`
			}
			if err := json.Unmarshal(log.Bytes(), &line); err != nil || bytes.Count(log.Bytes(), []byte("\n")) != 1 {
				t.Fatalf("not one JSON line (%v): %.500s", err, log.String())
			}
			if fmt.Sprint(line.TypeMisses) != "[{days string [integer]}]" {
				t.Errorf("type misses %v, want the string sent for the integer days", line.TypeMisses)
			}
			if len(line.EnumMisses) != len(c.want) {
				t.Fatalf("enum misses %q, want %q", line.EnumMisses, c.want)
			}
			for i := range c.want {
				if line.EnumMisses[i] != c.want[i] {
					t.Errorf("enum miss %d: %q, want %q", i, line.EnumMisses[i], c.want[i])
				}
			}
			if log.Len() > 8<<10 {
				t.Errorf("a log line of %d bytes", log.Len())
			}
			if c.want == nil && (strings.Contains(log.String(), "secret") || strings.Contains(log.String(), "enum_misses")) {
				t.Errorf("without WithEnumMisses, the log holds a value: %.500s", log.String())
			}
			for _, secret := range []string{"secret-days", "secret-note", "secret-value", "secret-item", "hhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhh"} {
				if strings.Contains(log.String(), secret) {
					t.Errorf("the log holds %q, sent in no enum miss or elided: %.500s", secret, log.String())
				}
			}
			elsewhere := vd.Text() + string(vd.Meta()) + strings.Join(vd.shown, "")
			for _, e := range events {
				for _, v := range e.Violations {
					elsewhere += strings.Join(append(append([]string{v.Detail, v.Near, v.Sent, v.Got, v.Limit}, v.Values...), v.Declared...), " ")
				}
			}
			if strings.Contains(elsewhere, "secret") {
				t.Errorf("a value sent is outside the log: %.1000s", elsewhere)
			}
		})
	}
}

// TestEnumMissesBounded: a line carries at most maxEnumMisses values, however many enum
// misses a refusal has, and a result's violations are never read for any.
func TestEnumMissesBounded(t *testing.T) {
	var args strings.Builder
	args.WriteString("[")
	for i := range 100 {
		if i > 0 {
			args.WriteString(",")
		}
		args.WriteString(`"x"`)
	}
	args.WriteString("]")
	v, err := Compile([]byte(`{"type":"array","items":{"enum":["a"]}}`), WithMaxViolations(1000))
	if err != nil {
		t.Fatal(err)
	}
	vs := v.Validate([]byte(args.String()))
	if len(vs) != 100 {
		t.Fatalf("%d violations, want 100", len(vs))
	}
	if got := enumMisses([]byte(args.String()), nil, vs); len(got) != maxEnumMisses || got[15] != (enumMiss{"[15]", `"x"`}) {
		t.Errorf("%d misses, the last %q; want %d", len(got), got[len(got)-1], maxEnumMisses)
	}
	for i := range vs {
		vs[i].InResult = true
	}
	if got := enumMisses([]byte(args.String()), nil, vs); got != nil {
		t.Errorf("a result's violations gave misses %q", got)
	}
}

// TestTypeMissesBounded: a line carries at most maxEnumMisses types sent, whatever the
// number of type violations.
func TestTypeMissesBounded(t *testing.T) {
	vs := make([]Violation, 100)
	for i := range vs {
		vs[i] = Violation{Kind: KindType, Path: Path{{Index: i, IsIndex: true}}, Types: []string{"string"}, Got: "integer"}
	}
	got := typeMisses(vs)
	if len(got) != maxEnumMisses || fmt.Sprint(got[15]) != "{[15] integer [string]}" {
		t.Errorf("%d type misses, the last %v; want %d", len(got), got[len(got)-1], maxEnumMisses)
	}
}
