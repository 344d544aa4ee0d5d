//go:build linux

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/pprof/profile"
)

// TestOwnWork: of the samples under the proxy's handler, those whose innermost frame of
// mcpvalidate's code comes before any of HTTP, the system or the proxy's HTTP client are
// its own, with what that code calls in the runtime; others, and samples outside the
// handler, are not.
func TestOwnWork(t *testing.T) {
	const proxy = module + "guard/proxy."
	stacks := []stack{
		{[]string{"net/http.(*conn).serve", handler, proxy + "(*Proxy).fromClient", module + "guard.(*Validator).Validate"}, 3, true},
		{[]string{"net/http.(*conn).serve", handler, proxy + "(*front).post", proxy + "(*front).send", "runtime.mallocgc"}, 2, true},
		{[]string{"net/http.(*conn).serve", handler, proxy + "(*front).post", proxy + "(*front).send", proxy + "(*upstream).forward", proxy + "writeForwarded", proxy + "hopByHop"}, 1, true},
		{[]string{"net/http.(*conn).serve", handler, proxy + "(*front).send", proxy + "(*upstream).roundTrip", "net/http.ReadResponse", "runtime.mallocgc"}, 5, false},
		{[]string{"net/http.(*conn).serve", handler, proxy + "(*front).send", proxy + "writeForwarded", "bufio.(*Writer).WriteString"}, 7, false},
		{[]string{"net/http.(*conn).serve", handler, proxy + "(*front).send", proxy + "(*upstream).roundTrip", "runtime.mallocgc"}, 23, false},
		{[]string{"net/http.(*conn).serve", handler, proxy + "(*front).send", proxy + "writeForwarded", "runtime.memmove"}, 29, false},
		{[]string{"net/http.(*conn).serve", handler, proxy + "(*timedWriter).Write", "net/http.(*response).Write", "syscall.Syscall"}, 11, false},
		{[]string{"net/http.(*conn).serve", handler, "runtime.newobject"}, 13, true},
		{[]string{"net/http.(*conn).serve", "net/http.(*conn).readRequest"}, 17, false},
		{[]string{"runtime.gcBgMarkWorker", proxy + "(*front).ServeHTTP.func1"}, 19, false},
	}
	var total, handled, own time.Duration
	for _, s := range stacks {
		d := time.Duration(s.ms) * time.Millisecond
		total += d
		if strings.Contains(strings.Join(s.frames, " "), handler+" ") {
			handled += d
		}
		if s.own {
			own += d
		}
	}
	p := cpuProfile(stacks)
	w, err := ownWorkOf(p)
	if err != nil {
		t.Fatal(err)
	}
	if w.total != total || w.handler != handled || w.own != own {
		t.Errorf("total %v, handler %v, own %v; want %v, %v, %v", w.total, w.handler, w.own, total, handled, own)
	}
	if got := w.parts["guard/proxy.(*front).post > guard/proxy.(*front).send"]; got != 3*time.Millisecond {
		t.Errorf("post > send: %v, want 3ms (parts %v)", got, w.parts)
	}
	if _, err := ownWorkOf(&profile.Profile{SampleType: []*profile.ValueType{{Type: "alloc_space", Unit: "bytes"}}}); err == nil {
		t.Error("a profile without CPU time read")
	}
}

// A stack is a made-up CPU profile's sample: its frames, how long, and whether it is the
// proxy's own work.
type stack struct {
	frames []string // the outermost first
	ms     int64
	own    bool
}

// cpuProfile makes a CPU profile of stacks.
func cpuProfile(stacks []stack) *profile.Profile {
	p := &profile.Profile{SampleType: []*profile.ValueType{{Type: "samples", Unit: "count"}, {Type: "cpu", Unit: "nanoseconds"}},
		PeriodType: &profile.ValueType{Type: "cpu", Unit: "nanoseconds"}, Period: int64(10 * time.Millisecond)}
	funcs := map[string]*profile.Function{}
	for _, s := range stacks {
		var locs []*profile.Location
		for i := len(s.frames) - 1; i >= 0; i-- {
			f := funcs[s.frames[i]]
			if f == nil {
				f = &profile.Function{ID: uint64(len(funcs) + 1), Name: s.frames[i]}
				funcs[s.frames[i]] = f
				p.Function = append(p.Function, f)
			}
			l := &profile.Location{ID: uint64(len(p.Location) + 1), Line: []profile.Line{{Function: f}}}
			p.Location = append(p.Location, l)
			locs = append(locs, l)
		}
		p.Sample = append(p.Sample, &profile.Sample{Location: locs, Value: []int64{1, s.ms * int64(time.Millisecond)}})
	}
	return p
}

// TestReadProfiles: each cell's own work is read from its profile, the run's from theirs
// merged, which is written where the run's profile goes; the report gives each cell's a
// call, over the cell's calls.
func TestReadProfiles(t *testing.T) {
	dir := t.TempDir()
	own := []string{"net/http.(*conn).serve", handler, module + "guard/proxy.(*Proxy).fromClient"}
	written := []string{"net/http.(*conn).serve", handler, "net/http.(*response).Write"}
	cells := []cell{
		{sessions: 1, variant: listing, proxied: 1000, profile: filepath.Join(dir, "cpu.out.1-list")},
		{sessions: 64, variant: listing, proxied: 4000, profile: filepath.Join(dir, "cpu.out.64-list")},
	}
	for i, stacks := range [][]stack{{{own, 30, true}, {written, 70, false}}, {{own, 20, true}, {written, 20, false}}} {
		f, err := os.Create(cells[i].profile)
		if err != nil {
			t.Fatal(err)
		}
		if err := cpuProfile(stacks).Write(f); err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
	run := filepath.Join(dir, "cpu.out")
	w, err := readProfiles(run, cells)
	if err != nil {
		t.Fatal(err)
	}
	ms := time.Millisecond
	if cells[0].own.own != 30*ms || cells[0].own.total != 100*ms || cells[1].own.own != 20*ms || w.own != 50*ms || w.total != 140*ms {
		t.Errorf("cells' own %v of %v and %v of %v, the run's %v of %v; want 30ms of 100ms, 20ms of 40ms, 50ms of 140ms",
			cells[0].own.own, cells[0].own.total, cells[1].own.own, cells[1].own.total, w.own, w.total)
	}
	if merged, err := readProfile(run); err != nil {
		t.Error(err)
	} else if again, _ := ownWorkOf(merged); again == nil || again.own != w.own {
		t.Errorf("the run's profile written holds %v of own work, want %v", again, w.own)
	}
	var b strings.Builder
	writeOwnWork(func(f string, a ...any) { fmt.Fprintf(&b, f, a...) }, cells, w)
	for _, want := range []string{
		"| 1 | yes | 1000 | 30.00 µs | 100.00 µs | 100.00 µs | 30.0% |",
		"| 64 | yes | 4000 | 5.00 µs | 10.00 µs | 10.00 µs | 50.0% |",
		"Over the whole run, 5000 tool calls: 10.00 µs a call, of 28.00 µs under its handler and 28.00 µs in all.",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("no line %q in\n%s", want, b.String())
		}
	}
	cells[1].profile = filepath.Join(dir, "missing")
	if _, err := readProfiles(run, cells); err == nil {
		t.Error("a cell's profile missing, read")
	}
}

// TestProfiler: the profiler writes one profile, then another in the next file it is
// told, each complete when it is told the next or stopped.
func TestProfiler(t *testing.T) {
	dir := t.TempDir()
	p := &profiler{}
	for _, name := range []string{"a", "b"} {
		if err := p.to(filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	if err := p.stop(); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"a", "b"} {
		if _, err := readProfile(filepath.Join(dir, name)); err != nil {
			t.Errorf("profile %s: %v", name, err)
		}
	}
	if err := p.to(filepath.Join(dir, "no", "such", "dir")); err == nil {
		t.Error("a profile to a file that cannot be made started")
	}
	if err := p.stop(); err != nil {
		t.Errorf("stopped with no profile: %v", err)
	}
}
