//go:build linux

package main

import (
	"cmp"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/google/pprof/profile"
)

// The proxy's own work is read from the CPU profile of a -cpuprofile run: the samples
// under its handler whose innermost frame of mcpvalidate's code comes before any frame of
// HTTP or the system (net/http, net, a system call, bufio, crypto, textproto) or of the
// proxy's HTTP/1.1 client, which writes requests and reads answers as net/http does. What
// mcpvalidate's code calls in the runtime (allocation), strings, bytes, io, sync or
// maps is counted as its own.

const (
	module  = "github.com/mcpvalidate/mcpvalidate/"
	handler = module + "guard/proxy.(*front).ServeHTTP"
)

// httpPrefixes begin the names of the functions that do HTTP or the system's work.
var httpPrefixes = []string{"net/http.", "net.", "syscall.", "internal/poll.", "internal/syscall", "bufio.", "crypto/", "net/textproto."}

// clientFuncs are the proxy's HTTP/1.1 client (guard/proxy/upstream.go, open_unix.go).
var clientFuncs = []string{"(*upstream).", "(*upstreamConn).", "(*headerBudget).", "(*upstreamBody).", "hostPort", "writeForwarded", "writeValue", "token", "open"}

func httpWork(name string) bool {
	for _, p := range httpPrefixes {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	if rest, ok := strings.CutPrefix(name, module+"guard/proxy."); ok {
		for _, f := range clientFuncs {
			if rest == f || strings.HasSuffix(f, ".") && strings.HasPrefix(rest, f) {
				return true
			}
		}
	}
	return false
}

// ownWork is what a CPU profile says of the proxy's own work.
type ownWork struct {
	total, handler, own time.Duration
	parts               map[string]time.Duration // own work by the proxy's functions the handler calls, and theirs
}

// readProfiles reads the own work of each cell from its profile, and returns the whole
// run's, from the cells' profiles merged, which it writes to the file run.
func readProfiles(run string, cells []cell) (*ownWork, error) {
	var ps []*profile.Profile
	for i := range cells {
		p, err := readProfile(cells[i].profile)
		if err != nil {
			return nil, err
		}
		if cells[i].own, err = ownWorkOf(p); err != nil {
			return nil, fmt.Errorf("%s: %w", cells[i].profile, err)
		}
		ps = append(ps, p)
	}
	merged, err := profile.Merge(ps)
	if err != nil {
		return nil, err
	}
	f, err := os.Create(run)
	if err != nil {
		return nil, err
	}
	if err := merged.Write(f); err != nil {
		f.Close()
		return nil, err
	}
	if err := f.Close(); err != nil {
		return nil, err
	}
	return ownWorkOf(merged)
}

func readProfile(path string) (*profile.Profile, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	p, err := profile.Parse(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return p, nil
}

func ownWorkOf(p *profile.Profile) (*ownWork, error) {
	cpu := -1
	for i, t := range p.SampleType {
		if t.Type == "cpu" && t.Unit == "nanoseconds" {
			cpu = i
		}
	}
	if cpu < 0 {
		return nil, fmt.Errorf("the profile has no CPU time")
	}
	w := &ownWork{parts: map[string]time.Duration{}}
	for _, s := range p.Sample {
		d := time.Duration(s.Value[cpu])
		w.total += d
		var frames []string // the innermost first
		for _, loc := range s.Location {
			for _, l := range loc.Line { // the innermost of those inlined first
				if l.Function != nil {
					frames = append(frames, l.Function.Name)
				}
			}
		}
		top := slices.Index(frames, handler)
		if top < 0 {
			continue
		}
		w.handler += d
		for _, f := range frames[:top+1] { // the handler's own frame too
			if httpWork(f) {
				break
			}
			if strings.HasPrefix(f, module) {
				w.own += d
				w.parts[part(frames[:top])] += d
				break
			}
		}
	}
	return w, nil
}

// part names the work of frames, those under the handler, innermost first: the
// outermost two of mcpvalidate's functions.
func part(frames []string) string {
	var ours []string
	for _, f := range slices.Backward(frames) {
		if name, ok := strings.CutPrefix(f, module); ok {
			if ours = append(ours, name); len(ours) == 2 {
				break
			}
		}
	}
	if len(ours) == 0 {
		return "the handler itself"
	}
	return strings.Join(ours, " > ")
}

// writeOwnWork writes the own work a call of each cell, then of the whole run, w, and its
// largest parts.
func writeOwnWork(p func(string, ...any), cells []cell, w *ownWork) {
	p("\nThe proxy's own work, from its CPU profile, a cell at a time (its samples divided by the tool calls sent to it, the warm-up round's " +
		"included, the sessions' opening and closing too), with all the samples under its handler and all its samples:\n\n")
	p("| sessions | lists tools | tool calls | own work a call | under its handler | in all | own share |\n|---:|---|---:|---:|---:|---:|---:|\n")
	calls := 0
	for _, c := range cells {
		per := func(d time.Duration) string { return fmt.Sprintf("%.2f µs", float64(d)/float64(c.proxied)/1e3) }
		p("| %d | %s | %d | %s | %s | %s | %.1f%% |\n", c.sessions, yesNo(c.variant), c.proxied,
			per(c.own.own), per(c.own.handler), per(c.own.total), 100*float64(c.own.own)/float64(c.own.total))
		calls += c.proxied
	}
	w.write(p, calls)
}

// write writes the own work a call, over calls, and its largest parts.
func (w *ownWork) write(p func(string, ...any), calls int) {
	per := func(d time.Duration) string { return fmt.Sprintf("%.2f µs", float64(d)/float64(calls)/1e3) }
	p("\nOver the whole run, %d tool calls: %s a call, of %s under its handler and %s in all.\n\n", calls, per(w.own), per(w.handler), per(w.total))
	type kv struct {
		name string
		d    time.Duration
	}
	var parts []kv
	for name, d := range w.parts {
		parts = append(parts, kv{name, d})
	}
	slices.SortFunc(parts, func(a, b kv) int { return cmp.Or(cmp.Compare(b.d, a.d), strings.Compare(a.name, b.name)) })
	p("| own work, by what the handler calls | a call |\n|---|---:|\n")
	for _, x := range parts[:min(len(parts), 12)] {
		p("| `%s` | %s |\n", x.name, per(x.d))
	}
}
