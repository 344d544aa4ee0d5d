package guard

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestMetaEscapesNames: a member name's invisible characters reach _meta escaped, as in
// the text, and the pointer decodes to the exact name.
func TestMetaEscapesNames(t *testing.T) {
	cases := []struct{ name, escaped string }{
		{"a\u202eb", `a\u202eb`},                             // right-to-left override
		{"a\u200bb", `a\u200bb`},                             // zero-width space
		{"\u2066x\u2069", `\u2066x\u2069`},                   // isolates
		{"\ufeffkey", `\ufeffkey`},                           // byte order mark
		{"p\u0430ss", `p\u0430ss`},                           // Cyrillic а among Latin letters
		{"a/b~c", `a~1b~0c`},                                 // pointer escapes
		{"città", `città`},                                   // printable, as it is
		{"e\u0301", `e\u0301`},                               // NFKC composes them
		{"tab\there", `tab\there`},                           // controls, as JSON has them
		{"\U000e0041tag", `\udb40\udc41tag`},                 // a tag character, as a surrogate pair
		{"x\u2028y", `x\u2028y`},                             // a line separator
		{"q\"\\", `q\"\\`},                                   // quotes and backslashes
		{strings.Repeat("n", 100), strings.Repeat("n", 100)}, // long names whole
	}
	g := New(WithViolationMeta())
	s := g.Bind("t", nil, []byte(`{"type":"object","additionalProperties":false}`), nil)
	for _, c := range cases {
		args, _ := json.Marshal(map[string]int{c.name: 1})
		vd := g.Check(&Call{Tool: "t"}, s, args, nil)
		meta := vd.Meta()
		var got struct {
			Violations []struct{ Pointer string } `json:"violations"`
		}
		if err := json.Unmarshal(meta, &got); err != nil || len(got.Violations) != 1 {
			t.Fatalf("%q: %v in %s", c.name, err, meta)
		}
		if want := (Path{{Name: c.name}}).Pointer(); got.Violations[0].Pointer != want {
			t.Errorf("%q: pointer decodes to %q, want %q", c.name, got.Violations[0].Pointer, want)
		}
		if !strings.Contains(string(meta), `"pointer":"/`+c.escaped+`"`) {
			t.Errorf("%q: _meta %s lacks the pointer /%s", c.name, meta, c.escaped)
		}
	}
}

// TestMetaEscapesRequiringName: the member that requires a missing one is escaped too.
func TestMetaEscapesRequiringName(t *testing.T) {
	g := New(WithViolationMeta())
	s := g.Bind("t", nil, []byte(`{"dependentRequired":{"a\u202eb":["c"]}}`), nil)
	vd := g.Check(&Call{Tool: "t"}, s, []byte(`{"a\u202eb":1}`), nil)
	if meta := string(vd.Meta()); !strings.Contains(meta, `"name":"a\u202eb"`) {
		t.Errorf("_meta %s lacks the escaped name", meta)
	}
}

// TestMetaAllocatesItsSize: _meta is copied by each of mcp-go's three marshals, so it is
// allocated once, at its size.
func TestMetaAllocatesItsSize(t *testing.T) {
	if raceDetector {
		t.Skip("the race detector drops sync.Pool's items")
	}
	g := New(WithViolationMeta())
	s := g.Bind("weather", nil, []byte(weatherSchema), nil)
	vd := g.Check(&Call{Tool: "weather"}, s, []byte(`{"days": 2.5, "units": "k", "x": 1}`), nil)
	size := len(vd.Meta())
	r := testing.Benchmark(func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			vd.Meta()
		}
	})
	if r.AllocsPerOp() != 1 || r.AllocedBytesPerOp() > int64(size+size/8) {
		t.Errorf("Meta of %d bytes allocates %d times, %d bytes", size, r.AllocsPerOp(), r.AllocedBytesPerOp())
	}
}

// TestMetaIsOptIn: without WithViolationMeta a refusal, of arguments or of a result, has
// its text and no data.
func TestMetaIsOptIn(t *testing.T) {
	for _, opts := range [][]Option{nil, {WithReportOnly()}, {WithFormatter(DetailedFormat)}} {
		g := New(append(opts, WithOutputValidation())...)
		vd := g.Check(&Call{Tool: "weather"}, g.Bind("in", nil, []byte(weatherSchema), nil), []byte(`{"days": 2.5}`), nil)
		v, _ := g.ResultValidator(&Call{Tool: "weather"}, g.Bind("out", nil, []byte(`{"type":"object","required":["t"]}`), nil))
		rd := g.CheckResult(&Call{Tool: "weather"}, v, []byte(`{}`))
		if !vd.Found() || !rd.Found() || vd.Meta() != nil || rd.Meta() != nil {
			t.Errorf("%d options: arguments found %v with data %s; result found %v with data %s",
				len(opts), vd.Found(), vd.Meta(), rd.Found(), rd.Meta())
		}
	}
}

// TestMetaCarriesSentName: the name sent in place of a missing required one travels as
// "sent", escaped like the other names, and only where hints are asked for.
func TestMetaCarriesSentName(t *testing.T) {
	schema := []byte(`{"type":"object","required":["pullNumber"],"properties":{"pullNumber":{"type":"integer"}}}`)
	cases := []struct {
		args  string
		hints bool
		want  string // in _meta
		not   string // not in _meta
	}{
		{`{"pull_number":1}`, true, `"sent":"pull_number"`, ""},
		{`{"pull\u202enumber":1}`, true, `"sent":"pull\u202enumber"`, "\u202e"},
		{`{"pull_number":1}`, false, `"kind":"required"`, `"sent"`},
	}
	for _, c := range cases {
		opts := []Option{WithViolationMeta()}
		if c.hints {
			opts = append(opts, WithFormatter(DetailedFormat))
		}
		g := New(opts...)
		s := g.Bind("t", nil, schema, nil)
		meta := string(g.Check(&Call{Tool: "t"}, s, []byte(c.args), nil).Meta())
		if !strings.Contains(meta, c.want) || c.not != "" && strings.Contains(meta, c.not) {
			t.Errorf("%s, hints %v: _meta %s, want %s and no %s", c.args, c.hints, meta, c.want, c.not)
		}
	}
}
