package core

import (
	"cmp"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// This file is the middleware's room: deciding, observing and counting. It knows tools by
// name and schemas by bytes; what a framework calls a tool is its adapter's business
// (calls.go is what adapters use).

// A Guard validates tool calls before their handlers run. It holds the compiled schemas
// and the counters, so create it once per server and share it between the server's
// adapters. A Guard is safe for concurrent use.
type Guard struct {
	cfg     config
	schemas *schemaCache
	tools   sync.Map // tool name -> *toolState
	names   names
	repairs repairs
}

// New returns a Guard configured by opts.
func New(opts ...Option) *Guard {
	g := &Guard{cfg: newConfig(opts), repairs: repairs{pending: map[repairKey]int{}}}
	g.schemas = newSchemaCache(g.cfg.cacheBudget, func(schema []byte) (*Validator, error) { return compileWith(schema, g.cfg) })
	return g
}

// Outcome is what became of a tool call.
type Outcome uint8

const (
	// Accepted: the arguments are valid and the handler ran.
	Accepted Outcome = iota + 1
	// Refused: the arguments are invalid; the model was told why and the handler did not run.
	Refused
	// SchemaBroken: the tool's inputSchema (or, under WithOutputValidation, its
	// outputSchema) does not compile, so no call can be checked and every call is refused.
	SchemaBroken
	// ResultRefused: the arguments were valid and the handler ran, but its result does not
	// match the tool's outputSchema (WithOutputValidation): the client was told the tool
	// failed, and never saw the result.
	ResultRefused
)

// String returns "accepted", "refused", "schema broken" or "result refused".
func (o Outcome) String() string {
	switch o {
	case Accepted:
		return "accepted"
	case Refused:
		return "refused"
	case SchemaBroken:
		return "schema broken"
	case ResultRefused:
		return "result refused"
	}
	return "outcome(" + fmt.Sprint(uint8(o)) + ")"
}

// An Event reports one validated call to an observer. It never carries argument values:
// violations hold member names, types and the schema's own values only. The names are
// whole, as sent; violations that follow one another under a name share its bytes rather
// than copy them.
type Event struct {
	Tool          string // the tool called
	Outcome       Outcome
	SessionID     string        // empty when the transport has no session
	ClientName    string        // as the client declared itself at initialize, when known
	ClientVersion string        // likewise
	Violations    []Violation   // Refused, ResultRefused: why, in the arguments or the result
	Err           error         // SchemaBroken: the compile error
	Duration      time.Duration // of the check alone, not of the handler
	// ReportOnly: the guard runs WithReportOnly, so a call Refused or SchemaBroken was
	// not refused: its handler ran; a result ResultRefused reached the client.
	ReportOnly bool
}

// WithObserver calls fn after every validated call, on the caller's goroutine. fn must be
// quick and must not keep Violations beyond the call if it mutates them.
func WithObserver(fn func(Event)) Option {
	return func(c *config) { c.observers = append(c.observers, fn) }
}

// WithLogger logs refusals of arguments and results (at Info) and broken schemas (at
// Error) to l, saying so when they only report (WithReportOnly). A refusal's line
// lists the kinds and paths of its first violations, as many as fit in logPaths bytes, and
// counts the others under "more"; paths and the client's name are shown as messages show
// names, long ones elided.
func WithLogger(l *slog.Logger) Option {
	return WithObserver(func(e Event) {
		switch e.Outcome {
		case Refused, ResultRefused:
			kinds, paths := logged(e.Violations)
			args := []any{"tool", visibleText(e.Tool), "session", visibleText(e.SessionID),
				"client", visibleText(e.ClientName), "kinds", kinds, "paths", paths}
			if more := counted(e.Violations[len(paths):]); more > 0 {
				args = append(args, "more", more)
			}
			msg := "mcpvalidate: tool call refused"
			switch {
			case e.Outcome == ResultRefused && e.ReportOnly:
				msg = "mcpvalidate: tool result does not match its output schema; it was sent (report-only)"
			case e.Outcome == ResultRefused:
				msg = "mcpvalidate: tool result does not match its output schema; the client was told the tool failed"
			case e.ReportOnly:
				msg = "mcpvalidate: tool call would be refused; it ran (report-only)"
			}
			l.Info(msg, append(args, "duration", e.Duration)...)
		case SchemaBroken:
			msg := "mcpvalidate: tool schema does not compile; calls are refused"
			if e.ReportOnly {
				msg = "mcpvalidate: tool schema does not compile; calls would be refused and run (report-only)"
			}
			l.Error(msg, "tool", visibleText(e.Tool), "session", visibleText(e.SessionID), "error", e.Err)
		}
	})
}

// logPaths bounds the text a log line gives to the kinds and paths of violations.
const logPaths = 4 << 10

// logged returns the kinds and paths of the first violations of vs that fit in logPaths
// bytes; a first path too long to fit is cut short.
func logged(vs []Violation) (kinds, paths []string) {
	used := 0
	for _, v := range vs {
		k, p := v.Kind.String(), v.where().String()
		used += len(k) + len(p) + 4 // with the quotes and spaces a handler may add
		if used > logPaths {
			if len(paths) > 0 {
				break
			}
			p = clipTo(p, logPaths/2)
		}
		kinds, paths = append(kinds, k), append(paths, p)
	}
	return kinds, paths
}

// toolState is what the guard keeps per tool name: its counters.
type toolState struct {
	accepted   atomic.Uint64
	refused    atomic.Uint64
	broken     atomic.Uint64
	repaired   atomic.Uint64 // accepted calls that followed refusals in the same session
	retries    atomic.Uint64 // the refusals those accepted calls repaired
	unenforced atomic.Uint64 // refused or broken calls whose handler ran, results sent though refused: WithReportOnly
	badResults atomic.Uint64 // results refused by the output schema
	seen       atomic.Uint64 // names.tick when last called
}

// names bounds how many tool names have counters of their own. Tools that come and go
// under fresh names would otherwise grow the guard without end: past maxNames, the quarter
// called least recently are retired and their counters added to one entry without a name.
type names struct {
	mu      sync.Mutex
	count   int
	tick    atomic.Uint64 // advanced by every new name
	retired toolState
}

const maxNames = 4096

func (g *Guard) tool(name string) *toolState {
	if v, ok := g.tools.Load(name); ok {
		t := v.(*toolState)
		if tick := g.names.tick.Load(); t.seen.Load() != tick {
			t.seen.Store(tick)
		}
		return t
	}
	g.names.mu.Lock()
	defer g.names.mu.Unlock()
	if v, ok := g.tools.Load(name); ok {
		return v.(*toolState)
	}
	t := &toolState{}
	t.seen.Store(g.names.tick.Add(1))
	g.tools.Store(name, t)
	if g.names.count++; g.names.count > maxNames {
		g.retireNames()
	}
	return t
}

// retireNames retires the quarter of the names called least recently. The lock is held.
func (g *Guard) retireNames() {
	type aged struct {
		name string
		seen uint64
	}
	var all []aged
	g.tools.Range(func(k, v any) bool {
		all = append(all, aged{k.(string), v.(*toolState).seen.Load()})
		return true
	})
	slices.SortFunc(all, func(a, b aged) int { return cmp.Compare(a.seen, b.seen) })
	r := &g.names.retired
	for _, a := range all[:len(all)/4] {
		v, _ := g.tools.LoadAndDelete(a.name)
		t := v.(*toolState)
		r.accepted.Add(t.accepted.Load())
		r.refused.Add(t.refused.Load())
		r.broken.Add(t.broken.Load())
		r.repaired.Add(t.repaired.Load())
		r.retries.Add(t.retries.Load())
		r.unenforced.Add(t.unenforced.Load())
		r.badResults.Add(t.badResults.Load())
		g.names.count--
	}
}

// A Verdict is the guard's answer to one call's arguments or one result: empty when the
// call or result may go on.
type Verdict struct {
	text     string      // for the model; "" when the call or result may go on
	of       judged      // what the violations are of
	vs       []Violation // why; none when the schema is broken or the tool changed
	enforced bool        // the guard refuses what it finds: not WithReportOnly
	// shown are the messages of the first violations, as many as a refusal's text has room
	// for (a result's text lists none: the model did nothing wrong).
	shown []string
}

// judged is what a verdict is about: a call's arguments or its result.
type judged string

const (
	ofArguments judged = "arguments"
	ofResult    judged = "result"
)

// Found reports whether the verdict found a fault, refused or, under [WithReportOnly],
// only reported.
func (v Verdict) Found() bool { return v.text != "" }

// Refused reports whether the verdict stops the call or result: it found a fault, and the
// guard enforces. The adapter then answers with [Verdict.Text] and [Verdict.Meta] instead.
func (v Verdict) Refused() bool { return v.text != "" && v.enforced }

// Text is what the model is told: for arguments, "Invalid arguments: " and the messages;
// "" when nothing was found.
func (v Verdict) Text() string { return v.text }

func (g *Guard) verdict(text string, of judged, vs []Violation, shown []string) Verdict {
	return Verdict{text: text, of: of, vs: vs, shown: shown, enforced: !g.cfg.reportOnly}
}

// Check validates one call's arguments against s: the raw bytes args, or when there are
// none (nil), the decoded value (nil, or a map[string]any).
func (g *Guard) Check(call *Call, s *Schema, args []byte, value any) (vd Verdict) {
	v, err := g.schemas.validator(s)
	start := g.startClock()
	var vs []Violation
	outcome := Accepted
	defer func() {
		if r := recover(); r != nil {
			// A bug in validation or formatting must neither crash the server nor let the call through.
			outcome = Refused
			vs = []Violation{{Kind: KindOther, Detail: "the arguments could not be validated"}}
			vd = g.verdict(refusalPrefix+"the arguments could not be validated; the server's operator has been told", ofArguments, nil, nil)
			g.observe(call, outcome, vs, fmt.Errorf("mcpvalidate: panic while validating: %v", r), start)
		}
	}()
	switch {
	case err != nil:
		g.observe(call, SchemaBroken, nil, err, start)
		return g.verdict(brokenSchemaText, ofArguments, nil, nil)
	case len(args) > 0:
		vs = validateArguments(v, args)
	default:
		vs = validateDecoded(v, value)
	}
	if len(vs) > 0 {
		outcome = Refused
		text, shown := g.render(vs)
		vd = g.verdict(text, ofArguments, vs, shown)
	}
	g.observe(call, outcome, vs, nil, start)
	return vd
}

// ResultValidator returns the validator of a tool's outputSchema s, or, when it does not
// compile, the verdict that refuses the call: an output schema fails closed, as an input
// schema does.
func (g *Guard) ResultValidator(call *Call, s *Schema) (*Validator, Verdict) {
	v, err := g.schemas.validator(s)
	if err != nil {
		g.observe(call, SchemaBroken, nil, fmt.Errorf("outputSchema: %w", err), g.startClock())
		return nil, g.verdict(brokenOutputText, ofResult, nil, nil)
	}
	return v, Verdict{}
}

// CheckResult validates the structured content of a successful result, the JSON text the
// client is sent (nil when the result has none), against the tool's outputSchema v.
func (g *Guard) CheckResult(call *Call, v *Validator, content []byte) (vd Verdict) {
	start := g.startClock()
	defer func() {
		if r := recover(); r != nil {
			vs := []Violation{{Kind: KindOther, Detail: "the result could not be validated", InResult: true}}
			vd = g.verdict(badResultText, ofResult, vs, nil)
			g.observe(call, ResultRefused, vs, fmt.Errorf("mcpvalidate: panic while validating a result: %v", r), start)
		}
	}()
	vs := []Violation{noStructuredContent}
	if content != nil {
		vs = v.Validate(content)
	}
	if len(vs) == 0 {
		return Verdict{}
	}
	for i := range vs {
		vs[i].InResult = true
	}
	g.observe(call, ResultRefused, vs, nil, start)
	_, shown := g.render(vs) // for the data only: the model is not asked to fix anything
	return g.verdict(badResultText, ofResult, vs, shown)
}

var noStructuredContent = Violation{Kind: KindRequired, Keyword: "outputSchema", InResult: true}

// Replaced refuses a call whose handler is no longer the one registered with the schema
// the adapter can find: the tool was registered again or removed while the call was on
// its way. The model is asked to call again.
func (g *Guard) Replaced(call *Call) Verdict {
	vs := []Violation{{Kind: KindOther, Detail: "the tool was registered again or removed while the call was on its way"}}
	g.observe(call, Refused, vs, errReplaced, g.startClock())
	return g.verdict(replacedText, ofArguments, nil, nil)
}

var errReplaced = errors.New("mcpvalidate: the tool was registered again or removed between the framework choosing its handler and the check; the call was refused")

// startClock starts timing a call; only observers are told how long a call took.
func (g *Guard) startClock() time.Time {
	if len(g.cfg.observers) > 0 {
		return time.Now()
	}
	return time.Time{}
}

const (
	replacedText     = "This tool changed while the call was on its way, so it was not run. Please call it again."
	refusalPrefix    = "Invalid arguments: "
	brokenSchemaText = "This tool cannot be called: its input schema is invalid. The server's operator has been told; please do not retry."
	brokenOutputText = "This tool cannot be called: its output schema is invalid. The server's operator has been told; please do not retry."
	badResultText    = "The tool failed on the server's side: its result does not match the tool's output schema, so it was withheld. The arguments were not the problem, and calling the tool again the same way will not help. The server's operator has been told."
)

// maxRefusal bounds a refusal's text, in bytes: about 2,000 tokens, little for a model's
// context and within what log pipelines carry in one record. Twenty ordinary violations
// take about a kilobyte, and the longest a built-in message gets from a schema (25
// allowed values of 200 characters) fits once, so only hostile arguments or a verbose
// formatter reach it.
const maxRefusal = 8 << 10

// render joins the messages after the prefix, within maxRefusal bytes, and returns the
// messages it shows, those of vs's first violations; a panicking formatter falls back to
// the default style.
func (g *Guard) render(vs []Violation) (text string, shown []string) {
	defer func() {
		if recover() != nil {
			text, shown = joinWithin(vs, DefaultFormat, refusalPrefix, maxRefusal)
		}
	}()
	return joinWithin(vs, g.cfg.formatter, refusalPrefix, maxRefusal)
}

// joinWithin renders vs with f, joined by "; " after prefix, in at most most bytes with the
// prefix, and returns the messages it shows. When they do not all fit, the first ones are
// kept whole (or, if even the first does not fit, its start), and the text ends by saying
// that it was cut and how many violations it leaves out. f is not called for the violations after the first that
// does not fit.
func joinWithin(vs []Violation, f Formatter, prefix string, most int) (string, []string) {
	const sep = "; "
	most -= len(prefix)
	room := most - 128 // leaves room for the closing note
	msgs := make([]string, 0, len(vs))
	size, kept := -len(sep), 0 // size: of the messages joined; kept: how many fit with the note
	for _, v := range vs {
		m := f(v)
		if size+len(sep)+len(m) > most {
			if kept == 0 { // not even the first message fits: keep its start
				msgs = append(msgs, m)
				msgs[0], kept = clipTo(msgs[0], room), 1
			}
			note := " (the refusal is cut at " + strconv.Itoa(maxRefusal) + " bytes)"
			if left := counted(vs[kept:]); left > 0 {
				note = sep + "and " + plural(left, "more violation") + " not shown" + note
			}
			return joined(prefix, msgs[:kept], sep, note), msgs[:kept]
		}
		msgs = append(msgs, m)
		if size += len(sep) + len(m); size <= room {
			kept = len(msgs)
		}
	}
	return joined(prefix, msgs, sep, ""), msgs
}

// joined is prefix, msgs joined by sep, and suffix, made in one allocation.
func joined(prefix string, msgs []string, sep, suffix string) string {
	n := len(prefix) + len(suffix) + len(sep)*max(0, len(msgs)-1)
	for _, m := range msgs {
		n += len(m)
	}
	var b strings.Builder
	b.Grow(n)
	b.WriteString(prefix)
	for i, m := range msgs {
		if i > 0 {
			b.WriteString(sep)
		}
		b.WriteString(m)
	}
	b.WriteString(suffix)
	return b.String()
}

// counted counts the violations vs stand for: one each, or Count for KindTruncated.
func counted(vs []Violation) int {
	n := 0
	for _, v := range vs {
		if v.Kind == KindTruncated {
			n += v.Count
		} else {
			n++
		}
	}
	return n
}

// validateArguments checks raw arguments, which must form an object; absent or null
// arguments count as {}.
func validateArguments(v *Validator, args []byte) []Violation {
	i := 0
	for i < len(args) && (args[i] == ' ' || args[i] == '\t' || args[i] == '\n' || args[i] == '\r') {
		i++
	}
	switch {
	case i == len(args) || string(args[i:]) == "null":
		return v.Validate(emptyObject)
	case args[i] != '{':
		if vs := v.wellFormed(args, false); vs != nil {
			return vs // not even JSON: say so first
		}
		return []Violation{notAnObject}
	}
	return v.Validate(args)
}

func validateDecoded(v *Validator, value any) []Violation {
	switch value.(type) {
	case nil:
		return v.Validate(emptyObject)
	case map[string]any:
		return v.ValidateValue(value)
	}
	return []Violation{notAnObject}
}

var (
	emptyObject = []byte("{}")
	notAnObject = Violation{Kind: KindType, Keyword: "type", Types: []string{"object"}}
)

func (g *Guard) observe(call *Call, o Outcome, vs []Violation, err error, start time.Time) {
	t := g.counters(call)
	switch o {
	case Accepted:
		t.accepted.Add(1)
		if n := g.repairs.accept(call); n > 0 {
			t.repaired.Add(1)
			t.retries.Add(uint64(n))
		}
	case Refused:
		t.refused.Add(1)
		if g.cfg.reportOnly {
			t.unenforced.Add(1) // the model was told nothing, so no retry repairs it
		} else {
			g.repairs.refuse(call)
		}
	case SchemaBroken:
		t.broken.Add(1)
		if g.cfg.reportOnly {
			t.unenforced.Add(1)
		}
	case ResultRefused:
		t.badResults.Add(1)
		if g.cfg.reportOnly {
			t.unenforced.Add(1)
		}
	}
	if len(g.cfg.observers) == 0 {
		return
	}
	e := Event{Tool: call.Tool, Outcome: o, SessionID: call.Session, ClientName: call.Client,
		ClientVersion: call.ClientVersion, Violations: vs, Err: err, Duration: time.Since(start),
		ReportOnly: g.cfg.reportOnly}
	for _, fn := range g.cfg.observers {
		g.safely(fn, e)
	}
}

func (g *Guard) safely(fn func(Event), e Event) {
	defer func() { _ = recover() }() // an observer's bug must not decide the call
	fn(e)
}

// repairs counts, per session and tool, the refusals not yet followed by an accepted call.
type repairs struct {
	mu      sync.Mutex
	open    atomic.Int64 // len(pending), read without the lock on the accepted path
	pending map[repairKey]int
}

type repairKey struct{ session, tool string }

const maxPendingRepairs = 10000

func (r *repairs) refuse(call *Call) {
	r.mu.Lock()
	defer r.mu.Unlock()
	k := repairKey{call.Session, call.Tool}
	if _, ok := r.pending[k]; !ok && len(r.pending) >= maxPendingRepairs {
		return // bounded: a flood of refusals from many sessions is not remembered
	}
	r.pending[k]++
	r.open.Store(int64(len(r.pending)))
}

// accept returns how many refusals this accepted call repaired.
func (r *repairs) accept(call *Call) int {
	if r.open.Load() == 0 {
		return 0
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	k := repairKey{call.Session, call.Tool}
	n := r.pending[k]
	delete(r.pending, k)
	r.open.Store(int64(len(r.pending)))
	return n
}

// ToolStats are one tool's counters.
type ToolStats struct {
	Tool     string // the tool's name
	Accepted uint64 // calls whose arguments were valid
	Refused  uint64 // calls refused for invalid arguments
	Broken   uint64 // calls refused because the schema does not compile
	Repaired uint64 // accepted calls that came after refusals of the same tool in the same session
	Retries  uint64 // the refusals that those accepted calls repaired
	// BadResults counts results that do not match the tool's outputSchema
	// (WithOutputValidation); their calls count as Accepted, their arguments being valid.
	BadResults uint64
	// Unenforced counts the calls of Refused and Broken that ran anyway, and the BadResults
	// sent anyway: all of them under WithReportOnly, none otherwise.
	Unenforced uint64
}

// CallsPerAccepted is the repair ratio: calls made for each accepted call (1 is perfect).
func (s ToolStats) CallsPerAccepted() float64 {
	if s.Accepted == 0 {
		return 0
	}
	return float64(s.Accepted+s.Refused+s.Broken) / float64(s.Accepted)
}

// RefusalsPerRepair is how many refused attempts, on average, a model needed before the
// accepted call that repaired them (1 means it fixed every refusal in one retry).
func (s ToolStats) RefusalsPerRepair() float64 {
	if s.Repaired == 0 {
		return 0
	}
	return float64(s.Retries) / float64(s.Repaired)
}

// Stats returns a snapshot of every tool's counters, sorted by tool name. When more than
// 4,096 tool names have been called, the counters of those called least recently are
// summed in one entry whose Tool is empty, which sorts first.
func (g *Guard) Stats() []ToolStats {
	var out []ToolStats
	g.tools.Range(func(k, v any) bool {
		out = append(out, v.(*toolState).stats(k.(string)))
		return true
	})
	if r := g.names.retired.stats(""); r != (ToolStats{}) {
		out = append(out, r)
	}
	slices.SortFunc(out, func(a, b ToolStats) int { return strings.Compare(a.Tool, b.Tool) })
	return out
}

func (t *toolState) stats(name string) ToolStats {
	return ToolStats{Tool: name, Accepted: t.accepted.Load(), Refused: t.refused.Load(),
		Broken: t.broken.Load(), Repaired: t.repaired.Load(), Retries: t.retries.Load(),
		BadResults: t.badResults.Load(), Unenforced: t.unenforced.Load()}
}
