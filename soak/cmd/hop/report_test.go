//go:build linux

package main

import (
	"encoding/json"
	"io"
	"math"
	"net/http"
	"os"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestParseStat(t *testing.T) {
	tail := " S 1 2 3 4 5 6 7 8 9 10 %s %s 13 14 15"
	for _, tc := range []struct {
		name, stat string
		want       time.Duration
		err        bool
	}{
		{"plain", "42 (hop)" + strings.ReplaceAll(strings.ReplaceAll(tail, "%s 13", "7 13"), "%s", "5"), 120 * time.Millisecond, false},
		{"name with parentheses and spaces", "42 (a) (b c)" + strings.Replace(strings.Replace(tail, "%s", "100", 1), "%s", "0", 1), time.Second, false},
		{"no name", "42 hop S 1 2", 0, true},
		{"too few fields", "42 (hop) S 1 2 3", 0, true},
		{"negative", "42 (hop)" + strings.Replace(strings.Replace(tail, "%s", "-1", 1), "%s", "0", 1), 0, true},
		{"not a number", "42 (hop)" + strings.Replace(strings.Replace(tail, "%s", "x", 1), "%s", "0", 1), 0, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseStat([]byte(tc.stat))
			if (err != nil) != tc.err || got != tc.want {
				t.Errorf("parseStat(%q) = %v, %v; want %v, error %v", tc.stat, got, err, tc.want, tc.err)
			}
		})
	}
}

func TestProcessCPUOfThisProcess(t *testing.T) {
	if _, err := processCPU(os.Getpid()); err != nil {
		t.Fatal(err)
	}
}

func TestPercentile(t *testing.T) {
	ms := func(ns ...int) []time.Duration {
		var d []time.Duration
		for _, n := range ns {
			d = append(d, time.Duration(n)*time.Millisecond)
		}
		return d
	}
	hundred := make([]int, 100)
	for i := range hundred {
		hundred[i] = i + 1
	}
	for _, tc := range []struct {
		sorted []time.Duration
		p      float64
		want   time.Duration
	}{
		{nil, 50, 0},
		{ms(7), 50, 7 * time.Millisecond},
		{ms(7), 99, 7 * time.Millisecond},
		{ms(1, 2), 50, time.Millisecond},
		{ms(1, 2, 3, 4), 50, 2 * time.Millisecond},
		{ms(hundred...), 50, 50 * time.Millisecond},
		{ms(hundred...), 99, 99 * time.Millisecond},
		{ms(hundred...), 100, 100 * time.Millisecond},
		{ms(hundred...), 0.1, time.Millisecond},
	} {
		if got := percentile(tc.sorted, tc.p); got != tc.want {
			t.Errorf("percentile(%d values, %v) = %v, want %v", len(tc.sorted), tc.p, got, tc.want)
		}
	}
}

func TestMedian(t *testing.T) {
	for _, tc := range []struct {
		xs   []float64
		want float64
	}{
		{[]float64{3}, 3},
		{[]float64{3, 1, 2}, 2},
		{[]float64{4, 1, 3, 2}, 2.5},
	} {
		if got := median(tc.xs); got != tc.want {
			t.Errorf("median(%v) = %v, want %v", tc.xs, got, tc.want)
		}
	}
	if !math.IsNaN(median(nil)) {
		t.Error("median(nil) is a number")
	}
}

func TestAnnounced(t *testing.T) {
	for _, tc := range []struct {
		line, marker, want string
		ok                 bool
	}{
		{"http://127.0.0.1:4000/mcp", "", "http://127.0.0.1:4000/mcp", true},
		{"mcpvalidate proxy: serving http://127.0.0.1:4000/mcp in front of http://127.0.0.1:3000/mcp", "serving ", "http://127.0.0.1:4000/mcp", true},
		{"mcpvalidate proxy: something else", "serving ", "", false},
		{"serving ", "serving ", "", false},
		{"", "", "", false},
	} {
		if got, ok := announced(tc.line, tc.marker); got != tc.want || ok != tc.ok {
			t.Errorf("announced(%q, %q) = %q, %v; want %q, %v", tc.line, tc.marker, got, ok, tc.want, tc.ok)
		}
	}
}

func TestFlags(t *testing.T) {
	for _, tc := range []struct {
		args                   []string
		levels                 []int
		variants               []variant
		rounds, calls, atLeast int
		err                    bool
	}{
		{nil, []int{1, 64, 256, 1000}, []variant{listing, notListing}, 5, 12000, 4, false},
		{[]string{"-quick"}, []int{1, 64, 256, 1000}, []variant{listing, notListing}, 2, 400, 2, false},
		{[]string{"-quick", "-rounds", "3", "-levels", " 8, 2", "-variants", "nolist"}, []int{8, 2}, []variant{notListing}, 3, 400, 2, false},
		{[]string{"-levels", "0"}, nil, nil, 0, 0, 0, true},
		{[]string{"-levels", "1,,2"}, nil, nil, 0, 0, 0, true},
		{[]string{"-levels", "4001"}, nil, nil, 0, 0, 0, true},
		{[]string{"-variants", "list,sometimes"}, nil, nil, 0, 0, 0, true},
		{[]string{"-rounds", "-1"}, nil, nil, 0, 0, 0, true},
		{[]string{"-slices", "0"}, nil, nil, 0, 0, 0, true},
		{[]string{"extra"}, nil, nil, 0, 0, 0, true},
	} {
		c, err := parseFlags(tc.args, io.Discard)
		if tc.err {
			if err == nil {
				t.Errorf("%q: no error", tc.args)
			}
			continue
		}
		if err != nil || !slices.Equal(c.levels, tc.levels) || !slices.Equal(c.variants, tc.variants) ||
			c.rounds != tc.rounds || c.calls != tc.calls || c.minCalls != tc.atLeast {
			t.Errorf("%q: %+v, %v", tc.args, c, err)
		}
	}
}

func TestPerSession(t *testing.T) {
	c := config{calls: 12000, minCalls: 4, slices: 10}
	for n, want := range map[int][2]int{1: {12000, 10}, 64: {187, 10}, 1000: {12, 3}, 4000: {4, 1}} {
		if per, slices := c.perSession(n), c.slicesOf(c.perSession(n)); per != want[0] || slices != want[1] {
			t.Errorf("%d sessions: %d calls a session in %d slices, want %d in %d", n, per, slices, want[0], want[1])
		}
	}
	if got := (config{slices: 1}).slicesOf(12000); got != 1 {
		t.Errorf("-slices 1: %d slices", got)
	}
}

func TestResponseBody(t *testing.T) {
	for _, tc := range []struct {
		name, contentType, body, want string
		err                           bool
	}{
		{"json", "application/json", `{"id":1,"result":{}}`, `{"id":1,"result":{}}`, false},
		{"event stream", "text/event-stream", "event: message\ndata: {\"id\":1,\"result\":{}}\n\n", `{"id":1,"result":{}}`, false},
		{"a notification first", "text/event-stream",
			"data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\"}\n\ndata:{\"id\":2,\"result\":{}}\n\n", `{"id":2,"result":{}}`, false},
		{"no response", "text/event-stream", "data: {\"method\":\"ping\",\"id\":9}\n\n", "", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp := &http.Response{Header: http.Header{"Content-Type": {tc.contentType}}, Body: io.NopCloser(strings.NewReader(tc.body))}
			got, err := responseBody(resp)
			if (err != nil) != tc.err || string(got) != tc.want {
				t.Errorf("responseBody = %q, %v; want %q, error %v", got, err, tc.want, tc.err)
			}
		})
	}
}

// TestAnswersPredicted holds the answers the client expects to those the tools give.
func TestAnswersPredicted(t *testing.T) {
	for _, tc := range toolCalls {
		i := slices.IndexFunc(upstreamTools, func(u upstreamTool) bool { return u.name == tc.tool })
		if i < 0 {
			t.Fatalf("no tool %s", tc.tool)
		}
		args := map[string]any{}
		if err := json.Unmarshal([]byte(tc.args), &args); err != nil {
			t.Fatal(err)
		}
		if got := upstreamTools[i].answer(args); got != tc.text {
			t.Errorf("%s %s: %q, want %q", tc.tool, tc.args, got, tc.text)
		}
	}
}

func TestReport(t *testing.T) {
	s := func(calls int, secs float64, cpu ...time.Duration) sample {
		return sample{calls: calls, elapsed: time.Duration(secs * float64(time.Second)), latency: []time.Duration{time.Millisecond, 3 * time.Millisecond},
			cpu: [procs]time.Duration(cpu)}
	}
	ms := time.Millisecond
	c := cell{sessions: 64, perSession: 10, slices: 2, variant: notListing}
	// CPU: upstream, reverse proxy, mcpvalidate, baseline, client
	c.samples[direct] = []sample{s(1000, 1, 100*ms, 0, 0, 0, 50*ms), s(1000, 1, 100*ms, 0, 0, 0, 50*ms)}
	c.samples[reverse] = []sample{s(1000, 2, 100*ms, 200*ms, 0, 0, 50*ms), s(1000, 4, 100*ms, 200*ms, 0, 0, 50*ms)}
	c.samples[mcpvalidate] = []sample{s(1000, 1, 100*ms, 0, 100*ms, 0, 50*ms), s(1000, 2, 100*ms, 0, 100*ms, 0, 50*ms)}
	m := &measurement{config: config{rounds: 2, calls: 640, minCalls: 4}, cells: []cell{c}}
	lines := []string{
		"| 64 | no | direct | 1000 (1000–1000) | 1000 µs | 3000 µs | 100 µs | – | 50 µs |",
		"| 64 | no | reverse proxy | 375 (250–500) | 1000 µs | 3000 µs | 100 µs | 200 µs | 50 µs |",
		"| 64 | no | mcpvalidate proxy | 750 (500–1000) | 1000 µs | 3000 µs | 100 µs | 100 µs | 50 µs |",
		"| 64 | no | 10 | 2 | 2.00 | 2.00 | 0.75 | 0.50 |",
	}
	report := func() string {
		var b strings.Builder
		if err := m.write(&b); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	got := report()
	for _, want := range lines {
		if !strings.Contains(got, want) {
			t.Errorf("no line %q in\n%s", want, got)
		}
	}
	if strings.Contains(got, "baseline") {
		t.Errorf("a baseline reported without -baseline:\n%s", got)
	}

	m.cells[0].samples[baseline] = []sample{s(1000, 1.25, 100*ms, 0, 0, 80*ms, 50*ms), s(1000, 1, 100*ms, 0, 0, 80*ms, 50*ms)}
	m.baseline = "/somewhere/mcpvalidate-before"
	got = report()
	for _, want := range append(lines,
		"| 64 | no | mcpvalidate baseline | 900 (800–1000) | 1000 µs | 3000 µs | 100 µs | 80 µs | 50 µs |",
		"against its baseline (mcpvalidate-before)",
		"| 64 | no | 0.500 | 0.875 | 1.250 | 1.000 | 1.250 |",
	) {
		if !strings.Contains(got, want) {
			t.Errorf("no line %q in\n%s", want, got)
		}
	}
}
