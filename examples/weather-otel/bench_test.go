package main

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/semconv/v1.41.0/mcpconv"

	"github.com/mcpvalidate/mcpvalidate"
	"github.com/mcpvalidate/mcpvalidate/examples/internal/weathertools"
	mcpvalidateotel "github.com/mcpvalidate/mcpvalidate/otel"
)

// BenchmarkInstrumentedCall: a valid weather call through mcp-go's HandleMessage three
// ways, interleaved call by call, the order rotating, so that all meet the same machine:
// behind the guard alone (plain); behind the guard alone, timed and recorded by hand in the
// MCP conventions' mcp.server.operation.duration with an attribute set made beforehand, as
// any instrumentation that follows the conventions must (conv); behind the guard with the
// OpenTelemetry instrumentation (otel). Each records through the SDK's MeterProvider, its
// reader never collecting. It reports each one's median time per call and the ratios otel
// over plain and otel over conv (medians: a call the machine preempts moves none), and each
// one's allocations per call.
func BenchmarkInstrumentedCall(b *testing.B) {
	meter := func() metric.MeterProvider {
		return sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader()))
	}
	inst, err := mcpvalidateotel.New(mcpvalidateotel.WithMeterProvider(meter()))
	if err != nil {
		b.Fatal(err)
	}
	op, err := mcpconv.NewServerOperationDuration(meter().Meter("bench"), metric.WithExplicitBucketBoundaries(mcpvalidateotel.OperationBuckets...))
	if err != nil {
		b.Fatal(err)
	}
	opAttrs := []metric.RecordOption{metric.WithAttributeSet(attribute.NewSet(
		mcpvalidateotel.KeyMethodName.String(string(mcpconv.MethodNameToolsCall)), mcpvalidateotel.KeyToolName.String("weather"),
		mcpvalidateotel.KeyOperationName.String(string(mcpconv.GenAIOperationNameExecuteTool))))}

	plainSrv := weathertools.NewServer(mcpvalidate.New())
	otelSrv := weathertools.NewServer(mcpvalidate.New(inst.Option()))
	msg := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"weather","arguments":{"location":"Paris","days":3,"units":"c"}}}`)
	ctx := context.Background()
	call := func(srv *server.MCPServer) {
		res, ok := srv.HandleMessage(ctx, msg).(mcp.JSONRPCResponse)
		if !ok || res.Result.(*mcp.CallToolResult).IsError {
			b.Fatalf("the call failed: %#v", res)
		}
	}
	ways := []func(){
		func() { call(plainSrv) },
		func() {
			start := time.Now()
			call(plainSrv)
			op.Inst().Record(ctx, time.Since(start).Seconds(), opAttrs...)
		},
		func() { call(otelSrv) },
	}
	for _, w := range ways {
		w()
	}
	took := make([][]time.Duration, len(ways))
	i := 0
	for b.Loop() {
		t0 := time.Now()
		for k := range ways {
			w := (i + k) % len(ways)
			ways[w]()
			t1 := time.Now()
			took[w] = append(took[w], t1.Sub(t0))
			t0 = t1
		}
		i++
	}
	median := func(ts []time.Duration) float64 {
		slices.Sort(ts)
		return float64(ts[len(ts)/2].Nanoseconds())
	}
	mPlain, mConv, mOtel := median(took[0]), median(took[1]), median(took[2])
	b.ReportMetric(mPlain, "plain-ns/call")
	b.ReportMetric(mConv, "conv-ns/call")
	b.ReportMetric(mOtel, "otel-ns/call")
	b.ReportMetric(mOtel/mPlain, "otel/plain")
	b.ReportMetric(mOtel/mConv, "otel/conv")
	b.ReportMetric(testing.AllocsPerRun(100, ways[0]), "plain-allocs/call")
	b.ReportMetric(testing.AllocsPerRun(100, ways[1]), "conv-allocs/call")
	b.ReportMetric(testing.AllocsPerRun(100, ways[2]), "otel-allocs/call")
}
