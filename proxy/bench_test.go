package proxy

import (
	"context"
	"encoding/json"
	"os/exec"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// BenchmarkProxy measures a valid call's round trip from go-sdk's client to the go-sdk
// server, direct and through the proxy, in one interleaved run, so that both see the
// same machine: over stdio with one session, and over streamable HTTP with 1 and 64
// sessions at once. It reports each path's time per call and their ratio (proxy/direct;
// for 64 sessions, the ratio of throughputs, direct/proxy, is its inverse).
func BenchmarkProxy(b *testing.B) {
	server := rawServer(b)
	args := json.RawMessage(`{"location":"Oslo","days":3,"units":"c"}`)
	b.Run("stdio", func(b *testing.B) {
		direct := connectB(b, &mcp.CommandTransport{Command: exec.Command(server)})
		through := connectB(b, &mcp.CommandTransport{Command: proxied(server)})
		interleave(b, []*mcp.ClientSession{direct}, []*mcp.ClientSession{through}, args)
	})
	for _, sessions := range []int{1, 64} {
		name := map[int]string{1: "http-1", 64: "http-64"}[sessions]
		b.Run(name, func(b *testing.B) {
			upstream := httpServer(b)
			endpoint := startFront(b, upstream, Options{})
			var direct, through []*mcp.ClientSession
			for range sessions {
				direct = append(direct, connectB(b, &mcp.StreamableClientTransport{Endpoint: upstream, MaxRetries: -1}))
				through = append(through, connectB(b, &mcp.StreamableClientTransport{Endpoint: endpoint, MaxRetries: -1}))
			}
			interleave(b, direct, through, args)
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
// through the proxy, and reports the time of each.
func interleave(b *testing.B, direct, through []*mcp.ClientSession, args json.RawMessage) {
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
	var d, p time.Duration
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
}
