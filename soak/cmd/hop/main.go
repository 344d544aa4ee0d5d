//go:build linux

// Command hop measures one hop: an mcp-go streamable HTTP server reached direct, behind a
// plain httputil.ReverseProxy that checks nothing, and behind `mcpvalidate proxy`, each a
// process of its own on 127.0.0.1, in rounds that take the three in turn, at several
// numbers of sessions at once, with sessions that list their tools first and sessions that
// never do. It writes a Markdown report: throughput, p50 and p99 of a call, and the CPU
// time a call costs each process. It fails when a call fails or an answer is not the one
// the server gives; never on speed.
//
//	go run ./soak/cmd/hop             # the full run, some minutes (docs/performance.md)
//	go run ./soak/cmd/hop -quick      # small rounds, for CI
//
// With -baseline BIN, another build of the mcpvalidate command (of another commit, say)
// is measured too, as a fourth endpoint in the same rounds, and the report gives the ratios
// of the two round by round: a change compared past the machine's swings.
//
// With -cpuprofile F, the mcpvalidate endpoint is this program's own process serving
// proxy.Handler as the command does, which writes a CPU profile of each cell (a level and
// a variant) to F.SESSIONS-VARIANT, merged into F at the end; the report then gives the
// proxy's own work a call in each cell and in the whole run, read from them (own.go).
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"
)

func main() {
	if len(os.Args) > 2 && os.Args[1] == roleArg {
		if err := serveRole(os.Args[2], os.Args[3:]); err != nil {
			fmt.Fprintln(os.Stderr, "hop:", err)
			os.Exit(1)
		}
		return
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "hop:", err)
		os.Exit(1)
	}
}

// config is what the flags say.
type config struct {
	levels      []int
	variants    []variant
	rounds      int
	calls       int // tools/call a round, shared among its sessions
	minCalls    int // at least this many a session
	slices      int // of a round, at most
	mcpvalidate string
	baseline    string // another mcpvalidate command to measure beside it; "" when none
	cpuprofile  string
	out         string
}

func parseFlags(args []string, stderr io.Writer) (config, error) {
	fs := flag.NewFlagSet("hop", flag.ContinueOnError)
	fs.SetOutput(stderr)
	quick := fs.Bool("quick", false, "small rounds: a check that everything works, for CI (defaults: -rounds 2 -calls 400 -min-calls 2)")
	levels := fs.String("levels", "1,64,256,1000", "the numbers of sessions at once, comma-separated")
	variants := fs.String("variants", "list,nolist", "list: each session lists its tools before its calls; nolist: it never does")
	rounds := fs.Int("rounds", 0, "the rounds at each level and variant, each taking the endpoints in turn (0: 5, or 2 with -quick)")
	calls := fs.Int("calls", 0, "the tools/call a round sends to an endpoint, shared among its sessions (0: 12000, or 400 with -quick)")
	minCalls := fs.Int("min-calls", 0, "the fewest tools/call a session sends (0: 4, or 2 with -quick)")
	slicesFlag := fs.Int("slices", 1, "the slices of a round: each takes the endpoints in turn, so that the machine's swings fall on all alike (at most one a "+strconv.Itoa(minSliceCalls)+" calls a session)")
	bin := fs.String("mcpvalidate", "", "the mcpvalidate command to run (default: built from the checkout's cmd/mcpvalidate)")
	baseline := fs.String("baseline", "", "another mcpvalidate command (a build of another commit) to measure as a fourth endpoint in the same rounds, against which the report compares")
	prof := fs.String("cpuprofile", "", "write a CPU profile of the mcpvalidate proxy to this file, and one of each level and variant beside it (the proxy then runs in this program's binary)")
	out := fs.String("out", "", "write the report to this file instead of stdout")
	if err := fs.Parse(args); err != nil {
		return config{}, err
	}
	if fs.NArg() > 0 {
		return config{}, fmt.Errorf("unexpected arguments: %q", fs.Args())
	}
	c := config{rounds: *rounds, calls: *calls, minCalls: *minCalls, slices: *slicesFlag, mcpvalidate: *bin, baseline: *baseline, cpuprofile: *prof, out: *out}
	if c.rounds == 0 {
		c.rounds = pick(*quick, 2, 5)
	}
	if c.calls == 0 {
		c.calls = pick(*quick, 400, 12000)
	}
	if c.minCalls == 0 {
		c.minCalls = pick(*quick, 2, 4)
	}
	var err error
	if c.levels, err = parseLevels(*levels); err != nil {
		return config{}, err
	}
	if c.variants, err = parseVariants(*variants); err != nil {
		return config{}, err
	}
	if c.rounds < 1 || c.calls < 1 || c.minCalls < 1 || c.slices < 1 {
		return config{}, fmt.Errorf("-rounds, -calls, -min-calls and -slices must be positive")
	}
	return c, nil
}

func pick(quick bool, q, full int) int {
	if quick {
		return q
	}
	return full
}

// minSliceCalls is the fewest tool calls a session sends in a slice of a round.
const minSliceCalls = 4

// slicesOf is the slices of a round whose sessions each send per tool calls.
func (c config) slicesOf(per int) int {
	return max(min(c.slices, per/minSliceCalls), 1)
}

// maxLevel bounds -levels: each session holds a connection to each endpoint.
const maxLevel = 4000

// parseLevels reads a comma-separated list of positive session counts.
func parseLevels(s string) ([]int, error) {
	var levels []int
	for f := range strings.SplitSeq(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 || n > maxLevel {
			return nil, fmt.Errorf("-levels: %q is not a number of sessions from 1 to %d", f, maxLevel)
		}
		levels = append(levels, n)
	}
	return levels, nil
}

// A variant is whether a session lists its tools before calling them.
type variant string

const (
	listing    variant = "list"
	notListing variant = "nolist"
)

func parseVariants(s string) ([]variant, error) {
	var vs []variant
	for f := range strings.SplitSeq(s, ",") {
		switch v := variant(strings.TrimSpace(f)); v {
		case listing, notListing:
			vs = append(vs, v)
		default:
			return nil, fmt.Errorf("-variants: %q is neither list nor nolist", f)
		}
	}
	return vs, nil
}

// perSession is how many tools/call each of n sessions sends in a round.
func (c config) perSession(n int) int {
	return max(c.calls/n, c.minCalls)
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	c, err := parseFlags(args, stderr)
	if err != nil {
		return err
	}
	out := stdout
	if c.out != "" { // created first: a path that cannot be written fails before the run
		file, err := os.Create(c.out)
		if err != nil {
			return err
		}
		defer file.Close()
		out = file
	}
	f := &fleet{log: stderr}
	defer f.stop()
	go func() { // a signal stops the processes at once; the run then fails on its calls
		<-ctx.Done()
		f.stop()
	}()
	if err := f.start(ctx, c); err != nil {
		return err
	}
	start, load := time.Now(), loadAverage()
	m, err := measure(ctx, c, f, stderr)
	if err != nil {
		return err
	}
	if err := f.stopChecked(); err != nil {
		return err
	}
	m.date, m.loadAtStart, m.machine, m.commit = start, load, describeMachine(), f.commit
	if c.cpuprofile != "" { // the last cell's written as the proxy stopped
		if m.own, err = readProfiles(c.cpuprofile, m.cells); err != nil {
			return err
		}
	}
	if err := m.write(out); err != nil {
		return err
	}
	if file, ok := out.(*os.File); ok && c.out != "" {
		return file.Close()
	}
	return nil
}
