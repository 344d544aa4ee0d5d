package interop

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpvalidate/mcpvalidate/guard/proxy"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// BenchmarkProxy measures a valid call's round trip from go-sdk's client to the go-sdk
// server, direct and through the proxy, in one interleaved run, so that both see the
// same machine: over stdio with one session and 1 or 64 calls on it at once, and over
// streamable HTTP with 1 and 64 sessions at once. It reports each path's time per call
// and their ratio (proxy/direct; for 64 calls at once, the ratio of throughputs,
// direct/proxy, is its inverse), and over stdio the proxy process's CPU time and waits
// (voluntary context switches) per call.
func BenchmarkProxy(b *testing.B) {
	server := rawServer(b)
	args := json.RawMessage(`{"location":"Oslo","days":3,"units":"c"}`)
	for _, calls := range []int{1, 64} {
		name := map[int]string{1: "stdio", 64: "stdio-64"}[calls]
		b.Run(name, func(b *testing.B) {
			direct := connectB(b, &mcp.CommandTransport{Command: exec.Command(server)})
			cmd := proxied(server)
			through := connectB(b, &mcp.CommandTransport{Command: cmd})
			// 64: as many calls at once on the one session, each path.
			interleave(b, slices.Repeat([]*mcp.ClientSession{direct}, calls), slices.Repeat([]*mcp.ClientSession{through}, calls), args,
				func() (time.Duration, int64) { return usage(cmd.Process.Pid) })
		})
	}
	for _, sessions := range []int{1, 64} {
		name := map[int]string{1: "http-1", 64: "http-64"}[sessions]
		b.Run(name, func(b *testing.B) {
			upstream := httpServer(b)
			endpoint := startFront(b, upstream, proxy.Options{})
			var direct, through []*mcp.ClientSession
			for range sessions {
				direct = append(direct, connectB(b, &mcp.StreamableClientTransport{Endpoint: upstream, MaxRetries: -1}))
				through = append(through, connectB(b, &mcp.StreamableClientTransport{Endpoint: endpoint, MaxRetries: -1}))
			}
			interleave(b, direct, through, args, nil)
		})
	}
}

func connectB(b *testing.B, t mcp.Transport) *mcp.ClientSession {
	b.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1.0.0"}, nil)
	cs, err := client.Connect(context.Background(), t, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { cs.Close() })
	return cs
}

// interleave runs rounds of calls, one call per session at once, alternating direct and
// through the proxy, and reports the time of each; and, when proc is not nil (it returns
// the proxy process's CPU time and waits so far), the proxy's CPU time and waits a call.
func interleave(b *testing.B, direct, through []*mcp.ClientSession, args json.RawMessage, proc func() (time.Duration, int64)) {
	round := func(sessions []*mcp.ClientSession) time.Duration {
		start := time.Now()
		var wg sync.WaitGroup
		for _, cs := range sessions {
			wg.Go(func() {
				res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "weather", Arguments: args})
				if err != nil || res.IsError {
					b.Errorf("call: %v %v", err, res)
				}
			})
		}
		wg.Wait()
		return time.Since(start)
	}
	round(direct) // warm both paths: the first call compiles the schema, the proxy lists the tools
	round(through)
	var d, p, cpuStart time.Duration
	var waitsStart int64
	if proc != nil {
		cpuStart, waitsStart = proc()
	}
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		if i%2 == 0 {
			d += round(direct)
			p += round(through)
		} else {
			p += round(through)
			d += round(direct)
		}
	}
	n := float64(b.N * len(direct))
	b.ReportMetric(float64(d.Nanoseconds())/n, "direct-ns/call")
	b.ReportMetric(float64(p.Nanoseconds())/n, "proxy-ns/call")
	b.ReportMetric(float64(p)/float64(d), "proxy/direct")
	if proc != nil {
		if cpu, waits := proc(); cpu > 0 {
			b.ReportMetric(float64((cpu-cpuStart).Nanoseconds())/n, "proxy-cpu-ns/call")
			b.ReportMetric(float64(waits-waitsStart)/n, "proxy-waits/call")
		}
	}
}

// usage returns the CPU time the process pid has used and the times its threads gave up
// the CPU, waiting, summed over its threads, from Linux's /proc/PID/task/*/schedstat and
// status; zero where there are none.
func usage(pid int) (cpu time.Duration, waits int64) {
	tasks, _ := filepath.Glob("/proc/" + strconv.Itoa(pid) + "/task/*")
	for _, task := range tasks {
		if b, err := os.ReadFile(task + "/schedstat"); err == nil {
			if fields := strings.Fields(string(b)); len(fields) > 0 {
				ns, _ := strconv.ParseInt(fields[0], 10, 64)
				cpu += time.Duration(ns)
			}
		}
		if b, err := os.ReadFile(task + "/status"); err == nil {
			for _, line := range strings.Split(string(b), "\n") {
				if n, ok := strings.CutPrefix(line, "voluntary_ctxt_switches:"); ok {
					v, _ := strconv.ParseInt(strings.TrimSpace(n), 10, 64)
					waits += v
				}
			}
		}
	}
	return cpu, waits
}
