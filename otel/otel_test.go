package mcpvalidateotel

import (
	"context"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/mcpvalidate/mcpvalidate/guard"
)

const weatherSchema = `{"type":"object","properties":{"location":{"type":"string"},"days":{"type":"integer"},
"units":{"type":"string","enum":["c","f"]}},"required":["location"],"additionalProperties":false}`

// rig is a guard instrumented into an in-memory reader and span recorder.
type rig struct {
	reader *sdkmetric.ManualReader
	spans  *tracetest.SpanRecorder
	tp     *sdktrace.TracerProvider
	inst   *Instrumentation
	g      *guard.Guard
}

func newRig(t *testing.T, opts ...guard.Option) *rig {
	t.Helper()
	return newRigWith(t, nil, opts...)
}

// newRigWith is newRig with options of New besides the MeterProvider.
func newRigWith(t *testing.T, instOpts []Option, opts ...guard.Option) *rig {
	t.Helper()
	r := &rig{reader: sdkmetric.NewManualReader(), spans: tracetest.NewSpanRecorder()}
	r.tp = sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(r.spans))
	inst, err := New(append([]Option{WithMeterProvider(sdkmetric.NewMeterProvider(sdkmetric.WithReader(r.reader)))}, instOpts...)...)
	if err != nil {
		t.Fatal(err)
	}
	r.inst = inst
	r.g = guard.New(append(opts, inst.Option())...)
	if err := inst.ObserveCache(r.g); err != nil {
		t.Fatal(err)
	}
	return r
}

// call runs one call of tool in the MCP session, in a span of its own, as an adapter does.
func (r *rig) call(tool, session, args string) {
	ctx, span := r.tp.Tracer("test").Start(context.Background(), "tools/call "+tool)
	defer span.End()
	c := guard.Call{Tool: tool, Session: session, Context: ctx, ProtocolVersion: "2025-06-18"}
	s := r.g.Lookup(tool)
	if s == nil {
		schema := weatherSchema
		if tool == "broken" {
			schema = `{"type":"nonsense"}`
		}
		s = r.g.Bind(tool, nil, []byte(schema), nil)
	}
	vd := r.g.Check(&c, s, []byte(args), nil)
	r.g.Ended(&c, vd.Refused())
}

func (r *rig) collect(t *testing.T) map[string]metricdata.Metrics {
	t.Helper()
	var rm metricdata.ResourceMetrics
	if err := r.reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	out := map[string]metricdata.Metrics{}
	for _, sm := range rm.ScopeMetrics {
		if sm.Scope.Name != ScopeName {
			t.Errorf("scope %q, want %q", sm.Scope.Name, ScopeName)
		}
		for _, m := range sm.Metrics {
			out[m.Name] = m
		}
	}
	return out
}

// attrs renders an attribute set as k=v pairs, sorted, joined by commas.
func attrs(s attribute.Set) string {
	var kv []string
	for _, a := range s.ToSlice() {
		kv = append(kv, string(a.Key)+"="+a.Value.String())
	}
	slices.Sort(kv)
	return strings.Join(kv, ",")
}

// sums returns a counter's points by their attributes.
func sums(t *testing.T, m metricdata.Metrics) map[string]int64 {
	t.Helper()
	s, ok := m.Data.(metricdata.Sum[int64])
	if !ok || !s.IsMonotonic {
		t.Fatalf("%s: %T, want a monotonic int64 sum", m.Name, m.Data)
	}
	out := map[string]int64{}
	for _, p := range s.DataPoints {
		out[attrs(p.Attributes)] = p.Value
	}
	return out
}

// floatSums returns a float64 counter's points by their attributes.
func floatSums(t *testing.T, m metricdata.Metrics) map[string]float64 {
	t.Helper()
	s, ok := m.Data.(metricdata.Sum[float64])
	if !ok || !s.IsMonotonic || s.Temporality != metricdata.CumulativeTemporality {
		t.Fatalf("%s: %#v, want a cumulative monotonic float64 sum", m.Name, m.Data)
	}
	out := map[string]float64{}
	for _, p := range s.DataPoints {
		out[attrs(p.Attributes)] = p.Value
	}
	return out
}

// floatGauges returns a float64 gauge's points by their attributes.
func floatGauges(t *testing.T, m metricdata.Metrics) map[string]float64 {
	t.Helper()
	out := map[string]float64{}
	if m.Data == nil {
		return out
	}
	g, ok := m.Data.(metricdata.Gauge[float64])
	if !ok {
		t.Fatalf("%s: %T, want a float64 gauge", m.Name, m.Data)
	}
	for _, p := range g.DataPoints {
		out[attrs(p.Attributes)] = p.Value
	}
	return out
}

func gauge(t *testing.T, m metricdata.Metrics) int64 {
	t.Helper()
	g, ok := m.Data.(metricdata.Gauge[int64])
	if !ok || len(g.DataPoints) != 1 {
		t.Fatalf("%s: %#v, want one int64 gauge point", m.Name, m.Data)
	}
	return g.DataPoints[0].Value
}

// histogram returns a histogram's points' counts by their attributes, and checks their bounds.
func histogram(t *testing.T, m metricdata.Metrics, bounds []float64) map[string]uint64 {
	t.Helper()
	h, ok := m.Data.(metricdata.Histogram[float64])
	if !ok {
		t.Fatalf("%s: %T, want a float64 histogram", m.Name, m.Data)
	}
	out := map[string]uint64{}
	for _, p := range h.DataPoints {
		if !slices.Equal(p.Bounds, bounds) {
			t.Errorf("%s: bounds %v, want %v", m.Name, p.Bounds, bounds)
		}
		out[attrs(p.Attributes)] = p.Count
	}
	return out
}

func wantCounts[V comparable](t *testing.T, name string, got, want map[string]V) {
	t.Helper()
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s{%s} = %v, want %v", name, k, got[k], v)
		}
	}
	if len(got) != len(want) {
		t.Errorf("%s: %d series %v, want %d", name, len(got), got, len(want))
	}
}

const (
	opAttrs = "gen_ai.operation.name=execute_tool,gen_ai.tool.name=weather,mcp.method.name=tools/call,mcp.protocol.version=2025-06-18"
	refused = "gen_ai.tool.name=weather,mcpvalidate.outcome=refused,mcpvalidate.report_only=false"
)

// TestEveryInstrument: a known mix of calls (two refusals repaired by an accepted call, an
// accepted call, a call to a broken schema) shows in every instrument, with its unit,
// description, attributes and buckets.
func TestEveryInstrument(t *testing.T) {
	r := newRig(t)
	r.call("weather", "s1", `{"days":"two","x":1}`)
	r.call("weather", "s1", `{"location":"Paris","units":"k"}`)
	r.call("weather", "s1", `{"location":"Paris"}`)
	r.call("weather", "s2", `{"location":"Oslo","days":2}`)
	r.call("broken", "s2", `{}`)
	ms := r.collect(t)

	units := map[string]string{
		"mcp.server.operation.duration": "s", "mcpvalidate.calls": "{call}", "mcpvalidate.violations": "{violation}",
		"mcpvalidate.repairs": "{call}", "mcpvalidate.retries": "{call}", "mcpvalidate.check.time": "s",
		"mcpvalidate.check.max":     "s",
		"mcpvalidate.cache.schemas": "{schema}", "mcpvalidate.cache.bindings": "{binding}", "mcpvalidate.cache.size": "By",
		"mcpvalidate.cache.compilations": "{schema}", "mcpvalidate.cache.hits": "{lookup}",
		"mcpvalidate.cache.misses": "{lookup}", "mcpvalidate.cache.evictions": "{binding}",
	}
	for name, unit := range units {
		m, ok := ms[name]
		switch {
		case !ok:
			t.Errorf("%s not recorded", name)
		case m.Unit != unit:
			t.Errorf("%s: unit %q, want %q", name, m.Unit, unit)
		case m.Description == "":
			t.Errorf("%s has no description", name)
		}
	}
	if len(ms) != len(units) {
		t.Errorf("%d instruments, want %d", len(ms), len(units))
	}

	wantCounts(t, "mcp.server.operation.duration", histogram(t, ms["mcp.server.operation.duration"], OperationBuckets()), map[string]uint64{
		opAttrs:                            2,
		"error.type=tool_error," + opAttrs: 2,
		"error.type=tool_error," + strings.ReplaceAll(opAttrs, "=weather", "=broken"): 1,
	})
	wantCounts(t, "mcpvalidate.calls", sums(t, ms["mcpvalidate.calls"]), map[string]int64{
		refused: 2,
		strings.ReplaceAll(refused, "=refused", "=accepted"):                                      2,
		"gen_ai.tool.name=broken,mcpvalidate.outcome=schema_broken,mcpvalidate.report_only=false": 1,
	})
	// The checks took what the clock says: each series of the calls has its time, at
	// least its longest check, and its longest check.
	calls := sums(t, ms["mcpvalidate.calls"])
	times, longest := floatSums(t, ms["mcpvalidate.check.time"]), floatGauges(t, ms["mcpvalidate.check.max"])
	for k := range calls {
		if times[k] <= 0 || longest[k] <= 0 || longest[k] > times[k] {
			t.Errorf("%s: check.time %v, check.max %v; want 0 < max <= time", k, times[k], longest[k])
		}
	}
	if len(times) != len(calls) || len(longest) != len(calls) {
		t.Errorf("check.time %v, check.max %v; want the series of calls %v", times, longest, calls)
	}
	v := "gen_ai.tool.name=weather,mcpvalidate.violation.in=arguments,"
	wantCounts(t, "mcpvalidate.violations", sums(t, ms["mcpvalidate.violations"]), map[string]int64{
		v + "mcpvalidate.violation.keyword=required,mcpvalidate.violation.kind=required":               1,
		v + "mcpvalidate.violation.keyword=type,mcpvalidate.violation.kind=type":                       1,
		v + "mcpvalidate.violation.keyword=additionalProperties,mcpvalidate.violation.kind=additional": 1,
		v + "mcpvalidate.violation.keyword=enum,mcpvalidate.violation.kind=enum":                       1,
	})
	wantCounts(t, "mcpvalidate.repairs", sums(t, ms["mcpvalidate.repairs"]), map[string]int64{"gen_ai.tool.name=weather": 1})
	wantCounts(t, "mcpvalidate.retries", sums(t, ms["mcpvalidate.retries"]), map[string]int64{"gen_ai.tool.name=weather": 2})

	st := r.g.CacheStats()
	for name, want := range map[string]int64{
		"mcpvalidate.cache.schemas": int64(st.Texts), "mcpvalidate.cache.bindings": int64(st.Bindings),
		"mcpvalidate.cache.size": st.Held,
	} {
		if got := gauge(t, ms[name]); got != want || got <= 0 {
			t.Errorf("%s = %d, want %d (> 0)", name, got, want)
		}
	}
	for name, want := range map[string]int64{
		"mcpvalidate.cache.compilations": 2, "mcpvalidate.cache.hits": 3, "mcpvalidate.cache.misses": 2,
		"mcpvalidate.cache.evictions": 0,
	} {
		wantCounts(t, name, sums(t, ms[name]), map[string]int64{"": want})
	}
}

// TestSpans: a refused call's span says the guard refused it, with the kinds and paths of
// its violations and no value; an accepted call's says it was accepted and has no event.
func TestSpans(t *testing.T) {
	r := newRig(t)
	secret := "hunter2-secret-value"
	r.call("weather", "s1", `{"days":"`+secret+`","a\"b":1,"units":"`+secret+`"}`)
	r.call("weather", "s1", `{"location":"Paris"}`)
	spans := r.spans.Ended()
	if len(spans) != 2 {
		t.Fatalf("%d spans, want 2", len(spans))
	}
	refusal, accepted := spans[0], spans[1]

	has := func(kvs []attribute.KeyValue) map[attribute.Key]attribute.Value {
		m := map[attribute.Key]attribute.Value{}
		for _, kv := range kvs {
			m[kv.Key] = kv.Value
		}
		return m
	}
	a := has(refusal.Attributes())
	if a[KeyOutcome].AsString() != "refused" || a[KeyErrorType].AsString() != ToolError || a[KeyReportOnly].AsBool() {
		t.Errorf("refused span's attributes: %v", refusal.Attributes())
	}
	if len(refusal.Events()) != 1 || refusal.Events()[0].Name != RefusalEvent {
		t.Fatalf("refused span's events: %v", refusal.Events())
	}
	ev := has(refusal.Events()[0].Attributes)
	if got := ev[KeyKinds].AsStringSlice(); !slices.Equal(got, []string{"required", "type", "additional", "enum"}) {
		t.Errorf("kinds %q", got)
	}
	if got := ev[KeyPaths].AsStringSlice(); !slices.Equal(got, []string{"location", "days", `["a\"b"]`, "units"}) {
		t.Errorf("paths %q", got)
	}
	if ev[KeyViolationCount].AsInt64() != 4 || ev[KeyPathsShown].AsInt64() != 4 {
		t.Errorf("count %d, shown %d; want 4 and 4", ev[KeyViolationCount].AsInt64(), ev[KeyPathsShown].AsInt64())
	}
	for _, kv := range append(refusal.Attributes(), refusal.Events()[0].Attributes...) {
		if strings.Contains(kv.Value.String(), "hunter2") {
			t.Errorf("%s carries a value sent: %s", kv.Key, kv.Value.String())
		}
	}

	b := has(accepted.Attributes())
	if b[KeyOutcome].AsString() != "accepted" || b[KeyErrorType].Type() != attribute.EMPTY || len(accepted.Events()) != 0 {
		t.Errorf("accepted span: attributes %v, events %v", accepted.Attributes(), accepted.Events())
	}
}

// TestSpanPathsBounded: a call with many violations under long hostile names lists at most
// MaxSpanPaths paths, each elided, and counts them all.
func TestSpanPathsBounded(t *testing.T) {
	r := newRig(t, guard.WithMaxViolations(100))
	var args strings.Builder
	args.WriteString(`{"location":"x"`)
	for i := range 50 {
		args.WriteString(`,"` + strings.Repeat(string(rune('a'+i%26)), 5000) + string(rune('A'+i%26)) + `\n` + `":1`)
	}
	args.WriteString("}")
	r.call("weather", "s1", args.String())
	ev := r.spans.Ended()[0].Events()[0]
	for _, kv := range ev.Attributes {
		switch kv.Key {
		case KeyPaths:
			paths := kv.Value.AsStringSlice()
			if len(paths) != MaxSpanPaths {
				t.Errorf("%d paths, want %d", len(paths), MaxSpanPaths)
			}
			for _, p := range paths {
				if len(p) > 200 || strings.Contains(p, "\n") {
					t.Errorf("path of %d bytes not elided or escaped: %.80q", len(p), p)
				}
			}
		case KeyViolationCount:
			if kv.Value.AsInt64() < 50 {
				t.Errorf("count %d, want at least 50", kv.Value.AsInt64())
			}
		}
	}
}

// TestReportOnly: under WithReportOnly a refused call is counted with report_only=true,
// and its span has the event but no error.type: the tool ran.
func TestReportOnly(t *testing.T) {
	r := newRig(t, guard.WithReportOnly())
	r.call("weather", "s1", `{}`)
	wantCounts(t, "mcpvalidate.calls", sums(t, r.collect(t)["mcpvalidate.calls"]), map[string]int64{
		strings.ReplaceAll(refused, "report_only=false", "report_only=true"): 1,
	})
	s := r.spans.Ended()[0]
	for _, kv := range s.Attributes() {
		if kv.Key == KeyErrorType {
			t.Errorf("a report-only refusal's span has error.type %s", kv.Value.String())
		}
	}
	if len(s.Events()) != 1 {
		t.Errorf("events %v, want the refusal", s.Events())
	}
}

// TestResultRefused: a result refused by its output schema is counted as result_refused,
// its violations under violation.in=result, its paths under structuredContent.
func TestResultRefused(t *testing.T) {
	r := newRig(t, guard.WithOutputValidation())
	ctx, span := r.tp.Tracer("test").Start(context.Background(), "tools/call out")
	c := guard.Call{Tool: "out", Context: ctx}
	v, vd := r.g.ResultValidator(&c, r.g.Bind("out", nil, []byte(`{"type":"object","required":["summary"]}`), nil))
	if vd.Found() {
		t.Fatal(vd.Text())
	}
	r.g.CheckResult(&c, v, []byte(`{"sum":1}`))
	span.End()
	ms := r.collect(t)
	wantCounts(t, "mcpvalidate.calls", sums(t, ms["mcpvalidate.calls"]), map[string]int64{
		"gen_ai.tool.name=out,mcpvalidate.outcome=result_refused,mcpvalidate.report_only=false": 1,
	})
	wantCounts(t, "mcpvalidate.violations", sums(t, ms["mcpvalidate.violations"]), map[string]int64{
		"gen_ai.tool.name=out,mcpvalidate.violation.in=result,mcpvalidate.violation.keyword=required,mcpvalidate.violation.kind=required": 1,
	})
	for _, kv := range r.spans.Ended()[0].Events()[0].Attributes {
		if kv.Key == KeyPaths && !slices.Equal(kv.Value.AsStringSlice(), []string{"structuredContent.summary"}) {
			t.Errorf("paths %q", kv.Value.AsStringSlice())
		}
	}
}

// TestToolNamesBounded: past MaxTools tool names, calls are recorded under OtherTool.
func TestToolNamesBounded(t *testing.T) {
	r := newRig(t)
	for i := range MaxTools + 5 {
		r.inst.Observe(guard.Event{Tool: "t" + strings.Repeat("x", i%7) + string(rune('a'+i%26)) + itoa(i), Outcome: guard.Accepted})
	}
	got := sums(t, r.collect(t)["mcpvalidate.calls"])
	if len(got) != MaxTools+1 {
		t.Errorf("%d series, want %d", len(got), MaxTools+1)
	}
	if n := got["gen_ai.tool.name="+OtherTool+",mcpvalidate.outcome=accepted,mcpvalidate.report_only=false"]; n != 5 {
		t.Errorf("%s: %d calls, want 5", OtherTool, n)
	}
}

// TestUnknownTools: calls of tools the server does not list, refused or passed on, are
// counted in mcpvalidate.calls under one tool name, whatever names they gave, and take no
// name of a listed tool's place.
func TestUnknownTools(t *testing.T) {
	r := newRig(t)
	for i := range MaxTools + 10 {
		r.g.Unlisted(&guard.Call{Tool: "made-up-" + itoa(i)}, i%2 == 1)
	}
	r.call("weather", "s", `{"location":"Oslo"}`)
	wantCounts(t, "mcpvalidate.calls", sums(t, r.collect(t)["mcpvalidate.calls"]), map[string]int64{
		"gen_ai.tool.name=_unknown,mcpvalidate.outcome=unknown_tool,mcpvalidate.report_only=false": (MaxTools + 10) / 2,
		"gen_ai.tool.name=_unknown,mcpvalidate.outcome=unknown_tool,mcpvalidate.report_only=true":  (MaxTools + 10) / 2,
		"gen_ai.tool.name=weather,mcpvalidate.outcome=accepted,mcpvalidate.report_only=false":      1,
	})
	if len(r.spans.Ended()) != 1 {
		t.Errorf("%d spans", len(r.spans.Ended()))
	}
}

func itoa(i int) string {
	if i < 10 {
		return string(rune('0' + i))
	}
	return itoa(i/10) + string(rune('0'+i%10))
}

// TestAttributeValuesBounded: keywords and protocol versions outside their vocabularies
// are recorded as "other".
func TestAttributeValuesBounded(t *testing.T) {
	for in, want := range map[string]string{"required": "required", "$ref": "$ref", "": "none",
		"x-" + strings.Repeat("y", 40): "other", "a b": "other"} {
		if got := keyword(in); got != want {
			t.Errorf("keyword(%q) = %q, want %q", in, got, want)
		}
	}
	for in, want := range map[string]string{"2025-06-18": "2025-06-18", "2025-06-1x": "other", "latest": "other", "2030-01-01": "other"} {
		if got := protocolVersion(in); got != want {
			t.Errorf("protocolVersion(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestWithoutMeterProvider: New without a MeterProvider records nothing and fails nothing.
func TestWithoutMeterProvider(t *testing.T) {
	inst, err := New()
	if err != nil {
		t.Fatal(err)
	}
	g := guard.New(inst.Option())
	if err := inst.ObserveCache(g); err != nil {
		t.Fatal(err)
	}
	c := guard.Call{Tool: "t"}
	if vd := g.Check(&c, g.Bind("t", nil, []byte(`{}`), nil), []byte(`{}`), nil); vd.Found() {
		t.Error(vd.Text())
	}
	g.Ended(&c, false)
}

// TestProtocolVersionsBounded: an operation's mcp.protocol.version is one of the MCP
// versions released (or drafted) that the module knows; anything else, made-up dates
// first, is recorded as "other", and takes no value from a real version sent later.
func TestProtocolVersionsBounded(t *testing.T) {
	r := newRig(t)
	var versions []string
	for i := range 20 {
		versions = append(versions, "2030-01-"+strconv.Itoa(10+i))
	}
	versions = append(versions, "not a version", "2025-06-18", "2024-11-05", "2025-03-26", "2025-11-25", "2026-07-28", "2025-06-18")
	for _, v := range versions {
		r.inst.End(guard.CallEnd{Tool: "t", ProtocolVersion: v})
	}
	got := map[string]uint64{}
	for _, p := range r.collect(t)["mcp.server.operation.duration"].Data.(metricdata.Histogram[float64]).DataPoints {
		v, _ := p.Attributes.Value(KeyProtocolVersion)
		got[v.AsString()] += p.Count
	}
	want := map[string]uint64{"other": 21, "2025-06-18": 2, "2024-11-05": 1, "2025-03-26": 1, "2025-11-25": 1, "2026-07-28": 1}
	if !maps.Equal(got, want) {
		t.Errorf("versions recorded: %v, want %v", got, want)
	}
}

// TestRepairAfterResultCheck: the repair made by a call whose result is checked is
// recorded once its result is sent; a withheld result repairs nothing.
func TestRepairAfterResultCheck(t *testing.T) {
	r := newRig(t, guard.WithOutputValidation())
	r.call("t", "s", `{"days":1}`)
	out := r.g.Bind("out", nil, []byte(`{"type":"object","required":["summary"]}`), nil)
	for _, result := range []string{`{"sum":1}`, `{"summary":"sun"}`} {
		c := guard.Call{Tool: "t", Session: "s", ChecksResult: true}
		if vd := r.g.Check(&c, r.g.Lookup("t"), []byte(`{"location":"Paris"}`), nil); vd.Found() {
			t.Fatal(vd.Text())
		}
		v, _ := r.g.ResultValidator(&c, out)
		r.g.CheckResult(&c, v, []byte(result))
		r.g.Ended(&c, false)
	}
	ms := r.collect(t)
	wantCounts(t, "mcpvalidate.repairs", sums(t, ms["mcpvalidate.repairs"]), map[string]int64{"gen_ai.tool.name=t": 1})
	wantCounts(t, "mcpvalidate.retries", sums(t, ms["mcpvalidate.retries"]), map[string]int64{"gen_ai.tool.name=t": 1})
	wantCounts(t, "mcpvalidate.calls", sums(t, ms["mcpvalidate.calls"]), map[string]int64{
		"gen_ai.tool.name=t,mcpvalidate.outcome=accepted,mcpvalidate.report_only=false":       2,
		"gen_ai.tool.name=t,mcpvalidate.outcome=refused,mcpvalidate.report_only=false":        1,
		"gen_ai.tool.name=t,mcpvalidate.outcome=result_refused,mcpvalidate.report_only=false": 1,
	})
}

// TestValidCallAllocatesNothing: recording an accepted call and its end, of a tool and
// protocol version seen before, allocates nothing, with the check's histogram or without.
func TestValidCallAllocatesNothing(t *testing.T) {
	for _, opts := range [][]Option{nil, {WithCheckHistogram()}} {
		r := newRigWith(t, opts)
		ctx, span := r.tp.Tracer("test").Start(context.Background(), "tools/call t")
		e := guard.Event{Tool: "t", Outcome: guard.Accepted, Context: ctx, Retries: 1, Duration: time.Microsecond}
		end := guard.CallEnd{Tool: "t", Context: ctx, ProtocolVersion: "2025-06-18"}
		r.inst.Observe(e)
		r.inst.End(end)
		if n := testing.AllocsPerRun(100, func() { r.inst.End(end) }); n != 0 {
			t.Errorf("%d options: End: %v allocations", len(opts), n)
		}
		e.Context = context.Background() // no span to annotate
		if n := testing.AllocsPerRun(100, func() { r.inst.Observe(e) }); n != 0 {
			t.Errorf("%d options: Observe: %v allocations", len(opts), n)
		}
		span.End()
	}
}

// TestCheckTime: mcpvalidate.check.time sums the checks' durations by tool, outcome and
// report-only; mcpvalidate.check.max is the longest check since the previous collection,
// and has no point for a series without a check since then.
func TestCheckTime(t *testing.T) {
	r := newRig(t)
	const (
		acc = "gen_ai.tool.name=a,mcpvalidate.outcome=accepted,mcpvalidate.report_only=false"
		ref = "gen_ai.tool.name=a,mcpvalidate.outcome=refused,mcpvalidate.report_only=true"
		b   = "gen_ai.tool.name=b,mcpvalidate.outcome=accepted,mcpvalidate.report_only=false"
	)
	observe := func(tool string, o guard.Outcome, reportOnly bool, ds ...time.Duration) {
		for _, d := range ds {
			r.inst.Observe(guard.Event{Tool: tool, Outcome: o, ReportOnly: reportOnly, Duration: d})
		}
	}
	collect := func() (map[string]float64, map[string]float64) {
		ms := r.collect(t)
		return floatSums(t, ms["mcpvalidate.check.time"]), floatGauges(t, ms["mcpvalidate.check.max"])
	}
	observe("a", guard.Accepted, false, 3*time.Microsecond, 40*time.Microsecond, 5*time.Microsecond)
	observe("a", guard.Refused, true, 7*time.Millisecond)
	observe("b", guard.Accepted, false, 0, 0)
	times, longest := collect()
	wantCounts(t, "mcpvalidate.check.time", times, map[string]float64{acc: 48e-6, ref: 7e-3, b: 0})
	wantCounts(t, "mcpvalidate.check.max", longest, map[string]float64{acc: 40e-6, ref: 7e-3, b: 0})

	times, longest = collect()
	wantCounts(t, "mcpvalidate.check.time", times, map[string]float64{acc: 48e-6, ref: 7e-3, b: 0})
	wantCounts(t, "mcpvalidate.check.max", longest, map[string]float64{})

	observe("a", guard.Accepted, false, 2*time.Microsecond, 9*time.Microsecond)
	times, longest = collect()
	wantCounts(t, "mcpvalidate.check.time", times, map[string]float64{acc: 59e-6, ref: 7e-3, b: 0})
	wantCounts(t, "mcpvalidate.check.max", longest, map[string]float64{acc: 9e-6})
}

// TestCheckHistogram: WithCheckHistogram records every check in mcpvalidate.check.duration
// too, its sum the checks' time; without it there is no such instrument.
func TestCheckHistogram(t *testing.T) {
	const acc = "gen_ai.tool.name=a,mcpvalidate.outcome=accepted,mcpvalidate.report_only=false"
	for _, with := range []bool{false, true} {
		var opts []Option
		if with {
			opts = append(opts, WithCheckHistogram())
		}
		r := newRigWith(t, opts)
		for _, d := range []time.Duration{3 * time.Microsecond, 300 * time.Microsecond} {
			r.inst.Observe(guard.Event{Tool: "a", Outcome: guard.Accepted, Duration: d})
		}
		m, ok := r.collect(t)["mcpvalidate.check.duration"]
		if ok != with {
			t.Fatalf("WithCheckHistogram %v: mcpvalidate.check.duration recorded %v", with, ok)
		}
		if !with {
			continue
		}
		if m.Unit != "s" || m.Description == "" {
			t.Errorf("unit %q, description %q", m.Unit, m.Description)
		}
		wantCounts(t, "mcpvalidate.check.duration", histogram(t, m, CheckBuckets()), map[string]uint64{acc: 2})
		p := m.Data.(metricdata.Histogram[float64]).DataPoints[0]
		if p.Sum != 303e-6 || !slices.Equal(p.BucketCounts, []uint64{0, 0, 1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0}) {
			t.Errorf("sum %v, buckets %v; want 303e-6, one in (2.5µs, 5µs] and one in (250µs, 500µs]", p.Sum, p.BucketCounts)
		}
	}
}

// TestCheckTimeConcurrent: calls observed by several goroutines while a reader collects
// are all counted, their time summed exactly, and the longest check is reported once.
func TestCheckTimeConcurrent(t *testing.T) {
	r := newRig(t)
	const (
		workers = 8
		each    = 2000
		acc     = "gen_ai.tool.name=a,mcpvalidate.outcome=accepted,mcpvalidate.report_only=false"
		ref     = "gen_ai.tool.name=a,mcpvalidate.outcome=refused,mcpvalidate.report_only=false"
	)
	// Each worker's durations are distinct and in no order: 7919 is prime to each.
	duration := func(w, i int) int64 { return int64(w*each + i*7919%each) }
	var wg sync.WaitGroup
	var sum, top [2]int64
	for w := range workers {
		for i := range each {
			sum[i%2] += duration(w, i)
			top[i%2] = max(top[i%2], duration(w, i))
		}
		wg.Go(func() {
			for i := range each {
				o := guard.Accepted
				if i%2 == 1 {
					o = guard.Refused
				}
				r.inst.Observe(guard.Event{Tool: "a", Outcome: o, Duration: time.Duration(duration(w, i))})
			}
		})
	}
	// The longest of each series, seen by whichever collection came after it.
	longest := map[string]float64{}
	done := make(chan struct{})
	var collected []map[string]float64
	go func() {
		defer close(done)
		for range 50 {
			var rm metricdata.ResourceMetrics
			if err := r.reader.Collect(context.Background(), &rm); err != nil {
				t.Error(err)
				return
			}
			for _, sm := range rm.ScopeMetrics {
				for _, m := range sm.Metrics {
					if m.Name == "mcpvalidate.check.max" {
						collected = append(collected, floatGauges(t, m))
					}
				}
			}
		}
	}()
	wg.Wait()
	<-done
	ms := r.collect(t)
	collected = append(collected, floatGauges(t, ms["mcpvalidate.check.max"]))
	reported := map[float64]int{}
	for _, c := range collected {
		for k, v := range c {
			longest[k] = max(longest[k], v)
			reported[v]++
		}
	}
	for k, v := range longest {
		if reported[v] != 1 {
			t.Errorf("%s: the longest check, %v, reported by %d collections; want 1", k, v, reported[v])
		}
	}
	wantCounts(t, "mcpvalidate.calls", sums(t, ms["mcpvalidate.calls"]), map[string]int64{acc: workers * each / 2, ref: workers * each / 2})
	wantCounts(t, "mcpvalidate.check.time", floatSums(t, ms["mcpvalidate.check.time"]), map[string]float64{acc: seconds(sum[0]), ref: seconds(sum[1])})
	wantCounts(t, "mcpvalidate.check.max", longest, map[string]float64{acc: seconds(top[0]), ref: seconds(top[1])})
}

// TestServerNames: the calls of each server a proxy names are counted apart, under
// mcpvalidate.server.name, its operations' durations and violations too; a tool of the
// same name on another server, or on none named, is another series. A name is bounded,
// and cut at a NUL.
func TestServerNames(t *testing.T) {
	r := newRig(t)
	long := strings.Repeat("s", 1000)
	for _, server := range []string{"a", "b", "", "b", long, "c\x00d"} {
		c := guard.Call{Tool: "weather", Server: server, Session: "s"}
		s := r.g.Lookup("weather")
		if s == nil {
			s = r.g.Bind("weather", nil, []byte(weatherSchema), nil)
		}
		vd := r.g.Check(&c, s, []byte(`{}`), nil)
		r.g.Ended(&c, vd.Refused())
	}
	m := r.collect(t)
	refused := "gen_ai.tool.name=weather,mcpvalidate.outcome=refused,mcpvalidate.report_only=false"
	wantCounts(t, "mcpvalidate.calls", sums(t, m["mcpvalidate.calls"]), map[string]int64{
		refused:                                            1,
		refused + ",mcpvalidate.server.name=a":             1,
		refused + ",mcpvalidate.server.name=b":             2,
		refused + ",mcpvalidate.server.name=c":             1,
		refused + ",mcpvalidate.server.name=" + long[:128]: 1,
	})
	viols := sums(t, m["mcpvalidate.violations"])
	if n := viols["gen_ai.tool.name=weather,mcpvalidate.server.name=b,mcpvalidate.violation.in=arguments,mcpvalidate.violation.keyword=required,mcpvalidate.violation.kind=required"]; n != 2 {
		t.Errorf("violations of server b: %d, want 2: %v", n, viols)
	}
	var servers []string
	for _, p := range m["mcp.server.operation.duration"].Data.(metricdata.Histogram[float64]).DataPoints {
		v, _ := p.Attributes.Value(KeyServerName)
		servers = append(servers, v.AsString())
	}
	if slices.Sort(servers); len(servers) != 5 || servers[1] != "a" {
		t.Errorf("operations by server: %q", servers)
	}
}

// TestSchemaChangesCounted: each tool of a schema change counts once in
// mcpvalidate.schema.changes, by server, tool and sort of change.
func TestSchemaChangesCounted(t *testing.T) {
	r := newRig(t)
	r.g.SchemaChanged(guard.SchemaChange{Server: "s", Added: []string{"a", "b"}, Removed: []string{"c"}, Changed: []guard.ToolChange{{Tool: "weather"}}})
	r.g.SchemaChanged(guard.SchemaChange{Changed: []guard.ToolChange{{Tool: "weather"}}})
	wantCounts(t, "mcpvalidate.schema.changes", sums(t, r.collect(t)["mcpvalidate.schema.changes"]), map[string]int64{
		"gen_ai.tool.name=a,mcpvalidate.schema.change=added,mcpvalidate.server.name=s":         1,
		"gen_ai.tool.name=b,mcpvalidate.schema.change=added,mcpvalidate.server.name=s":         1,
		"gen_ai.tool.name=c,mcpvalidate.schema.change=removed,mcpvalidate.server.name=s":       1,
		"gen_ai.tool.name=weather,mcpvalidate.schema.change=changed,mcpvalidate.server.name=s": 1,
		"gen_ai.tool.name=weather,mcpvalidate.schema.change=changed":                           1,
	})
}
