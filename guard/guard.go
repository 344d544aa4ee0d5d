package guard

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"time"
)

// This file is the Guard: deciding, observing and counting. It knows tools by name and
// schemas by bytes; what a framework calls a tool is its adapter's business (adapters.go
// is what adapters use).

// A Guard validates tool calls before their handlers run. It holds the compiled schemas
// and the counters, so create it once per server and share it between the server's
// adapters. A Guard is safe for concurrent use.
type Guard struct {
	cfg     config
	schemas *schemaCache
	tools   sync.Map // tool name -> *toolState
	names   names
	repairs repairs
	// registered: the schemas the adapters in the server's process bound, for Registered.
	registered registered
}

// New returns a Guard configured by opts.
func New(opts ...Option) *Guard {
	g := &Guard{cfg: newConfig(opts)}
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
	// UnknownTool: the call names a tool the server does not list, which a proxy finds
	// ([Guard.Unlisted]); a framework answers such calls itself. The event's Tool is the
	// name as sent, and ReportOnly says the call went on to the server unchecked.
	UnknownTool
)

// UnknownToolName is the tool name under which calls of [UnknownTool] are recorded where
// names must stay few (metric attributes): names that a model makes up are not.
const UnknownToolName = "_unknown"

// String returns "accepted", "refused", "schema broken", "result refused" or "unknown tool".
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
	case UnknownTool:
		return "unknown tool"
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
	ServerName    string        // the server's, likewise, when the adapter stands apart from it (Call.Server)
	Violations    []Violation   // Refused, ResultRefused: why, in the arguments or the result
	Err           error         // SchemaBroken: the compile error
	Duration      time.Duration // of the check alone, not of the handler
	// Retries, for an Accepted call, counts the refusals of the same tool in the same
	// MCP session that it repairs; 0 when it repairs none, and when its result is
	// withheld (ResultRefused). The Accepted event of a call whose result is checked
	// (WithOutputValidation) comes once the result is known to reach the client or to be
	// withheld, and its Duration is of both checks.
	Retries int
	// Context is the call's context as its handler receives it, carrying its trace span;
	// nil when the adapter has none.
	Context         context.Context
	ProtocolVersion string // the MCP protocol version, when the framework tells it
	// ReportOnly: the guard runs WithReportOnly, so a call Refused or SchemaBroken was
	// not refused: its handler ran; a result ResultRefused reached the client. For
	// UnknownTool: the call went on to the server.
	ReportOnly bool

	misses []enumMiss // Refused, under WithEnumMisses: for the logger alone
}

// WithObserver calls fn after every validated call, on the caller's goroutine. fn must be
// quick and must not keep Violations beyond the call if it mutates them.
func WithObserver(fn func(Event)) Option {
	return guardOption(func(c *config) { c.observers = append(c.observers, fn) })
}

// WithLogger logs refusals of arguments (at Info: the model's mistakes), of results (at
// Warn: the server's) and broken schemas (at Error) to l, saying so when they only report (WithReportOnly). A refusal's line
// lists the kinds and paths of its first violations, as many as fit in logPaths bytes, and
// counts the others under "more"; paths and the client's name are shown as messages show
// names, long ones elided, with, under "type_misses", the types sent where others are
// allowed (types, not values). An accepted call that repairs refusals (Event.Retries) is
// logged at Info with their number under "retries"; any other accepted call at Debug,
// which costs nothing when l's level leaves Debug out. Lines never carry argument values,
// but for those sent outside an enum under [WithEnumMisses]. A change of a server's tools
// (Guard.SchemaChanged) is logged at Warn, with the tools added, removed and changed,
// content hashes and where the schemas differ, never their text.
func WithLogger(l *slog.Logger) Option {
	return Join(WithSchemaChanges(func(c SchemaChange) { logChange(l, c) }), WithObserver(func(e Event) {
		switch e.Outcome {
		case Accepted:
			level, msg := slog.LevelInfo, "mcpvalidate: tool call repaired"
			if e.Retries == 0 {
				level, msg = slog.LevelDebug, "mcpvalidate: tool call accepted"
			}
			if l.Enabled(context.Background(), level) {
				l.Log(context.Background(), level, msg, append(whose(e), "retries", e.Retries, "duration", e.Duration)...)
			}
		case Refused, ResultRefused:
			kinds, paths := logged(e.Violations)
			args := append(whose(e), "kinds", kinds, "paths", paths)
			if more := counted(e.Violations[len(paths):]); more > 0 {
				args = append(args, "more", more)
			}
			if types := typeMisses(e.Violations[:len(paths)]); types != nil {
				args = append(args, "type_misses", types)
			}
			if e.Outcome == Refused && len(e.misses) > 0 {
				args = append(args, "enum_misses", e.misses)
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
			level := slog.LevelInfo
			if e.Outcome == ResultRefused {
				level = slog.LevelWarn
			}
			l.Log(context.Background(), level, msg, append(args, "duration", e.Duration)...)
		case UnknownTool:
			msg := "mcpvalidate: call of a tool the server does not list refused"
			if e.ReportOnly {
				msg = "mcpvalidate: call of a tool the server does not list passed on unchecked"
			}
			l.Info(msg, whose(e)...)
		case SchemaBroken:
			msg := "mcpvalidate: tool schema does not compile; calls are refused"
			if e.ReportOnly {
				msg = "mcpvalidate: tool schema does not compile; calls would be refused and run (report-only)"
			}
			l.Error(msg, serverOf(e, "tool", visibleText(e.Tool), "session", visibleText(e.SessionID), "error", e.Err)...)
		}
	}))
}

// whose are the attributes of a line about the call of e: its tool, session and client,
// and its server when known.
func whose(e Event) []any {
	return serverOf(e, "tool", visibleText(e.Tool), "session", visibleText(e.SessionID), "client", visibleText(e.ClientName))
}

// serverOf appends e's server, when known, to the attributes args.
func serverOf(e Event, args ...any) []any {
	if e.ServerName != "" {
		args = append(args, "server", visibleText(e.ServerName))
	}
	return args
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

// A Verdict is the guard's answer to one call's arguments or one result: empty when the
// call or result may go on.
type Verdict struct {
	text     string      // for the model; "" when the call or result may go on
	of       judged      // what the violations are of
	vs       []Violation // why; none when the schema is broken or the tool changed
	enforced bool        // the guard refuses what it finds: not WithReportOnly
	meta     bool        // WithViolationMeta
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
	return Verdict{text: text, of: of, vs: vs, shown: shown, enforced: !g.cfg.reportOnly, meta: g.cfg.meta}
}

// Check validates one call's arguments against s: the raw bytes args, or when there are
// none (nil), the decoded value (nil, or a map[string]any).
func (g *Guard) Check(call *Call, s *Schema, args []byte, value any) (vd Verdict) {
	v, err := g.schemas.validator(s)
	start := g.started(call)
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
		if g.cfg.enumMisses && len(g.cfg.observers) > 0 {
			call.misses = enumMisses(args, value, vs)
		}
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
		g.observe(call, SchemaBroken, nil, fmt.Errorf("outputSchema: %w", err), g.started(call))
		return nil, g.verdict(brokenOutputText, ofResult, nil, nil)
	}
	return v, Verdict{}
}

// CheckResult validates the structured content of a successful result, the JSON text the
// client is sent (nil when the result has none), against the tool's outputSchema v.
func (g *Guard) CheckResult(call *Call, v *Validator, content []byte) (vd Verdict) {
	start := g.started(call)
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
	switch {
	case len(vs) == 0:
		g.sent(call, since(start))
		return Verdict{}
	case g.cfg.reportOnly:
		g.sent(call, 0)
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
	g.observe(call, Refused, vs, errReplaced, g.started(call))
	return g.verdict(replacedText, ofArguments, nil, nil)
}

var errReplaced = errors.New("mcpvalidate: the tool was registered again or removed between the framework choosing its handler and the check; the call was refused")

// Unlisted tells the observers of a call of a tool the server does not list, named
// call.Tool as sent: an [UnknownTool] event, with ReportOnly when passed, the call going on
// to the server unchecked. No tool's counters change: a made-up name has none.
func (g *Guard) Unlisted(call *Call, passed bool) {
	e := Event{Tool: call.Tool, Outcome: UnknownTool, SessionID: call.Session, ClientName: call.Client,
		ClientVersion: call.ClientVersion, ServerName: call.Server, ReportOnly: passed, Context: call.Context, ProtocolVersion: call.ProtocolVersion}
	for _, fn := range g.cfg.observers {
		g.safely(fn, e)
	}
}

// An instant is a reading of the guard's clock: the monotonic time since epoch, or 0 for
// none. Reading it takes one read of the system's clock, where time.Now takes two.
type instant time.Duration

var epoch = time.Now()

// since returns the time from t until now.
func since(t instant) time.Duration { return time.Since(epoch) - time.Duration(t) }

// startClock starts timing a call; only observers are told how long a call took.
func (g *Guard) startClock() instant {
	if len(g.cfg.observers) > 0 || len(g.cfg.ends) > 0 {
		return instant(max(time.Since(epoch), 1))
	}
	return 0
}

// started starts timing a call's check, and the call itself on its first check.
func (g *Guard) started(call *Call) instant {
	start := g.startClock()
	if call.start == 0 {
		call.start = start
	}
	return start
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

func (g *Guard) observe(call *Call, o Outcome, vs []Violation, err error, start instant) {
	t := g.counters(call)
	retries := 0
	switch o {
	case Accepted:
		g.add(t, &t.accepted, 1)
		if call.ChecksResult {
			// The repair, and so the event, wait for the result's verdict (see sent).
			call.repairing = true
			if len(g.cfg.observers) > 0 {
				call.held, call.took = true, since(start)
			}
			return
		}
		retries = g.repaired(call, t)
	case Refused:
		g.add(t, &t.refused, 1)
		if g.cfg.reportOnly {
			g.add(t, &t.unenforced, 1) // the model was told nothing, so no retry repairs it
		} else {
			g.repairs.refuse(call)
		}
	case SchemaBroken:
		g.add(t, &t.broken, 1)
		if g.cfg.reportOnly {
			g.add(t, &t.unenforced, 1)
		}
	case ResultRefused:
		g.add(t, &t.badResults, 1)
		if g.cfg.reportOnly {
			g.add(t, &t.unenforced, 1)
		}
	}
	if len(g.cfg.observers) == 0 {
		return
	}
	if call.held && !g.cfg.reportOnly {
		g.release(call, 0, 0) // the result is withheld: the call repairs nothing
	}
	g.tell(call, o, vs, err, since(start), retries)
}

// release tells the observers of the accepted call whose event waited for its result's
// verdict, with the refusals it repaired and the time its result's check took.
func (g *Guard) release(call *Call, retries int, result time.Duration) {
	call.held = false
	g.tell(call, Accepted, nil, nil, call.took+result, retries)
}

// tell calls the observers with the event of call.
func (g *Guard) tell(call *Call, o Outcome, vs []Violation, err error, took time.Duration, retries int) {
	e := Event{Tool: call.Tool, Outcome: o, SessionID: call.Session, ClientName: call.Client,
		ClientVersion: call.ClientVersion, ServerName: call.Server, Violations: vs, Err: err, Duration: took,
		ReportOnly: g.cfg.reportOnly, Retries: retries, Context: call.Context, ProtocolVersion: call.ProtocolVersion}
	e.misses, call.misses = call.misses, nil
	for _, fn := range g.cfg.observers {
		g.safely(fn, e)
	}
}

func (g *Guard) safely(fn func(Event), e Event) {
	defer func() { _ = recover() }() // an observer's bug must not decide the call
	fn(e)
}
