// Command bench runs the benchmarks that docs/performance.md discusses and writes their
// figures, with the commit, the machine, the Go version and the date they were measured
// on, to a Markdown file (docs/benchmarks.md by default). Run it from the repository's
// root:
//
//	go run ./internal/cmd/bench            # 15 rounds, then the slopes: a few minutes
//	go run ./internal/cmd/bench -quick     # a minute or two, fewer rounds, no slopes
//
// The benchmarks whose figures are compared with one another run in rounds: each round
// runs every one of them once, one test binary after another, so that the ratios taken
// within a round share the machine's state of the moment. The file reports, for each
// benchmark, the median time of the rounds and its range, and for each ratio the median
// of the per-round ratios and their range. Bytes and allocations per call are exact.
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"
)

// A suite is one package's benchmarks, run by its test binary with one -test.bench pattern.
type suite struct {
	pkg, bench string
	title, doc string
	ratios     []ratio
	slope      bool // run once, after the rounds, and left out under -quick
}

// A ratio is one benchmark's time divided by another's, taken within each round.
type ratio struct{ num, den, what string }

var suites = []suite{
	{
		pkg: "./conformance/", bench: "^(BenchmarkCompare|BenchmarkRefusalFloor)$",
		title: "Validation alone (`BenchmarkCompare`, `BenchmarkRefusalFloor`)",
		doc: "One validation of each case by each engine: `subset` is `Validate` on the raw bytes, " +
			"`subset-value` is `ValidateValue` on a decoded value, `santhosh` the full JSON Schema engine " +
			"on a decoded value, `decode` is `json.Unmarshal` into `any`, `jsonvalid` is `json.Valid`. " +
			"`BenchmarkRefusalFloor` copies the four-violation refusal into fresh memory, validating nothing.",
		ratios: append(compareRatios(),
			ratio{"BenchmarkCompare/small-invalid/subset", "BenchmarkRefusalFloor", "small-invalid: a refusal ÷ copying its answer"}),
	},
	{
		pkg: ".", bench: "^BenchmarkToolCall$",
		title: "Through an mcp-go server (`BenchmarkToolCall`)",
		doc: "A tools/call through `srv.HandleMessage`, its response marshalled: mcpvalidate's middleware, " +
			"a passthrough middleware, and mcp-go's own `WithInputSchemaValidation` (`builtin`) and " +
			"`WithOutputSchemaValidation` (`builtin-output`); `-invalid` is the weather tool's " +
			"four-violation call, or a result that does not match the outputSchema.",
		ratios: []ratio{
			{"BenchmarkToolCall/mcpvalidate", "BenchmarkToolCall/passthrough", "valid call: mcpvalidate ÷ passthrough"},
			{"BenchmarkToolCall/mcpvalidate", "BenchmarkToolCall/builtin", "valid call: mcpvalidate ÷ mcp-go's check"},
			{"BenchmarkToolCall/mcpvalidate-invalid", "BenchmarkToolCall/builtin-invalid", "refusal: mcpvalidate ÷ mcp-go's check"},
			{"BenchmarkToolCall/mcpvalidate-invalid-meta", "BenchmarkToolCall/builtin-invalid", "refusal with `WithViolationMeta` ÷ mcp-go's check"},
			{"BenchmarkToolCall/output-valid", "BenchmarkToolCall/output-passthrough", "valid result: checked ÷ unchecked"},
			{"BenchmarkToolCall/output-valid", "BenchmarkToolCall/builtin-output", "valid result: mcpvalidate ÷ mcp-go's check"},
			{"BenchmarkToolCall/output-invalid", "BenchmarkToolCall/builtin-output-invalid", "refused result: mcpvalidate ÷ mcp-go's check"},
		},
	},
	{
		pkg: "./gosdk/", bench: "^BenchmarkGoSDKToolCall$",
		title: "Through a go-sdk server (`BenchmarkGoSDKToolCall`)",
		doc: "A tools/call from a go-sdk client to a go-sdk server connected in process " +
			"(`mcp.NewInMemoryTransports`): a raw tool bare (go-sdk never validates raw tools) and through " +
			"`guard.Handler`; a typed tool through `mcp.AddTool` (go-sdk's check, `typed-builtin`), through " +
			"`gosdk.AddTool`, and through `gosdk.AddTool` under `WithReportOnly` (go-sdk's check behind the guard's report).",
		ratios: []ratio{
			{"BenchmarkGoSDKToolCall/mcpvalidate", "BenchmarkGoSDKToolCall/bare", "raw tool: `guard.Handler` ÷ bare"},
			{"BenchmarkGoSDKToolCall/typed-mcpvalidate", "BenchmarkGoSDKToolCall/typed-builtin", "typed tool: `gosdk.AddTool` ÷ `mcp.AddTool`"},
			{"BenchmarkGoSDKToolCall/typed-report-only", "BenchmarkGoSDKToolCall/typed-builtin", "typed tool, report-only ÷ `mcp.AddTool`"},
			{"BenchmarkGoSDKToolCall/typed-mcpvalidate-invalid", "BenchmarkGoSDKToolCall/typed-builtin-invalid", "typed refusal: `gosdk.AddTool` ÷ `mcp.AddTool`"},
		},
	},
	{
		pkg: "./guard/", bench: "^Benchmark(UniqueItems|MultipleOf|Hints|Format)Slope$", slope: true,
		title: "Slopes of the core (`BenchmarkUniqueItemsSlope`, `BenchmarkMultipleOfSlope`, `BenchmarkHintsSlope`, `BenchmarkFormatSlope`)",
		doc:   "Time against input size: each step's time should grow as its size does (MB/s flat).",
	},
	{
		pkg: "./conformance/", bench: "^Benchmark(HostileSlope|HostileKeywordsSlope|HostileNestingSlope)$", slope: true,
		title: "Slopes of hostile inputs (`BenchmarkHostileSlope`, `BenchmarkHostileKeywordsSlope`, `BenchmarkHostileNestingSlope`)",
		doc:   "Time against input size for inputs built to be slow (docs/security.md).",
	},
	{
		pkg: "./gosdk/", bench: "^BenchmarkPrepareArgumentsSlope$", slope: true,
		title: "Slope of go-sdk argument preparation (`BenchmarkPrepareArgumentsSlope`)",
		doc:   "Time against argument size for typed tools' arguments.",
	},
}

// compareRatios are BenchmarkCompare's ratios: the full engine, and json.Valid, against
// Validate on each case.
func compareRatios() []ratio {
	var rs []ratio
	for _, c := range []string{"small-valid", "small-invalid", "array-100", "ref-tree-20"} {
		b := "BenchmarkCompare/" + c + "/"
		rs = append(rs,
			ratio{b + "santhosh", b + "subset", c + ": santhosh ÷ subset"},
			ratio{b + "subset", b + "jsonvalid", c + ": subset ÷ `json.Valid`"})
	}
	return rs
}

// A result is one benchmark's line of output.
type result struct {
	ns, bytesPerOp, allocs float64
	mbs                    float64 // 0 when the benchmark sets no bytes
}

func main() {
	quick := flag.Bool("quick", false, "5 rounds, and no slopes")
	rounds := flag.Int("rounds", 15, "rounds of the compared benchmarks")
	benchtime := flag.String("benchtime", "30ms", "-test.benchtime of each benchmark")
	out := flag.String("o", "docs/benchmarks.md", "the Markdown file to write")
	flag.Parse()
	if *quick {
		*rounds = 5
	}
	log.SetFlags(0)
	log.SetPrefix("bench: ")

	tmp, err := os.MkdirTemp("", "mcpvalidate-bench")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(tmp)
	binaries := map[string]string{}
	for _, s := range suites {
		if _, ok := binaries[s.pkg]; ok || s.slope && *quick {
			continue
		}
		bin := filepath.Join(tmp, strconv.Itoa(len(binaries))+".test")
		log.Printf("go test -c %s", s.pkg)
		if err := run(io.Discard, "go", "test", "-c", "-o", bin, s.pkg); err != nil {
			log.Fatal(err)
		}
		binaries[s.pkg] = bin
	}

	header := describe(*quick, *rounds, *benchtime)
	perRound := make([]map[string]result, *rounds) // benchmark name -> its result, per round
	for r := range *rounds {
		perRound[r] = map[string]result{}
		for _, s := range suites {
			if s.slope {
				continue
			}
			log.Printf("round %d/%d: %s %s", r+1, *rounds, s.pkg, s.bench)
			if err := benchmark(binaries[s.pkg], s.bench, *benchtime, perRound[r]); err != nil {
				log.Fatal(err)
			}
		}
	}
	slopes := map[string]result{}
	if !*quick {
		for _, s := range suites {
			if s.slope {
				log.Printf("slopes: %s %s", s.pkg, s.bench)
				if err := benchmark(binaries[s.pkg], s.bench, *benchtime, slopes); err != nil {
					log.Fatal(err)
				}
			}
		}
	}

	var md bytes.Buffer
	md.WriteString(header)
	for _, s := range suites {
		if s.slope && *quick {
			continue
		}
		fmt.Fprintf(&md, "\n## %s\n\n%s\n\n", s.title, s.doc)
		fmt.Fprintf(&md, "```sh\ngo test -run '^$' -bench '%s' -benchmem %s\n```\n\n", s.bench, s.pkg)
		if s.slope {
			writeSlopes(&md, s, slopes)
			continue
		}
		writeTimes(&md, s, perRound)
		writeRatios(&md, s, perRound)
	}
	if err := os.WriteFile(*out, md.Bytes(), 0o644); err != nil {
		log.Fatal(err)
	}
	log.Printf("wrote %s", *out)
}

// run runs a command, its output to w, its errors to stderr.
func run(w io.Writer, name string, args ...string) error {
	cmd := exec.Command(name, args...)
	cmd.Stdout, cmd.Stderr = w, os.Stderr
	return cmd.Run()
}

// output returns a command's output, trimmed, or "unknown".
func output(name string, args ...string) string {
	b, err := exec.Command(name, args...).Output()
	if err != nil {
		return "unknown"
	}
	return strings.TrimSpace(string(b))
}

// describe returns the file's header: what was measured, where, when and how.
func describe(quick bool, rounds int, benchtime string) string {
	commit := output("git", "rev-parse", "HEAD")
	if output("git", "status", "--porcelain", "--untracked-files=no") != "" {
		commit += " (with uncommitted changes)"
	}
	mode := fmt.Sprintf("%d rounds, `-test.benchtime %s`", rounds, benchtime)
	if quick {
		mode += " (`-quick`: no slopes)"
	}
	var b strings.Builder
	b.WriteString("# Benchmark figures\n\n")
	b.WriteString("Generated by `go run ./internal/cmd/bench` (`-quick` for a short run); do not edit by hand.\n" +
		"[performance.md](performance.md) explains what is measured and why.\n\n")
	fmt.Fprintf(&b, "| | |\n|---|---|\n")
	fmt.Fprintf(&b, "| commit | `%s` |\n", commit)
	fmt.Fprintf(&b, "| machine | %s, %s, %d cores |\n", output("go", "env", "GOOS")+"/"+output("go", "env", "GOARCH"), cpuModel(), runtime.NumCPU())
	fmt.Fprintf(&b, "| Go | %s |\n", output("go", "env", "GOVERSION"))
	fmt.Fprintf(&b, "| date | %s |\n", time.Now().UTC().Format("2006-01-02 15:04 MST"))
	fmt.Fprintf(&b, "| run | %s |\n", mode)
	b.WriteString("\nTimes are the median of the rounds, with the fastest and slowest round in brackets; " +
		"a ratio is the median of the ratios taken within each round, with their range. " +
		"These machines' times swing by a third from one run to the next, so the ratios mean more than the times. " +
		"Bytes and allocations per call are exact.\n")
	return b.String()
}

// cpuModel returns the first "model name" of /proc/cpuinfo.
func cpuModel() string {
	f, err := os.Open("/proc/cpuinfo")
	if err != nil {
		return "CPU unknown"
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return "CPU unknown"
}

// benchmark runs the benchmarks of bin matching pattern once each and adds their results to into.
func benchmark(bin, pattern, benchtime string, into map[string]result) error {
	var out bytes.Buffer
	err := run(&out, bin, "-test.run", "^$", "-test.bench", pattern, "-test.benchmem",
		"-test.benchtime", benchtime, "-test.count", "1")
	if err != nil {
		os.Stderr.Write(out.Bytes())
		return fmt.Errorf("%s -test.bench %s: %w", filepath.Base(bin), pattern, err)
	}
	n := parse(out.String(), into)
	if n == 0 {
		return fmt.Errorf("%s -test.bench %s: no benchmark ran", filepath.Base(bin), pattern)
	}
	return nil
}

// parse adds the results of go test's benchmark lines in out to into, named without the
// GOMAXPROCS suffix, and returns how many it found.
func parse(out string, into map[string]result) int {
	n := 0
	for line := range strings.Lines(out) {
		f := strings.Fields(line)
		if len(f) < 4 || !strings.HasPrefix(f[0], "Benchmark") {
			continue
		}
		name := f[0]
		if i := strings.LastIndexByte(name, '-'); i > 0 {
			if _, err := strconv.Atoi(name[i+1:]); err == nil {
				name = name[:i]
			}
		}
		var r result
		for i := 2; i+1 < len(f); i += 2 {
			v, err := strconv.ParseFloat(f[i], 64)
			if err != nil {
				continue
			}
			switch f[i+1] {
			case "ns/op":
				r.ns = v
			case "MB/s":
				r.mbs = v
			case "B/op":
				r.bytesPerOp = v
			case "allocs/op":
				r.allocs = v
			}
		}
		if r.ns > 0 {
			into[name] = r
			n++
		}
	}
	return n
}

// names returns the benchmarks of s found in the first round, sorted.
func names(s suite, perRound []map[string]result) []string {
	var all []string
	for name := range perRound[0] {
		if matches(s, name) {
			all = append(all, name)
		}
	}
	slices.Sort(all)
	return all
}

// matches reports whether name is one of s's benchmarks: its top-level name is in s.bench.
func matches(s suite, name string) bool {
	top, _, _ := strings.Cut(name, "/")
	inner := strings.TrimSuffix(strings.TrimPrefix(s.bench, "^"), "$")
	inner = strings.TrimSuffix(strings.TrimPrefix(inner, "("), ")")
	for alt := range strings.SplitSeq(inner, "|") {
		if alt == top {
			return true
		}
	}
	return false
}

func writeTimes(w io.Writer, s suite, perRound []map[string]result) {
	fmt.Fprintf(w, "| benchmark | time | B/op | allocs/op |\n|---|---|---|---|\n")
	for _, name := range names(s, perRound) {
		var times []float64
		for _, round := range perRound {
			if r, ok := round[name]; ok {
				times = append(times, r.ns)
			}
		}
		last := perRound[0][name]
		fmt.Fprintf(w, "| `%s` | %s (%s to %s) | %.0f | %.0f |\n", name, duration(median(times)),
			duration(slices.Min(times)), duration(slices.Max(times)), last.bytesPerOp, last.allocs)
	}
}

func writeRatios(w io.Writer, s suite, perRound []map[string]result) {
	if len(s.ratios) == 0 {
		return
	}
	fmt.Fprintf(w, "\n| ratio | median | range |\n|---|---|---|\n")
	for _, rt := range s.ratios {
		var rs []float64
		for _, round := range perRound {
			num, ok1 := round[rt.num]
			den, ok2 := round[rt.den]
			if ok1 && ok2 {
				rs = append(rs, num.ns/den.ns)
			}
		}
		if len(rs) == 0 {
			fmt.Fprintf(w, "| %s | not measured | |\n", rt.what)
			continue
		}
		fmt.Fprintf(w, "| %s | %.2f | %.2f to %.2f |\n", rt.what, median(rs), slices.Min(rs), slices.Max(rs))
	}
}

func writeSlopes(w io.Writer, s suite, results map[string]result) {
	var all []string
	for name := range results {
		if matches(s, name) {
			all = append(all, name)
		}
	}
	slices.Sort(all)
	fmt.Fprintf(w, "| benchmark | time | MB/s | B/op | allocs/op |\n|---|---|---|---|---|\n")
	for _, name := range all {
		r := results[name]
		mbs := "–"
		if r.mbs > 0 {
			mbs = strconv.FormatFloat(r.mbs, 'f', 1, 64)
		}
		fmt.Fprintf(w, "| `%s` | %s | %s | %.0f | %.0f |\n", name, duration(r.ns), mbs, r.bytesPerOp, r.allocs)
	}
}

// median returns the median of xs, which is not empty.
func median(xs []float64) float64 {
	s := slices.Sorted(slices.Values(xs))
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// duration formats ns nanoseconds with three significant digits.
func duration(ns float64) string {
	unit, div := "ns", 1.0
	switch {
	case ns >= 1e9:
		unit, div = "s", 1e9
	case ns >= 1e6:
		unit, div = "ms", 1e6
	case ns >= 1e3:
		unit, div = "µs", 1e3
	}
	v := ns / div
	switch {
	case v >= 100:
		return fmt.Sprintf("%.0f %s", v, unit)
	case v >= 10:
		return fmt.Sprintf("%.1f %s", v, unit)
	}
	return fmt.Sprintf("%.2f %s", v, unit)
}
