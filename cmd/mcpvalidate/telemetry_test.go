package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	colmetricpb "go.opentelemetry.io/proto/otlp/collector/metrics/v1"
	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"

	mcpvalidateotel "github.com/mcpvalidate/mcpvalidate/otel"
)

// commandRole makes the test binary the mcpvalidate command, run with its arguments: the
// command as a process of its own, exiting as main does.
const commandRole = "MCPVALIDATE_CMD_TEST_COMMAND"

func init() {
	if os.Getenv(commandRole) != "" {
		os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
	}
}

// rawServer builds guard/proxy/interop/testdata/rawserver, an MCP server on go-sdk whose tools validate
// nothing, into a temporary directory, and returns its path.
func rawServer(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "rawserver")
	build := exec.Command("go", "build", "-o", path, "./testdata/rawserver")
	build.Dir = filepath.Join("..", "..", "guard", "proxy", "interop")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building rawserver: %v\n%s", err, out)
	}
	return path
}

// A proxyProcess is `mcpvalidate proxy` running in front of rawserver, with a client's
// pipes.
type proxyProcess struct {
	cmd    *exec.Cmd
	in     io.WriteCloser
	out    *bufio.Reader
	stderr *bufio.Reader
}

// startProxy starts `mcpvalidate proxy ARGS -- rawserver`; the test stops it.
func startProxy(t *testing.T, args ...string) *proxyProcess {
	t.Helper()
	server := rawServer(t)
	cmd := exec.Command(os.Args[0], append(append([]string{"proxy"}, args...), "--", server)...)
	cmd.Env = append(os.Environ(), commandRole+"=1")
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &proxyProcess{cmd: cmd, in: in, out: bufio.NewReader(out), stderr: bufio.NewReader(stderr)}
	t.Cleanup(func() {
		in.Close()
		go io.Copy(io.Discard, p.out)
		go io.Copy(io.Discard, p.stderr)
		cmd.Wait()
	})
	return p
}

// session has the client initialize at protocol version 2025-06-18, then call weather
// invalid times with invalid arguments, valid times with valid ones (the first repairs the
// refusals), and a tool the server does not list unknown times, each answered before the
// next.
func (p *proxyProcess) session(t *testing.T, valid, invalid, unknown int) {
	t.Helper()
	p.send(t, 0, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"telemetry-test","version":"1"}}}`)
	if _, err := io.WriteString(p.in, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n"); err != nil {
		t.Fatal(err)
	}
	id := 0
	call := func(tool, args string, n int) {
		for range n {
			id++
			p.send(t, id, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":%s,"_meta":{"traceparent":%q}}}`,
				id, tool, args, traceparent))
		}
	}
	call("weather", `{"days":"SECRET"}`, invalid)
	call("weather", `{"location":"Oslo"}`, valid)
	call("made-up-tool-9c1d", `{}`, unknown)
}

// traceparent is the client's span, which each call's _meta carries: trace
// 4bf92f3577b34da6a3ce929d0e0e4736, span 00f067aa0ba902b7.
const traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"

// send sends one request and reads lines until its answer.
func (p *proxyProcess) send(t *testing.T, id int, req string) {
	t.Helper()
	if _, err := io.WriteString(p.in, req+"\n"); err != nil {
		t.Fatal(err)
	}
	for {
		line, err := p.out.ReadBytes('\n')
		if err != nil {
			t.Fatalf("reading the answer to %d: %v", id, err)
		}
		var m struct{ ID *int }
		if json.Unmarshal(line, &m) == nil && m.ID != nil && *m.ID == id {
			return
		}
	}
}

// wantSeries are the series the calls of session(valid, invalid, unknown) leave, as
// "name attr=value ..." (attributes sorted) with their counts, in OTLP's names.
func wantSeries(valid, invalid, unknown int) map[string]float64 {
	op := "mcp.server.operation.duration "
	attrs := " gen_ai.operation.name=execute_tool gen_ai.tool.name=%s mcp.method.name=tools/call mcp.protocol.version=2025-06-18"
	want := map[string]float64{
		"mcpvalidate.calls gen_ai.tool.name=weather mcpvalidate.outcome=accepted mcpvalidate.report_only=false":                                                         float64(valid),
		"mcpvalidate.calls gen_ai.tool.name=weather mcpvalidate.outcome=refused mcpvalidate.report_only=false":                                                          float64(invalid),
		"mcpvalidate.violations gen_ai.tool.name=weather mcpvalidate.violation.in=arguments mcpvalidate.violation.keyword=required mcpvalidate.violation.kind=required": float64(invalid),
		"mcpvalidate.violations gen_ai.tool.name=weather mcpvalidate.violation.in=arguments mcpvalidate.violation.keyword=type mcpvalidate.violation.kind=type":         float64(invalid),
		"mcpvalidate.repairs gen_ai.tool.name=weather":                                                               1,
		"mcpvalidate.retries gen_ai.tool.name=weather":                                                               float64(invalid),
		strings.TrimSpace(op + fmt.Sprintf(attrs[1:], "weather")):                                                    float64(valid),
		op + "error.type=tool_error" + fmt.Sprintf(attrs, "weather"):                                                 float64(invalid),
		op + "error.type=tool_error" + fmt.Sprintf(attrs, "_unknown"):                                                float64(unknown),
		"mcpvalidate.calls gen_ai.tool.name=_unknown mcpvalidate.outcome=unknown_tool mcpvalidate.report_only=false": float64(unknown),
	}
	named := map[string]float64{} // each names the server, as its answer to initialize did
	for k, v := range want {
		fields := append(strings.Fields(k), "mcpvalidate.server.name=rawserver")
		slices.Sort(fields[1:])
		named[strings.Join(fields, " ")] = v
	}
	return named
}

// TestOTLP runs `mcpvalidate proxy -otlp URL` as a process in front of rawserver, with a
// receiver of OTLP/HTTP on 127.0.0.1 written here: once the client's input ends and the
// proxy exits, the metrics it pushed count the calls made, by tool, outcome and protocol
// version, and name no tool the server does not list; it pushed one server span a call,
// a child of the client's span that the call's _meta named, with a refusal event on each
// refused call's.
func TestOTLP(t *testing.T) {
	var mu sync.Mutex
	got := map[string]float64{}
	service := ""
	var spans []*tracepb.Span
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/otel/v1/metrics" && r.URL.Path != "/otel/v1/traces" || r.Header.Get("Content-Type") != "application/x-protobuf" {
			http.Error(w, "not OTLP/HTTP: "+r.URL.Path, http.StatusNotFound)
			return
		}
		var body io.Reader = r.Body
		if r.Header.Get("Content-Encoding") == "gzip" {
			z, err := gzip.NewReader(r.Body)
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			body = z
		}
		b, err := io.ReadAll(body)
		if err == nil && r.URL.Path == "/otel/v1/traces" {
			var req coltracepb.ExportTraceServiceRequest
			if err = proto.Unmarshal(b, &req); err == nil {
				mu.Lock()
				for _, rs := range req.ResourceSpans {
					for _, ss := range rs.ScopeSpans {
						spans = append(spans, ss.Spans...)
					}
				}
				mu.Unlock()
				out, _ := proto.Marshal(&coltracepb.ExportTraceServiceResponse{})
				w.Header().Set("Content-Type", "application/x-protobuf")
				w.Write(out)
				return
			}
		}
		var req colmetricpb.ExportMetricsServiceRequest
		if err == nil {
			err = proto.Unmarshal(b, &req)
		}
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		mu.Lock()
		for _, rm := range req.ResourceMetrics {
			for _, kv := range rm.GetResource().GetAttributes() {
				if kv.Key == "service.name" {
					service = kv.GetValue().GetStringValue()
				}
			}
			for _, sm := range rm.ScopeMetrics {
				for _, m := range sm.Metrics {
					// Cumulative: each export holds the counts so far.
					for _, dp := range m.GetSum().GetDataPoints() {
						got[otlpKey(m.Name, dp.Attributes)] = float64(dp.GetAsInt())
					}
					for _, dp := range m.GetHistogram().GetDataPoints() {
						got[otlpKey(m.Name, dp.Attributes)] = float64(dp.GetCount())
					}
				}
			}
		}
		mu.Unlock()
		out, _ := proto.Marshal(&colmetricpb.ExportMetricsServiceResponse{})
		w.Header().Set("Content-Type", "application/x-protobuf")
		w.Write(out)
	}))
	defer receiver.Close()

	const valid, invalid, unknown = 4, 3, 2
	p := startProxy(t, "-otlp", receiver.URL+"/otel/")
	p.session(t, valid, invalid, unknown)
	p.in.Close()
	errOut, _ := io.ReadAll(p.stderr)
	if err := p.cmd.Wait(); err != nil {
		t.Fatalf("the proxy: %v\n%s", err, errOut)
	}
	mu.Lock()
	defer mu.Unlock()
	for k, want := range wantSeries(valid, invalid, unknown) {
		if got[k] != want {
			t.Errorf("%s: %v; want %v", k, got[k], want)
		}
	}
	for k := range got {
		if strings.Contains(k, "made-up") {
			t.Errorf("a tool the server does not list is an attribute value: %s", k)
		}
	}
	if service != "mcpvalidate-proxy" {
		t.Errorf("service.name %q; want mcpvalidate-proxy", service)
	}
	names := map[string]int{}
	refusals := 0
	for _, s := range spans {
		names[s.Name]++
		if hex.EncodeToString(s.TraceId) != traceparent[3:35] || hex.EncodeToString(s.ParentSpanId) != traceparent[36:52] || s.Kind != tracepb.Span_SPAN_KIND_SERVER {
			t.Errorf("span %s: trace %x, parent %x, kind %v; want the client's trace and span, a server span", s.Name, s.TraceId, s.ParentSpanId, s.Kind)
		}
		for _, e := range s.Events {
			if e.Name == mcpvalidateotel.RefusalEvent {
				refusals++
			}
		}
	}
	if len(spans) != valid+invalid+unknown || names["tools/call weather"] != valid+invalid || names["tools/call _unknown"] != unknown || refusals != invalid+unknown {
		t.Errorf("spans %v, %d refusal events; want %d of weather, %d of _unknown, %d refusals", names, refusals, valid+invalid, unknown, invalid+unknown)
	}
	if bytes.Contains(errOut, []byte("SECRET")) {
		t.Errorf("stderr holds an argument's value: %s", errOut)
	}
}

func otlpKey(name string, attrs []*commonpb.KeyValue) string {
	parts := []string{}
	for _, kv := range attrs {
		parts = append(parts, kv.Key+"="+kv.GetValue().GetStringValue())
		if _, isBool := kv.GetValue().GetValue().(*commonpb.AnyValue_BoolValue); isBool {
			parts[len(parts)-1] = kv.Key + "=" + fmt.Sprint(kv.GetValue().GetBoolValue())
		}
	}
	slices.Sort(parts)
	return strings.Join(append([]string{name}, parts...), " ")
}

// TestMetricsEndpoint runs `mcpvalidate proxy -metrics 127.0.0.1:0 -service NAME` as a
// process in front of rawserver and scrapes its /metrics: Prometheus' text format, whose
// counts are the calls made, each series labelled with the service and the server.
func TestMetricsEndpoint(t *testing.T) {
	const valid, invalid, unknown = 3, 2, 1
	p := startProxy(t, "-metrics", "127.0.0.1:0", "-service", "weather-fleet")
	addr := ""
	for addr == "" {
		line, err := p.stderr.ReadString('\n')
		if err != nil {
			t.Fatalf("the proxy did not say where it serves its metrics: %v", err)
		}
		if _, rest, ok := strings.Cut(line, "serving metrics at "); ok {
			addr = strings.TrimSpace(rest)
		}
	}
	p.session(t, valid, invalid, unknown)
	// A page that rebinds a name of its own to the address (DNS rebinding) reads nothing.
	for _, host := range []string{"evil.example", "evil.example:9464", "localhost.evil.example"} {
		req, err := http.NewRequest(http.MethodGet, addr, nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Host = host
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusForbidden || strings.Contains(string(body), "mcpvalidate_calls") {
			t.Errorf("Host %s: %s\n%.200s", host, resp.Status, body)
		}
	}
	resp, err := http.Get(strings.Replace(addr, "127.0.0.1", "localhost", 1))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("Host localhost: %s", resp.Status)
	}
	resp, err = http.Get(addr)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for name, f := range families {
		for _, m := range f.Metric {
			parts := []string{}
			for _, l := range m.Label {
				if !strings.HasPrefix(l.GetName(), "otel_scope_") {
					parts = append(parts, l.GetName()+"="+l.GetValue())
				}
			}
			slices.Sort(parts)
			key := strings.Join(append([]string{name}, parts...), " ")
			switch {
			case m.Counter != nil:
				got[key] += m.Counter.GetValue()
			case m.Histogram != nil:
				got[key] += float64(m.Histogram.GetSampleCount())
			}
		}
	}
	for k, want := range wantSeries(valid, invalid, unknown) { // every series names its service
		if pk := promKey(k + " service.name=weather-fleet"); got[pk] != want {
			t.Errorf("%s: %v; want %v", pk, got[pk], want)
		}
	}
	for k := range got {
		if strings.Contains(k, "made-up") {
			t.Errorf("a tool the server does not list is a label value: %s", k)
		}
	}
}

// promKey is an OTLP series' key as the Prometheus exporter names it: dots become
// underscores, counters end in _total, and the operation's unit is in its name.
func promKey(k string) string {
	fields := strings.Fields(k)
	name := strings.ReplaceAll(fields[0], ".", "_")
	switch {
	case strings.HasSuffix(name, "_duration"):
		name += "_seconds"
	default:
		name += "_total"
	}
	labels := []string{}
	for _, f := range fields[1:] {
		labels = append(labels, strings.ReplaceAll(f[:strings.Index(f, "=")], ".", "_")+f[strings.Index(f, "="):])
	}
	slices.Sort(labels)
	return strings.Join(append([]string{name}, labels...), " ")
}

// TestTelemetryUsage: an -otlp that is not an http or https URL, or a -metrics address
// that cannot be listened on, exits 2 with a message, before the server starts.
func TestTelemetryUsage(t *testing.T) {
	cases := []struct {
		args []string
		err  string
	}{
		{[]string{"proxy", "-otlp", "ftp://127.0.0.1:4318", "--", "x"}, "ftp://127.0.0.1:4318 is not an http or https URL"},
		{[]string{"proxy", "-otlp", "127.0.0.1:4318", "--", "x"}, "is not an http or https URL"},
		{[]string{"proxy", "-otlp", "http://", "--", "x"}, "http:// is not an http or https URL"},
		{[]string{"proxy", "-metrics", "127.0.0.1:99999", "--", os.DevNull + "/missing"}, "invalid port"},
		{[]string{"intercept", "-otlp", "ftp://x", "-tools", os.DevNull}, "ftp://x is not an http or https URL"},
	}
	for _, c := range cases {
		var out, errOut bytes.Buffer
		if code := run(c.args, strings.NewReader(""), &out, &errOut); code != 2 || !strings.Contains(errOut.String(), c.err) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args, code, errOut.String(), c.err)
		}
	}
}

// TestMetricsAddressInUse: a -metrics address another process holds is logged, and the
// proxy serves its client all the same, without metrics.
func TestMetricsAddressInUse(t *testing.T) {
	t.Setenv(serverRole, "1")
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	in := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"weather","arguments":{"location":"Oslo"}}}` + "\n"
	var out, errOut bytes.Buffer
	code := run([]string{"proxy", "-metrics", taken.Addr().String(), "--", os.Args[0], "-test.run=^$"}, strings.NewReader(in), &out, &errOut)
	if code != 7 || !strings.Contains(out.String(), `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"ran"}]}}`) {
		t.Fatalf("exit %d, stdout %q, stderr %q; want the server's 7 and its answer", code, out.String(), errOut.String())
	}
	if want := "mcpvalidate proxy: not serving metrics: listen tcp " + taken.Addr().String(); !strings.Contains(errOut.String(), want) {
		t.Fatalf("stderr %q, want %q", errOut.String(), want)
	}
}
