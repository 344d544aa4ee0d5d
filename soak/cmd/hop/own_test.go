//go:build linux

package main

import (
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
	stacks := []struct {
		frames []string // the outermost first
		ms     int64
		own    bool
	}{
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
	p := &profile.Profile{SampleType: []*profile.ValueType{{Type: "samples", Unit: "count"}, {Type: "cpu", Unit: "nanoseconds"}}}
	funcs := map[string]*profile.Function{}
	var total, handled, own time.Duration
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
		d := time.Duration(s.ms) * time.Millisecond
		p.Sample = append(p.Sample, &profile.Sample{Location: locs, Value: []int64{1, int64(d)}})
		total += d
		if strings.Contains(strings.Join(s.frames, " "), handler+" ") {
			handled += d
		}
		if s.own {
			own += d
		}
	}
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
