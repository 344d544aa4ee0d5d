// Package soak runs an mcp-go and a go-sdk streamable-HTTP server behind mcpvalidate, on
// the loopback interface, for as long as it is asked, with real clients opening sessions
// that register their own tools, make valid and invalid calls, and close or abandon the
// session, while the server's own tools are registered again every 50 to 250 ms. It
// measures what a long-lived server must not do: hold more live heap the longer it runs,
// count calls it did not see, or leave goroutines behind when it stops.
//
// By default it runs in the full tier (without -short) for about 25 seconds;
// -soak.duration runs it longer (at most 10 minutes), -soak.sessions for a number of
// sessions per framework:
//
//	go test -run TestSoak -v ./soak/ -soak.duration=5m
package soak

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpvalidate/mcpvalidate/guard"
)

var (
	soakDuration = flag.Duration("soak.duration", 25*time.Second, "about how long the soak runs, both frameworks together; at most 10m")
	soakSessions = flag.Int("soak.sessions", 0, "sessions each framework's soak opens, instead of -soak.duration's")
)

const (
	// nominalSession is about what a session of each framework costs on two cores, to turn
	// -soak.duration into sessions: the soak is paced by sessions, never by the clock.
	nominalSession = 15 * time.Millisecond
	longest        = 10 * time.Minute
	// workers is how many clients have a session open at once.
	workers = 6
	// samples is how many times the live heap is measured after the start.
	samples = 20
	// cacheBudget is small enough for the cache to fill during the warm-up, so that what
	// it holds is flat afterwards; the default budget would take thousands of sessions.
	cacheBudget = 4 << 20
)

// sessionsPerFramework is how many sessions each framework's soak opens: enough for a
// curve of the heap, as many as the longest soak allows at most.
func sessionsPerFramework() int {
	n := int(min(*soakDuration, longest) / 2 / nominalSession / raceSlowdown)
	if *soakSessions > 0 {
		n = min(*soakSessions, int(longest/2/nominalSession))
	}
	return max(n, 4*samples)
}

func TestSoak(t *testing.T) {
	if testing.Short() {
		t.Skip("full tier: runs without -short")
	}
	sessions := sessionsPerFramework()
	t.Run("mcp-go", func(t *testing.T) {
		soak(t, sessions, func(h *harness) framework { return newMCPGo(h) })
	})
	t.Run("go-sdk", func(t *testing.T) {
		soak(t, sessions, func(h *harness) framework { return newGoSDK(h) })
	})
}

// A framework is one framework's server behind a guard, and the way its clients open sessions.
type framework interface {
	open(ctx context.Context, n int) (clientSession, error)
	register(version int) // registers the server tools again, their schemas at version
	guard() *guard.Guard
	stop()
}

// A clientSession is a client's session with a server.
type clientSession interface {
	id() string
	tools(ctx context.Context) ([]string, error)
	call(ctx context.Context, tool, args string) (text string, isError bool, err error)
	close() error
}

// harness drives one server and keeps what its clients saw.
type harness struct {
	t    *testing.T
	loop *loopback
	srv  framework

	ran      atomic.Uint64       // handler runs
	seen     map[string]*answers // by tool; made before the soak starts, only read after
	failures atomic.Int64
}

// answers counts the answers a tool's calls received.
type answers struct {
	ran, refused, replay atomic.Uint64 // replay: refused because the tool changed meanwhile
}

func newHarness(t *testing.T) *harness {
	h := &harness{t: t, loop: newLoopback(), seen: map[string]*answers{}}
	for _, specs := range [][]toolSpec{serverTools, sessionTools} {
		for _, spec := range specs {
			h.seen[spec.name] = new(answers)
		}
	}
	return h
}

// totals sums the answers of every tool.
func (h *harness) totals() (ran, refused, replay uint64) {
	for _, a := range h.seen {
		ran, refused, replay = ran+a.ran.Load(), refused+a.refused.Load(), replay+a.replay.Load()
	}
	return ran, refused, replay
}

// fail reports a failure of the soak; the first few only, a broken run failing every call.
func (h *harness) fail(err error) {
	if h.failures.Add(1) <= 10 {
		h.t.Error(err)
	}
}

const (
	ranText       = "ok"
	variantHeader = "Soak-Variant"
	refusedPrefix = "Invalid arguments: "
	replacedText  = "This tool changed while the call was on its way, so it was not run. Please call it again."
)

// soak runs sessions sessions through the server start makes, six at a time, and judges
// what the server did and held.
func soak(t *testing.T, sessions int, start func(*harness) framework) {
	before := runtime.NumGoroutine()
	h := newHarness(t)
	h.srv = start(h)
	var stopOnce sync.Once
	stop := func() { stopOnce.Do(func() { h.srv.stop(); h.loop.transport.CloseIdleConnections() }) }
	t.Cleanup(stop)

	began := time.Now()
	curve := []sample{h.sample(began, 0)}
	stopRegistering := h.registerContinually()
	var next, done atomic.Int64
	step := int64(sessions / samples)
	ticks := make(chan int64, sessions/int(step)+1)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for n := next.Add(1); n <= int64(sessions); n = next.Add(1) {
				if err := h.session(t.Context(), int(n)); err != nil {
					h.fail(err)
				}
				if d := done.Add(1); d%step == 0 {
					ticks <- d
				}
			}
		})
	}
	go func() { wg.Wait(); close(ticks) }()
	for d := range ticks {
		curve = append(curve, h.sample(began, d))
	}
	if last := curve[len(curve)-1].sessions; last != int64(sessions) {
		curve = append(curve, h.sample(began, int64(sessions))) // every session over
	}
	n := stopRegistering()
	stop()

	ran, refused, replay := h.totals()
	t.Logf("%d sessions, %d calls, server tools registered %d times; heap after GC:\n%s", sessions, ran+refused+replay, n, table(curve))
	h.checkCounters()
	checkFlat(t, curve)
	checkGoroutines(t, before)
}

// registerContinually registers the server tools again every 50 to 250 ms until the
// returned function is called, which returns how many times it did.
func (h *harness) registerContinually() (stop func() int) {
	var stopping atomic.Bool
	count := 0
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		rng := rand.New(rand.NewPCG(1, 2))
		for !stopping.Load() {
			time.Sleep(time.Duration(50+rng.IntN(200)) * time.Millisecond)
			count++
			h.srv.register(count % 4)
		}
	}()
	return func() int {
		stopping.Store(true)
		<-finished
		return count
	}
}

// session runs session n: it opens, waits for its tools, makes its calls, and closes, or
// every fifth is abandoned: its client goes without telling the server.
func (h *harness) session(ctx context.Context, n int) error {
	s, err := h.srv.open(ctx, n)
	if err != nil {
		return fmt.Errorf("session %d: open: %w", n, err)
	}
	err = h.converse(ctx, s, n)
	if n%5 == 0 {
		h.loop.abandoned.Store(s.id(), true)
	}
	if cerr := s.close(); cerr != nil && err == nil {
		err = fmt.Errorf("close: %w", cerr)
	}
	if err != nil {
		return fmt.Errorf("session %d: %w", n, err)
	}
	return nil
}

func (h *harness) converse(ctx context.Context, s clientSession, n int) error {
	if err := awaitTools(ctx, s); err != nil {
		return err
	}
	for _, c := range plan(n) {
		if err := h.call(ctx, s, c); err != nil {
			return err
		}
	}
	return nil
}

// awaitTools waits until the session lists its tools: mcp-go registers a session, and so
// adds its tools, after it has answered the initialize request.
func awaitTools(ctx context.Context, s clientSession) error {
	for range 500 {
		names, err := s.tools(ctx)
		if err != nil {
			return fmt.Errorf("tools/list: %w", err)
		}
		if len(names) == len(sessionTools)+len(serverTools) {
			return nil
		}
		runtime.Gosched()
		time.Sleep(time.Millisecond)
	}
	return errors.New("the session's tools were never listed")
}

// call makes one call and checks its answer: a valid call runs, or, for a server tool
// registered again while it was on its way, is refused to be called again; an invalid
// call is refused, or, the same way, refused for the tool's change.
func (h *harness) call(ctx context.Context, s clientSession, c plannedCall) error {
	text, isError, err := s.call(ctx, c.tool.name, c.arguments())
	if err != nil {
		return fmt.Errorf("tools/call %s: %w", c.tool.name, err)
	}
	seen := h.seen[c.tool.name]
	switch {
	case !isError && text == ranText:
		seen.ran.Add(1)
		if !c.valid {
			return fmt.Errorf("tools/call %s: invalid arguments ran the handler", c.tool.name)
		}
	case isError && strings.HasPrefix(text, refusedPrefix):
		seen.refused.Add(1)
		if c.valid {
			return fmt.Errorf("tools/call %s: valid arguments refused: %s", c.tool.name, text)
		}
	case isError && text == replacedText && c.server:
		seen.replay.Add(1)
	default:
		return fmt.Errorf("tools/call %s: unexpected answer (isError %v): %s", c.tool.name, isError, text)
	}
	return nil
}

// checkCounters compares the guard's counters, tool by tool, with what the clients saw
// and the handlers did: every call the guard decided is counted once, under its tool, in
// the outcome the client received.
func (h *harness) checkCounters() {
	var sum guard.ToolStats
	for _, s := range h.srv.guard().Stats() {
		seen, ok := h.seen[s.Tool]
		if !ok {
			h.t.Errorf("counters of a tool never called: %+v", s)
			continue
		}
		if s.Accepted != seen.ran.Load() || s.Refused != seen.refused.Load()+seen.replay.Load() || s.SchemaBroken != 0 {
			h.t.Errorf("%s: %d accepted, %d refused, %d broken; its clients saw %d runs and %d refusals",
				s.Tool, s.Accepted, s.Refused, s.SchemaBroken, seen.ran.Load(), seen.refused.Load()+seen.replay.Load())
		}
		sum.Accepted += s.Accepted
		sum.Refused += s.Refused
		sum.Repaired += s.Repaired
		sum.Retries += s.Retries
	}
	ran, refused, replay := h.totals()
	h.t.Logf("guard: %d accepted, %d refused, %d repaired after %d refusals; clients: %d ran, %d refused, %d refused for a changed tool; handlers ran %d times",
		sum.Accepted, sum.Refused, sum.Repaired, sum.Retries, ran, refused, replay, h.ran.Load())
	if sum.Accepted != ran || ran != h.ran.Load() {
		h.t.Errorf("accepted %d, clients saw %d runs, handlers ran %d times", sum.Accepted, ran, h.ran.Load())
	}
	if sum.Refused != refused+replay {
		h.t.Errorf("refused %d, clients saw %d refusals", sum.Refused, refused+replay)
	}
	if sum.Repaired == 0 {
		h.t.Error("no repair counted, though sessions repair their refused calls")
	}
}

// A sample is the state of the process after so many sessions.
type sample struct {
	elapsed    time.Duration // for the log only: no verdict reads the clock
	sessions   int64
	calls      uint64
	heap       uint64 // live heap after a collection
	held       int64  // what the guard's cache estimates it holds
	goroutines int
	repaired   uint64
	awaiting   int // sessions whose refusals await repair
}

func (h *harness) sample(began time.Time, sessions int64) sample {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	var repaired uint64
	for _, s := range h.srv.guard().Stats() {
		repaired += s.Repaired
	}
	ran, refused, replay := h.totals()
	return sample{elapsed: time.Since(began), sessions: sessions, calls: ran + refused + replay, heap: ms.HeapAlloc,
		held: h.srv.guard().CacheStats().Held, goroutines: runtime.NumGoroutine(), repaired: repaired,
		awaiting: h.srv.guard().SessionsAwaitingRepair()}
}

func table(curve []sample) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%8s %8s %8s %9s %9s %6s %8s %8s\n", "elapsed", "sessions", "calls", "heap MiB", "held MiB", "gorout", "repaired", "awaiting")
	for _, s := range curve {
		fmt.Fprintf(&b, "%8s %8d %8d %9.2f %9.2f %6d %8d %8d\n", s.elapsed.Round(100*time.Millisecond), s.sessions, s.calls,
			float64(s.heap)/(1<<20), float64(s.held)/(1<<20), s.goroutines, s.repaired, s.awaiting)
	}
	return b.String()
}

// heapSlack is how far the live heap after the warm-up may rise. Sessions alive at a
// sample (six open, those abandoned in the last idleTTL, whose count follows the
// machine's speed) and the guard's refusals awaiting repair (forgotten as sessions end)
// come to a few MiB at most; a leak of a session's
// state (tens of kilobytes, thousands of sessions) comes to tens.
const (
	heapSlack      = 4 << 20
	heapSlackRatio = 1.25
)

// checkFlat fails when the live heap of the last quarter of the samples rose above the
// heap after the warm-up (the first quarter: the cache fills, the servers' pools grow) by
// more than the slack, and when the guard's cache held more than its budget. Each quarter
// counts by its median: a sample taken while many sessions happen to be open is not a
// trend, a leak moves every sample.
func checkFlat(t *testing.T, curve []sample) {
	t.Helper()
	q := (len(curve) - 1) / 4
	warm, last := medianHeap(curve[q:2*q+1]), medianHeap(curve[len(curve)-1-q:len(curve)-1])
	if limit := uint64(float64(warm)*heapSlackRatio) + heapSlack; last > limit {
		t.Errorf("live heap rose from %.2f MiB after the warm-up to %.2f MiB in the last quarter, above %.2f MiB",
			float64(warm)/(1<<20), float64(last)/(1<<20), float64(limit)/(1<<20))
	}
	// The last sample, taken with no session open, is left out of the slope.
	t.Logf("live heap after the warm-up: %+.0f bytes a session (least squares)", slope(curve[q:len(curve)-1]))
	for _, s := range curve {
		if s.held > cacheBudget {
			t.Errorf("after %d sessions the cache held %d bytes, above its budget of %d", s.sessions, s.held, cacheBudget)
		}
	}
}

func medianHeap(curve []sample) uint64 {
	heaps := make([]uint64, len(curve))
	for i, s := range curve {
		heaps[i] = s.heap
	}
	slices.Sort(heaps)
	return heaps[len(heaps)/2]
}

// slope is the least-squares slope of the live heap over the sessions opened.
func slope(curve []sample) float64 {
	var sx, sy, sxx, sxy float64
	for _, s := range curve {
		x, y := float64(s.sessions), float64(s.heap)
		sx, sy, sxx, sxy = sx+x, sy+y, sxx+x*x, sxy+x*y
	}
	n := float64(len(curve))
	return (n*sxy - sx*sy) / (n*sxx - sx*sx)
}

// checkGoroutines fails when more goroutines run than before the soak, once those ending
// have had time to end: up to 1,000 rounds of yielding and a short sleep.
func checkGoroutines(t *testing.T, before int) {
	t.Helper()
	for range 1000 {
		if runtime.NumGoroutine() <= before {
			return
		}
		runtime.Gosched()
		time.Sleep(10 * time.Millisecond)
	}
	var dump bytes.Buffer
	_ = pprof.Lookup("goroutine").WriteTo(&dump, 1)
	t.Errorf("%d goroutines left behind:\n%.4000s", runtime.NumGoroutine()-before, dump.String())
}

// loopback is the clients' side of the wire: one transport for all of a framework's
// clients, which drops the DELETE of an abandoned session, so that the server sees its
// client go silent while the client's own resources are released.
type loopback struct {
	transport *http.Transport
	abandoned sync.Map // session ID -> true
}

func newLoopback() *loopback {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.Proxy = nil
	return &loopback{transport: tr}
}

func (l *loopback) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Method == http.MethodDelete {
		if _, ok := l.abandoned.LoadAndDelete(req.Header.Get("Mcp-Session-Id")); ok {
			return &http.Response{StatusCode: http.StatusNoContent, Status: "204 No Content", Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
				Header: http.Header{}, Body: http.NoBody, Request: req}, nil
		}
	}
	return l.transport.RoundTrip(req)
}

// client returns the HTTP client of session n, whose requests name the variant of the
// session's tools.
func (l *loopback) client(n int) *http.Client {
	return &http.Client{Transport: variant{l, strconv.Itoa(n)}}
}

type variant struct {
	next http.RoundTripper
	n    string
}

func (v variant) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	req.Header.Set(variantHeader, v.n)
	return v.next.RoundTrip(req)
}

// front is a server's HTTP listener, on the loopback interface only.
type front = httptest.Server

func serve(t *testing.T, h http.Handler) *front {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &httptest.Server{Listener: ln, Config: &http.Server{Handler: h}}
	s.Start()
	return s
}
