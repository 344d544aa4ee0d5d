package interop

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/mcpvalidate/mcpvalidate/guard"
	"github.com/mcpvalidate/mcpvalidate/guard/proxy"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	mcpvalidateotel "github.com/mcpvalidate/mcpvalidate/otel"
)

// observedServer is a go-sdk server whose tools validate nothing (raw AddTool): weather,
// whose result is an error (isError) for the location "storm"; sum, whose outputSchema
// its result breaks when the arguments say "bad"; and broken, whose schema does not
// compile.
func observedServer() *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: "observed", Version: "1"}, nil)
	srv.AddTool(&mcp.Tool{Name: "weather", InputSchema: json.RawMessage(weatherSchema)},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			storm := strings.Contains(string(req.Params.Arguments), "storm")
			return &mcp.CallToolResult{IsError: storm, Content: []mcp.Content{&mcp.TextContent{Text: "forecast"}}}, nil
		})
	srv.AddTool(&mcp.Tool{Name: "sum",
		InputSchema:  json.RawMessage(`{"type":"object","properties":{"a":{"type":"integer"}},"required":["a"]}`),
		OutputSchema: json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}`)},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			out := `{"n":1}`
			if strings.Contains(string(req.Params.Arguments), "bad") {
				out = `{"n":"one"}`
			}
			return &mcp.CallToolResult{StructuredContent: json.RawMessage(out), Content: []mcp.Content{&mcp.TextContent{Text: out}}}, nil
		})
	srv.AddTool(&mcp.Tool{Name: "broken", InputSchema: json.RawMessage(`{"type":"object","properties":{"x":{"type":"nonsense"}}}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ran"}}}, nil
		})
	return srv
}

// TestObservedCalls: through either front, mcpvalidateotel's instruments, read by the
// OTel SDK's manual reader, count every call by tool and outcome, its violations, the
// repair, and each call's operation from request to response with the protocol version
// the session negotiated; a tool name the server does not list is recorded as
// UnknownTool, never as sent; repairs count as the library counts them, once a result
// reaches the client. Options.Trace's span of each call ends once, named after the tool,
// with a refusal event when the guard refused anything.
func TestObservedCalls(t *testing.T) {
	for _, run := range []struct{ front, version string }{{"stdio", ""}, {"http", ""}, {"stdio", "2025-06-18"}, {"http", "2025-06-18"}} {
		t.Run(run.front+"/"+run.version, func(t *testing.T) {
			reader := sdkmetric.NewManualReader()
			mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
			t.Cleanup(func() { mp.Shutdown(context.Background()) })
			inst, err := mcpvalidateotel.New(mcpvalidateotel.WithMeterProvider(mp))
			if err != nil {
				t.Fatal(err)
			}
			spans := tracetest.NewSpanRecorder()
			tracer := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans)).Tracer("test")
			trace := func(proxy.Meta) (context.Context, func(string, bool)) {
				ctx, span := tracer.Start(context.Background(), "tools/call")
				return ctx, func(tool string, isError bool) {
					span.SetName("tools/call " + tool)
					if isError {
						span.SetStatus(codes.Error, "")
					}
					span.End()
				}
			}
			p, err := proxy.New(proxy.Options{Output: true, Guard: []guard.Option{inst.Option()}, Trace: trace})
			if err != nil {
				t.Fatal(err)
			}
			if err := inst.ObserveCache(p.Guard()); err != nil {
				t.Fatal(err)
			}
			// The client's newest version is stateless: each request says its version in
			// its _meta; 2025-06-18 is negotiated by initialize, and over HTTP said again
			// in each request's MCP-Protocol-Version.
			opts := &mcp.ClientSessionOptions{ProtocolVersion: run.version}
			var cs *mcp.ClientSession
			if run.front == "stdio" {
				cs = throughStdio(t, p, observedServer(), opts)
			} else {
				cs = throughHTTP(t, p, observedServer(), opts)
			}
			version := cs.InitializeResult().ProtocolVersion
			if run.version != "" && version != run.version {
				t.Fatalf("negotiated %q; want %q", version, run.version)
			}
			for i, c := range observedCalls {
				res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: c.tool, Arguments: json.RawMessage(c.args)})
				if gotErr := err != nil || res.IsError; gotErr != c.opError {
					t.Errorf("call %d (%s %s): error %v (%v); want %v", i, c.tool, c.args, gotErr, err, c.opError)
				}
				if want, ok := sumRepairs[c.args]; ok && c.tool == "sum" && repaired(p, "sum") != want {
					t.Errorf("after sum %s, sum's repairs %d; want %d", c.args, repaired(p, "sum"), want)
				}
			}
			got := collect(t, reader)
			want := map[string]float64{}
			for _, c := range observedCalls {
				for _, o := range c.outcomes {
					want["mcpvalidate.calls gen_ai.tool.name="+c.opTool+" mcpvalidate.outcome="+o+" mcpvalidate.report_only=false"]++
				}
				for _, v := range c.violations {
					f := strings.Fields(v)
					want["mcpvalidate.violations gen_ai.tool.name="+f[0]+" mcpvalidate.violation.in="+f[3]+" mcpvalidate.violation.keyword="+f[2]+" mcpvalidate.violation.kind="+f[1]]++
				}
				op := "mcp.server.operation.duration"
				if c.opError {
					op += " error.type=tool_error"
				}
				want[op+" gen_ai.operation.name=execute_tool gen_ai.tool.name="+c.opTool+" mcp.method.name=tools/call mcp.protocol.version="+version]++
			}
			want["mcpvalidate.repairs gen_ai.tool.name=weather"] = 1
			want["mcpvalidate.retries gen_ai.tool.name=weather"] = 1
			named := map[string]float64{} // each names the server, as its answer to initialize did
			for k, w := range want {
				fields := strings.Fields(k)
				if version != "2026-07-28" { // whose results carry no serverInfo, and initialize is gone
					fields = append(fields, "mcpvalidate.server.name=observed")
				}
				slices.Sort(fields[1:])
				named[strings.Join(fields, " ")] = w
			}
			want = named
			want["mcpvalidate.cache.schemas"] = 4 // weather, sum's two, broken
			for k, w := range want {
				if got[k] != w {
					t.Errorf("%s: %v; want %v", k, got[k], w)
				}
			}
			for k, v := range got {
				if strings.Contains(k, madeUp) {
					t.Errorf("the made-up tool name is an attribute value: %s", k)
				}
				if _, ok := want[k]; !ok && v != 0 && strings.HasPrefix(k, "mc") && !strings.HasPrefix(k, "mcpvalidate.cache.") &&
					!strings.HasPrefix(k, "mcpvalidate.repairs gen_ai.tool.name=sum") && !strings.HasPrefix(k, "mcpvalidate.retries gen_ai.tool.name=sum") {
					t.Errorf("unexpected %s: %v", k, v)
				}
			}
			if version == "" {
				t.Error("the client negotiated no protocol version")
			}
			ended := spans.Ended()
			if len(ended) != len(observedCalls) {
				t.Fatalf("%d spans; want one a call, %d", len(ended), len(observedCalls))
			}
			for i, c := range observedCalls {
				span := ended[i]
				refusals := 0
				for _, e := range span.Events() {
					if e.Name == mcpvalidateotel.RefusalEvent {
						refusals++
					}
				}
				wantRefusals := 0
				if slices.ContainsFunc(c.outcomes, func(o string) bool { return o != "accepted" }) {
					wantRefusals = 1
				}
				if span.Name() != "tools/call "+c.opTool || (span.Status().Code == codes.Error) != c.opError || refusals != wantRefusals {
					t.Errorf("call %d (%s %s): span %q, status %v, %d refusal events; want %q, error %v, %d",
						i, c.tool, c.args, span.Name(), span.Status().Code, refusals, "tools/call "+c.opTool, c.opError, wantRefusals)
				}
			}
		})
	}
}

// repaired returns the guard's count of the calls of tool that repaired refusals.
func repaired(p *proxy.Proxy, tool string) uint64 {
	for _, s := range p.Guard().Stats() {
		if s.Tool == tool {
			return s.Repaired
		}
	}
	return 0
}

// throughStdio connects go-sdk's client to srv through p's stdio front, over pipes.
func throughStdio(t *testing.T, p *proxy.Proxy, srv *mcp.Server, opts *mcp.ClientSessionOptions) *mcp.ClientSession {
	t.Helper()
	clientIn, toProxy := io.Pipe()
	fromProxy, clientOut := io.Pipe()
	serverReads, serverIn := io.Pipe()
	serverOut, serverWrites := io.Pipe()
	ctx := context.Background()
	ss, err := srv.Connect(ctx, &mcp.IOTransport{Reader: serverReads, Writer: serverWrites}, nil)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		err := p.Serve(clientIn, clientOut, serverIn, serverOut)
		clientOut.Close()
		done <- err
	}()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "observer-test", Version: "1"}, nil).
		Connect(ctx, &mcp.IOTransport{Reader: fromProxy, Writer: toProxy}, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cs.Close()
		ss.Close()
		serverWrites.Close()
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
		clientIn.Close()
	})
	return cs
}

// throughHTTP connects go-sdk's client to srv, served over streamable HTTP on 127.0.0.1,
// through p's HTTP front.
func throughHTTP(t *testing.T, p *proxy.Proxy, srv *mcp.Server, opts *mcp.ClientSessionOptions) *mcp.ClientSession {
	t.Helper()
	upstream := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
	t.Cleanup(upstream.Close)
	h, err := p.Handler(upstream.URL)
	if err != nil {
		t.Fatal(err)
	}
	front := httptest.NewServer(h)
	t.Cleanup(front.Close)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "observer-test", Version: "1"}, nil).
		Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: front.URL, MaxRetries: -1}, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// collect reads every data point of reader as "name attr=value ..." (attributes sorted):
// a sum's or gauge's value, a histogram's count.
func collect(t *testing.T, reader *sdkmetric.ManualReader) map[string]float64 {
	t.Helper()
	var rm metricdata.ResourceMetrics
	if err := reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	key := func(name string, set attribute.Set) string {
		parts := []string{name}
		for _, kv := range set.ToSlice() {
			parts = append(parts, string(kv.Key)+"="+kv.Value.String())
		}
		slices.Sort(parts[1:])
		return strings.Join(parts, " ")
	}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			switch d := m.Data.(type) {
			case metricdata.Sum[int64]:
				for _, dp := range d.DataPoints {
					got[key(m.Name, dp.Attributes)] += float64(dp.Value)
				}
			case metricdata.Gauge[int64]:
				for _, dp := range d.DataPoints {
					got[key(m.Name, dp.Attributes)] += float64(dp.Value)
				}
			case metricdata.Histogram[float64]:
				for _, dp := range d.DataPoints {
					got[key(m.Name, dp.Attributes)] += float64(dp.Count)
				}
			case metricdata.Sum[float64], metricdata.Gauge[float64]:
				// mcpvalidate.check.time and .max: the clock's, tested in otel
			default:
				t.Fatalf("%s: data of type %T", m.Name, m.Data)
			}
		}
	}
	return got
}

// observedCalls are the calls TestObservedCalls makes, in order, with what the guard's
// observers must hear of each: the outcomes of its checks, the violations (tool, kind,
// keyword, where), and its operation's tool and whether it ends in an error.
var observedCalls = []struct {
	tool, args string
	outcomes   []string
	violations []string
	opTool     string
	opError    bool
}{
	{"weather", `{"days":1}`, []string{"refused"}, []string{"weather required required arguments"}, "weather", true},
	{"weather", `{"location":"Paris"}`, []string{"accepted"}, nil, "weather", false}, // repairs the refusal
	{"weather", `{"location":"storm"}`, []string{"accepted"}, nil, "weather", true},  // the tool's own error
	{"sum", `{}`, []string{"refused"}, []string{"sum required required arguments"}, "sum", true},
	{"sum", `{"a":1,"bad":true}`, []string{"accepted", "result_refused"}, []string{"sum type type result"}, "sum", true},
	{"sum", `{"a":2}`, []string{"accepted"}, nil, "sum", false}, // repairs the refusal: its result reached the client
	{"broken", `{}`, []string{"schema_broken"}, nil, "broken", true},
	{madeUp, `{}`, []string{"unknown_tool"}, nil, proxy.UnknownTool, true}, // refused with a JSON-RPC error
}

// sumRepairs are the repairs of sum the guard counts after each call of sum: none while
// the result of the accepted call is withheld, one once an accepted call's result
// reaches the client.
var sumRepairs = map[string]uint64{`{}`: 0, `{"a":1,"bad":true}`: 0, `{"a":2}`: 1}
