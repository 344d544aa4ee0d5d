package guard

import (
	"fmt"
	"go/version"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// formatSeeds are strings of each format, and near it, that generatedFormatStrings mutates:
// limits of ranges, optional parts, and what the Go parsers the full engine calls let
// through.
var formatSeeds = map[string][]string{
	"date":      {"2024-01-02", "2000-02-29", "1900-02-29", "2023-12-31", "0000-01-01", "2023-04-31"},
	"time":      {"03:04:05Z", "23:59:60Z", "23:59:60+00:00", "00:00:60-23:59", "12:34:56.789+05:30", "+1:+2:+3Z", "12:00:00z", "-0:00:00Z"},
	"date-time": {"2024-01-02T03:04:05Z", "2024-01-02t23:59:60.5-00:00", "2024-02-30T00:00:00+01:00"},
	"duration":  {"P1D", "P1Y2M3DT4H5M6S", "PT1H", "P4W", "P1DT1M", "PT", "P1M1Y"},
	"period":    {"2024-01-02T03:04:05Z/P1D", "P1D/2024-01-02T03:04:05Z", "2024-01-02T03:04:05Z/2024-01-02T03:04:05Z"},
	"ipv4":      {"1.2.3.4", "255.255.255.255", "0.0.0.0", "+1.-0.2.3", "01.2.3.4"},
	"ipv6": {"::1", "::", "1::", "1:2:3:4:5:6:7:8", "::ffff:1.2.3.4", "1:2:3:4:5:6:1.2.3.4", "fe80::1%eth0", "1::2:3:4:5:6:7",
		"1:2:3:4:5:6:7::", "abcd:ef01::2345", "::1.2.3.4"},
	"hostname": {"a.b", "example.com.", "a-b.c1", "xn--a.b", strings.Repeat("a", 63) + ".b", strings.Repeat("a.", 126) + "a",
		strings.Repeat("a.", 126) + "a."},
	"email": {"a@b", `"a b"@c.d`, "a.b+c@[1.2.3.4]", "a@[IPv6:::1]", "x@y.z", "a!#$%&'*+-/=?^_`{|}~@b",
		strings.Repeat("a", 64) + "@b", strings.Repeat("a", 60) + "@" + strings.Repeat("b.", 96) + "b"},
	"uri": {"a:b", "http://user:pw@host:80/p?q#f", "http://[::1]:80/", "mailto:a@b", "a://b%41/c", "HTTP://h/%7Bx%7D",
		"a://[fe80::1%25eth0]/", "a://h:1:2/", "a://u@v@h/", "a://u:p:q@h", "a://%c3%a9/", "a:/p", "a:b#%zz", "a:b?\\x#y"},
	"uri-reference":         {"a", "/a/b", "//h/p", "#f", "?q", "../a", "a/b:c", "///a", "*", "//[::1]", "//u@h:8/"},
	"uri-template":          {"a:{b}", "http://h/{a}/{b}", "http://h/%7Bx%7D", "/{a}{b}", "http://h/%7bx}", "/a%2Fb/{c}", "/%41{", "/%7B%c3%a9"},
	"json-pointer":          {"/a", "", "/a~0b/~1", "/", "/é~"},
	"relative-json-pointer": {"0/a", "1#", "10/~0", "0", "01/a"},
	"uuid":                  {"01234567-89ab-cdef-0123-456789abcdef", "ABCDEF01-2345-6789-abcd-ef0123456789"},
	"regex":                 {"a+", "(a|b)*", "[a-z]{2,3}", `\pL`, "(?i)a", "(?P<n>a)"},
	"semver":                {"1.2.3", "1.0.0-alpha.1+build.5", "0.0.0-0a", "10.20.30+x-y", "1.2.3-01"},
}

// formatPieces are what the mutations insert: the separators, digits and escapes of every
// format.
var formatPieces = []string{"0", "1", "9", "00", "01", "12", "23", "24", "29", "59", "60", "255", "256", "2024", "+", "-",
	".", "..", ":", "::", "/", "//", "~", "#", "%", "%25", "%41", "%7B", "%7b", "%7D", "%2F", "%zz", "%0", "%80", "{", "}",
	"@", "[", "]", "T", "t", "Z", "z", "P", "W", "Y", "M", "D", "H", "S", "a", "A", "f", "g", "é", "\\", "?", "\x01",
	" ", `"`, "_", "IPv6:", "http:", "ffff", "1.2.3.4", ":80", "(", ")", "*", "'", "<", "$", ",", ";", "=", "!", "\x7f", "\xff"}

// generatedFormatStrings returns n strings near the format's seeds: each a seed with a few
// pieces inserted, replaced or removed.
func generatedFormatStrings(format string, n int) []string {
	r := rand.New(rand.NewPCG(uint64(len(format)), 7))
	own := seedsOf(format)
	seeds := append(own, formatSeeds["uri"]...)
	out := make([]string, 0, n)
	for range n {
		s := seeds[r.IntN(len(seeds))]
		if r.IntN(4) > 0 {
			s = own[r.IntN(len(own))]
		}
		for k := r.IntN(4); k >= 0; k-- {
			i := r.IntN(len(s) + 1)
			j := min(len(s), i+r.IntN(3))
			switch piece := formatPieces[r.IntN(len(formatPieces))]; r.IntN(3) {
			case 0:
				s = s[:i] + piece + s[i:]
			case 1:
				s = s[:i] + piece + s[j:]
			default:
				s = s[:i] + s[j:]
			}
		}
		out = append(out, s)
	}
	return out
}

// seedsOf returns the seeds of a format; an IRI's are a URI's.
func seedsOf(format string) []string {
	if s, ok := strings.CutPrefix(format, "iri"); ok {
		format = "uri" + s
	}
	return formatSeeds[format]
}

// engineFormat returns the full engine's check of a format.
func engineFormat(tb testing.TB, format string) func(string) bool {
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource("mcpvalidate:///format.json", map[string]any{"format": format}); err != nil {
		tb.Fatal(err)
	}
	sch, err := c.Compile("mcpvalidate:///format.json")
	if err != nil {
		tb.Fatal(err)
	}
	return func(s string) bool { return sch.Validate(s) == nil }
}

// TestFormatsAgreeWithEngine: each format's check gives the full engine's verdict on its
// seeds and on strings generated near them (200,000 a format in the full tier).
func TestFormatsAgreeWithEngine(t *testing.T) {
	n := 5000
	if !testing.Short() {
		n = 200000
	}
	for format := range formatChecks {
		seeds := seedsOf(format)
		if len(seeds) == 0 {
			t.Errorf("%s: no seeds", format)
			continue
		}
		ours, theirs := formatChecker(format), engineFormat(t, format)
		valid, failed := 0, 0
		for _, s := range append(seeds, generatedFormatStrings(format, n)...) {
			got, want := ours(s), theirs(s)
			if got != want && laxHost(format, s) {
				continue
			}
			if got != want && failed < 10 {
				t.Errorf("%s %q: ours %v, the engine's %v", format, s, got, want)
				failed++
			}
			if want {
				valid++
			}
		}
		t.Logf("%s: %d strings, %d valid", format, n+len(seeds), valid)
	}
}

// laxHost reports whether the engine's verdict on s depends on the Go it runs on: net/url
// before Go 1.26 reads a host with a bracket not at its start, or with a colon before the
// port's, as a host, where RFC 3986 and later Go refuse it, and so do our checks whatever
// Go builds them.
func laxHost(format, s string) bool {
	if version.Compare(runtime.Version(), "go1.26") >= 0 || !strings.Contains(format, "ri") {
		return false
	}
	_, rest, ok := strings.Cut(s, "//")
	if !ok {
		return false
	}
	host, _, _ := strings.Cut(rest, "/")
	if i := strings.LastIndexByte(host, '@'); i >= 0 {
		host = host[i+1:]
	}
	return strings.LastIndexByte(host, '[') > 0 || strings.Count(host, ":") > 1 && !strings.HasPrefix(host, "[")
}

// formatSamples gives, for each asserted format, a short string of the format and a short
// one that is not; a name is the format's, with what the strings show after a space.
var formatSamples = []struct{ name, valid, refused string }{
	{"regex 17-groups", nested17 + ")", nested17}, // more groups than regex.Valid keeps inline
	{"date", "2024-01-02", "a"},
	{"time", "03:04:05Z", "a"},
	{"date-time", "2024-01-02T03:04:05Z", "a"},
	{"duration", "P1D", "a"},
	{"period", "2024-01-02T03:04:05Z/P1D", "a"},
	{"ipv4", "1.2.3.4", "a"},
	{"ipv6", "::1", "a"},
	{"hostname", "a.b", "-"},
	{"email", "a@b", "a"},
	{"uri", "a:b", "a"},
	{"iri", "a:b", "a"},
	{"uri-reference", "a", "%"},
	{"iri-reference", "a", "%"},
	{"uri-template", "a:{b}", "%"},
	{"json-pointer", "/a", "a"},
	{"relative-json-pointer", "0/a", "a"},
	{"uuid", "01234567-89ab-cdef-0123-456789abcdef", "a"},
	{"regex", "a+", "("},
	{"semver", "1.2.3", "a"},
}

var nested17 = strings.Repeat("(", 17) + "a" + strings.Repeat(")", 16)

// formatArray returns arguments {"v":[s,s,...]} of about n bytes.
func formatArray(s string, n int) []byte {
	item := `"` + s + `"`
	k := max(1, (n-8)/(len(item)+1))
	return []byte(`{"v":[` + strings.TrimSuffix(strings.Repeat(item+",", k), ",") + `]}`)
}

func formatValidator(tb testing.TB, format string) *Validator {
	v, err := Compile([]byte(`{"type":"object","properties":{"v":{"type":"array","items":{"type":"string","format":"`+format+`"}}}}`), WithFormatAssertion())
	if err != nil {
		tb.Fatal(err)
	}
	return v
}

// TestFormatCostPerByte: an array of a megabyte of short strings, of each format or not,
// costs at most 20 bytes allocated per byte.
func TestFormatCostPerByte(t *testing.T) {
	if testing.Short() {
		t.Skip("full tier: runs without -short")
	}
	for _, c := range formatSamples {
		v := formatValidator(t, strings.Fields(c.name)[0])
		for _, s := range []string{c.valid, c.refused} {
			args := formatArray(s, 1<<20)
			if got := len(v.Validate(args)) == 0; got != (s == c.valid) {
				t.Fatalf("%s %q: valid %v", c.name, s, got)
			}
			if perByte := allocatedPerByte(func() { v.Validate(args) }, len(args)); perByte > 20 {
				t.Errorf("%s, items %q: %.1f bytes allocated per byte", c.name, s, perByte)
			}
		}
	}
}

// BenchmarkFormatSlope: arrays of short strings of each format, and of strings not of it,
// from 1 KB to 1 MB; ns/B and B/B should stay flat.
func BenchmarkFormatSlope(b *testing.B) {
	for _, c := range formatSamples {
		v := formatValidator(b, strings.Fields(c.name)[0])
		for _, s := range []struct{ name, item string }{{"valid", c.valid}, {"refused", c.refused}} {
			for _, size := range []int{1 << 10, 64 << 10, 1 << 20} {
				args := formatArray(s.item, size)
				b.Run(fmt.Sprintf("%s/%s/%dKB", c.name, s.name, size>>10), func(b *testing.B) {
					b.SetBytes(int64(len(args)))
					b.ReportAllocs()
					for b.Loop() {
						v.Validate(args)
					}
				})
			}
		}
	}
}

// FuzzFormats compares each format's check with the full engine's on any string of up to
// 1,000 bytes, short of Go's limits on regular expressions.
func FuzzFormats(f *testing.F) {
	for _, seeds := range formatSeeds {
		for _, s := range seeds {
			f.Add(s)
		}
	}
	engine := map[string]func(string) bool{}
	for format := range formatChecks {
		engine[format] = engineFormat(f, format)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if len(s) > 1000 {
			return
		}
		for format, check := range formatChecks {
			if got, want := check(s), engine[format](s); got != want {
				t.Errorf("%s %q: ours %v, the engine's %v", format, s, got, want)
			}
		}
	})
}

// allocatedPerByte measures the bytes f allocates on its second run, per byte of an input of n bytes.
func allocatedPerByte(f func(), n int) float64 {
	f()
	return float64(allocated(f)) / float64(n)
}

// allocated measures the bytes one run of f allocates.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}
