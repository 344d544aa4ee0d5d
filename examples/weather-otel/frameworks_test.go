package main

import (
	"context"
	"io"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/mcpvalidate/mcpvalidate"
	"github.com/mcpvalidate/mcpvalidate/examples/internal/weathertools"
	"github.com/mcpvalidate/mcpvalidate/gosdk"
	"github.com/mcpvalidate/mcpvalidate/guard"
	mcpvalidateotel "github.com/mcpvalidate/mcpvalidate/otel"
)

// instruments is an Instrumentation recording into an in-memory reader, and a tracer
// provider recording into a span recorder.
type instruments struct {
	inst   *mcpvalidateotel.Instrumentation
	reader *sdkmetric.ManualReader
	spans  *tracetest.SpanRecorder
	tp     *sdktrace.TracerProvider
}

func newInstruments(t *testing.T) *instruments {
	t.Helper()
	in := &instruments{reader: sdkmetric.NewManualReader(), spans: tracetest.NewSpanRecorder()}
	in.tp = sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(in.spans))
	var err error
	in.inst, err = mcpvalidateotel.New(mcpvalidateotel.WithMeterProvider(sdkmetric.NewMeterProvider(sdkmetric.WithReader(in.reader))))
	if err != nil {
		t.Fatal(err)
	}
	return in
}

// points returns every data point's count (sums and histograms) as "name{k=v,...}".
func (in *instruments) points(t *testing.T) map[string]int64 {
	t.Helper()
	var rm metricdata.ResourceMetrics
	if err := in.reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	out := map[string]int64{}
	key := func(name string, s attribute.Set) string {
		var kv []string
		for _, a := range s.ToSlice() {
			kv = append(kv, string(a.Key)+"="+a.Value.String())
		}
		slices.Sort(kv)
		return name + "{" + strings.Join(kv, ",") + "}"
	}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			switch d := m.Data.(type) {
			case metricdata.Sum[int64]:
				for _, p := range d.DataPoints {
					out[key(m.Name, p.Attributes)] = p.Value
				}
			case metricdata.Histogram[float64]:
				for _, p := range d.DataPoints {
					out[key(m.Name, p.Attributes)] = int64(p.Count)
				}
			}
		}
	}
	return out
}

// theMix is what both frameworks are sent, on one MCP session: two refusals of weather
// repaired by a valid call, a valid call, and a station whose result is withheld.
var theMix = []struct {
	tool string
	args map[string]any
}{
	{"weather", map[string]any{"days": "two"}},
	{"weather", map[string]any{"location": "Paris", "units": "k"}},
	{"weather", map[string]any{"location": "Paris"}},
	{"weather", map[string]any{"location": "Oslo", "days": 2}},
	{"station", map[string]any{"id": "Bouvet"}},
}

// wantAfterTheMix are the points theMix leaves, on either framework; op is the
// attributes of mcp.server.operation.duration besides error.type.
func wantAfterTheMix(op string) map[string]int64 {
	calls := func(tool, outcome string) string {
		return "mcpvalidate.calls{gen_ai.tool.name=" + tool + ",mcpvalidate.outcome=" + outcome + ",mcpvalidate.report_only=false}"
	}
	opOf := func(tool string) string { return strings.ReplaceAll(op, "TOOL", tool) }
	viol := "mcpvalidate.violations{gen_ai.tool.name=weather,mcpvalidate.violation.in=arguments,"
	return map[string]int64{
		calls("weather", "refused"):                                                          2,
		calls("weather", "accepted"):                                                         2,
		calls("station", "accepted"):                                                         1,
		calls("station", "result_refused"):                                                   1,
		"mcpvalidate.repairs{gen_ai.tool.name=weather}":                                      1,
		"mcpvalidate.retries{gen_ai.tool.name=weather}":                                      2,
		viol + "mcpvalidate.violation.keyword=required,mcpvalidate.violation.kind=required}": 1,
		viol + "mcpvalidate.violation.keyword=type,mcpvalidate.violation.kind=type}":         1,
		viol + "mcpvalidate.violation.keyword=enum,mcpvalidate.violation.kind=enum}":         1,
		"mcpvalidate.violations{gen_ai.tool.name=station,mcpvalidate.violation.in=result,mcpvalidate.violation.keyword=type,mcpvalidate.violation.kind=type}": 1,
		"mcp.server.operation.duration{" + opOf("weather") + "}":                       2,
		"mcp.server.operation.duration{error.type=tool_error," + opOf("weather") + "}": 2,
		"mcp.server.operation.duration{error.type=tool_error," + opOf("station") + "}": 1,
	}
}

func checkPoints(t *testing.T, got, want map[string]int64) {
	t.Helper()
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %d, want %d", k, got[k], v)
		}
	}
	for k := range got {
		if _, ok := want[k]; !ok && !strings.HasPrefix(k, "mcpvalidate.cache.") {
			t.Errorf("unexpected point %s = %d", k, got[k])
		}
	}
}

// checkSpans: the first two calls' spans carry the refusal, the third and fourth say
// accepted, the station's says result_refused.
func checkSpans(t *testing.T, spans []sdktrace.ReadOnlySpan) {
	t.Helper()
	var outcomes []string
	for _, s := range spans {
		if !strings.HasPrefix(s.Name(), "tools/call ") {
			continue
		}
		outcome, events := "", 0
		for _, kv := range s.Attributes() {
			if kv.Key == mcpvalidateotel.KeyOutcome {
				outcome = kv.Value.AsString()
			}
		}
		for _, e := range s.Events() {
			if e.Name == mcpvalidateotel.RefusalEvent {
				events++
			}
		}
		outcomes = append(outcomes, outcome+"/"+strings.Repeat("e", events))
	}
	want := []string{"refused/e", "refused/e", "accepted/", "accepted/", "result_refused/e"}
	if !slices.Equal(outcomes, want) {
		t.Errorf("span outcomes %q, want %q", outcomes, want)
	}
}

// TestMCPGo: theMix through mcp-go's in-process client to examples/weather's server; each
// call in a span of the client's, which the in-process transport hands to the handler.
func TestMCPGo(t *testing.T) {
	in := newInstruments(t)
	g := mcpvalidate.New(in.inst.Option(), guard.WithOutputValidation())
	if err := in.inst.ObserveCache(g.Guard()); err != nil {
		t.Fatal(err)
	}
	srv := weathertools.NewServer(g)
	c, err := client.NewInProcessClient(srv)
	if err != nil {
		t.Fatal(err)
	}
	initialized(t, c, "2025-06-18")
	ctx := context.Background()
	for _, call := range theMix {
		cctx, span := in.tp.Tracer("test").Start(ctx, "tools/call "+call.tool)
		req := mcp.CallToolRequest{}
		req.Params.Name, req.Params.Arguments = call.tool, call.args
		if _, err := c.CallTool(cctx, req); err != nil {
			t.Fatal(err)
		}
		span.End()
	}
	checkPoints(t, in.points(t), wantAfterTheMix("gen_ai.operation.name=execute_tool,gen_ai.tool.name=TOOL,mcp.method.name=tools/call"))
	checkSpans(t, in.spans.Ended())
}

// TestGoSDK: theMix through go-sdk's client over in-memory transports to
// examples/gosdk-weather's tools, typed and raw; a receiving middleware starts each
// call's span, as a server's tracing would.
func TestGoSDK(t *testing.T) {
	in := newInstruments(t)
	g := gosdk.New(in.inst.Option(), guard.WithOutputValidation())
	if err := in.inst.ObserveCache(g.Guard()); err != nil {
		t.Fatal(err)
	}
	srv := sdk.NewServer(&sdk.Implementation{Name: "weather", Version: "1.0.0"}, nil)
	type forecastIn struct {
		Location string `json:"location"`
		Days     int    `json:"days,omitempty"`
		Units    string `json:"units,omitempty" jsonschema:"c or f"`
	}
	weather := &sdk.Tool{Name: "weather", InputSchema: map[string]any{"type": "object", "additionalProperties": false,
		"required": []any{"location"}, "properties": map[string]any{"location": map[string]any{"type": "string"},
			"days": map[string]any{"type": "integer"}, "units": map[string]any{"type": "string", "enum": []any{"c", "f"}}}}}
	gosdk.AddTool(g, srv, weather, func(context.Context, *sdk.CallToolRequest, forecastIn) (*sdk.CallToolResult, any, error) {
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "Sunny"}}}, nil, nil
	})
	station := &sdk.Tool{Name: "station", InputSchema: map[string]any{"type": "object", "required": []any{"id"},
		"properties": map[string]any{"id": map[string]any{"type": "string"}}},
		OutputSchema: map[string]any{"type": "object", "required": []any{"celsius"}, "properties": map[string]any{"celsius": map[string]any{"type": "number"}}}}
	srv.AddTool(station, g.Handler(station, func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "offline"}}, StructuredContent: map[string]any{"celsius": nil}}, nil
	}))
	srv.AddReceivingMiddleware(func(next sdk.MethodHandler) sdk.MethodHandler {
		return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
			if p, ok := req.GetParams().(*sdk.CallToolParamsRaw); ok {
				ctx, s := in.tp.Tracer("test").Start(ctx, method+" "+p.Name)
				defer s.End()
				return next(ctx, method, req)
			}
			return next(ctx, method, req)
		}
	})
	st, ct := sdk.NewInMemoryTransports()
	ss, err := srv.Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Wait()
	defer ss.Close()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil).Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	for _, call := range theMix {
		if _, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: call.tool, Arguments: call.args}); err != nil {
			t.Fatal(err)
		}
	}
	version := ss.InitializeParams().ProtocolVersion
	if version == "" {
		t.Fatal("go-sdk negotiated no protocol version")
	}
	checkPoints(t, in.points(t), wantAfterTheMix("gen_ai.operation.name=execute_tool,gen_ai.tool.name=TOOL,mcp.method.name=tools/call,mcp.protocol.version="+version))
	checkSpans(t, in.spans.Ended())
}

// TestMCPGoProtocolVersion: theMix through mcp-go over streamable HTTP, stdio and its
// in-process client with a session, to examples/weather's server checked at start-up
// (CheckServer): every operation carries the protocol version the client negotiated,
// whichever way mcp-go tells it.
func TestMCPGoProtocolVersion(t *testing.T) {
	const version = "2025-03-26" // neither mcp-go release's default
	transports := map[string]func(t *testing.T, srv *server.MCPServer) *client.Client{
		"streamable HTTP": func(t *testing.T, srv *server.MCPServer) *client.Client {
			hs := httptest.NewServer(server.NewStreamableHTTPServer(srv))
			t.Cleanup(hs.Close)
			c, err := client.NewStreamableHttpClient(hs.URL + "/mcp")
			if err != nil {
				t.Fatal(err)
			}
			return c
		},
		"stdio": func(t *testing.T, srv *server.MCPServer) *client.Client {
			toServer, fromClient := io.Pipe()
			toClient, fromServer := io.Pipe()
			ctx, cancel := context.WithCancel(context.Background())
			var wg sync.WaitGroup
			wg.Go(func() { _ = server.NewStdioServer(srv).Listen(ctx, toServer, fromServer) })
			t.Cleanup(func() {
				cancel()
				fromClient.Close()
				toServer.Close()
				toClient.Close()
				wg.Wait()
			})
			return client.NewClient(transport.NewIO(toClient, fromClient, nil))
		},
		"in-process": func(t *testing.T, srv *server.MCPServer) *client.Client {
			c, err := client.NewInProcessClientWithSamplingHandler(srv, noSampling{})
			if err != nil {
				t.Fatal(err)
			}
			return c
		},
	}
	for name, connect := range transports {
		t.Run(name, func(t *testing.T) {
			in := newInstruments(t)
			g := mcpvalidate.New(in.inst.Option(), guard.WithOutputValidation())
			srv := weathertools.NewServer(g)
			if err := g.CheckServer(srv); err != nil {
				t.Fatal(err)
			}
			c := initialized(t, connect(t, srv), version)
			ctx := context.Background()
			for _, call := range theMix {
				req := mcp.CallToolRequest{}
				req.Params.Name, req.Params.Arguments = call.tool, call.args
				if _, err := c.CallTool(ctx, req); err != nil {
					t.Fatal(err)
				}
			}
			checkPoints(t, in.points(t), wantAfterTheMix("gen_ai.operation.name=execute_tool,gen_ai.tool.name=TOOL,mcp.method.name=tools/call,mcp.protocol.version="+version))
		})
	}
}

// initialized starts c and initializes its session with the protocol version; c is closed
// when the test ends.
func initialized(tb testing.TB, c *client.Client, version string) *client.Client {
	tb.Helper()
	tb.Cleanup(func() { c.Close() })
	ctx := context.Background()
	if err := c.Start(ctx); err != nil {
		tb.Fatal(err)
	}
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = version
	init.Params.ClientInfo = mcp.Implementation{Name: "test", Version: "1"}
	if _, err := c.Initialize(ctx, init); err != nil {
		tb.Fatal(err)
	}
	return c
}

// noSampling is a client's sampling handler that samples nothing: with one, mcp-go's
// in-process client has a session on every release.
type noSampling struct{}

func (noSampling) CreateMessage(context.Context, mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
	return nil, io.EOF
}
