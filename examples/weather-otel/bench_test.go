package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/semconv/v1.41.0/mcpconv"

	"github.com/mcpvalidate/mcpvalidate"
	"github.com/mcpvalidate/mcpvalidate/examples/internal/weathertools"
	"github.com/mcpvalidate/mcpvalidate/guard"
	mcpvalidateotel "github.com/mcpvalidate/mcpvalidate/otel"
)

// The benchmarks below time a valid weather call four ways, interleaved call by call, the
// order rotating, so that all meet the same machine:
//   - plain: behind the guard alone;
//   - conv: behind the guard alone, timed and recorded by hand in the MCP conventions'
//     mcp.server.operation.duration with an attribute set made beforehand, as any
//     instrumentation that follows the conventions must;
//   - otel: behind the guard with the OpenTelemetry instrumentation (inst.Option());
//   - ours: behind the guard with the mcpvalidate.* instruments and span annotations alone
//     (WithObserver(inst.Observe)), for a server that records the conventions' duration
//     elsewhere.
//
// Each records through the SDK's MeterProvider, its reader never collecting. They report
// each way's median time per call (a call the machine preempts moves none), otel/plain,
// otel/conv and ours/plain.

const (
	plainWay = iota
	convWay
	otelWay
	oursWay
	ways
)

// benchSetup is what both benchmarks share: a server for each guard, and the conventions'
// instrument recorded by hand.
type benchSetup struct {
	plain, otel, ours *server.MCPServer
	record            func(ctx context.Context, start time.Time)
}

func newBenchSetup(b *testing.B) benchSetup {
	meter := func() metric.MeterProvider {
		return sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader()))
	}
	inst, err := mcpvalidateotel.New(mcpvalidateotel.WithMeterProvider(meter()))
	if err != nil {
		b.Fatal(err)
	}
	op, err := mcpconv.NewServerOperationDuration(meter().Meter("bench"), metric.WithExplicitBucketBoundaries(mcpvalidateotel.OperationBuckets()...))
	if err != nil {
		b.Fatal(err)
	}
	opAttrs := []metric.RecordOption{metric.WithAttributeSet(attribute.NewSet(
		mcpvalidateotel.KeyMethodName.String(string(mcpconv.MethodNameToolsCall)), mcpvalidateotel.KeyToolName.String("weather"),
		mcpvalidateotel.KeyOperationName.String(string(mcpconv.GenAIOperationNameExecuteTool))))}
	return benchSetup{
		plain: weathertools.NewServer(mcpvalidate.New()),
		otel:  weathertools.NewServer(mcpvalidate.New(inst.Option())),
		ours:  weathertools.NewServer(mcpvalidate.New(guard.WithObserver(inst.Observe))),
		record: func(ctx context.Context, start time.Time) {
			op.Inst().Record(ctx, time.Since(start).Seconds(), opAttrs...)
		},
	}
}

// interleave runs the ways in turn until b is done and reports their medians and ratios.
func interleave(b *testing.B, run [ways]func()) {
	for _, w := range run {
		w()
	}
	var took [ways][]time.Duration
	i := 0
	for b.Loop() {
		t0 := time.Now()
		for k := range run {
			w := (i + k) % ways
			run[w]()
			t1 := time.Now()
			took[w] = append(took[w], t1.Sub(t0))
			t0 = t1
		}
		i++
	}
	var m [ways]float64
	for w, ts := range took {
		slices.Sort(ts)
		m[w] = float64(ts[len(ts)/2].Nanoseconds())
	}
	b.ReportMetric(m[plainWay], "plain-ns/call")
	b.ReportMetric(m[convWay], "conv-ns/call")
	b.ReportMetric(m[otelWay], "otel-ns/call")
	b.ReportMetric(m[oursWay], "ours-ns/call")
	b.ReportMetric(m[otelWay]/m[plainWay], "otel/plain")
	b.ReportMetric(m[otelWay]/m[convWay], "otel/conv")
	b.ReportMetric(m[oursWay]/m[plainWay], "ours/plain")
}

// BenchmarkInstrumentedCall calls through mcp-go's HandleMessage, no transport: the
// instrumentation's cost at its most visible. It reports each way's allocations per call.
func BenchmarkInstrumentedCall(b *testing.B) {
	s := newBenchSetup(b)
	msg := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"weather","arguments":{"location":"Paris","days":3,"units":"c"}}}`)
	ctx := context.Background()
	call := func(srv *server.MCPServer) {
		res, ok := srv.HandleMessage(ctx, msg).(mcp.JSONRPCResponse)
		if !ok || res.Result.(*mcp.CallToolResult).IsError {
			b.Fatalf("the call failed: %#v", res)
		}
	}
	run := [ways]func(){
		plainWay: func() { call(s.plain) },
		convWay: func() {
			start := time.Now()
			call(s.plain)
			s.record(ctx, start)
		},
		otelWay: func() { call(s.otel) },
		oursWay: func() { call(s.ours) },
	}
	interleave(b, run)
	for w, name := range [ways]string{"plain", "conv", "otel", "ours"} {
		b.ReportMetric(testing.AllocsPerRun(100, run[w]), name+"-allocs/call")
	}
}

// BenchmarkInstrumentedCallHTTP calls as a deployed server is called: mcp-go's
// streamable HTTP server on 127.0.0.1, one initialized session of mcp-go's client per
// way. conv times each request in an http.Handler around the server's. A call crosses
// goroutines, the loopback and two JSON codecs, so the code the instrumentation adds runs
// with cold caches, as it does in a server.
func BenchmarkInstrumentedCallHTTP(b *testing.B) {
	s := newBenchSetup(b)
	plainHTTP := server.NewStreamableHTTPServer(s.plain)
	conv := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		plainHTTP.ServeHTTP(w, r)
		s.record(r.Context(), start)
	})
	handlers := [ways]http.Handler{plainWay: plainHTTP, convWay: conv,
		otelWay: server.NewStreamableHTTPServer(s.otel), oursWay: server.NewStreamableHTTPServer(s.ours)}
	var run [ways]func()
	for w, h := range handlers {
		ts := httptest.NewServer(h)
		b.Cleanup(ts.Close)
		c, err := client.NewStreamableHttpClient(ts.URL)
		if err != nil {
			b.Fatal(err)
		}
		initialized(b, c, "2025-06-18")
		ctx := context.Background()
		req := mcp.CallToolRequest{}
		req.Params.Name = "weather"
		req.Params.Arguments = map[string]any{"location": "Paris", "days": 3, "units": "c"}
		run[w] = func() {
			res, err := c.CallTool(ctx, req)
			if err != nil || res.IsError {
				b.Fatalf("the call failed: %+v, %v", res, err)
			}
		}
	}
	interleave(b, run)
}
