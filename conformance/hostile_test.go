package conformance

// Hostile input: arguments and schemas built to break a validator (deep nesting, huge
// strings, arrays, objects and numbers, invalid UTF-8, duplicate and strange member names,
// $ref loops, exponential alternatives, slow patterns, giant schemas), through
// mcpvalidate.Validate and through the middleware on a real mcp-go server.
//
// Time goals are benchmarks (BenchmarkHostileSlope, BenchmarkHostilePattern,
// BenchmarkHostileNestedAllOf), never timed assertions, and no verdict depends on the clock: work
// is bounded by counts, and a hang is caught by go test's -timeout, which prints every
// goroutine's stack. Memory goals are assertions.

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"math/rand/v2"
	"os"
	"os/exec"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
	"unicode/utf8"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/mcpvalidate/mcpvalidate"
	"github.com/mcpvalidate/mcpvalidate/guard"
	"github.com/mcpvalidate/mcpvalidate/guard/testsuite"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// maxMessage bounds the length of one rendered violation for hostile schemas.
const maxMessage = 4 << 10

// finishes runs fn and fails the test if it panics. It reads no clock: a hang is left to
// go test's -timeout.
func finishes(t testing.TB, what string, fn func()) {
	t.Helper()
	defer func() {
		if p := recover(); p != nil {
			t.Fatalf("%s panicked: %v", what, p)
		}
	}()
	fn()
}

// lineBreaks are the characters that end a line for some reader (those Python's
// str.splitlines splits on, but NEL, checked apart): a message must hold none.
const lineBreaks = "\n\r\v\f\x1c\x1d\x1e\u2028\u2029"

// hasC1Control reports whether m holds NEL (U+0085), a line break for Unicode, or
// another C1 control.
func hasC1Control(m string) bool {
	for _, r := range m {
		if r >= 0x80 && r <= 0x9f {
			return true
		}
	}
	return false
}

// checkMessages renders vs in both built-in styles and requires every message to stay on
// one line and, when maxLen > 0, to be at most maxLen bytes long. It returns the default
// style's messages.
func checkMessages(t testing.TB, vs []guard.Violation, maxLen int) []string {
	t.Helper()
	var out []string
	for i, f := range []guard.Formatter{nil, guard.GatewayFormat} {
		msgs := guard.Messages(vs, f)
		if i == 0 {
			out = msgs
		}
		for _, m := range msgs {
			if k := strings.IndexAny(m, lineBreaks); k >= 0 {
				t.Errorf("message breaks the line at byte %d: %.200q", k, m)
			}
			if hasC1Control(m) {
				t.Errorf("message holds a C1 control: %.200q", m)
			}
			if !utf8.ValidString(m) {
				t.Errorf("message is not valid UTF-8: %.200q", m)
			}
			if maxLen > 0 && len(m) > maxLen {
				t.Errorf("message is %d bytes long (limit %d): %.200q…", len(m), maxLen, m)
			}
		}
	}
	return out
}

func mustCompile(t testing.TB, schema string, opts ...guard.CompileOption) *mcpvalidate.Validator {
	t.Helper()
	v, err := mcpvalidate.Compile([]byte(schema), opts...)
	if err != nil {
		t.Fatalf("Compile(%.200s): %v", schema, err)
	}
	return v
}

func kinds(vs []guard.Violation) []guard.Kind {
	out := make([]guard.Kind, len(vs))
	for i, v := range vs {
		out[i] = v.Kind
	}
	return out
}

// ---------------------------------------------------------------------------------------
// 1. Nesting a million levels deep.

func nestObjects(n int) []byte {
	return []byte(strings.Repeat(`{"a":`, n) + "1" + strings.Repeat("}", n))
}

func nestArrays(n int) []byte {
	return []byte(strings.Repeat("[", n) + strings.Repeat("]", n))
}

// nestMixed alternates objects and arrays: {"a":[{"a":[…]}]}.
func nestMixed(n int) []byte {
	var b bytes.Buffer
	for i := 0; i < n; i++ {
		if i%2 == 0 {
			b.WriteString(`{"a":`)
		} else {
			b.WriteByte('[')
		}
	}
	b.WriteString("null")
	for i := n - 1; i >= 0; i-- {
		if i%2 == 0 {
			b.WriteByte('}')
		} else {
			b.WriteByte(']')
		}
	}
	return b.Bytes()
}

// bytesPerCall returns the heap bytes one call of fn allocates, averaged over a few calls
// after a first one that fills the validator's pool.
func bytesPerCall(fn func()) uint64 {
	fn()
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	const runs = 8
	for range runs {
		fn()
	}
	runtime.ReadMemStats(&after)
	return (after.TotalAlloc - before.TotalAlloc) / runs
}

// TestHostileDeepNesting: arguments nested 1,000,000 levels deep, as objects, arrays or
// both, get exactly one KindTooDeep violation, for schemas of every shape (plain, recursive,
// refusing extra members, handed to the full engine), and one Validate call allocates the
// same few bytes whether the input nests ten thousand or a million levels.
func TestHostileDeepNesting(t *testing.T) {
	const levels = 1_000_000
	inputs := []struct {
		name  string
		build func(int) []byte
	}{
		{"objects", nestObjects},
		{"arrays", nestArrays},
		{"mixed", nestMixed},
	}
	schemas := []struct{ name, schema string }{
		{"empty", `{}`},
		{"object", `{"type":"object"}`},
		{"closed", `{"type":"object","properties":{"b":{"type":"string"}},"additionalProperties":false}`},
		{"recursive", `{"type":["object","array"],"properties":{"a":{"$ref":"#"}},"items":{"$ref":"#"}}`},
		{"alternatives", `{"anyOf":[{"type":"string"},{"properties":{"a":{"$ref":"#"}},"items":{"$ref":"#"}}]}`},
		{"if", `{"if":{"properties":{"a":{"$ref":"#"}},"items":{"$ref":"#"}},"then":true,"else":true}`},
		{"full-engine", `{"patternProperties":{"^a$":{"$ref":"#"}},"items":{"$ref":"#"}}`},
	}
	for _, in := range inputs {
		big, small := in.build(levels), in.build(levels/100)
		for _, s := range schemas {
			t.Run(in.name+"/"+s.name, func(t *testing.T) {
				v := mustCompile(t, s.schema)
				var vs []guard.Violation
				finishes(t, "Validate", func() { vs = v.Validate(big) })
				if len(vs) != 1 || vs[0].Kind != guard.KindTooDeep {
					t.Fatalf("got %v (%.500q), want exactly one %v", kinds(vs), describe(vs), guard.KindTooDeep)
				}
				if vs[0].Count != maxArgsDepth || len(vs[0].Path) > maxArgsDepth {
					t.Errorf("limit %d, path of %d steps; want the limit %d and a path no longer", vs[0].Count, len(vs[0].Path), maxArgsDepth)
				}
				checkMessages(t, vs, maxMessage)
				perBig := bytesPerCall(func() { v.Validate(big) })
				perSmall := bytesPerCall(func() { v.Validate(small) })
				t.Logf("bytes allocated per call: %d at %d levels, %d at %d levels", perBig, levels, perSmall, levels/100)
				if perBig > 64<<10 {
					t.Errorf("one Validate call allocates %d bytes on %d bytes of input; want under 64 KiB", perBig, len(big))
				}
				if perBig > perSmall+16<<10 {
					t.Errorf("allocation grows with the input: %d bytes at %d levels, %d at %d", perBig, levels, perSmall, levels/100)
				}
			})
		}
	}
	t.Run("WithMaxDepth", func(t *testing.T) {
		for _, limit := range []int{1, 2, 1000} {
			v := mustCompile(t, `{}`, guard.WithMaxDepth(limit))
			vs := v.Validate(nestArrays(levels))
			if len(vs) != 1 || vs[0].Kind != guard.KindTooDeep || vs[0].Count != limit {
				t.Errorf("WithMaxDepth(%d): got %q", limit, describe(vs))
			}
			if vs := v.Validate(nestArrays(limit)); vs != nil {
				t.Errorf("WithMaxDepth(%d): %d levels refused: %q", limit, limit, describe(vs))
			}
		}
	})
}

// TestHostileDeepNestingHugeLimit: even with a limit far beyond any sane depth, deep
// arguments must not crash the process. The validation runs in a child process, since a
// stack overflow is fatal.
func TestHostileDeepNestingHugeLimit(t *testing.T) {
	if os.Getenv("MCPVALIDATE_HOSTILE_CHILD") == "huge-limit" {
		v := mustCompile(t, `{}`, guard.WithMaxDepth(1<<30))
		vs := v.Validate(nestArrays(1_000_000))
		fmt.Printf("child: %d violations\n", len(vs))
		return
	}
	if testing.Short() {
		t.Skip("full tier: runs without -short")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(t.Context(), exe, "-test.run=^TestHostileDeepNestingHugeLimit$", "-test.count=1")
	cmd.Env = append(os.Environ(), "MCPVALIDATE_HOSTILE_CHILD=huge-limit")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("validating 1,000,000 levels with WithMaxDepth(1<<30) killed the process: %v\n%.2000s", err, out)
	}
}

// TestHostileDeepNestingMiddleware: through a real server, arguments nested a million
// levels deep are refused by mcp-go's own decoder (a JSON-RPC error) and arguments nested
// 9,000 levels deep, which that decoder takes, are refused by the middleware; the handler
// runs for neither.
func TestHostileDeepNestingMiddleware(t *testing.T) {
	h := newHostileServer(t, nil)
	for _, c := range []struct {
		name string
		args []byte
	}{
		{"objects-1e6", nestObjects(1_000_000)},
		{"arrays-1e6", nestArrays(1_000_000)},
		{"objects-9000", nestObjects(9000)},
		{"mixed-9000", nestMixed(9000)},
		{"arrays-9000", nestArrays(9000)},
	} {
		t.Run(c.name, func(t *testing.T) {
			before := h.calls.Load()
			var r hostileResponse
			finishes(t, "HandleMessage", func() { r = h.call("open", c.args) })
			if h.calls.Load() != before {
				t.Fatalf("the handler ran on arguments nested %d bytes deep", len(c.args)/2)
			}
			if r.rpcError == nil && !r.isError {
				t.Fatalf("neither a JSON-RPC error nor an isError result: %s", r.raw)
			}
			if len(c.args) < 100_000 && (!r.isError || !strings.Contains(r.text, "nests deeper than the limit of 64 levels")) {
				t.Errorf("want the middleware's refusal, got %.300s", r.raw)
			}
			t.Logf("%.160s", r.raw)
		})
	}
	h.checkProblems(t)
}

// ---------------------------------------------------------------------------------------
// 2. Huge and strange values agree with the oracle.

// hostileValue is one case: a schema, arguments (built on demand, since some are large),
// and the verdict the case was built for.
type hostileValue struct {
	name   string
	schema string
	args   func() []byte
	valid  bool
}

func lit(s string) func() []byte { return func() []byte { return []byte(s) } }

func wrap(prefix string, body func() []byte, suffix string) func() []byte {
	return func() []byte {
		b := body()
		out := make([]byte, 0, len(prefix)+len(b)+len(suffix))
		return append(append(append(out, prefix...), b...), suffix...)
	}
}

func repeat(s string, n int) func() []byte {
	return func() []byte { return bytes.Repeat([]byte(s), n) }
}

// digits returns n pseudo-random decimal digits, the first not zero.
func digits(n int, seed uint64) string {
	r := rand.New(rand.NewPCG(seed, 7))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte('0' + r.IntN(10))
	}
	if b[0] == '0' {
		b[0] = '1'
	}
	return string(b)
}

// times returns the decimal product of the integer literal x and k.
func times(x string, k int64) string {
	n, _ := new(big.Int).SetString(x, 10)
	return n.Mul(n, big.NewInt(k)).String()
}

func intArray(n int, extra string) func() []byte {
	return func() []byte {
		var b bytes.Buffer
		b.WriteByte('[')
		for i := 0; i < n; i++ {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(strconv.Itoa(i))
		}
		b.WriteString(extra)
		b.WriteByte(']')
		return b.Bytes()
	}
}

func manyMembers(n int, extra string) func() []byte {
	return func() []byte {
		var b bytes.Buffer
		b.WriteByte('{')
		for i := 0; i < n; i++ {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `"k%d":%d`, i, i)
		}
		b.WriteString(extra)
		b.WriteByte('}')
		return b.Bytes()
	}
}

// Under the race detector, which makes these many times slower, the largest inputs are a
// tenth of their size.
const (
	hostile10MB = 10_000_000 / hostileScale
	hostile1e6  = 1_000_000 / hostileScale
	hostile1e5  = 100_000 / hostileScale
)

var (
	digits1e5  = digits(100_000, 1)                // 100,000 digits
	tenTo99999 = "1" + strings.Repeat("0", 99_999) // 10^99999, written out
	// sevens1e5 is a multiple of 7 with about 100,000 digits, computed when first used
	// (it takes a tenth of a second).
	sevens1e5 = sync.OnceValue(func() string { return times(digits(99_999, 2), 7) })
)

func maxLengthSchema(n int) string { return `{"maxLength":` + strconv.Itoa(n) + `}` }
func minLengthSchema(n int) string { return `{"minLength":` + strconv.Itoa(n) + `}` }

// xProperty is an object schema whose member x has the schema sub.
func xProperty(sub string) string { return `{"type":"object","properties":{"x":` + sub + `}}` }

// xArg, xArgOf and xArgLazy are arguments whose member x is v, body's bytes, or v's result.
func xArg(v string) func() []byte { return lit(`{"x":` + v + `}`) }

func xArgOf(body func() []byte) func() []byte { return wrap(`{"x":`, body, `}`) }

func xArgLazy(v func() string) func() []byte {
	return func() []byte { return []byte(`{"x":` + v() + `}`) }
}

// hostileValues are the cases of TestHostileValuesAgreeWithOracle.
var hostileValues = []hostileValue{
	// A 10 MB string, plain, multi-byte, escaped, invalid UTF-8.
	{"string-10MB/maxLength-fits", xProperty(maxLengthSchema(hostile10MB)), xArgOf(wrap(`"`, repeat("a", hostile10MB), `"`)), true},
	{"string-10MB/maxLength-exceeded", xProperty(maxLengthSchema(hostile10MB - 1)), xArgOf(wrap(`"`, repeat("a", hostile10MB), `"`)), false},
	{"string-10MB/minLength", xProperty(minLengthSchema(hostile10MB + 1)), xArgOf(wrap(`"`, repeat("a", hostile10MB), `"`)), false},
	{"string-10MB/pattern-matches", xProperty(`{"pattern":"^a+$"}`), xArgOf(wrap(`"`, repeat("a", hostile10MB), `"`)), true},
	{"string-10MB/pattern-fails", xProperty(`{"pattern":"^a+$"}`), xArgOf(wrap(`"`, repeat("a", hostile10MB-1), `b"`)), false},
	{"string-10MB/enum", xProperty(`{"enum":["a","aa"]}`), xArgOf(wrap(`"`, repeat("a", hostile10MB), `"`)), false},
	{"string-10MB/two-byte-chars-fit", xProperty(maxLengthSchema(hostile10MB / 2)), xArgOf(wrap(`"`, repeat("é", hostile10MB/2), `"`)), true},
	{"string-10MB/two-byte-chars-exceed", xProperty(maxLengthSchema(hostile10MB/2 - 1)), xArgOf(wrap(`"`, repeat("é", hostile10MB/2), `"`)), false},
	{"string-10MB/escapes-fit", xProperty(maxLengthSchema(hostile10MB / 6)), xArgOf(wrap(`"`, repeat(`\u00e9`, hostile10MB/6), `"`)), true},
	{"string-10MB/escapes-exceed", xProperty(maxLengthSchema(hostile10MB/6 - 1)), xArgOf(wrap(`"`, repeat(`\u00e9`, hostile10MB/6), `"`)), false},
	{"string-10MB/invalid-utf8-fits", xProperty(maxLengthSchema(hostile10MB)), xArgOf(wrap(`"`, repeat("\xff", hostile10MB), `"`)), true},
	{"string-10MB/invalid-utf8-exceeds", xProperty(maxLengthSchema(hostile10MB - 1)), xArgOf(wrap(`"`, repeat("\xff", hostile10MB), `"`)), false},
	{"string-10MB/invalid-utf8-pattern", xProperty(`{"pattern":"^\\x{FFFD}+$"}`), xArgOf(wrap(`"`, repeat("\xfe", hostile10MB), `"`)), true},
	{"string-10MB/lone-surrogates-fit", xProperty(maxLengthSchema(hostile10MB / 6)), xArgOf(wrap(`"`, repeat(`\ud800`, hostile10MB/6), `"`)), true},
	{"string-10MB/lone-surrogates-exceed", xProperty(maxLengthSchema(hostile10MB/6 - 1)), xArgOf(wrap(`"`, repeat(`\udbff`, hostile10MB/6), `"`)), false},
	{"string-10MB/lone-surrogates-pattern", xProperty(`{"pattern":"^\\x{FFFD}*$"}`), xArgOf(wrap(`"`, repeat(`\udc00`, hostile10MB/6), `"`)), true},

	// Invalid UTF-8 and lone surrogates: encoding/json hands the handler U+FFFD.
	{"utf8/invalid-byte-in-enum-of-FFFD", xProperty(`{"enum":["\uFFFD","x"]}`), xArg("\"\xff\""), true},
	{"utf8/invalid-byte-as-schema-lone-surrogate", xProperty(`{"enum":["\ud800"]}`), xArg("\"\xff\""), true},
	{"utf8/invalid-byte-const", xProperty(`{"const":"x"}`), xArg("\"\xff\""), false},
	{"utf8/two-invalid-bytes-maxLength-1", xProperty(`{"maxLength":1}`), xArg("\"\xff\xfe\""), false},
	{"utf8/truncated-sequence", xProperty(`{"const":"\uFFFD\uFFFD"}`), xArg("\"\xe2\x82\""), true},
	{"utf8/overlong", xProperty(`{"const":"\uFFFD\uFFFD"}`), xArg("\"\xc0\xaf\""), true},
	{"utf8/encoded-surrogate", xProperty(`{"maxLength":2}`), xArg("\"\xed\xa0\x80\""), false},
	{"utf8/beyond-10FFFF", xProperty(`{"const":"\uFFFD\uFFFD\uFFFD\uFFFD"}`), xArg("\"\xf4\x90\x80\x80\""), true},
	{"utf8/pattern-dot", xProperty(`{"pattern":"^a.b$"}`), xArg("\"a\xffb\""), true},
	{"utf8/pattern-ascii", xProperty(`{"pattern":"^[a-z]+$"}`), xArg("\"ab\xffc\""), false},
	{"utf8/valid-FFFD-literal", xProperty(`{"const":"\uFFFD"}`), xArg("\"\xef\xbf\xbd\""), true},
	{"surrogate/lone-high-in-enum", xProperty(`{"enum":["\uFFFD"]}`), xArg(`"\ud800"`), true},
	{"surrogate/lone-low-const", xProperty(`{"const":"\uFFFD"}`), xArg(`"\udfff"`), true},
	{"surrogate/lone-pattern", xProperty(`{"pattern":"^\\x{FFFD}$"}`), xArg(`"\ud800"`), true},
	{"surrogate/lone-maxLength-0", xProperty(`{"maxLength":0}`), xArg(`"\ud800"`), false},
	{"surrogate/lone-minLength-2", xProperty(`{"minLength":2}`), xArg(`"\ud800"`), false},
	{"surrogate/pair-is-one-char", xProperty(`{"maxLength":1,"pattern":"^\\x{10000}$"}`), xArg(`"\ud800\udc00"`), true},
	{"surrogate/reversed-pair-is-two", xProperty(`{"maxLength":1}`), xArg(`"\udc00\ud800"`), false},
	{"surrogate/reversed-pair-const", xProperty(`{"const":"\uFFFD\uFFFD"}`), xArg(`"\udc00\ud800"`), true},
	{"surrogate/high-then-letter", xProperty(`{"const":"\uFFFDA"}`), xArg(`"\ud800\u0041"`), true},
	{"surrogate/high-then-high-then-low", xProperty(`{"const":"\uFFFD\uD800\uDC00"}`), xArg(`"\ud800\ud800\udc00"`), true},
	{"surrogate/uniqueItems-all-FFFD", xProperty(`{"uniqueItems":true}`), xArg("[\"\\ud800\",\"\\udbff\",\"\xff\"]"), false},
	{"surrogate/uniqueItems-distinct", xProperty(`{"uniqueItems":true}`), xArg(`["\ud800","\ud800\udc00"]`), true},
	{"surrogate/member-name", `{"properties":{"\uFFFD":{"type":"string"}}}`, lit(`{"\ud800":1}`), false},
	{"utf8/member-name", `{"properties":{"\uFFFD":{"type":"string"}}}`, lit("{\"\xff\":1}"), false},
	{"surrogate/required-name", `{"required":["\uFFFD"]}`, lit(`{"\udfff":0}`), true},

	// A 1,000,000-item array.
	{"array-1e6/uniqueItems", xProperty(`{"uniqueItems":true,"minItems":` + strconv.Itoa(hostile1e6) + `}`), xArgOf(intArray(hostile1e6, "")), true},
	{"array-1e6/maxItems", xProperty(`{"maxItems":` + strconv.Itoa(hostile1e6-1) + `}`), xArgOf(intArray(hostile1e6, "")), false},
	{"array-1e6/items", xProperty(`{"items":{"type":"integer","maximum":` + strconv.Itoa(hostile1e6-2) + `}}`), xArgOf(intArray(hostile1e6, "")), false},
	{"array-1e6/uniqueItems-duplicate-spelled-apart", xProperty(`{"uniqueItems":true}`), xArgOf(intArray(hostile1e6, `,"\ud800",7.0e0,"\udfff"`)), false},

	// An object with 100,000 members.
	{"object-1e5/minProperties", `{"minProperties":` + strconv.Itoa(hostile1e5) + `}`, manyMembers(hostile1e5, ""), true},
	{"object-1e5/minProperties-short", `{"minProperties":` + strconv.Itoa(hostile1e5+1) + `}`, manyMembers(hostile1e5, ""), false},
	{"object-1e5/maxProperties", `{"maxProperties":` + strconv.Itoa(hostile1e5-1) + `}`, manyMembers(hostile1e5, ""), false},
	{"object-1e5/additionalProperties", `{"additionalProperties":{"type":"integer","minimum":0}}`, manyMembers(hostile1e5, ""), true},
	{"object-1e5/additionalProperties-false", `{"properties":{"k0":{}},"additionalProperties":false}`, manyMembers(hostile1e5, ""), false},
	{"object-1e5/required-present", `{"required":["k` + strconv.Itoa(hostile1e5-1) + `","k0"]}`, manyMembers(hostile1e5, ""), true},
	{"object-1e5/required-absent", `{"required":["k` + strconv.Itoa(hostile1e5) + `"]}`, manyMembers(hostile1e5, ""), false},
	{"object-1e5/declared", `{"properties":{"k1":{"const":1},"k2":{"const":2},"k3":{},"k4":{},"k5":{},"k6":{},"k7":{},"k8":{},"k9":{"const":9},"k` + strconv.Itoa(hostile1e5-1) + `":{"maximum":` + strconv.Itoa(hostile1e5-2) + `}}}`, manyMembers(hostile1e5, ""), false},
	{"object-1e5/surrogate-name", `{"properties":{"\uFFFD":{"type":"string"}}}`, manyMembers(hostile1e5, `,"\ud800":"s"`), true},

	// A 100,000-digit number.
	{"number-1e5/integer", xProperty(`{"type":"integer"}`), xArg(digits1e5), true},
	{"number-1e5/integer-fraction", xProperty(`{"type":"integer"}`), xArg(digits1e5 + ".5"), false},
	{"number-1e5/integer-exponent", xProperty(`{"type":"integer"}`), xArg("0." + digits1e5 + "e100000"), true},
	{"number-1e5/multipleOf-7-no", xProperty(`{"multipleOf":7}`), xArgLazy(func() string { return times(sevens1e5(), 1) + "1" }), false},
	{"number-1e5/multipleOf-7-yes", xProperty(`{"multipleOf":7}`), xArgLazy(sevens1e5), true},
	{"number-1e5/multipleOf-7-power-of-ten", xProperty(`{"multipleOf":7}`), xArg(tenTo99999), false},
	{"number-1e5/multipleOf-0.01-yes", xProperty(`{"multipleOf":0.01}`), xArg(digits1e5 + ".25"), true},
	{"number-1e5/multipleOf-0.01-no", xProperty(`{"multipleOf":0.01}`), xArg(digits1e5 + ".125"), false},
	{"number-1e5/multipleOf-0.01-fraction-digits", xProperty(`{"multipleOf":0.01}`), xArg("0." + digits1e5), false},
	{"number-1e5/maximum-equal", xProperty(`{"maximum":1e99999}`), xArg(tenTo99999), true},
	{"number-1e5/maximum-above", xProperty(`{"maximum":1e99999}`), xArg(tenTo99999[:99_999] + "1"), false},
	{"number-1e5/exclusiveMaximum-equal", xProperty(`{"exclusiveMaximum":1e99999}`), xArg(tenTo99999), false},
	{"number-1e5/minimum-negative", xProperty(`{"minimum":-1e99999}`), xArg("-" + digits1e5), false},
	{"number-1e5/enum", xProperty(`{"enum":[1e99999,2]}`), xArg("1." + strings.Repeat("0", 99_999) + "e99999"), true},
	{"number-1e5/uniqueItems", xProperty(`{"uniqueItems":true}`), xArg("[1e99999," + tenTo99999 + "]"), false},

	// 1e400 and friends: beyond float64, exact for both.
	{"1e400/integer", xProperty(`{"type":"integer"}`), xArg("1e400"), true},
	{"1e400/maximum-float64", xProperty(`{"maximum":1.7976931348623157e308}`), xArg("1e400"), false},
	{"1e400/minimum", xProperty(`{"minimum":1e399}`), xArg("1e400"), true},
	{"1e400/exclusiveMaximum", xProperty(`{"exclusiveMaximum":1e400}`), xArg("1E+400"), false},
	{"1e400/multipleOf-7", xProperty(`{"multipleOf":7}`), xArg("1e400"), false},
	{"1e400/multipleOf-0.01", xProperty(`{"multipleOf":0.01}`), xArg("1e400"), true},
	{"1e400/const", xProperty(`{"const":1E+400}`), xArg("10e399"), true},
	{"1e400/enum-miss", xProperty(`{"enum":[1e401]}`), xArg("1e400"), false},
	{"1e400/uniqueItems", xProperty(`{"uniqueItems":true}`), xArg("[1e400,10e399]"), false},
	{"-1e400/minimum-float64", xProperty(`{"minimum":-1.7976931348623157e308}`), xArg("-1e400"), false},
	{"1e-400/integer", xProperty(`{"type":"integer"}`), xArg("1e-400"), false},
	{"1e-400/exclusiveMinimum", xProperty(`{"exclusiveMinimum":0}`), xArg("1e-400"), true},
	{"1e-400/multipleOf", xProperty(`{"multipleOf":1e-401}`), xArg("1e-400"), true},
	{"2^53+1/maximum", xProperty(`{"maximum":9007199254740992}`), xArg("9007199254740993"), false},
	{"2^53+1/const", xProperty(`{"const":9007199254740992}`), xArg("9007199254740993"), false},
	{"2^53+1/multipleOf-2", xProperty(`{"multipleOf":2}`), xArg("9007199254740993"), false},
	{"2^53+1/integer", xProperty(`{"type":"integer"}`), xArg("9007199254740993.0"), true},
	{"0.1+0.2/maximum", xProperty(`{"maximum":0.3}`), xArg("0.30000000000000004"), false},
	{"2^64/integer", xProperty(`{"type":"integer","minimum":18446744073709551615}`), xArg("18446744073709551616"), true},

	// -0 is 0.
	{"-0/exclusiveMinimum", xProperty(`{"exclusiveMinimum":0}`), xArg("-0"), false},
	{"-0/minimum", xProperty(`{"minimum":0}`), xArg("-0"), true},
	{"-0/integer", xProperty(`{"type":"integer"}`), xArg("-0.0e7"), true},
	{"-0/const", xProperty(`{"const":0}`), xArg("-0"), true},
	{"-0/enum", xProperty(`{"enum":[0.0]}`), xArg("-0"), true},
	{"-0/not-const", xProperty(`{"not":{"const":0}}`), xArg("-0.0"), false},
	{"-0/multipleOf", xProperty(`{"multipleOf":3}`), xArg("-0"), true},
	{"-0/uniqueItems", xProperty(`{"uniqueItems":true}`), xArg("[0,-0]"), false},
	{"-0/uniqueItems-spellings", xProperty(`{"uniqueItems":true}`), xArg("[-0.0,0e5,1]"), false},
	{"-0/exclusiveMaximum", xProperty(`{"exclusiveMaximum":0}`), xArg("-0"), false},
}

// TestHostileValuesAgreeWithOracle requires, for each hostile value, that our verdict on the
// raw bytes, our verdict on the value decoded exactly (json.Number, as encoding/json hands
// strings to the handler: invalid UTF-8 and lone surrogates become U+FFFD), and the oracle's
// verdict on that decoded value are one and the same, and the one the case was built for.
func TestHostileValuesAgreeWithOracle(t *testing.T) {
	if testing.Short() {
		t.Skip("full tier: runs without -short")
	}
	// Consecutive cases often share their arguments: decode them once.
	var lastSum [32]byte
	var lastDecoded any
	for _, c := range hostileValues {
		t.Run(c.name, func(t *testing.T) {
			ours := mustCompile(t, c.schema)
			oracle, err := compileOracle(testsuite.Group{Schema: []byte(c.schema)})
			if err != nil {
				t.Fatalf("oracle: %v", err)
			}
			args := c.args()
			var vs, vvs []guard.Violation
			var oracleValid bool
			var oracleErr, decodeErr error
			finishes(t, "validation", func() {
				vs = ours.Validate(args)
				// What encoding/json hands the handler, numbers kept exact: what
				// jsonschema.UnmarshalJSON gives the oracle.
				if sum := sha256.Sum256(args); sum != lastSum || lastDecoded == nil {
					lastDecoded, decodeErr = jsonschema.UnmarshalJSON(bytes.NewReader(args))
					lastSum = sum
					if decodeErr != nil {
						lastDecoded = nil
						return
					}
				}
				if len(args) <= 1<<20 { // ValidateValue re-encodes the value: spare the big ones
					vvs = ours.ValidateValue(lastDecoded)
				}
				err := oracle.Validate(lastDecoded)
				var ve *jsonschema.ValidationError
				oracleValid = err == nil
				if err != nil && !errors.As(err, &ve) {
					oracleErr = err
				}
			})
			if decodeErr != nil || oracleErr != nil {
				t.Fatalf("decoding the arguments: %v; the oracle: %v", decodeErr, oracleErr)
			}
			if got := vs == nil; got != oracleValid {
				t.Errorf("Validate says valid=%v (%.300s), the oracle says valid=%v", got, describe(vs), oracleValid)
			}
			if got := vvs == nil; len(args) <= 1<<20 && got != oracleValid {
				t.Errorf("ValidateValue of the decoded value says valid=%v (%.300s), the oracle says valid=%v", got, describe(vvs), oracleValid)
			}
			if oracleValid != c.valid {
				t.Errorf("the case was built to be valid=%v, the oracle says valid=%v", c.valid, oracleValid)
			}
			checkMessages(t, vs, 0)
		})
	}
}

// TestHostileLongNumbers: a number literal of 10,000,000 digits (a tenth under the race
// detector) against every numeric keyword. Each validation finishes, with the verdict the
// literal was built for: 7×10^k is an integer, a multiple of 7 and of 0.01, and so on.
func TestHostileLongNumbers(t *testing.T) {
	if testing.Short() {
		t.Skip("full tier: runs without -short")
	}
	n := 10_000_000 / hostileScale
	e := strconv.Itoa(n - 1)
	zeros := strings.Repeat("0", n-1)
	seven := "7" + zeros // 7×10^(n-1)
	random := digits(n, 5)
	cases := []struct {
		name, schema, args string
		valid              bool
	}{
		{"integer", `{"type":"integer"}`, seven, true},
		{"integer-fraction", `{"type":"integer"}`, seven + ".5", false},
		{"multipleOf-7", `{"multipleOf":7}`, seven, true},
		{"multipleOf-7-plus-one", `{"multipleOf":7}`, seven[:n-1] + "1", false},
		{"multipleOf-0.01", `{"multipleOf":0.01}`, seven + ".25", true},
		{"multipleOf-0.01-long-fraction", `{"multipleOf":0.01}`, "0." + seven + "1", false},
		{"multipleOf-0.01-trailing-zeros", `{"multipleOf":0.01}`, "0." + seven, true},
		{"maximum", `{"maximum":1e99}`, seven, false},
		{"maximum-long-fraction", `{"maximum":1}`, "0." + seven, true},
		{"exclusiveMinimum", `{"exclusiveMinimum":6.9999e` + e + `}`, seven, true},
		{"enum", `{"enum":[1,7e` + e + `]}`, seven, true},
		{"const-negative", `{"const":-7e` + e + `}`, "-" + seven, true},
		// Divisors of more than 19 significant digits, against as many random digits.
		{"multipleOf-22-digits", `{"multipleOf":1.234567890123456789012}`, random, false},
		{"multipleOf-20-digit-integer", `{"multipleOf":12345678901234567891}`, random, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v := mustCompile(t, `{"type":"object","properties":{"x":`+c.schema+`}}`)
			args := []byte(`{"x":` + c.args + `}`)
			var vs []guard.Violation
			finishes(t, "Validate", func() { vs = v.Validate(args) })
			if got := vs == nil; got != c.valid {
				t.Errorf("valid=%v, want %v: %.300s", got, c.valid, describe(vs))
			}
			checkMessages(t, vs, maxMessage)
		})
	}
}

// slopeInput is one family of growing inputs for BenchmarkHostileSlope: args(size) builds
// an input whose cost should grow linearly with size; valid is the expected verdict.
type slopeInput struct {
	name   string
	schema string
	sizes  [3]int
	args   func(size int) []byte
	valid  bool
}

func slopeInputs() []slopeInput {
	bigs := [3]int{100_000, 1_000_000, 10_000_000}
	str := func(unit string) func(int) []byte {
		return func(n int) []byte { return wrap(`{"x":"`, repeat(unit, n/len(unit)), `"}`)() }
	}
	num := func(frac string) func(int) []byte {
		return func(n int) []byte { return []byte(`{"x":` + digits(n, uint64(n)) + frac + `}`) }
	}
	prop := func(sub string) string { return `{"type":"object","properties":{"x":` + sub + `}}` }
	return []slopeInput{
		{"string/maxLength", prop(`{"type":"string","maxLength":100000000}`), bigs, str("a"), true},
		{"string/pattern", prop(`{"pattern":"^[a-z]*$"}`), bigs, str("z"), true},
		{"string/two-byte-maxLength", prop(`{"maxLength":100000000}`), bigs, str("é"), true},
		{"string/invalid-utf8-maxLength", prop(`{"maxLength":100000000}`), bigs, str("\xff"), true},
		{"string/surrogates-enum", prop(`{"enum":["x"]}`), bigs, str(`\ud800`), false},
		{"array/uniqueItems", prop(`{"uniqueItems":true,"items":{"type":"integer"}}`), [3]int{10_000, 100_000, 1_000_000},
			func(n int) []byte { return wrap(`{"x":`, intArray(n, ""), `}`)() }, true},
		{"object/members", `{"additionalProperties":{"type":"integer"},"minProperties":1}`, [3]int{1_000, 10_000, 100_000},
			func(n int) []byte { return manyMembers(n, "")() }, true},
		{"number/multipleOf-7", prop(`{"multipleOf":7}`), [3]int{1_000, 10_000, 100_000},
			func(n int) []byte { return []byte(`{"x":` + times(digits(n-1, uint64(n)), 7) + `}`) }, true},
		{"number/multipleOf-0.01", prop(`{"multipleOf":0.01}`), [3]int{1_000, 10_000, 100_000}, num(".5"), true},
		{"number/multipleOf-22-digits", prop(`{"multipleOf":1.234567890123456789012}`), [3]int{1_000, 10_000, 100_000}, num(""), false},
		{"number/maximum", prop(`{"maximum":1e99}`), [3]int{1_000, 10_000, 100_000}, num(""), false},
		{"number/enum", prop(`{"enum":[1,2,3]}`), [3]int{1_000, 10_000, 100_000}, num(""), false},
		{"depth/objects", `{}`, [3]int{10_000, 100_000, 1_000_000}, nestObjects, false},
	}
}

// BenchmarkHostileSlope measures validation time at sizes ×1, ×10 and ×100 of each
// hostile input; ns/op should grow tenfold per step (MB/s stays flat).
func BenchmarkHostileSlope(b *testing.B) {
	for _, in := range slopeInputs() {
		v := mustCompile(b, in.schema)
		for _, size := range in.sizes {
			b.Run(in.name+"/"+strconv.Itoa(size), func(b *testing.B) {
				args := in.args(size)
				if got := v.Validate(args) == nil; got != in.valid {
					b.Fatalf("valid=%v, want %v: %.300s", got, in.valid, describe(v.Validate(args)))
				}
				b.SetBytes(int64(len(args)))
				b.ReportAllocs()
				for b.Loop() {
					v.Validate(args)
				}
			})
		}
	}
}

// BenchmarkHostilePattern: ^(a+)+$ against "aaa…ab" costs exponential time in a
// backtracking engine; Go's RE2 keeps it linear.
func BenchmarkHostilePattern(b *testing.B) {
	v := mustCompile(b, `{"type":"object","properties":{"x":{"type":"string","pattern":"^(a+)+$"}}}`)
	for _, n := range []int{1_000, 10_000, 100_000} {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			args := []byte(`{"x":"` + strings.Repeat("a", n) + `b"}`)
			if v.Validate(args) == nil {
				b.Fatal("the pattern matches")
			}
			b.SetBytes(int64(len(args)))
			for b.Loop() {
				v.Validate(args)
			}
		})
	}
}

// ---------------------------------------------------------------------------------------
// 3. Duplicate and strange member names.

// TestHostileDuplicateNames: a member name that appears twice in one object, at any depth,
// however it is spelled, is refused with KindDuplicate at that member's path, whatever the
// schema says about the object (the handler would see only one of the two).
func TestHostileDuplicateNames(t *testing.T) {
	schemas := []struct{ name, schema string }{
		{"empty", `{}`},
		{"declared", `{"type":"object","properties":{"a":{"type":"string"}}}`},
		{"nested", `{"type":"object","properties":{"x":{"type":"object","properties":{"a":{}}},"list":{"items":{"type":"object"}}},"additionalProperties":true}`},
		{"anyOf", `{"anyOf":[{"type":"string"},{"type":"object"}]}`},
		{"oneOf", `{"oneOf":[{"required":["a"]},{"required":["b"]}]}`},
		{"not", `{"not":{"type":"string"}}`},
		{"if", `{"if":{"type":"object"},"then":{"required":["a"]}}`},
		{"const", `{"type":"object","properties":{"x":{"const":{"a":1}}}}`},
		{"uniqueItems", `{"type":"object","properties":{"list":{"uniqueItems":true}}}`},
		{"full-engine", `{"patternProperties":{"^z":{}}}`},
	}
	cases := []struct {
		args string
		path string // of the duplicate, as Path.String renders it
	}{
		{`{"a":"x","a":"x"}`, "a"},
		{`{"a":"x","b":1,"a":1}`, "a"},
		{`{"a":1,"\u0061":2}`, "a"},
		{`{"\u0061":1,"a":2}`, "a"},
		{`{"a\/b":1,"a/b":2}`, `["a/b"]`},
		{`{"\ud800":1,"\udbff":2}`, "[\"\uFFFD\"]"},
		{"{\"\xff\":1,\"\\ufffd\":2}", "[\"\uFFFD\"]"},
		{`{"x":{"a":1,"a":1}}`, "x.a"},
		{`{"x":{"y":[{"z":{"a":1,"\u0061":1}}]}}`, "x.y[0].z.a"},
		{`{"list":[{},{"a":1,"a":1}]}`, "list[1].a"},
		{`{"x":{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"h":8,"i":9,"j":10,"k":11,"l":12,"m":13,"n":14,"o":15,"p":16,"q":17,"r":18,"\u0072":19}}`, "x.r"},
		{`{"__proto__":{},"__proto__":{"admin":true}}`, "__proto__"},
	}
	for _, s := range schemas {
		t.Run(s.name, func(t *testing.T) {
			v := mustCompile(t, s.schema)
			for _, c := range cases {
				vs := v.Validate([]byte(c.args))
				found := false
				for _, x := range vs {
					switch x.Kind {
					case guard.KindDuplicate:
						found = true
						if got := x.Path.String(); got != c.path {
							t.Errorf("args %s: duplicate reported at %q, want %q", c.args, got, c.path)
						}
					case guard.KindSyntax:
						t.Errorf("args %s: well-formed JSON reported as a syntax error: %.300q", c.args, describe(vs))
					}
					if len(x.Path) > 8 {
						t.Errorf("args %s: a path of %d steps: %.300q", c.args, len(x.Path), describe(vs))
					}
				}
				if !found {
					t.Errorf("args %s: no duplicate violation: %.300q", c.args, describe(vs))
				}
				checkMessages(t, vs, maxMessage)
			}
		})
	}
}

// hostileNames are member names that differ from each other and that a careless
// rendering would confuse: with dots, brackets, quotes, escapes, control characters,
// line breaks and look-alikes.
var hostileNames = []string{
	"a", "b", "a.b", "a\\.b", "a[0]", "[0]", "0", "a]", "[a", `["a"]`, `"a"`, "'a'", "`a`",
	"a'b", "a\"b", "a\\b", "a\\\\b", "a\\nb", "a\nb", "a\rb", "a\r\nb", "a\tb", "a\x00b", "a\x1bb",
	"a\u2028b", "a\u2029b", "a\u0085b", "a\x7fb", "a b", " a", "a ", "", " ", ".", "..", "a..b",
	"__proto__", "constructor", "prototype", "$ref", "a/b", "a~1b", "a~0b", "é", "e\u0301",
	"\uFFFD", "\u00c5", "\u212b", "A\u030a", "a.b.c", "a[\"b\"]", "a; unexpected property 'b", "a' must be integer; x '",
	"a\u200bb", "\ufeffa", "a\u00a0b",
}

// TestHostileNamesRendering: every hostile name, as a member refused by additionalProperties
// and as a step of a deeper path, renders to a message on one line, and different names
// (and different paths) give different messages, in both styles.
func TestHostileNamesRendering(t *testing.T) {
	closed := mustCompile(t, `{"type":"object","properties":{"ok":{}},"additionalProperties":false}`)
	nested := mustCompile(t, `{"type":"object","additionalProperties":{"type":"object","additionalProperties":{"type":"string"}}}`)
	array := mustCompile(t, `{"type":"object","additionalProperties":{"type":"array","items":{"type":"string"}}}`)
	seen := map[string]string{} // message -> the arguments that gave it
	unique := func(args string, vs []guard.Violation) {
		t.Helper()
		if len(vs) != 1 {
			t.Errorf("args %q: want one violation, got %q", args, describe(vs))
			return
		}
		msgs := checkMessages(t, vs, 0)
		gw := guard.Messages(vs, guard.GatewayFormat)
		for _, m := range []string{"default: " + msgs[0], "gateway: " + gw[0]} {
			if other, dup := seen[m]; dup && other != args {
				t.Errorf("arguments %q and %q render the same message %q", other, args, m)
			}
			seen[m] = args
		}
	}
	if len(hostileNames) != len(uniqueStrings(hostileNames)) {
		t.Fatal("hostileNames lists a name twice")
	}
	enc := quoteJSON
	for _, n := range hostileNames {
		args := `{` + enc(n) + `:1}`
		unique(args, closed.Validate([]byte(args)))
		// The name as an outer and as an inner step: {"<n>":{"a":1}} and {"a":{"<n>":1}}.
		args = `{` + enc(n) + `:{"a":1}}`
		unique(args, nested.Validate([]byte(args)))
		args = `{"a":{` + enc(n) + `:1}}`
		unique(args, nested.Validate([]byte(args)))
		args = `{` + enc(n) + `:[1]}`
		unique(args, array.Validate([]byte(args)))
	}
	// Paths built from the same names in other arrangements: a.b as one name or two steps.
	for _, args := range []string{`{"a":{"b":1}}`, `{"a.b":{"a":1}}`, `{"a":{"b.a":1}}`} {
		unique(args, nested.Validate([]byte(args)))
	}
	// The names reach the messages intact: the rendered path reads back as the name.
	for _, n := range hostileNames {
		vs := closed.Validate([]byte(`{` + enc(n) + `:1}`))
		if len(vs) != 1 || len(vs[0].Path) != 1 || vs[0].Path[0].Name != n {
			t.Errorf("name %q: path %+v", n, vs)
			continue
		}
		if got := readBackPath(vs[0].Path.String()); got != n {
			t.Errorf("name %q renders as %q, which reads back as %q", n, vs[0].Path.String(), got)
		}
	}
}

func uniqueStrings(list []string) map[string]bool {
	m := map[string]bool{}
	for _, s := range list {
		m[s] = true
	}
	return m
}

// quoteJSON writes s as a JSON string; invalid UTF-8 stays as it is, so that the arguments
// can carry it.
func quoteJSON(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c < 0x20:
			fmt.Fprintf(&b, `\u%04x`, c)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// readBackPath reads a one-step path rendered by Path.String: a plain name, or ["…"] with
// JSON escapes.
func readBackPath(s string) string {
	if strings.HasPrefix(s, "[") && strings.HasSuffix(s, "]") {
		var name string
		if json.Unmarshal([]byte(s[1:len(s)-1]), &name) == nil {
			return name
		}
	}
	return s
}

// TestHostileNamesMiddleware: the same names through a real server: the refusal is one
// line, names the member unambiguously, and the handler does not run; __proto__ is an
// ordinary name.
func TestHostileNamesMiddleware(t *testing.T) {
	h := newHostileServer(t, nil)
	seen := map[string]string{}
	for _, n := range hostileNames {
		args := `{"name":"x",` + quoteJSON(n) + `:1}`
		before := h.calls.Load()
		r := h.call("closed", []byte(args))
		if !r.isError || h.calls.Load() != before {
			t.Errorf("args %s: want a refusal, got %s", args, r.raw)
			continue
		}
		if strings.ContainsAny(r.text, lineBreaks) {
			t.Errorf("args %s: refusal breaks the line: %q", args, r.text)
		}
		if hasC1Control(r.text) {
			t.Errorf("refusal holds a C1 control: %q", r.text)
		}
		if other, dup := seen[r.text]; dup {
			t.Errorf("args %s and %s get the same refusal %q", other, args, r.text)
		}
		seen[r.text] = args
	}
	r := h.call("open", []byte(`{"__proto__":{"admin":true},"constructor":{"prototype":{}}}`))
	if r.isError || r.rpcError != nil {
		t.Errorf("__proto__ as an ordinary member of an open object: %s", r.raw)
	}
	h.checkProblems(t)
}

// ---------------------------------------------------------------------------------------
// 4. Hostile schemas.

// chainSchema builds $defs a0..an where a0 is {"type":"string"} and each a_i applies
// a_(i-1) twice through tmpl (which has two %[1]s for where the schema stands and two %d
// for i-1), with $ref to a_n. base is the JSON Pointer of the schema built ("#" at the root).
func chainSchema(n int, base, tmpl string) string {
	var b strings.Builder
	fmt.Fprintf(&b, `{"$ref":"%s/$defs/a%d","$defs":{"a0":{"type":"string"}`, base, n)
	tmpl = strings.ReplaceAll(tmpl, "#/$defs/", base+"/$defs/")
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, `,"a%d":`+tmpl, i, i-1, i-1)
	}
	b.WriteString(`}}`)
	return b.String()
}

// allOfChain is a chain of n schemas, each applying the next through allOf.
func allOfChain(n int) string {
	var b strings.Builder
	fmt.Fprintf(&b, `{"$ref":"#/$defs/a%d","$defs":{"a0":{"type":"object"}`, n)
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, `,"a%d":{"allOf":[{"$ref":"#/$defs/a%d"}]}`, i, i-1)
	}
	b.WriteString(`}}`)
	return b.String()
}

func bigEnum(n int, value func(i int) string) string {
	var b strings.Builder
	b.WriteString(`{"type":"object","properties":{"x":{"enum":[`)
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(value(i))
	}
	b.WriteString(`]}}}`)
	return b.String()
}

func manyProperties(n int, required bool, desc int) string {
	var b strings.Builder
	b.WriteString(`{"type":"object","properties":{`)
	pad := strings.Repeat("d", desc)
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"p%d":{"type":"integer","minimum":%d,"description":"%s"}`, i, i, pad)
	}
	b.WriteString(`}`)
	if required {
		b.WriteString(`,"required":[`)
		for i := 0; i < n; i++ {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `"p%d"`, i)
		}
		b.WriteString(`]`)
	}
	b.WriteString(`,"additionalProperties":false}`)
	return b.String()
}

type hostileSchema struct {
	name   string
	schema func() string
	// refuse: Compile must return a *SchemaError; otherwise Compile may accept or refuse,
	// unless accept is set.
	refuse, accept bool
	args           []string // validated when the schema compiles; verdicts as listed
	valid          []bool
}

func s(schema string) func() string { return func() string { return schema } }

// schemaLoop is a case whose schema refers to itself with no progress: Compile must refuse it.
func schemaLoop(name, schema string) hostileSchema {
	return hostileSchema{name: "loop/" + name, schema: s(schema), refuse: true}
}

// enumSchema returns bigEnum(n, value), built when called.
func enumSchema(n int, value func(i int) string) func() string {
	return func() string { return bigEnum(n, value) }
}

// tenThousandA is the string the pattern cases make a backtracking engine retry.
var tenThousandA = strings.Repeat("a", 10_000)

// hostileSchemas are the cases of TestHostileSchemas.
var hostileSchemas = []hostileSchema{
	schemaLoop("ref-root", `{"$ref":"#"}`),
	schemaLoop("ref-root-with-siblings", `{"type":"object","$ref":"#"}`),
	schemaLoop("allOf", `{"allOf":[{"type":"object"},{"$ref":"#"}]}`),
	schemaLoop("anyOf", `{"anyOf":[{"$ref":"#"}]}`),
	schemaLoop("anyOf-second", `{"anyOf":[{"type":"string"},{"$ref":"#"}]}`),
	schemaLoop("oneOf", `{"oneOf":[{"type":"string"},{"$ref":"#"}]}`),
	schemaLoop("not", `{"not":{"$ref":"#"}}`),
	schemaLoop("not-not", `{"not":{"not":{"$ref":"#"}}}`),
	schemaLoop("if", `{"if":{"$ref":"#"},"then":true}`),
	schemaLoop("then", `{"if":true,"then":{"$ref":"#"}}`),
	schemaLoop("else", `{"if":false,"else":{"$ref":"#"}}`),
	schemaLoop("defs-pair", `{"$ref":"#/$defs/a","$defs":{"a":{"$ref":"#/$defs/b"},"b":{"$ref":"#/$defs/a"}}}`),
	schemaLoop("defs-through-all-applicators", `{"$ref":"#/$defs/a","$defs":{"a":{"allOf":[{"$ref":"#/$defs/b"}]},"b":{"anyOf":[{"type":"null"},{"$ref":"#/$defs/c"}]},"c":{"not":{"oneOf":[{"$ref":"#/$defs/a"}]}}}}`),
	{name: "loop/unreachable", schema: s(`{"type":"object","$defs":{"a":{"$ref":"#/$defs/a"}}}`),
		args: []string{`{}`, `1`}, valid: []bool{true, false}},
	schemaLoop("ref-into-properties", `{"$ref":"#/properties/a","properties":{"a":{"$ref":"#"}}}`),
	schemaLoop("percent-encoded", `{"$ref":"#/$defs/a%20b","$defs":{"a b":{"$ref":"#/$defs/a%20b"}}}`),
	schemaLoop("draft-07", `{"$schema":"http://json-schema.org/draft-07/schema#","$ref":"#"}`),
	schemaLoop("2019-09", `{"$schema":"https://json-schema.org/draft/2019-09/schema","allOf":[{"$ref":"#"}]}`),
	schemaLoop("full-engine", `{"patternProperties":{"^a":{}},"allOf":[{"$ref":"#"}]}`),
	{name: "loop/anchor", refuse: true,
		schema: s(`{"$ref":"#x","$defs":{"x":{"$anchor":"x","$ref":"#x"}}}`)},
	{name: "loop/dynamicRef", refuse: true,
		schema: s(`{"$dynamicAnchor":"x","$dynamicRef":"#x"}`)},
	{name: "loop/recursiveRef", refuse: true,
		schema: s(`{"$schema":"https://json-schema.org/draft/2019-09/schema","$recursiveAnchor":true,"$recursiveRef":"#"}`)},
	{name: "progress/properties", accept: true, schema: s(`{"type":"object","properties":{"a":{"$ref":"#"}}}`),
		args: []string{strings.Repeat(`{"a":`, 60) + `{}` + strings.Repeat(`}`, 60), string(nestObjects(100_000))}, valid: []bool{true, false}},
	{name: "progress/items", accept: true, schema: s(`{"type":["object","array"],"items":{"$ref":"#"}}`),
		args: []string{`{}`, `[[[[{}]]]]`, `[[[[1]]]]`}, valid: []bool{true, true, false}},
	{name: "in-place-chain-450", accept: true, schema: func() string { return allOfChain(450) },
		args: []string{`{}`, `1`}, valid: []bool{true, false}},
	{name: "in-place-chain-5000", schema: func() string { return allOfChain(5000) },
		args: []string{`{}`, `1`}, valid: []bool{true, false}},
	{name: "schema-nested-100000", refuse: true, schema: func() string {
		return strings.Repeat(`{"not":`, 100_000) + `{}` + strings.Repeat(`}`, 100_000)
	}},

	// Alternatives whose naive evaluation is exponential (2^40 paths).
	{name: "exponential/anyOf-40", accept: true,
		schema: s(chainSchema(40, "#", `{"anyOf":[{"$ref":"#/$defs/a%d"},{"allOf":[{"$ref":"#/$defs/a%d"}]}]}`)),
		args:   []string{`1`, `"x"`, `{"a":1}`, `null`}, valid: []bool{false, true, false, false}},
	{name: "exponential/oneOf-40", accept: true,
		schema: s(chainSchema(40, "#", `{"oneOf":[{"$ref":"#/$defs/a%d"},{"not":{"$ref":"#/$defs/a%d"}}]}`)),
		args:   []string{`1`, `"x"`}, valid: []bool{true, true}},
	{name: "exponential/oneOf-both-40", accept: true,
		schema: s(chainSchema(40, "#", `{"oneOf":[{"$ref":"#/$defs/a%d"},{"allOf":[{"$ref":"#/$defs/a%d"}]}]}`)),
		args:   []string{`1`, `"x"`}, valid: []bool{false, false}},
	{name: "exponential/if-40", accept: true,
		schema: s(chainSchema(40, "#", `{"if":{"$ref":"#/$defs/a%d"},"then":{"$ref":"#/$defs/a%d"},"else":false}`)),
		args:   []string{`1`, `"x"`}, valid: []bool{false, true}},
	{name: "exponential/anyOf-in-properties-40", accept: true,
		schema: s(`{"type":"object","properties":{"x":` + chainSchema(40, "#/properties/x", `{"anyOf":[{"$ref":"#/$defs/a%d"},{"allOf":[{"$ref":"#/$defs/a%d"}]}]}`) + `}}`),
		args:   []string{`{"x":1}`, `{"x":"s"}`}, valid: []bool{false, true}},
	{name: "exponential/allOf-40", accept: true,
		schema: s(chainSchema(40, "#", `{"allOf":[{"$ref":"#/$defs/a%d"},{"$ref":"#/$defs/a%d"}]}`)),
		args:   []string{`1`, `"x"`}, valid: []bool{false, true}},
	{name: "exponential/allOf-recursive-args-64", accept: true,
		schema: s(`{"properties":{"a":{"$ref":"#"}},"allOf":[{"properties":{"a":{"$ref":"#"}}}]}`),
		args:   []string{string(nestObjects(63))}, valid: []bool{true}},
	{name: "exponential/anyOf-recursive-args-64", accept: true,
		schema: s(`{"anyOf":[{"properties":{"a":{"$ref":"#"}},"required":["zz"]},{"properties":{"a":{"$ref":"#"}}}]}`),
		args:   []string{string(nestObjects(63))}, valid: []bool{true}},

	// Big enums and big schemas.
	{name: "enum-100000-strings", accept: true,
		schema: enumSchema(100_000, func(i int) string { return `"value-` + strconv.Itoa(i) + `"` }),
		args:   []string{`{"x":"value-99999"}`, `{"x":"value-100000"}`, `{"x":1}`}, valid: []bool{true, false, false}},
	{name: "enum-100000-numbers", accept: true,
		schema: enumSchema(100_000, func(i int) string { return strconv.Itoa(i) + ".0" }),
		args:   []string{`{"x":99999}`, `{"x":99999.5}`, `{"x":1e400}`}, valid: []bool{true, false, false}},
	{name: "enum-100000-objects", accept: true,
		schema: enumSchema(100_000, func(i int) string { return `{"id":` + strconv.Itoa(i) + `,"tag":"t"}` }),
		args:   []string{`{"x":{"tag":"t","id":5e4}}`, `{"x":{"id":5}}`}, valid: []bool{true, false}},
	{name: "enum-10MB", accept: true,
		schema: enumSchema(100_000, func(i int) string { return `"` + strconv.Itoa(i) + strings.Repeat("v", 94) + `"` }),
		args:   []string{`{"x":"7` + strings.Repeat("v", 94) + `"}`, `{"x":"v"}`}, valid: []bool{true, false}},
	{name: "anyOf-100000-consts", accept: true, schema: func() string {
		var b strings.Builder
		b.WriteString(`{"anyOf":[`)
		for i := 0; i < 100_000; i++ {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `{"const":%d}`, i)
		}
		b.WriteString(`]}`)
		return b.String()
	}, args: []string{`99999`, `-1`}, valid: []bool{true, false}},
	{name: "properties-10000-10MB", accept: true, schema: func() string { return manyProperties(10_000, false, 1000) },
		args: []string{`{"p9999":9999}`, `{"p9999":1,"p0":-1,"zz":1}`}, valid: []bool{true, false}},
	{name: "properties-100000", accept: true, schema: func() string { return manyProperties(100_000, false, 0) },
		args: []string{`{"p99999":99999}`, `{"p99999":1}`}, valid: []bool{true, false}},
	{name: "properties-and-required-100000", accept: true, schema: func() string { return manyProperties(100_000, true, 0) },
		args: []string{`{}`}, valid: []bool{false}},

	// Patterns that backtracking engines take exponential time over.
	{name: "pattern/(a+)+$", accept: true, schema: s(`{"properties":{"x":{"pattern":"^(a+)+$"}}}`),
		args: []string{`{"x":"` + tenThousandA + `b"}`, `{"x":"` + tenThousandA + `"}`}, valid: []bool{false, true}},
	{name: "pattern/(a|aa)+$", accept: true, schema: s(`{"properties":{"x":{"pattern":"^(a|aa)+$"}}}`),
		args: []string{`{"x":"` + tenThousandA + `!"}`}, valid: []bool{false}},
	{name: "pattern/(\\w+\\s?)*$", accept: true, schema: s(`{"properties":{"x":{"pattern":"^(\\w+\\s?)*$"}}}`),
		args: []string{`{"x":"` + tenThousandA + `!"}`}, valid: []bool{false}},
	{name: "pattern/back-reference", refuse: true, schema: s(`{"properties":{"x":{"pattern":"^(a+)\\1$"}}}`)},
	{name: "pattern/look-ahead", refuse: true, schema: s(`{"properties":{"x":{"pattern":"^(?=a)a$"}}}`)},
	{name: "pattern/huge-repeat", schema: s(`{"properties":{"x":{"pattern":"a{1000}{1000}"}}}`)},

	// Schema values that end up in messages.
	{name: "message/const-1MB", accept: true,
		schema: func() string { return `{"properties":{"x":{"const":"` + strings.Repeat("c", 1<<20) + `"}}}` },
		args:   []string{`{"x":"c"}`}, valid: []bool{false}},
	{name: "message/enum-values-100KB", accept: true,
		schema: s(`{"properties":{"x":{"enum":["` + strings.Repeat("e", 100_000) + `",1]}}}`),
		args:   []string{`{"x":"e"}`}, valid: []bool{false}},
	{name: "message/pattern-100KB", accept: true,
		schema: s(`{"properties":{"x":{"pattern":"^` + strings.Repeat("p", 100_000) + `$"}}}`),
		args:   []string{`{"x":"e"}`}, valid: []bool{false}},
	{name: "message/maximum-100000-digits", accept: true,
		schema: s(`{"properties":{"x":{"maximum":1` + strings.Repeat("0", 100_000) + `}}}`),
		args:   []string{`{"x":1e100001}`}, valid: []bool{false}},
	{name: "message/enum-many-long-values", accept: true,
		schema: enumSchema(1000, func(i int) string { return `"` + strconv.Itoa(i) + strings.Repeat("x", 100) + `"` }),
		args:   []string{`{"x":"y"}`}, valid: []bool{false}},
}

// TestHostileSchemas: each hostile schema is refused by Compile with a *SchemaError or
// compiled; when compiled, each validation finishes with the expected verdict and messages
// of at most maxMessage bytes on one line.
func TestHostileSchemas(t *testing.T) {
	if testing.Short() {
		t.Skip("full tier: runs without -short")
	}
	for _, c := range hostileSchemas {
		t.Run(c.name, func(t *testing.T) {
			schema := []byte(c.schema())
			var v *mcpvalidate.Validator
			var err error
			finishes(t, "Compile", func() { v, err = mcpvalidate.Compile(schema) })
			if err != nil {
				var se *guard.SchemaError
				if !errors.As(err, &se) {
					t.Fatalf("Compile returned %T, not a *SchemaError: %v", err, err)
				}
				if strings.ContainsAny(err.Error(), lineBreaks) {
					t.Errorf("the schema error breaks the line: %.300q", err.Error())
				}
				if c.accept {
					t.Fatalf("Compile refuses the schema: %.300s", err)
				}
				t.Logf("refused: %.200s", err)
				return
			}
			if c.refuse {
				var vs []guard.Violation
				finishes(t, "Validate({})", func() { vs = v.Validate([]byte(`{}`)) })
				t.Fatalf("Compile accepts the schema ; {} then gets %.300q", describe(vs))
			}
			for i, args := range c.args {
				var vs []guard.Violation
				finishes(t, fmt.Sprintf("Validate(%.60s)", args), func() { vs = v.Validate([]byte(args)) })
				if got := vs == nil; got != c.valid[i] {
					t.Errorf("args %.60s: valid=%v, want %v: %.300s", args, got, c.valid[i], describe(vs))
				}
				for _, m := range checkMessages(t, vs, maxMessage) {
					if strings.Contains(m, "fails the  keyword") {
						t.Errorf("args %.60s: meaningless message %q", args, m)
					}
				}
			}
		})
	}
}

// BenchmarkHostileNestedAllOf shows the cost of in-place applicators nested n deep that
// each reach the same schema twice, and of recursive arguments under allOf: linear in n,
// where naive evaluation is exponential.
func BenchmarkHostileNestedAllOf(b *testing.B) {
	for _, c := range []struct{ name, tmpl string }{
		{"anyOf", `{"anyOf":[{"$ref":"#/$defs/a%d"},{"allOf":[{"$ref":"#/$defs/a%d"}]}]}`},
		{"allOf", `{"allOf":[{"$ref":"#/$defs/a%d"},{"$ref":"#/$defs/a%d"}]}`},
	} {
		for _, n := range []int{8, 12, 16} {
			v := mustCompile(b, chainSchema(n, "#", c.tmpl))
			b.Run(fmt.Sprintf("%s/%d", c.name, n), func(b *testing.B) {
				for b.Loop() {
					v.Validate([]byte(`"x"`))
				}
			})
		}
	}
	v := mustCompile(b, `{"properties":{"a":{"$ref":"#"}},"allOf":[{"properties":{"a":{"$ref":"#"}}}]}`)
	for _, n := range []int{8, 12, 16} {
		args := nestObjects(n)
		b.Run(fmt.Sprintf("recursive-args/%d", n), func(b *testing.B) {
			for b.Loop() {
				v.Validate(args)
			}
		})
	}
}

// ---------------------------------------------------------------------------------------
// A real mcp-go server with the middleware, driven by raw JSON-RPC bytes.

// hostileTools are the tools of the test server, by name.
var hostileTools = map[string]string{
	"open":     `{"type":"object"}`,
	"closed":   `{"type":"object","properties":{"name":{"type":"string"}},"additionalProperties":false}`,
	"seed":     seedSchema,
	"strings":  `{"type":"object","properties":{"code":{"type":"string","pattern":"^[A-Z]{3}$"},"mark":{"enum":["\uFFFD","ok"]},"short":{"type":"string","maxLength":2}},"additionalProperties":false}`,
	"numbers":  `{"type":"object","properties":{"n":{"type":"integer","maximum":9007199254740992},"big":{"type":"integer"},"cents":{"type":"number","multipleOf":0.01},"sevens":{"type":"integer","multipleOf":7}},"additionalProperties":false}`,
	"dup":      `{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"object","properties":{"c":{"const":"safe"}}}},"required":["a"]}`,
	"case":     `{"type":"object","properties":{"role":{"enum":["user"]}},"required":["role"]}`,
	"filter":   filterSchema,
	"full":     `{"type":"object","patternProperties":{"^x_":{"type":"integer"}},"properties":{"name":{"type":"string","maxLength":8}},"additionalProperties":false}`,
	"required": `{"type":"object","properties":{"q":{"type":"string"}},"required":["q"]}`,
}

// hostileServer is an mcp-go server whose every tool checks, inside its handler, that it
// received what the middleware validated: RawArguments valid for the tool's schema, and
// Arguments equal to RawArguments decoded.
type hostileServer struct {
	srv        *server.MCPServer
	guard      *mcpvalidate.Guard
	validators map[string]*mcpvalidate.Validator
	calls      atomic.Int64

	mu       sync.Mutex
	problems []string
	last     handlerSaw
}

type handlerSaw struct {
	tool string
	raw  []byte
	args any
}

func newHostileServer(t testing.TB, g *mcpvalidate.Guard) *hostileServer {
	t.Helper()
	if g == nil {
		g = mcpvalidate.New(guard.WithViolationMeta())
	}
	h := &hostileServer{guard: g, validators: map[string]*mcpvalidate.Validator{}}
	h.srv = server.NewMCPServer("hostile", "1.0.0", server.WithToolCapabilities(true),
		server.WithToolHandlerMiddleware(g.Middleware()))
	for name, schema := range hostileTools {
		h.validators[name] = mustCompile(t, schema)
		h.srv.AddTool(mcp.NewToolWithRawSchema(name, "", json.RawMessage(schema)), h.handle)
	}
	if err := mcpvalidate.New().CheckServer(h.srv); err != nil {
		t.Fatal(err)
	}
	return h
}

func (h *hostileServer) handle(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	h.calls.Add(1)
	raw := req.Params.RawArguments
	var problems []string
	// What the middleware judged is what the handler gets: the same raw bytes, valid.
	judged := []byte(raw)
	if len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null" {
		judged = []byte(`{}`)
	}
	if vs := h.validators[req.Params.Name].Validate(judged); vs != nil {
		problems = append(problems, fmt.Sprintf("tool %s: the handler received invalid arguments %.200q: %s", req.Params.Name, raw, describe(vs)))
	}
	// Arguments are RawArguments decoded by encoding/json: float64 numbers (so big integers
	// are rounded: that is mcp-go's decoding, not ours; RawArguments keeps them exact).
	var decoded any
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &decoded); err != nil {
			problems = append(problems, fmt.Sprintf("tool %s: RawArguments do not decode: %v", req.Params.Name, err))
		}
	}
	if !reflect.DeepEqual(decoded, req.Params.Arguments) {
		problems = append(problems, fmt.Sprintf("tool %s: Arguments %#v differ from RawArguments decoded %#v", req.Params.Name, req.Params.Arguments, decoded))
	}
	if args := req.GetArguments(); args != nil && !reflect.DeepEqual(any(args), decoded) {
		problems = append(problems, fmt.Sprintf("tool %s: GetArguments %#v differ from RawArguments decoded", req.Params.Name, args))
	}
	h.mu.Lock()
	h.problems = append(h.problems, problems...)
	h.last = handlerSaw{tool: req.Params.Name, raw: append([]byte(nil), raw...), args: req.Params.Arguments}
	h.mu.Unlock()
	return mcp.NewToolResultText("ok"), nil
}

func (h *hostileServer) checkProblems(t testing.TB) {
	t.Helper()
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, p := range h.problems {
		t.Error(p)
	}
	h.problems = nil
}

// hostileResponse is a JSON-RPC response, classified.
type hostileResponse struct {
	raw      []byte
	rpcError *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	}
	toolResult bool // the result is a CallToolResult
	isError    bool
	text       string
}

// call sends a tools/call whose arguments are the given bytes, spliced in as they are.
func (h *hostileServer) call(tool string, args []byte) hostileResponse {
	msg := make([]byte, 0, len(args)+128)
	msg = append(msg, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":`...)
	msg = append(msg, quoteJSON(tool)...)
	msg = append(msg, `,"arguments":`...)
	msg = append(msg, args...)
	msg = append(msg, `}}`...)
	return h.send(msg)
}

func (h *hostileServer) send(msg []byte) hostileResponse {
	out := h.srv.HandleMessage(context.Background(), msg)
	b, err := json.Marshal(out)
	if err != nil {
		return hostileResponse{raw: []byte("unmarshalable response: " + err.Error())}
	}
	r := hostileResponse{raw: b}
	var resp struct {
		Result *struct {
			Content []struct {
				Type string `json:"type"`
				Text string `json:"text"`
			} `json:"content"`
			IsError bool `json:"isError"`
		} `json:"result"`
		Error *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal(b, &resp) != nil {
		return r
	}
	r.rpcError = resp.Error
	if resp.Result != nil && resp.Result.Content != nil {
		r.toolResult, r.isError = true, resp.Result.IsError
		for _, c := range resp.Result.Content {
			r.text += c.Text
		}
	}
	return r
}

// ---------------------------------------------------------------------------------------
// 5. The parser differential: what the middleware validates is what the handler receives.

// differentialVerdict is what a call of TestHostileParserDifferential must get.
type differentialVerdict string

const (
	refusedByMiddleware differentialVerdict = "refused"            // isError, the handler not run
	rejectedByMCPGo     differentialVerdict = "rejected by mcp-go" // a JSON-RPC error, the handler not run
	acceptedByHandler   differentialVerdict = "accepted"           // the handler's result

	// From mcp-go v1.6.0, a call whose params repeat "arguments" or spell it in another
	// case is a JSON-RPC error of mcp-go's own, before any middleware runs; on earlier
	// releases, which pass it on, the middleware decides as the verdict's first word says.
	refusedUnlessStrict  differentialVerdict = "refused, unless mcp-go rejects the params"
	acceptedUnlessStrict differentialVerdict = "accepted, unless mcp-go rejects the params"
)

// strictParams reports whether the mcp-go release in the build rejects a tools/call whose
// params repeat "arguments", asked of a server with no middleware.
func strictParams(t *testing.T) bool {
	srv := server.NewMCPServer("bare", "1.0.0", server.WithToolCapabilities(true))
	srv.AddTool(mcp.NewTool("t"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("ok"), nil
	})
	out := srv.HandleMessage(context.Background(), []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","arguments":{},"arguments":{}}}`))
	_, rejected := out.(mcp.JSONRPCError)
	t.Logf("mcp-go rejects repeated params members: %v", rejected)
	return rejected
}

// differentialCase is one call of TestHostileParserDifferential. check, if set, looks into
// what the handler of an accepted call saw.
type differentialCase struct {
	name, tool, args string
	want             differentialVerdict
	check            func(t *testing.T, saw handlerSaw, r hostileResponse)
}

// differentialCases are the calls of TestHostileParserDifferential.
var differentialCases = []differentialCase{
	// Duplicate member names: encoding/json keeps the last one, so each spelling must be refused.
	{"dup/valid-last", "dup", `{"a":1,"a":"x"}`, refusedByMiddleware, nil},
	{"dup/valid-first", "dup", `{"a":"x","a":1}`, refusedByMiddleware, nil},
	{"dup/both-valid", "dup", `{"a":"x","a":"y"}`, refusedByMiddleware, nil},
	{"dup/escaped", "dup", `{"a":1,"\u0061":"x"}`, refusedByMiddleware, nil},
	{"dup/nested", "dup", `{"a":"x","b":{"c":"safe","c":"evil"}}`, refusedByMiddleware, nil},
	{"dup/nested-escaped", "dup", `{"a":"x","b":{"c":"safe","\u0063":"evil"}}`, refusedByMiddleware, nil},
	{"dup/surrogates", "open", `{"\ud800":1,"\udfff":2}`, refusedByMiddleware, nil},
	{"dup/invalid-utf8", "open", "{\"\xff\":1,\"\xfe\":2}", refusedByMiddleware, nil},
	{"dup/inside-array", "open", `{"list":[{"k":1,"k":2}]}`, refusedByMiddleware, nil},
	{"dup/full-engine", "full", `{"x_1":1,"x_1":"s"}`, refusedByMiddleware, nil},

	// Numbers.
	{"number/2^53+1-above-maximum", "numbers", `{"n":9007199254740993}`, refusedByMiddleware, nil},
	{"number/2^53+1-spelled-with-exponent", "numbers", `{"n":9.007199254740993e15}`, refusedByMiddleware, nil},
	{"number/2^64-integer", "numbers", `{"big":18446744073709551616}`, acceptedByHandler, func(t *testing.T, saw handlerSaw, r hostileResponse) {
		if string(saw.raw) != `{"big":18446744073709551616}` {
			t.Errorf("RawArguments %s, want the bytes sent", saw.raw)
		}
		// Arguments hold a float64: 2^64 happens to be exact, 2^64+1 would not be.
		if m, ok := saw.args.(map[string]any); !ok || m["big"] != float64(1<<64) {
			t.Errorf("Arguments %#v", saw.args)
		}
	}},
	{"number/2^64+1-integer", "numbers", `{"big":18446744073709551617}`, acceptedByHandler, func(t *testing.T, saw handlerSaw, r hostileResponse) {
		if string(saw.raw) != `{"big":18446744073709551617}` {
			t.Errorf("RawArguments %s, want the bytes sent", saw.raw)
		}
		// The float64 in Arguments is 2^64: mcp-go's decoding rounds, RawArguments is exact.
	}},
	{"number/1e400", "numbers", `{"big":1e400}`, rejectedByMCPGo, nil},
	{"number/1e400-in-open-object", "open", `{"x":[1e400]}`, rejectedByMCPGo, nil},
	{"number/-0", "numbers", `{"n":-0}`, acceptedByHandler, nil},
	{"number/2.0-integer", "numbers", `{"n":2.0}`, acceptedByHandler, nil},
	{"number/cents", "numbers", `{"cents":19.99}`, acceptedByHandler, nil},
	{"number/not-cents", "numbers", `{"cents":19.999}`, refusedByMiddleware, nil},
	{"number/long-sevens", "numbers", `{"sevens":` + times(digits(300, 3), 7) + `}`, acceptedByHandler, nil},
	{"number/long-not-sevens", "numbers", `{"sevens":` + times(digits(300, 3), 7) + `1}`, refusedByMiddleware, nil},
	{"number/beyond-float64", "numbers", `{"sevens":` + times(digits(400, 3), 7) + `}`, rejectedByMCPGo, nil},

	// Invalid UTF-8 and lone surrogates become U+FFFD for the handler, and were judged so.
	{"utf8/invalid-vs-pattern", "strings", "{\"code\":\"AB\xff\"}", refusedByMiddleware, nil},
	{"utf8/invalid-vs-enum", "strings", "{\"mark\":\"\xff\"}", acceptedByHandler, func(t *testing.T, saw handlerSaw, r hostileResponse) {
		if m, ok := saw.args.(map[string]any); !ok || m["mark"] != "\uFFFD" {
			t.Errorf("Arguments %#v, want mark U+FFFD", saw.args)
		}
	}},
	{"utf8/surrogate-vs-enum", "strings", `{"mark":"\udbff"}`, acceptedByHandler, nil},
	{"utf8/two-invalid-vs-enum", "strings", "{\"mark\":\"\xff\xff\"}", refusedByMiddleware, nil},
	{"utf8/invalid-vs-maxLength", "strings", "{\"short\":\"\xff\xfe\xfd\"}", refusedByMiddleware, nil},
	{"utf8/invalid-fits-maxLength", "strings", "{\"short\":\"\xff\xfe\"}", acceptedByHandler, nil},
	{"utf8/surrogates-vs-maxLength", "strings", `{"short":"\ud800\ud800\ud800"}`, refusedByMiddleware, nil},
	{"utf8/pair-fits-maxLength", "strings", `{"short":"\ud83d\ude00"}`, acceptedByHandler, nil},
	{"utf8/invalid-member-name", "closed", "{\"nam\xff\":\"x\"}", refusedByMiddleware, nil},

	// Framing: trailing data, repeated and case-folded "arguments", whitespace.
	{"frame/trailing-garbage", "open", `{"a":1} x`, rejectedByMCPGo, nil},
	{"frame/trailing-brace", "open", `{"a":1}}`, rejectedByMCPGo, nil},
	{"frame/trailing-object", "open", `{"a":1}{"b":2}`, rejectedByMCPGo, nil},
	{"frame/unterminated", "open", `{"a":1`, rejectedByMCPGo, nil},
	{"frame/nul-byte", "open", "{\"a\":1}\x00", rejectedByMCPGo, nil},
	{"frame/whitespace", "seed", " \n\t{\"location\":\"Oslo\"}\r\n ", acceptedByHandler, nil},
	{"frame/repeated-arguments-invalid-last", "seed", `{"location":"Oslo"},"arguments":{"days":"x"}`, refusedUnlessStrict, nil},
	{"frame/repeated-arguments-valid-last", "seed", `{"days":"x"},"arguments":{"location":"Oslo"}`, acceptedUnlessStrict, func(t *testing.T, saw handlerSaw, r hostileResponse) {
		if string(saw.raw) != `{"location":"Oslo"}` {
			t.Errorf("RawArguments %s", saw.raw)
		}
	}},
	{"frame/case-folded-arguments-invalid", "seed", `{"location":"Oslo"},"ARGUMENTS":{"days":"x"}`, refusedUnlessStrict, nil},
	{"frame/case-folded-arguments-valid", "seed", `{"days":"x"},"Arguments":{"location":"Oslo"}`, acceptedUnlessStrict, nil},
	{"frame/arguments-null", "open", `null`, acceptedByHandler, nil},
	{"frame/arguments-null-required", "required", `null`, refusedByMiddleware, nil},
	{"frame/arguments-array", "open", `[{"a":1}]`, refusedByMiddleware, nil},
	{"frame/arguments-string", "open", `"{}"`, refusedByMiddleware, nil},
	{"frame/arguments-number", "open", `1`, refusedByMiddleware, nil},

	// Case-folded member names: encoding/json binds "ROLE" to a struct field named role,
	// so only a closed object protects a handler that uses BindArguments.
	{"case/open-object", "case", `{"role":"user","ROLE":"admin"}`, acceptedByHandler, func(t *testing.T, saw handlerSaw, r hostileResponse) {
		var bound struct {
			Role string `json:"role"`
		}
		if err := json.Unmarshal(saw.raw, &bound); err != nil {
			t.Fatal(err)
		}
		// The schema declares role and lets other members through; "ROLE" is another
		// member for JSON Schema, and the same field for encoding/json.
		t.Logf("BindArguments-style decoding sees role=%q (the schema allowed role=\"user\" and an extra member ROLE)", bound.Role)
	}},
	{"case/closed-object", "closed", `{"name":"x","NAME":"y"}`, refusedByMiddleware, nil},

	// A tree whose alternatives are decided by a discriminator member, with duplicates.
	{"filter/valid", "filter", filterArgs(5), acceptedByHandler, nil},
	{"filter/duplicate-op", "filter", `{"filter":{"field":"a","op":"eq","op":"zz","value":1}}`, refusedByMiddleware, nil},
	{"filter/duplicate-children", "filter", `{"filter":{"logic":"and","children":[],"children":[{"field":"a","op":"eq","value":1}]}}`, refusedByMiddleware, nil},
}

// TestHostileParserDifferential sends tricky raw JSON-RPC through a real server: duplicate
// keys, numbers beyond float64, invalid UTF-8, trailing data, repeated or case-folded
// "arguments" members. Each call is refused (isError, handler not called), rejected by
// mcp-go (a JSON-RPC error, handler not called) or accepted (the handler checks what it got).
func TestHostileParserDifferential(t *testing.T) {
	h := newHostileServer(t, nil)
	strict := strictParams(t)
	for _, c := range differentialCases {
		switch {
		case (c.want == refusedUnlessStrict || c.want == acceptedUnlessStrict) && strict:
			c.want = rejectedByMCPGo
		case c.want == refusedUnlessStrict:
			c.want = refusedByMiddleware
		case c.want == acceptedUnlessStrict:
			c.want = acceptedByHandler
		}
		t.Run(c.name, func(t *testing.T) {
			before := h.calls.Load()
			r := h.call(c.tool, []byte(c.args))
			ran := h.calls.Load() != before
			h.mu.Lock()
			saw := h.last
			h.mu.Unlock()
			checkDifferential(t, c, ran, saw, r)
			h.checkProblems(t)
		})
	}
}

// checkDifferential checks that the call got the verdict c.want, the handler having run for
// an accepted call only, and then c.check on what the handler saw.
func checkDifferential(t *testing.T, c differentialCase, ran bool, saw handlerSaw, r hostileResponse) {
	t.Helper()
	switch c.want {
	case refusedByMiddleware:
		if !r.toolResult || !r.isError || ran || !strings.HasPrefix(r.text, "Invalid arguments: ") {
			t.Errorf("want a refusal by the middleware, the handler not run; handler ran=%v, response %.400s", ran, r.raw)
		}
	case rejectedByMCPGo:
		if r.rpcError == nil || ran {
			t.Errorf("want a JSON-RPC error from mcp-go, the handler not run; handler ran=%v, response %.400s", ran, r.raw)
		}
	case acceptedByHandler:
		if !r.toolResult || r.isError || !ran || r.text != "ok" {
			t.Errorf("want the handler's result; handler ran=%v, response %.400s", ran, r.raw)
		} else if c.check != nil {
			c.check(t, saw, r)
		}
	}
}

// ---------------------------------------------------------------------------------------
// 6. Load.

// TestHostileLoad sends hostileLoadCalls calls in all from hostileLoadWorkers goroutines:
// a count, not a duration, so a busy machine makes the test slower, never failed. Under
// the race detector, which finds races in the interleavings of a few thousand calls, not
// in their number, and makes each call many times slower, it sends a tenth of them.
const (
	hostileLoadCalls   = 100_000 / hostileScale
	hostileLoadWorkers = 8
)

// loadCall is one call of the load test: a message and whether the middleware accepts it.
type loadCall struct {
	tool  string
	msg   []byte
	valid bool
}

func loadCalls() []loadCall {
	mk := func(tool, args string, valid bool) loadCall {
		msg := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":` + quoteJSON(tool) + `,"arguments":` + args + `}}`
		return loadCall{tool: tool, msg: []byte(msg), valid: valid}
	}
	return []loadCall{
		mk("seed", `{"location":"Paris","days":2,"units":"c"}`, true),
		mk("seed", `{"days":2.5,"units":"k","x":1}`, false),
		mk("seed", `{"location":"Oslo","location":"Rome"}`, false),
		mk("strings", "{\"code\":\"ABC\",\"mark\":\"\xff\"}", true),
		mk("strings", `{"code":"abc"}`, false),
		mk("numbers", `{"n":9007199254740992,"big":18446744073709551616,"cents":0.25}`, true),
		mk("numbers", `{"n":9007199254740993}`, false),
		mk("filter", filterArgs(4), true),
		mk("filter", `{"filter":{"logic":"xor","children":[]}}`, false),
		mk("full", `{"x_a":1,"name":"n"}`, true),
		mk("full", `{"x_a":"s"}`, false),
		mk("open", string(nestObjects(70)), false),
		mk("closed", `{"name":"x","__proto__":{}}`, false),
		mk("required", `{"q":"find"}`, true),
	}
}

// TestHostileLoad: hostileLoadWorkers goroutines send hostileLoadCalls mixed valid and
// invalid calls through a real server. Every refusal and every acceptance is counted once,
// per tool, the handler runs exactly for the valid calls, no goroutine is left behind and
// the heap comes back near where it started. It logs the rate it reached, never asserts
// it. .ci/run runs it with -race too.
//
// The load runs in a synctest bubble: synctest.Test returns once every goroutine started
// in it has exited, and fails the test if one is left blocked. That is the leak check,
// exact and with no clock.
func TestHostileLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("full tier: runs without -short")
	}
	start := time.Now()
	synctest.Test(t, hostileLoad)
	elapsed := time.Since(start)
	t.Logf("%d calls by %d goroutines in %v, warm-up and checks included (%.0f calls/s)",
		hostileLoadCalls, hostileLoadWorkers, elapsed.Round(time.Millisecond), hostileLoadCalls/elapsed.Seconds())
}

func hostileLoad(t *testing.T) {
	g := mcpvalidate.New()
	h := newHostileServer(t, g)
	calls := loadCalls()
	// Warm up: compile every schema once, so the heap baseline includes the cache.
	for _, c := range calls {
		h.send(c.msg)
	}
	h.checkProblems(t)
	baseline := map[string]guard.ToolStats{}
	for _, st := range g.Guard().Stats() {
		baseline[st.Tool] = st
	}
	handled := h.calls.Load()

	runtime.GC()
	var heapBefore runtime.MemStats
	runtime.ReadMemStats(&heapBefore)

	wantAccepted, wantRefused := map[string]uint64{}, map[string]uint64{}
	for i := 0; i < hostileLoadCalls; i++ {
		c := calls[i%len(calls)]
		if c.valid {
			wantAccepted[c.tool]++
		} else {
			wantRefused[c.tool]++
		}
	}
	var wrong atomic.Int64
	var firstWrong sync.Once
	var wrongText string
	var wg sync.WaitGroup
	var next atomic.Int64
	for range hostileLoadWorkers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= hostileLoadCalls {
					return
				}
				c := calls[i%len(calls)]
				r := h.send(c.msg)
				if !r.toolResult || r.isError == c.valid {
					wrong.Add(1)
					firstWrong.Do(func() { wrongText = fmt.Sprintf("call %d (%s, valid=%v): %.300s", i, c.tool, c.valid, r.raw) })
				}
			}
		}()
	}
	wg.Wait()
	if n := wrong.Load(); n > 0 {
		t.Errorf("%d calls got the wrong answer; first: %s", n, wrongText)
	}
	h.checkProblems(t)

	var total uint64
	for _, n := range wantAccepted {
		total += n
	}
	if ran := uint64(h.calls.Load() - handled); ran != total {
		t.Errorf("the handler ran %d times for %d valid calls", ran, total)
	}
	for _, st := range g.Guard().Stats() {
		b := baseline[st.Tool]
		acc, ref := st.Accepted-b.Accepted, st.Refused-b.Refused
		if acc != wantAccepted[st.Tool] || ref != wantRefused[st.Tool] || st.SchemaBroken != 0 {
			t.Errorf("tool %s: counted %d accepted, %d refused, %d broken; sent %d valid, %d invalid",
				st.Tool, acc, ref, st.SchemaBroken, wantAccepted[st.Tool], wantRefused[st.Tool])
		}
	}

	// The heap back near its start.
	runtime.GC()
	runtime.GC()
	var heapAfter runtime.MemStats
	runtime.ReadMemStats(&heapAfter)
	growth := int64(heapAfter.HeapAlloc) - int64(heapBefore.HeapAlloc)
	t.Logf("heap %d → %d bytes (%+d)", heapBefore.HeapAlloc, heapAfter.HeapAlloc, growth)
	if growth > 8<<20 {
		t.Errorf("the heap grew by %d bytes over the load", growth)
	}
}

// ---------------------------------------------------------------------------------------
// 7. Fuzzing the middleware.

// checkRefusalData checks the violations a refusal carries as data in its _meta: there is
// at least one, listed or counted, within the refusal's bound, and each listed message is
// one of those the text shows.
func checkRefusalData(t *testing.T, response []byte, text string) {
	t.Helper()
	var r struct {
		Result struct {
			Meta map[string]json.RawMessage `json:"_meta"`
		}
	}
	if err := json.Unmarshal(response, &r); err != nil {
		t.Fatalf("the response does not decode: %v: %.300s", err, response)
	}
	raw := r.Result.Meta[guard.MetaKey]
	var data struct {
		Of         string
		Violations []struct{ Pointer, Kind, Message string }
		NotShown   int
	}
	if err := json.Unmarshal(raw, &data); err != nil || data.Of != "arguments" || len(data.Violations)+data.NotShown == 0 || len(raw) > 8<<10 {
		t.Fatalf("the refusal's data (%d bytes, %v): %.300s", len(raw), err, raw)
	}
	for _, v := range data.Violations {
		if !strings.Contains(text, v.Message) || v.Kind == "" {
			t.Fatalf("data %+v not in the text %.300q", v, text)
		}
	}
}

// fuzzTools are the tools FuzzMiddleware calls, by the first input's value.
var fuzzTools = []string{"seed", "strings", "numbers", "dup", "filter", "full", "closed", "required"}

// FuzzMiddleware sends arbitrary bytes as the arguments of a tools/call through a real
// server. It must not panic. A tool result that is not an error must come from the handler,
// which checks that its arguments are valid; a refusal (isError) or a JSON-RPC error must
// come without the handler running.
func FuzzMiddleware(f *testing.F) {
	h := newHostileServer(f, nil)
	seeds := []string{
		`{"location":"Paris","days":2}`, `{"days":2.5,"units":"k","x":1}`, `{"location":"Oslo","location":1}`,
		`{"code":"ABC","mark":"\ud800","short":"ab"}`, "{\"mark\":\"\xff\"}", `{"code":"AB\u0043"}`,
		`{"n":9007199254740993}`, `{"big":18446744073709551616,"cents":19.99}`, `{"sevens":7e1}`, `{"n":-0}`, `{"big":1e400}`,
		`{"a":"x","a":1}`, `{"a":"x","b":{"c":"safe","\u0063":"evil"}}`, filterArgs(3),
		`{"x_1":1,"x_1":2}`, `{"name":"123456789"}`, `{"name":"x","NAME":"y"}`, `null`, `[]`, `"x"`, ``, `{`, `{"q":"a"} x`,
		`{"q":"a"},"arguments":{"q":1}`, `{"q":1},"ARGUMENTS":{"q":"a"}`, `{},"name":"closed"`, `{}},"method":"tools/list","x":{`,
		string(nestObjects(70)), string(nestArrays(10_001)),
	}
	for i, s := range seeds {
		f.Add(uint8(i), []byte(s))
	}
	f.Fuzz(func(t *testing.T, which uint8, args []byte) {
		tool := fuzzTools[int(which)%len(fuzzTools)]
		before := h.calls.Load()
		r := h.call(tool, args)
		ran := h.calls.Load() != before
		h.checkProblems(t)
		switch {
		case r.toolResult && !r.isError:
			if !ran || r.text != "ok" {
				t.Fatalf("a successful result without the handler (ran=%v): %.300s", ran, r.raw)
			}
		case r.toolResult && r.isError:
			if ran {
				t.Fatalf("refused, yet the handler ran: %.300s", r.raw)
			}
			if !strings.HasPrefix(r.text, "Invalid arguments: ") {
				t.Fatalf("unexpected refusal: %.300s", r.raw)
			}
			if strings.ContainsAny(r.text, "\n\r") {
				t.Fatalf("the refusal breaks the line: %q", r.text)
			}
			checkRefusalData(t, r.raw, r.text)
		default: // a JSON-RPC error, no response (a notification), or another method's result
			if ran {
				t.Fatalf("the handler ran, yet the response is not its result: %.300s", r.raw)
			}
		}
	})
}
