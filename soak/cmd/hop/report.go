//go:build linux

package main

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"
)

// A measurement is a run's cells and what the report says of the run.
type measurement struct {
	config
	client      string
	commit      string
	date        time.Time
	machine     string
	loadAtStart string
	cells       []cell
	own         *ownWork // the whole run's, with -cpuprofile
}

// clockTick is Linux's USER_HZ, the unit of /proc/PID/stat's times: 100 a second on
// every architecture Go supports.
const clockTick = 10 * time.Millisecond

// processCPU returns the CPU time, user and system, that the process pid has used,
// all its threads, those gone too.
func processCPU(pid int) (time.Duration, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, err
	}
	return parseStat(b)
}

// parseStat reads utime and stime, the 14th and 15th fields of /proc/PID/stat, after the
// command name, which is in parentheses and may hold anything, parentheses and spaces too.
func parseStat(b []byte) (time.Duration, error) {
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, fmt.Errorf("/proc/PID/stat: no command name in %.80q", b)
	}
	f := strings.Fields(string(b[i+1:])) // from the 3rd field, state
	if len(f) < 13 {
		return 0, fmt.Errorf("/proc/PID/stat: %d fields after the command name, not at least 13", len(f))
	}
	var ticks int64
	for _, s := range f[11:13] {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil || n < 0 {
			return 0, fmt.Errorf("/proc/PID/stat: CPU time %q is not a count of ticks", s)
		}
		ticks += n
	}
	return time.Duration(ticks) * clockTick, nil
}

// percentile returns the nearest-rank p-th percentile (0 < p <= 100) of sorted.
func percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(math.Ceil(p/100*float64(len(sorted)))) - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}

// median returns the median of xs, the mean of the middle two when their count is even.
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := slices.Sorted(slices.Values(xs))
	if n := len(s); n%2 == 0 {
		return (s[n/2-1] + s[n/2]) / 2
	}
	return s[len(s)/2]
}

// throughputs returns each sample's tool calls a second.
func throughputs(samples []sample) []float64 {
	var t []float64
	for _, s := range samples {
		t = append(t, float64(s.calls)/s.elapsed.Seconds())
	}
	return t
}

// ratios returns a[i]/b[i] for each round i.
func ratios(a, b []float64) []float64 {
	r := make([]float64, min(len(a), len(b)))
	for i := range r {
		r[i] = a[i] / b[i]
	}
	return r
}

// cpuPerCall returns the CPU time process p spent a tool call over all samples.
func cpuPerCall(samples []sample, p int) time.Duration {
	var cpu time.Duration
	calls := 0
	for _, s := range samples {
		cpu += s.cpu[p]
		calls += s.calls
	}
	if calls == 0 {
		return 0
	}
	return cpu / time.Duration(calls)
}

// latencies returns the tool calls' latencies over all samples, sorted.
func latencies(samples []sample) []time.Duration {
	var l []time.Duration
	for _, s := range samples {
		l = append(l, s.latency...)
	}
	slices.Sort(l)
	return l
}

// µs formats d in microseconds, with one decimal below 10 µs.
func µs(d time.Duration) string {
	v := float64(d) / float64(time.Microsecond)
	if v < 10 {
		return strconv.FormatFloat(v, 'f', 1, 64) + " µs"
	}
	return strconv.FormatFloat(v, 'f', 0, 64) + " µs"
}

// describeMachine says what the run ran on.
func describeMachine() string {
	model := "an unknown CPU"
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for line := range strings.Lines(string(b)) {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
				model = strings.TrimSpace(v)
				break
			}
		}
	}
	kernel, _ := os.ReadFile("/proc/sys/kernel/osrelease")
	return fmt.Sprintf("%d cores (%s), Linux %s, %s %s/%s", runtime.NumCPU(), model, strings.TrimSpace(string(kernel)),
		runtime.Version(), runtime.GOOS, runtime.GOARCH)
}

// loadAverage returns the 1, 5 and 15 minutes' load averages.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if f := strings.Fields(string(b)); err == nil && len(f) >= 3 {
		return strings.Join(f[:3], " ")
	}
	return "unknown"
}

// write writes the report in Markdown.
func (m *measurement) write(w io.Writer) error {
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	p("Measured by `soak/cmd/hop` on %s at commit %s, %s.\n", m.date.UTC().Format("2006-01-02 15:04 MST"), m.commit, m.machine)
	p("Load average (1, 5, 15 min) %s at the start, %s at the end.\n", m.loadAtStart, loadAverage())
	p("Rounds at each level: %d; a round sends about %d tool calls to each endpoint, at least %d a session, "+
		"in up to %d slices each taking the endpoints in turn (at least %d calls a session in a slice); "+
		"the client: %s.\n\n", m.rounds, m.calls, m.minCalls, m.slices, minSliceCalls, m.client)
	p("Calls/s is the median over the rounds (lowest–highest); p50 and p99 are over every call of every round; ")
	p("CPU is each process's user and system time, per tool call, over all rounds, from /proc/PID/stat (10 ms ticks).\n\n")
	p("| sessions | lists tools | endpoint | calls/s | p50 | p99 | upstream CPU/call | proxy CPU/call | client CPU/call |\n")
	p("|---:|---|---|---:|---:|---:|---:|---:|---:|\n")
	for _, c := range m.cells {
		for e := range endpoints {
			if len(c.samples[e]) == 0 {
				continue // the baseline without -baseline
			}
			t := throughputs(c.samples[e])
			l := latencies(c.samples[e])
			hop := "–"
			switch e {
			case reverse:
				hop = µs(cpuPerCall(c.samples[e], reverseProc))
			case mcpvalidate:
				hop = µs(cpuPerCall(c.samples[e], mcpvalidateProc))
			case baseline:
				hop = µs(cpuPerCall(c.samples[e], baselineProc))
			}
			p("| %d | %s | %s | %.0f (%.0f–%.0f) | %s | %s | %s | %s | %s |\n", c.sessions, yesNo(c.variant), endpointNames[e],
				median(t), slices.Min(t), slices.Max(t), µs(percentile(l, 50)), µs(percentile(l, 99)),
				µs(cpuPerCall(c.samples[e], upstreamProc)), hop, µs(cpuPerCall(c.samples[e], clientProc)))
		}
	}
	p("\nRatios of throughput within each round (mcpvalidate proxy over the other endpoint), and of the proxies' CPU a call over all rounds:\n\n")
	p("| sessions | lists tools | calls a session | slices | mcpvalidate/reverse, lowest | median | mcpvalidate/direct, median | CPU/call mcpvalidate/reverse |\n")
	p("|---:|---|---:|---:|---:|---:|---:|---:|\n")
	for _, c := range m.cells {
		mv := throughputs(c.samples[mcpvalidate])
		rp := ratios(mv, throughputs(c.samples[reverse]))
		dr := ratios(mv, throughputs(c.samples[direct]))
		cpu := float64(cpuPerCall(c.samples[mcpvalidate], mcpvalidateProc)) / float64(cpuPerCall(c.samples[reverse], reverseProc))
		p("| %d | %s | %d | %d | %.2f | %.2f | %.2f | %.2f |\n", c.sessions, yesNo(c.variant), c.perSession, c.slices,
			slices.Min(rp), median(rp), median(dr), cpu)
	}
	if m.baseline != "" {
		p("\nThe mcpvalidate proxy against its baseline (%s), measured in the same rounds: throughput within each round, p50 and CPU a call over all rounds:\n\n", filepath.Base(m.baseline))
		p("| sessions | lists tools | mcpvalidate/baseline, lowest | median | highest | p50 mcpvalidate/baseline | CPU/call mcpvalidate/baseline |\n")
		p("|---:|---|---:|---:|---:|---:|---:|\n")
		for _, c := range m.cells {
			r := ratios(throughputs(c.samples[mcpvalidate]), throughputs(c.samples[baseline]))
			p50 := float64(percentile(latencies(c.samples[mcpvalidate]), 50)) / float64(percentile(latencies(c.samples[baseline]), 50))
			cpu := float64(cpuPerCall(c.samples[mcpvalidate], mcpvalidateProc)) / float64(cpuPerCall(c.samples[baseline], baselineProc))
			p("| %d | %s | %.3f | %.3f | %.3f | %.3f | %.3f |\n", c.sessions, yesNo(c.variant), slices.Min(r), median(r), slices.Max(r), p50, cpu)
		}
	}
	if m.own != nil {
		writeOwnWork(p, m.cells, m.own)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func yesNo(v variant) string {
	if v == listing {
		return "yes"
	}
	return "no"
}
