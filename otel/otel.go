// Package mcpvalidateotel records what an mcpvalidate guard sees as OpenTelemetry metrics
// and span annotations: the MCP semantic conventions' mcp.server.operation.duration for
// tools/call, instruments of its own under the mcpvalidate. prefix (calls by outcome,
// violations by kind and keyword, repairs, retries, the check's own time, the schema
// cache), and, on the span of each refused call, what was refused and where, never a value.
//
// It is a module of its own, so that a server using mcpvalidate without it pulls in no
// OpenTelemetry. One [Instrumentation] serves guards of both frameworks:
//
//	inst, err := mcpvalidateotel.New(mcpvalidateotel.WithMeterProvider(mp))
//	g := mcpvalidate.New(inst.Option()) // or gosdk.New(inst.Option())
//	inst.ObserveCache(g.Guard())
//
// Metric attributes stay bounded whatever a model sends: the tool's name (one of the
// server's tools; past [MaxTools] names, "_other"), the outcome, the violation's kind and
// keyword; never a member name or a path. Spans carry paths, escaped and elided as the
// guard's log lines show them, at most [MaxSpanPaths] of them.
package mcpvalidateotel

import (
	"context"
	"errors"
	"maps"
	"strings"
	"sync"
	"sync/atomic"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/metric/noop"
	"go.opentelemetry.io/otel/semconv/v1.41.0/mcpconv"
	"go.opentelemetry.io/otel/trace"

	"github.com/mcpvalidate/mcpvalidate/guard"
)

// ScopeName is the instrumentation scope of the meter the instruments come from.
const ScopeName = "github.com/mcpvalidate/mcpvalidate/otel"

// OperationBuckets returns the explicit bucket boundaries, in seconds, the MCP semantic
// conventions give mcp.server.operation.duration.
func OperationBuckets() []float64 {
	return []float64{0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300}
}

// CheckBuckets returns the bucket boundaries, in seconds, of mcpvalidate.check.duration
// (see [WithCheckHistogram]): a check takes microseconds, a hostile one milliseconds.
func CheckBuckets() []float64 {
	return []float64{1e-6, 2.5e-6, 5e-6, 1e-5, 2.5e-5, 5e-5, 1e-4, 2.5e-4, 5e-4, 1e-3, 5e-3, 0.01, 0.05, 0.1}
}

// MaxTools bounds the tool names recorded as attribute values; calls to tools named after
// the first MaxTools are recorded under OtherTool. A server's tools are its own, but one that
// registers tools under generated names must not grow every backend's series without end.
const MaxTools = 1000

// OtherTool is the gen_ai.tool.name of the calls to tools beyond [MaxTools].
const OtherTool = "_other"

// MaxSpanPaths bounds the violation paths a span event lists; the event's
// mcpvalidate.violation.count says how many violations there were.
const MaxSpanPaths = 20

// Attribute keys: the conventions' and our own.
const (
	KeyMethodName      = attribute.Key("mcp.method.name")
	KeyToolName        = attribute.Key("gen_ai.tool.name")
	KeyOperationName   = attribute.Key("gen_ai.operation.name")
	KeyErrorType       = attribute.Key("error.type")
	KeyProtocolVersion = attribute.Key("mcp.protocol.version")

	KeyOutcome        = attribute.Key("mcpvalidate.outcome")       // accepted, refused, schema_broken, result_refused
	KeyServerName     = attribute.Key("mcpvalidate.server.name")   // the MCP server's serverInfo name, where a proxy learns it
	KeyChange         = attribute.Key("mcpvalidate.schema.change") // added, removed, changed
	KeyReportOnly     = attribute.Key("mcpvalidate.report_only")   // the guard refused nothing (WithReportOnly)
	KeyKind           = attribute.Key("mcpvalidate.violation.kind")
	KeyKeyword        = attribute.Key("mcpvalidate.violation.keyword")
	KeyIn             = attribute.Key("mcpvalidate.violation.in") // arguments or result
	KeyViolationCount = attribute.Key("mcpvalidate.violation.count")
	KeyKinds          = attribute.Key("mcpvalidate.violation.kinds")
	KeyPaths          = attribute.Key("mcpvalidate.violation.paths")
	KeyPathsShown     = attribute.Key("mcpvalidate.violation.paths_shown")
)

// ToolError is error.type's value for a call whose result is an error (isError), the
// guard's refusal or the tool's own, as the conventions have it.
const ToolError = "tool_error"

// RefusalEvent is the name of the span event that records a refusal, a broken schema or a
// withheld result: what the guard did, and the violations' kinds and paths.
const RefusalEvent = "mcpvalidate.refusal"

// An Option configures [New].
type Option func(*config)

type config struct {
	mp        metric.MeterProvider
	histogram bool
}

// WithMeterProvider records the metrics through mp; without it, [New] records none.
func WithMeterProvider(mp metric.MeterProvider) Option {
	return func(c *config) { c.mp = mp }
}

// WithCheckHistogram records each check's time in the histogram mcpvalidate.check.duration
// too, with [CheckBuckets]: the distribution of check times, at the cost of a measurement
// through the SDK on every call. Without it the check's time is in mcpvalidate.check.time
// and mcpvalidate.check.max alone, summed and compared in atomics and read at collection.
func WithCheckHistogram() Option {
	return func(c *config) { c.histogram = true }
}

// Instrumentation holds the instruments one process records its guards' calls in. It is
// safe for concurrent use.
type Instrumentation struct {
	operation mcpconv.ServerOperationDuration
	calls     metric.Int64ObservableCounter
	viols     metric.Int64Counter
	changes   metric.Int64Counter
	repairs   metric.Int64Counter
	retries   metric.Int64Counter
	checkTime metric.Float64ObservableCounter
	checkMax  metric.Float64ObservableGauge
	check     metric.Float64Histogram // nil without WithCheckHistogram

	meter metric.Meter
	tools names[*toolAttrs]
	other *toolAttrs

	cacheMu sync.Mutex
	guards  []*guard.Guard
	cacheOn bool
}

// toolAttrs are one tool's attribute sets, made once, each as the options of a
// measurement: passed as a slice, they cost a call no allocation.
type toolAttrs struct {
	name     string
	server   attribute.KeyValue    // KeyServerName's; an empty one when unknown
	outcomes [2][outcomes]measured // [report only][outcome]
	calls    [2][outcomes]atomic.Int64
	checked  [2][outcomes]atomic.Int64 // nanoseconds, summed
	longest  [2][outcomes]atomic.Int64 // nanoseconds plus one since the last collection; 0: no check
	tool     []metric.AddOption
	op       versioned         // of the operation without a protocol version
	versions names[*versioned] // by protocolVersion's value
}

// measured is one attribute set as the options of an Add, a Record and an Observe.
type measured struct {
	add     []metric.AddOption
	record  []metric.RecordOption
	observe []metric.ObserveOption
}

func measuredOf(kvs ...attribute.KeyValue) measured {
	o := metric.WithAttributeSet(attribute.NewSet(kvs...))
	return measured{add: []metric.AddOption{o}, record: []metric.RecordOption{o}, observe: []metric.ObserveOption{o}}
}

// versioned are the options of an operation's duration: error.type unset, tool_error.
type versioned struct{ ok, fail []metric.RecordOption }

// New makes the instruments in the meter of the MeterProvider given by
// [WithMeterProvider], under the scope [ScopeName].
func New(opts ...Option) (*Instrumentation, error) {
	var c config
	for _, o := range opts {
		o(&c)
	}
	if c.mp == nil {
		c.mp = noop.NewMeterProvider()
	}
	in := &Instrumentation{meter: c.mp.Meter(ScopeName)}
	m := in.meter
	var err error
	if in.operation, err = mcpconv.NewServerOperationDuration(m, metric.WithExplicitBucketBoundaries(OperationBuckets()...)); err != nil {
		return nil, err
	}
	counters := []struct {
		into       *metric.Int64Counter
		name, unit string
		desc       string
	}{
		{&in.viols, "mcpvalidate.violations", "{violation}", "Violations found in refused arguments and results, by tool, kind and keyword."},
		{&in.repairs, "mcpvalidate.repairs", "{call}", "Accepted calls that followed refusals of the same tool in the same MCP session."},
		{&in.changes, "mcpvalidate.schema.changes", "{tool}", "Tools a server added, removed or changed the schemas of, from one tool list to the next."},
		{&in.retries, "mcpvalidate.retries", "{call}", "Refused calls that a later accepted call of the same tool and MCP session repaired."},
	}
	for _, k := range counters {
		if *k.into, err = m.Int64Counter(k.name, metric.WithUnit(k.unit), metric.WithDescription(k.desc)); err != nil {
			return nil, err
		}
	}
	// The calls and their checks' time are counted here, and read at each collection: a
	// call costs atomic adds rather than measurements.
	in.calls, err = m.Int64ObservableCounter("mcpvalidate.calls", metric.WithUnit("{call}"),
		metric.WithDescription("Tool calls the guard checked, by tool and outcome."))
	if err != nil {
		return nil, err
	}
	in.checkTime, err = m.Float64ObservableCounter("mcpvalidate.check.time", metric.WithUnit("s"),
		metric.WithDescription("Time the guard spent checking calls' arguments and results, handler excluded, summed over the calls; over mcpvalidate.calls, the mean check."))
	if err != nil {
		return nil, err
	}
	in.checkMax, err = m.Float64ObservableGauge("mcpvalidate.check.max", metric.WithUnit("s"),
		metric.WithDescription("The longest single check of a call's arguments or result since the previous collection by any reader, handler excluded; no point when there was no check."))
	if err != nil {
		return nil, err
	}
	if _, err = m.RegisterCallback(in.observeCalls, in.calls, in.checkTime, in.checkMax); err != nil {
		return nil, err
	}
	if c.histogram {
		in.check, err = m.Float64Histogram("mcpvalidate.check.duration", metric.WithUnit("s"),
			metric.WithDescription("Time the guard spent checking a call's arguments or result, handler excluded."),
			metric.WithExplicitBucketBoundaries(CheckBuckets()...))
		if err != nil {
			return nil, err
		}
	}
	in.other = newToolAttrs(string(appendToolKey(nil, "", OtherTool)))
	return in, nil
}

// Option returns the guard option that records every validated call: pass it to
// mcpvalidate.New or gosdk.New (their Option is package guard's).
func (in *Instrumentation) Option() guard.Option {
	return guard.Join(guard.WithObserver(in.Observe), guard.WithCallEnd(in.End), guard.WithSchemaChanges(in.SchemaChanged))
}

// SchemaChanged counts each tool of c in mcpvalidate.schema.changes, by
// mcpvalidate.schema.change: added, removed or changed. [Instrumentation.Option]
// installs it.
func (in *Instrumentation) SchemaChanged(c guard.SchemaChange) {
	for _, each := range []struct {
		change string
		tools  []string
	}{{"added", c.Added}, {"removed", c.Removed}} {
		for _, tool := range each.tools {
			in.countChange(c.Server, tool, each.change)
		}
	}
	for _, t := range c.Changed {
		in.countChange(c.Server, t.Tool, "changed")
	}
}

func (in *Instrumentation) countChange(server, tool, change string) {
	t := in.attrs(server, tool)
	in.changes.Add(context.Background(), 1, metric.WithAttributes(t.with(KeyChange.String(change))...))
}

// outcomes is the number of outcomes, with the zero value.
const outcomes = int(guard.UnknownTool) + 1

var outcomeNames = [outcomes]string{guard.Accepted: "accepted", guard.Refused: "refused",
	guard.SchemaBroken: "schema_broken", guard.ResultRefused: "result_refused", guard.UnknownTool: "unknown_tool"}

// OutcomeName returns the value of mcpvalidate.outcome for o.
func OutcomeName(o guard.Outcome) string {
	if int(o) < len(outcomeNames) && outcomeNames[o] != "" {
		return outcomeNames[o]
	}
	return "other"
}

// newToolAttrs makes the attribute sets of the tool of key (toolKey).
func newToolAttrs(key string) *toolAttrs {
	server, name, _ := strings.Cut(key, "\x00")
	t := &toolAttrs{name: name}
	if server != "" {
		t.server = KeyServerName.String(server)
	}
	for ro := range 2 {
		for o := range outcomeNames {
			t.outcomes[ro][o] = measuredOf(t.with(KeyOutcome.String(OutcomeName(guard.Outcome(o))), KeyReportOnly.Bool(ro == 1))...)
		}
	}
	t.tool = measuredOf(t.with()...).add
	t.op = t.operation("")
	return t
}

// operation returns the options of the tool's operation of the protocol version v, none
// when v is "".
func (t *toolAttrs) operation(v string) versioned {
	kvs := t.with(KeyMethodName.String(string(mcpconv.MethodNameToolsCall)), KeyOperationName.String(string(mcpconv.GenAIOperationNameExecuteTool)))
	if v != "" {
		kvs = append(kvs, KeyProtocolVersion.String(v))
	}
	return versioned{ok: measuredOf(kvs...).record, fail: measuredOf(append(kvs, KeyErrorType.String(ToolError))...).record}
}

// with returns the tool's name and server, when known, with kvs.
func (t *toolAttrs) with(kvs ...attribute.KeyValue) []attribute.KeyValue {
	kvs = append(kvs, KeyToolName.String(t.name))
	if t.server.Key != "" {
		kvs = append(kvs, t.server)
	}
	return kvs
}

// version returns the options of the tool's operation of the protocol version v, one of
// protocolVersions or "other".
func (t *toolAttrs) version(v string) *versioned {
	v = protocolVersion(v)
	if o, ok := t.versions.get(v); ok {
		return o
	}
	o, _ := t.versions.add(v, len(protocolVersions)+1, func(v string) *versioned {
		o := t.operation(v)
		return &o
	})
	return o
}

// attrs returns the attribute sets of the tool name of server ("" when unknown), within
// MaxTools names.
func (in *Instrumentation) attrs(server, name string) *toolAttrs {
	var buf [256]byte
	key := appendToolKey(buf[:0], server, name)
	if t, ok := in.tools.getKey(key); ok {
		return t
	}
	if t, ok := in.tools.add(string(key), MaxTools, newToolAttrs); ok {
		return t
	}
	return in.other
}

// appendToolKey appends the key of the tool name of server among the tools' attribute
// sets; a server name is cut short at a NUL or past maxServerName bytes.
func appendToolKey(b []byte, server, name string) []byte {
	if i := strings.IndexByte(server, 0); i >= 0 {
		server = server[:i]
	}
	if len(server) > maxServerName {
		server = strings.ToValidUTF8(server[:maxServerName], "")
	}
	b = append(append(b, server...), 0)
	return append(b, name...)
}

// maxServerName bounds the bytes of a server's name that attributes carry.
const maxServerName = 128

// names maps names to values, read without a lock or a hash of an interface: adding a name
// copies the map, which a bound on the names keeps small.
type names[V any] struct {
	m  atomic.Pointer[map[string]V]
	mu sync.Mutex // of the adding
}

// getKey is get of the name key, without making a string of it.
func (n *names[V]) getKey(key []byte) (V, bool) {
	var v V
	m := n.m.Load()
	if m == nil {
		return v, false
	}
	v, ok := (*m)[string(key)]
	return v, ok
}

func (n *names[V]) get(name string) (V, bool) {
	var v V
	m := n.m.Load()
	if m == nil {
		return v, false
	}
	v, ok := (*m)[name]
	return v, ok
}

// add returns the value of name, made by mk of a copy of name (not to hold the request it
// came in) unless there are limit names already; false then.
func (n *names[V]) add(name string, limit int, mk func(string) V) (V, bool) {
	var old map[string]V
	if m := n.m.Load(); m != nil {
		old = *m
	}
	if v, ok := old[name]; ok || len(old) >= limit {
		return v, ok
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if m := n.m.Load(); m != nil {
		old = *m
	}
	if v, ok := old[name]; ok || len(old) >= limit {
		return v, ok
	}
	m := make(map[string]V, len(old)+1)
	maps.Copy(m, old)
	name = strings.Clone(name)
	m[name] = mk(name)
	n.m.Store(&m)
	return m[name], true
}

// each calls f with each value.
func (n *names[V]) each(f func(V)) {
	if m := n.m.Load(); m != nil {
		for _, v := range *m {
			f(v)
		}
	}
}

// Observe records one validated call ([guard.Event]): mcpvalidate.calls, the check's time
// (mcpvalidate.check.time and .max, and .duration [WithCheckHistogram]), violations,
// repairs and retries, and, on the span in the call's context, the outcome and, unless the
// call was accepted, a [RefusalEvent]. [Instrumentation.Option] installs it;
// mcpvalidate.WithObserver(inst.Observe) does too, without the operation's duration.
func (in *Instrumentation) Observe(e guard.Event) {
	ctx := e.Context
	if ctx == nil {
		ctx = context.Background()
	}
	ro := 0
	if e.ReportOnly {
		ro = 1
	}
	o := int(e.Outcome)
	if o >= len(outcomeNames) {
		o = 0
	}
	if e.Outcome == guard.UnknownTool { // not checked: counted alone, under one name
		in.attrs(e.ServerName, guard.UnknownToolName).calls[ro][o].Add(1)
		annotate(trace.SpanFromContext(ctx), e)
		return
	}
	t := in.attrs(e.ServerName, e.Tool)
	t.calls[ro][o].Add(1)
	d := max(int64(e.Duration), 0)
	t.checked[ro][o].Add(d)
	raise(&t.longest[ro][o], d+1)
	if in.check != nil {
		in.check.Record(ctx, e.Duration.Seconds(), t.outcomes[ro][o].record...)
	}
	if e.Retries > 0 {
		in.repairs.Add(ctx, 1, t.tool...)
		in.retries.Add(ctx, int64(e.Retries), t.tool...)
	}
	for _, v := range e.Violations {
		n := int64(1)
		if v.Kind == guard.KindTruncated {
			n = int64(v.Count)
		}
		where := "arguments"
		if v.InResult {
			where = "result"
		}
		in.viols.Add(ctx, n, metric.WithAttributes(t.with(KeyKind.String(v.Kind.String()),
			KeyKeyword.String(keyword(v.Keyword)), KeyIn.String(where))...))
	}
	annotate(trace.SpanFromContext(ctx), e)
}

// raise makes a at least v.
func raise(a *atomic.Int64, v int64) {
	for {
		old := a.Load()
		if old >= v || a.CompareAndSwap(old, v) {
			return
		}
	}
}

// observeCalls reports mcpvalidate.calls, .check.time and .check.max, each tool's by
// outcome. It takes each longest check it reports, so that the next collection, by any
// reader, reports the longest since this one.
func (in *Instrumentation) observeCalls(_ context.Context, o metric.Observer) error {
	report := func(t *toolAttrs) {
		for ro := range t.calls {
			for oc := range t.calls[ro] {
				n := t.calls[ro][oc].Load()
				if n == 0 {
					continue
				}
				opts := t.outcomes[ro][oc].observe
				o.ObserveInt64(in.calls, n, opts...)
				o.ObserveFloat64(in.checkTime, seconds(t.checked[ro][oc].Load()), opts...)
				if l := t.longest[ro][oc].Swap(0); l > 0 {
					o.ObserveFloat64(in.checkMax, seconds(l-1), opts...)
				}
			}
		}
	}
	in.tools.each(report)
	report(in.other)
	return nil
}

func seconds(ns int64) float64 { return float64(ns) / 1e9 }

// End records mcp.server.operation.duration for one call's end ([guard.CallEnd]).
func (in *Instrumentation) End(e guard.CallEnd) {
	ctx := e.Context
	if ctx == nil {
		ctx = context.Background()
	}
	t := in.attrs(e.Server, e.Tool)
	op := &t.op
	if e.ProtocolVersion != "" {
		op = t.version(e.ProtocolVersion)
	}
	opts := op.ok
	if e.IsError {
		opts = op.fail
	}
	in.operation.Inst().Record(ctx, e.Duration.Seconds(), opts...)
}

// keyword returns a schema keyword as an attribute value: keywords are the schema
// vocabulary's, a bounded set; anything else becomes "other".
func keyword(k string) string {
	if k == "" {
		return "none"
	}
	if len(k) > 32 {
		return "other"
	}
	for i := 0; i < len(k); i++ {
		c := k[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '$') {
			return "other"
		}
	}
	return k
}

// protocolVersions are the MCP protocol versions recorded as themselves: those released,
// and the draft the adapters speak.
var protocolVersions = [...]string{"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"}

// protocolVersion returns an MCP protocol version as an attribute value: one of
// protocolVersions, or "other", so that versions a client makes up take no series.
func protocolVersion(v string) string {
	for _, k := range protocolVersions {
		if v == k {
			return k
		}
	}
	return "other"
}

// annotate records the call's outcome on span, and what was refused in a RefusalEvent.
func annotate(span trace.Span, e guard.Event) {
	if !span.IsRecording() {
		return
	}
	outcome := OutcomeName(e.Outcome)
	span.SetAttributes(KeyOutcome.String(outcome), KeyReportOnly.Bool(e.ReportOnly))
	if e.Outcome == guard.Accepted {
		return
	}
	if !e.ReportOnly {
		span.SetAttributes(KeyErrorType.String(ToolError))
	}
	count := 0
	kinds := make([]string, 0, min(len(e.Violations), MaxSpanPaths))
	paths := make([]string, 0, cap(kinds))
	for _, v := range e.Violations {
		if v.Kind == guard.KindTruncated {
			count += v.Count
			continue
		}
		count++
		if len(paths) < MaxSpanPaths {
			kinds = append(kinds, v.Kind.String())
			paths = append(paths, spanPath(v))
		}
	}
	span.AddEvent(RefusalEvent, trace.WithAttributes(KeyOutcome.String(outcome), KeyReportOnly.Bool(e.ReportOnly),
		KeyViolationCount.Int(count), KeyPathsShown.Int(len(paths)), KeyKinds.StringSlice(kinds), KeyPaths.StringSlice(paths)))
}

// spanPath is where a violation is, as the guard's log lines show it: names escaped, long
// names and deep paths elided; a result's under structuredContent; "" for the arguments
// (or the result) as a whole.
func spanPath(v guard.Violation) string {
	p := v.Path.String()
	if !v.InResult {
		return p
	}
	if p == "" {
		return "structuredContent"
	}
	if strings.HasPrefix(p, "[") {
		return "structuredContent" + p
	}
	return "structuredContent." + p
}

// ObserveCache reports the schema cache of g, summed with those of the other guards
// given, through observable instruments read at each collection: mcpvalidate.cache.schemas,
// .bindings and .size (gauges), and .compilations, .hits, .misses and .evictions
// (counters). A framework's adapter gives its guard with its Guard method. The guard is
// kept for as long as the Instrumentation.
func (in *Instrumentation) ObserveCache(g *guard.Guard) error {
	if g == nil {
		return errors.New("mcpvalidateotel: ObserveCache of a nil guard")
	}
	in.cacheMu.Lock()
	defer in.cacheMu.Unlock()
	in.guards = append(in.guards, g)
	if in.cacheOn {
		return nil
	}
	m := in.meter
	gauge := func(name, unit, desc string) (metric.Int64ObservableGauge, error) {
		return m.Int64ObservableGauge(name, metric.WithUnit(unit), metric.WithDescription(desc))
	}
	counter := func(name, unit, desc string) (metric.Int64ObservableCounter, error) {
		return m.Int64ObservableCounter(name, metric.WithUnit(unit), metric.WithDescription(desc))
	}
	schemas, err1 := gauge("mcpvalidate.cache.schemas", "{schema}", "Distinct schema texts the guard's cache holds, each compiled at most once.")
	bindings, err2 := gauge("mcpvalidate.cache.bindings", "{binding}", "Tool schemas bound to a text in the guard's cache.")
	size, err3 := gauge("mcpvalidate.cache.size", "By", "Bytes the guard's schema cache holds by its own count, within its budget.")
	compiled, err4 := counter("mcpvalidate.cache.compilations", "{schema}", "Schemas compiled since the guard was made, evicted ones included.")
	hits, err5 := counter("mcpvalidate.cache.hits", "{lookup}", "Lookups of a tool's schema that found it compiled or bound.")
	misses, err6 := counter("mcpvalidate.cache.misses", "{lookup}", "Lookups of a tool's schema that did not find it, each followed by binding it.")
	evicted, err7 := counter("mcpvalidate.cache.evictions", "{binding}", "Bindings evicted to keep the cache within its budget.")
	for _, err := range []error{err1, err2, err3, err4, err5, err6, err7} {
		if err != nil {
			return err
		}
	}
	_, err := m.RegisterCallback(func(_ context.Context, o metric.Observer) error {
		in.cacheMu.Lock()
		var sum guard.CacheStats
		for _, g := range in.guards {
			st := g.CacheStats()
			sum.Texts += st.Texts
			sum.Bindings += st.Bindings
			sum.Held += st.Held
			sum.Compiled += st.Compiled
			sum.Hits += st.Hits
			sum.Misses += st.Misses
			sum.Evicted += st.Evicted
		}
		in.cacheMu.Unlock()
		o.ObserveInt64(schemas, int64(sum.Texts))
		o.ObserveInt64(bindings, int64(sum.Bindings))
		o.ObserveInt64(size, sum.Held)
		o.ObserveInt64(compiled, sum.Compiled)
		o.ObserveInt64(hits, sum.Hits)
		o.ObserveInt64(misses, sum.Misses)
		o.ObserveInt64(evicted, sum.Evicted)
		return nil
	}, schemas, bindings, size, compiled, hits, misses, evicted)
	if err != nil {
		return err
	}
	in.cacheOn = true
	return nil
}
