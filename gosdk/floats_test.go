package gosdk

import (
	"cmp"
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestAddToolNumbersAsFieldsReadThem: a whole number beyond 2^53 sent for a float64 field,
// or for an any (whose numbers are float64), reaches the handler rounded, onto the bound
// the schema excludes: refused, as go-sdk alone refuses it; the same number for an int64
// field reaches the handler exactly, and passes.
func TestAddToolNumbersAsFieldsReadThem(t *testing.T) {
	type in struct {
		Amount float64 `json:"amount"`
		Count  int64   `json:"count,omitempty"`
		Any    any     `json:"any,omitempty"`
		Small  float32 `json:"small,omitempty"`
	}
	schema := json.RawMessage(`{"type":"object","properties":{` +
		`"amount":{"type":"number","exclusiveMinimum":9007199254740992},` +
		`"count":{"type":"integer","exclusiveMinimum":9007199254740992},` +
		`"any":{"not":{"const":9007199254740992}},` +
		`"small":{"type":"number","exclusiveMinimum":0}},"required":["amount"]}`)
	for _, guarded := range []bool{true, false} {
		var got []in
		h := func(_ context.Context, _ *mcp.CallToolRequest, v in) (*mcp.CallToolResult, any, error) {
			got = append(got, v)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ran"}}}, nil, nil
		}
		srv := newServer()
		if guarded {
			AddTool(New(), srv, &mcp.Tool{Name: "pay", InputSchema: schema}, h)
		} else {
			mcp.AddTool(srv, &mcp.Tool{Name: "pay", InputSchema: schema}, h)
		}
		cs := connect(t, srv)
		for _, args := range []string{
			`{"amount":9007199254740993}`,
			`{"amount":9007199254740994,"any":9007199254740993}`,
			`{"amount":9007199254740994,"small":1e-50}`, // 0 as a float32
		} {
			if !guarded && strings.Contains(args, "small") {
				continue // go-sdk alone validates a float32's number as a float64
			}
			if res := call(t, cs, "pay", args); !res.IsError {
				t.Errorf("guarded %v: %s ran; the handler got %+v", guarded, args, got[len(got)-1])
			}
		}
		if !guarded {
			continue
		}
		got = nil
		if res := call(t, cs, "pay", `{"amount":9007199254740994,"count":9007199254740993}`); res.IsError || len(got) != 1 || got[0].Count != 9007199254740993 {
			t.Errorf("an integer field's exact number: %q, the handler got %+v", text(res), got)
		}
	}
}

func TestReadsOf(t *testing.T) {
	type inner struct {
		F  float32 `json:"f"`
		Is []int8  `json:"is"`
	}
	type in struct {
		A   float64            `json:"a"`
		N   uint64             `json:"n"`
		P   *inner             `json:"p"`
		M   map[string]float64 `json:"m"`
		Any any                `json:"any"`
		Raw json.RawMessage    `json:"raw"`
		inner
	}
	const (
		f64 = asFloat64
		f32 = asFloat32
		ex  = exactly
	)
	for _, c := range []struct {
		args string
		want []reading
	}{
		{`{"a":1.5,"n":2}`, []reading{f64, ex}},
		{`{"p":{"f":0.1,"is":[1,2]},"m":{"x":3},"any":{"y":[4]}}`, []reading{f32, ex, ex, f64, f64}},
		{`{"raw":[1,2],"dropped":3,"f":4}`, []reading{f64, f64, f64, f32}}, // raw and dropped: as go-sdk reads them
		{`{"n":1.5,"p":"x"}`, []reading{f64}},                              // does not decode: every one as go-sdk reads it
		{`{"is":[` + strings.Repeat("1,", 200) + `1]}`, nil},               // 201 places do not fit an int8
		{`{"m":{` + strings.Repeat(`"k":1.5,`, 1<<17) + `"n":2}}`, nil},    // a megabyte of numbers, each a float64
		{`{"is":[1,` + strings.Repeat(`1.5,`, 1<<18) + `2]}`, nil},         // a megabyte that does not decode
	} {
		nums := numbersIn([]byte(c.args))
		want := c.want
		if want == nil {
			want = make([]reading, len(nums))
		}
		if got := readsOf([]byte(c.args), nums, reflect.TypeFor[in]()); !reflect.DeepEqual(got, want) {
			t.Errorf("readsOf(%.60s) = %v, want %v", c.args, got, want)
		}
	}
}

func TestRewritten(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`{"a":1e-400}`, `{"a":0}`},
		{`{"a":0.99999999999999999999,"b":"0.99999999999999999999"}`, `{"a":1,"b":"0.99999999999999999999"}`},
		{`[-1.5e-400, 2.50, 9007199254740993, 1e400]`, `[-0, 2.5, 9.007199254740992e+15, 1e400]`},
		{`{"s\"1.5e-400":[1E0,"\\",0.1]}`, `{"s\"1.5e-400":[1,"\\",0.1]}`},
		{`{"a":1,"b":true,"c":null}`, ``},
		{`{"a":0.5}`, ``},
		// A megabyte: a string of numbers and escapes, untouched; numbers by the hundred
		// thousand, each read; a number of a million digits.
		{`{"s":"` + strings.Repeat(`1.5e-400\"\\`, 1<<20/12) + `"}`, ``},
		{`[` + strings.Repeat(`1e-400,`, 1<<20/7) + `0.25]`, `[` + strings.Repeat(`0,`, 1<<20/7) + `0.25]`},
		{`[` + strings.Repeat(`9`, 1<<20) + `.5]`, ``}, // beyond float64: left, for decoding to fail
	} {
		got := rewritten([]byte(c.in), numbersIn([]byte(c.in)), nil)
		if want := cmp.Or(c.want, c.in); string(got) != want {
			t.Errorf("rewritten(%.80s...) = %.80s..., want %.80s...", c.in, got, want)
		}
	}
	args := []byte(`[1e-400, 9007199254740993, 16777217]`)
	if got := rewritten(args, numbersIn(args), []reading{asFloat32, exactly, asFloat32}); string(got) != `[0, 9007199254740993, 1.6777216e+07]` {
		t.Errorf("as read = %s", got)
	}
}

func TestRounds(t *testing.T) {
	for _, c := range []struct {
		num      string
		float32s bool
		want     bool
	}{
		{"1733500000", false, false}, // a timestamp: exact in a float64, no second look
		{"52.520008", false, false},
		{"-0", true, false},
		{"123456789012345", false, false},
		{"9007199254740992", false, false},
		{"9007199254740993", false, true},
		{"10000000000000000000", false, false},
		{"12345678", true, false},
		{"16777217", true, true},
		{"16777217", false, false},
		{"0.123456789", true, true},
		{"0.123456789", false, false},
		{"1e-400", false, true},
		{"1e400", false, false}, // beyond float64: decoding it into a float fails
		{"2.50", false, true},
	} {
		if got := (number{0, len(c.num)}).rounds([]byte(c.num), c.float32s); got != c.want {
			t.Errorf("%s rounds (float32s %v) = %v, want %v", c.num, c.float32s, got, c.want)
		}
	}
}

func TestHoldsFloat32(t *testing.T) {
	type node struct {
		Next *node
		F    []map[string]float32
	}
	type plain struct {
		Next *plain
		A    []float64
		Any  any
	}
	for _, c := range []struct {
		t    reflect.Type
		want bool
	}{
		{reflect.TypeFor[node](), true},
		{reflect.TypeFor[plain](), false},
		{reflect.TypeFor[map[string]any](), false},
		{reflect.TypeFor[*[3]float32](), true},
	} {
		if got := decodingOf(c.t).float32s; got != c.want {
			t.Errorf("%v holds a float32 = %v, want %v", c.t, got, c.want)
		}
	}
}
