package guard

import (
	"encoding/json"
	"log/slog"
	"strings"
	"testing"
)

func TestGatewayFormat(t *testing.T) {
	v, _ := Compile([]byte(`{"type":"object","properties":{"customer":{"type":"object","properties":{"zip":{"type":"string"}},"required":["id"]},"n":{"maximum":3}},"additionalProperties":false}`))
	vs := v.Validate([]byte(`{"customer":{"zip":1},"n":4,"x":0}`))
	got := strings.Join(Messages(vs, GatewayFormat), " | ")
	want := "Missing required parameter: `customer.id` | Invalid type for `customer.zip`: expected string | Invalid value for `n`: must be at most 3 | Unknown parameter: `x`"
	if got != want {
		t.Errorf("\n got %q\nwant %q", got, want)
	}
	if got := GatewayFormat(notAnObject); got != "expected an object" {
		t.Errorf("root: %q", got)
	}
	v, _ = Compile([]byte(`{"properties":{"a.b":{"type":"integer"},"p":{"pattern":"^\\w+$"},"v":{"oneOf":[{"type":"string"},{"type":"array","items":{"type":"string"}}]}}}`))
	got = strings.Join(Messages(v.Validate([]byte(`{"a.b":"x","p":"-","v":1}`)), GatewayFormat), " | ")
	want = "Invalid type for `\"a.b\"`: expected integer | Invalid value for `p`: must match the pattern '^\\w+$' | Invalid type for `v`: expected string or array of strings"
	if got != want {
		t.Errorf("\n got %q\nwant %q", got, want)
	}
}

// TestResultWording: a result's violations are worded about the result, in every style,
// in _meta and in the log, never about arguments or parameters.
func TestResultWording(t *testing.T) {
	schema := `{"type":"object","properties":{"celsius":{"type":"number"},"at":{"minLength":3}},"required":["celsius"],"additionalProperties":false}`
	contents := []struct {
		content string
		want    string // in every style's messages
	}{
		{"", "structuredContent"},
		{`[1]`, "structuredContent"},
		{`{"at":"x","wind":3}`, "structuredContent.celsius"},
		{`{"celsius":"warm"}`, "structuredContent.celsius"},
		{`{"celsius":1,"at":"x"}`, "structuredContent.at"},
		{`{"celsius":1,`, "structuredContent is not valid JSON"},
	}
	styles := map[string]Formatter{"default": DefaultFormat, "detailed": DetailedFormat, "gateway": GatewayFormat}
	for name, style := range styles {
		var log strings.Builder
		g := New(WithOutputValidation(), WithViolationMeta(), WithFormatter(style), WithLogger(slog.New(slog.NewTextHandler(&log, nil))))
		v, _ := g.ResultValidator(&Call{Tool: "t"}, g.Bind("t", nil, []byte(schema), nil))
		for _, c := range contents {
			var content []byte
			if c.content != "" {
				content = []byte(c.content)
			}
			vd := g.CheckResult(&Call{Tool: "t"}, v, content)
			var meta struct {
				Violations []struct{ Message string } `json:"violations"`
			}
			if err := json.Unmarshal(vd.Meta(), &meta); err != nil || len(meta.Violations) == 0 {
				t.Fatalf("%s, %s: %v in %s", name, c.content, err, vd.Meta())
			}
			msgs := make([]string, len(meta.Violations))
			for i, m := range meta.Violations {
				msgs[i] = m.Message
			}
			joined := strings.Join(msgs, " | ")
			lower := strings.ToLower(joined)
			if !strings.Contains(joined, c.want) || strings.Contains(lower, "argument") || strings.Contains(lower, "parameter") {
				t.Errorf("%s, %s: %q, want them about %s", name, c.content, joined, c.want)
			}
		}
		if l := log.String(); strings.Contains(l, "paths=[]") || !strings.Contains(l, "paths=[structuredContent]") {
			t.Errorf("%s: the log names no path in the result:\n%s", name, l)
		}
	}
}

// TestRenderValue: values are shown in single quotes as they read, escaped where they would
// not print; a plain one costs only its message.
func TestRenderValue(t *testing.T) {
	cases := []struct{ text, want string }{
		{`"celsius"`, `'celsius'`},
		{`"it's"`, `'it\'s'`},
		{`"say \"hi\""`, `'say "hi"'`},
		{`"a\nb"`, `'a\nb'`},
		{`"città"`, `'città'`},
		{`12.5`, `12.5`},
		{`"unterminated`, `"unterminated`},
		{`"`, `"`},
	}
	for _, c := range cases {
		if got := renderValue(c.text); got != c.want {
			t.Errorf("renderValue(%s) = %s, want %s", c.text, got, c.want)
		}
	}
	if n := testing.AllocsPerRun(100, func() { renderValue(`"fahrenheit"`) }); n > 1 {
		t.Errorf("a plain value costs %v allocations", n)
	}
}

// TestSentWording: the name sent in place of a missing required one is rendered from
// Violation.Sent, beside the missing name, by DetailedFormat alone.
func TestSentWording(t *testing.T) {
	cases := []struct {
		v                           Violation
		standard, gateway, detailed string
	}{
		{Violation{Kind: KindRequired, Path: Path{{Name: "pullNumber"}}, Sent: "pull_number"},
			"missing required property 'pullNumber'", "Missing required parameter: `pullNumber`",
			"missing required property 'pullNumber' (sent 'pull_number')"},
		{Violation{Kind: KindRequired, Path: Path{{Name: "pr"}, {Name: "pullNumber"}}, Sent: "PullNumber"},
			"missing required property 'pr.pullNumber'", "Missing required parameter: `pr.pullNumber`",
			"missing required property 'pr.pullNumber' (sent 'pr.PullNumber')"},
		{Violation{Kind: KindRequired, Path: Path{{Name: "items"}, {Index: 2, IsIndex: true}, {Name: "id"}}, Sent: "ID"},
			"missing required property 'items[2].id'", "Missing required parameter: `items[2].id`",
			"missing required property 'items[2].id' (sent 'items[2].ID')"},
		{Violation{Kind: KindRequired, Path: Path{{Name: "pullNumber"}}, Sent: "pull\u202enumber"},
			"missing required property 'pullNumber'", "Missing required parameter: `pullNumber`",
			`missing required property 'pullNumber' (sent "pull\u202enumber")`},
		{Violation{Kind: KindRequired, Path: Path{{Name: "celsius"}}, Sent: "Celsius", InResult: true},
			"missing required property 'structuredContent.celsius'", "Missing required field: `structuredContent.celsius`",
			"missing required property 'structuredContent.celsius' (sent 'structuredContent.Celsius')"},
		{Violation{Kind: KindRequired, Path: Path{{Name: "pullNumber"}}},
			"missing required property 'pullNumber'", "Missing required parameter: `pullNumber`",
			"missing required property 'pullNumber'"},
		{Violation{Kind: KindType, Path: Path{{Name: "n"}}, Types: []string{"integer"}, Sent: "N"},
			"property 'n' must be integer", "Invalid type for `n`: expected integer",
			"property 'n' must be integer"},
	}
	for _, c := range cases {
		if got := DefaultFormat(c.v); got != c.standard {
			t.Errorf("default: got %q, want %q", got, c.standard)
		}
		if got := GatewayFormat(c.v); got != c.gateway {
			t.Errorf("gateway: got %q, want %q", got, c.gateway)
		}
		if got := DetailedFormat(c.v); got != c.detailed {
			t.Errorf("detailed: got %q, want %q", got, c.detailed)
		}
	}
}
