package main

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"

	"github.com/mcpvalidate/mcpvalidate"
	"github.com/mcpvalidate/mcpvalidate/examples/internal/weathertools"
	mcpvalidateotel "github.com/mcpvalidate/mcpvalidate/otel"
)

// BenchmarkInstrumentedCall: a valid weather call through mcp-go's HandleMessage, behind
// the guard alone and behind the guard with the OpenTelemetry instrumentation (the SDK's
// MeterProvider, its reader never collecting), interleaved call by call, the order
// alternating, so that both meet the same machine. It reports each one's median time per
// call and their ratio, instrumented over plain (medians: a call the machine preempts
// moves neither), and each one's allocations per call.
func BenchmarkInstrumentedCall(b *testing.B) {
	inst, err := mcpvalidateotel.New(mcpvalidateotel.WithMeterProvider(sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader()))))
	if err != nil {
		b.Fatal(err)
	}
	plain := weathertools.NewServer(mcpvalidate.New())
	instrumented := weathertools.NewServer(mcpvalidate.New(inst.Option()))
	msg := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"weather","arguments":{"location":"Paris","days":3,"units":"c"}}}`)
	ctx := context.Background()
	call := func(srv *server.MCPServer) {
		res, ok := srv.HandleMessage(ctx, msg).(mcp.JSONRPCResponse)
		if !ok || res.Result.(*mcp.CallToolResult).IsError {
			b.Fatalf("the call failed: %#v", res)
		}
	}
	call(plain)
	call(instrumented)
	var tPlain, tInst []time.Duration
	i := 0
	for b.Loop() {
		first, second, tFirst, tSecond := plain, instrumented, &tPlain, &tInst
		if i%2 == 1 {
			first, second, tFirst, tSecond = instrumented, plain, &tInst, &tPlain
		}
		i++
		t0 := time.Now()
		call(first)
		t1 := time.Now()
		call(second)
		t2 := time.Now()
		*tFirst = append(*tFirst, t1.Sub(t0))
		*tSecond = append(*tSecond, t2.Sub(t1))
	}
	median := func(ts []time.Duration) float64 {
		slices.Sort(ts)
		return float64(ts[len(ts)/2].Nanoseconds())
	}
	mPlain, mInst := median(tPlain), median(tInst)
	b.ReportMetric(mPlain, "plain-ns/call")
	b.ReportMetric(mInst, "otel-ns/call")
	b.ReportMetric(mInst/mPlain, "otel/plain")
	b.ReportMetric(testing.AllocsPerRun(100, func() { call(plain) }), "plain-allocs/call")
	b.ReportMetric(testing.AllocsPerRun(100, func() { call(instrumented) }), "otel-allocs/call")
}
