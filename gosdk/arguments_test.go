package gosdk

import (
	"encoding/json"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
)

// argumentsDefaults: a default beside a required member, an object filled from the
// defaults below it, and a default object that gets the defaults below it too.
func argumentsDefaults(t testing.TB) *defaults {
	t.Helper()
	d, err := defaultsOf(&jsonschema.Schema{
		Type: "object",
		Properties: map[string]*jsonschema.Schema{
			"a": {Type: "integer", Default: json.RawMessage(`1.0`)},
			"b": {Type: "object", Properties: map[string]*jsonschema.Schema{
				"c": {Default: json.RawMessage(`"x"`)},
			}},
			"r": {Default: json.RawMessage(`5`)},
			"s": {Default: json.RawMessage(`{"k":1}`), Properties: map[string]*jsonschema.Schema{
				"m": {Default: json.RawMessage(`[2]`)},
			}},
			"plain": {Type: "string"},
		},
		Required: []string{"r"},
	})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestPrepareArguments(t *testing.T) {
	const filled = `"a":1,"b":{"c":"x"},"s":{"k":1,"m":[2]}`
	tests := []struct {
		name, args, want string
	}{
		{"absent", ``, `{` + filled + `}`},
		{"spaces only", " \n", `{` + filled + `}`},
		{"null", " null\t", `{` + filled + `}`},
		{"empty", `{}`, `{` + filled + `}`},
		{"present kept as sent", `{"a":2,"r":9007199254740993,"b":{"c":"y"},"s":[]}`, `{"a":2,"r":9007199254740993,"b":{"c":"y"},"s":[]}`},
		{"defaults below a present member", `{"b":{"z":1},"s":{}}`, `{"b":{"z":1,"c":"x"},"s":{"m":[2]},"a":1}`},
		{"null stays null", `{"b":null}`, `{"b":null,"a":1,"s":{"k":1,"m":[2]}}`},
		{"spacing kept", " { \"b\" : { } } \n", " { \"b\" : { \"c\":\"x\"} ,\"a\":1,\"s\":{\"k\":1,\"m\":[2]}} \n"},
		{"escaped name", `{"\u0061":3,"b":{},"s":1}`, `{"\u0061":3,"b":{"c":"x"},"s":1}`},
		{"a name's escaped quote", `{"a\"":3,"a":1,"b":{},"s":1}`, `{"a\"":3,"a":1,"b":{"c":"x"},"s":1}`},
		{"each repeated member filled", `{"b":{},"b":{},"a":0,"s":0}`, `{"b":{"c":"x"},"b":{"c":"x"},"a":0,"s":0}`},
		{"nothing below arrays", `{"a":0,"b":[{}],"s":[{}]}`, `{"a":0,"b":[{}],"s":[{}]}`},
		{"whole numbers", `{"a":[2.0,1e2,-0.0,1.5,1E+1,12.300e1,100e-2,0.05e2,1e-1,7e0,0e-5,-3.10e1,1e18,1e20,1e00002,1e10000],"b":{},"s":{}}`,
			`{"a":[2,100,-0,1.5,10,123,1,5,1e-1,7,0,-31,1000000000000000000,1e20,100,1e10000],"b":{"c":"x"},"s":{"m":[2]}}`},
		{"numbers in strings untouched", `{"a":"2.0","b":{"2.0":{}},"s":0}`, `{"a":"2.0","b":{"2.0":{},"c":"x"},"s":0}`},
	}
	d := argumentsDefaults(t)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := prepareArguments([]byte(tc.args), d)
			if err != nil || string(got) != tc.want {
				t.Errorf("got %s, %v\nwant %s", got, err, tc.want)
			}
			if !json.Valid(got) {
				t.Errorf("%s is not JSON", got)
			}
		})
	}
	// Without defaults to write, null is decoded as go-sdk decodes it.
	for args, want := range map[string]string{``: `{}`, `null`: `null`, ` null `: ` null `} {
		if got, err := prepareArguments([]byte(args), nil); err != nil || string(got) != want {
			t.Errorf("%q without defaults: got %s, %v, want %s", args, got, err, want)
		}
	}
}

// TestPrepareArgumentsKeepsUnchangedBytes: arguments that need nothing written are the
// bytes the guard checked, not a copy, and walking them allocates nothing.
func TestPrepareArgumentsKeepsUnchangedBytes(t *testing.T) {
	args := []byte(`{"n":9007199254740993,"x":[1,-2,1.5,"2.0",true,false,null,{"y":{}}],"a":1,"b":{"c":"z"},"s":[]}`)
	for _, d := range []*defaults{nil, argumentsDefaults(t)} {
		got, err := prepareArguments(args, d)
		if err != nil || &got[0] != &args[0] || len(got) != len(args) {
			t.Errorf("got %s, %v: want the arguments themselves", got, err)
		}
	}
	if n := testing.AllocsPerRun(100, func() { _, _ = prepareArguments(args, nil) }); n != 0 {
		t.Errorf("%v allocations, want none", n)
	}
}

func TestPrepareArgumentsRefusesBadInput(t *testing.T) {
	d := argumentsDefaults(t)
	for _, args := range []string{
		`[1]`, `"a"`, `nul`, `null null`, `{"a":1`, `{"a" 1}`, `{"a":1,}`, `{,}`, `{"a":tru}`, `{"a":"x}`, `{"a":1} x`,
		`{"a":[1,]}`, `{"a":[1 2]}`, `{"a":}`, `{"a":1 "b":2}`, `{1:2}`, `{"a":[`, `{"a":"\`, `{"a":-`,
		`{"a":` + strings.Repeat("[", maxDepth+1) + strings.Repeat("]", maxDepth+1) + `}`,
	} {
		for _, d := range []*defaults{nil, d} {
			if got, err := prepareArguments([]byte(args), d); err == nil {
				t.Errorf("%.40s: got %.40s, want an error", args, got)
			} else if !strings.HasPrefix(err.Error(), "unmarshaling arguments: ") {
				t.Errorf("%.40s: %v", args, err)
			}
		}
	}
}

// TestPrepareArgumentsScale: at megabyte scale, arguments that need writing cost a bounded
// number of bytes per byte, whatever their shape, and a member repeated to have a large
// default written again and again is refused.
func TestPrepareArgumentsScale(t *testing.T) {
	if testing.Short() {
		t.Skip("full tier: runs without -short")
	}
	large, err := defaultsOf(&jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{
		"s": {Properties: map[string]*jsonschema.Schema{"m": {Default: json.RawMessage(`"` + strings.Repeat("m", 100) + `"`)}}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	const size = 1 << 20
	shapes := []struct {
		name, head, item, tail string
		d                      *defaults
		fails                  bool
	}{
		{"whole numbers", `{"a":[`, `1.0,`, `1]}`, argumentsDefaults(t), false},
		{"numbers written out", `{"a":[`, `1e18,`, `1]}`, argumentsDefaults(t), false},
		{"nested objects", `{"b":{"z":[`, `{"p":{"q":[]}},`, `0]}}`, argumentsDefaults(t), false},
		{"repeated members", `{`, `"s":{},`, `"a":1}`, argumentsDefaults(t), false},
		{"repeated members, large default", `{`, `"s":{},`, `"a":1}`, large, true},
	}
	for _, sh := range shapes {
		args := []byte(sh.head + strings.Repeat(sh.item, (size-len(sh.head)-len(sh.tail))/len(sh.item)) + sh.tail)
		var err error
		perByte := allocatedPerByte(len(args), func() { _, err = prepareArguments(args, sh.d) })
		if (err != nil) != sh.fails {
			t.Errorf("%s: %v", sh.name, err)
		}
		t.Logf("%s: %.2f B/B", sh.name, perByte)
		if perByte > 20 {
			t.Errorf("%s: %.1f bytes allocated per byte of %d", sh.name, perByte, len(args))
		}
	}
}

// allocatedPerByte returns the bytes f allocates, on average over a few runs, per byte of
// an input of size bytes.
func allocatedPerByte(size int, f func()) float64 {
	const runs = 4
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range runs {
		f()
	}
	runtime.ReadMemStats(&after)
	return float64(after.TotalAlloc-before.TotalAlloc) / runs / float64(size)
}

// BenchmarkPrepareArgumentsSlope: the cost per byte of arguments that need nothing written
// and of arguments whose whole numbers are written as integers, with defaults to write in.
func BenchmarkPrepareArgumentsSlope(b *testing.B) {
	d := argumentsDefaults(b)
	shapes := []struct{ name, item string }{
		{"unchanged", `{"city":"Oslo","days":3,"tags":["a\"b",true,null]},`},
		{"whole-numbers", `{"city":"Oslo","days":3.0,"tags":["a\"b",1e2,null]},`},
	}
	for _, sh := range shapes {
		for _, size := range []int{1 << 10, 64 << 10, 1 << 20} {
			args := []byte(`{"a":1,"s":{"m":0},"b":{"c":[` + strings.Repeat(sh.item, (size-30)/len(sh.item)) + `0]}}`)
			b.Run(fmt.Sprintf("%s/%dKB", sh.name, size>>10), func(b *testing.B) {
				b.SetBytes(int64(len(args)))
				b.ReportAllocs()
				for b.Loop() {
					if _, err := prepareArguments(args, d); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(args)), "ns/B")
			})
		}
	}
}
