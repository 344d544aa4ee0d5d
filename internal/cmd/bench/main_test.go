package main

import "testing"

func TestParse(t *testing.T) {
	out := "goos: linux\n" +
		"BenchmarkCompare/small-valid/subset-2         \t 2000000\t        58.10 ns/op\t 791.00 MB/s\t       0 B/op\t       0 allocs/op\n" +
		"BenchmarkToolCall/mcpvalidate-invalid-meta-2  \t   10000\t     25700 ns/op\t    8800 B/op\t     106 allocs/op\n" +
		"BenchmarkRefusalFloor  \t 1000000\t       650.0 ns/op\n" +
		"PASS\n"
	got := map[string]result{}
	if n := parse(out, got); n != 3 {
		t.Fatalf("%d results, want 3: %v", n, got)
	}
	want := map[string]result{
		"BenchmarkCompare/small-valid/subset":        {ns: 58.1, mbs: 791},
		"BenchmarkToolCall/mcpvalidate-invalid-meta": {ns: 25700, bytesPerOp: 8800, allocs: 106},
		"BenchmarkRefusalFloor":                      {ns: 650},
	}
	for name, w := range want {
		if got[name] != w {
			t.Errorf("%s: %+v, want %+v", name, got[name], w)
		}
	}
}

func TestMatches(t *testing.T) {
	s := suite{bench: "^(BenchmarkCompare|BenchmarkRefusalFloor)$"}
	for name, want := range map[string]bool{
		"BenchmarkCompare/small-valid/subset": true,
		"BenchmarkRefusalFloor":               true,
		"BenchmarkCompareMore/x":              false,
		"BenchmarkToolCall/passthrough":       false,
	} {
		if matches(s, name) != want {
			t.Errorf("matches(%q) = %v, want %v", name, !want, want)
		}
	}
}

func TestMedianAndDuration(t *testing.T) {
	if m := median([]float64{3, 1, 2}); m != 2 {
		t.Errorf("median of 3, 1, 2: %v", m)
	}
	if m := median([]float64{4, 1, 2, 3}); m != 2.5 {
		t.Errorf("median of 4, 1, 2, 3: %v", m)
	}
	for ns, want := range map[float64]string{58.1: "58.1 ns", 1400: "1.40 µs", 360000: "360 µs", 37e6: "37.0 ms"} {
		if got := duration(ns); got != want {
			t.Errorf("duration(%v) = %q, want %q", ns, got, want)
		}
	}
}
