package guard

// The functional options: a CompileOption configures how schemas are compiled and
// validated, wherever that happens; an Option configures a guard.

// An Option configures a [Guard]: what it does with a call, who hears of it, and, as a
// [CompileOption] is an Option too, how it compiles its tools' schemas.
type Option interface {
	apply(*config)
}

// A CompileOption configures how a schema is compiled and what validating it finds:
// [Compile] and [Lint] take these alone, a [Guard] takes them for every schema it compiles.
type CompileOption func(*config)

func (o CompileOption) apply(c *config) { o(c) }

// guardOption is an Option that concerns the guard alone.
type guardOption func(*config)

func (o guardOption) apply(c *config) { o(c) }

type config struct {
	fullEngine    func(schema []byte, tree any, cfg config) (func(args []byte, limit int) []Violation, error) // compileFull, under WithFullEngine
	assertFormat  bool
	maxDepth      int
	maxViolations int
	formatter     Formatter
	observers     []func(Event)
	ends          []func(CallEnd)
	changes       []func(SchemaChange)
	cacheBudget   int64
	reportOnly    bool
	outputs       bool
	hints         bool // find what DetailedFormat tells besides the default style (hint.go)
	meta          bool // refusals carry their violations as data (meta.go)
	enumMisses    bool // log lines carry the values sent outside an enum (misses.go)
}

const (
	defaultMaxDepth      = 64
	defaultMaxViolations = 20
)

func defaultConfig() config {
	return config{maxDepth: defaultMaxDepth, maxViolations: defaultMaxViolations, formatter: DefaultFormat,
		cacheBudget: DefaultCacheBudget}
}

func newConfig(opts []Option) config {
	c := defaultConfig()
	for _, o := range opts {
		if o != nil {
			o.apply(&c)
		}
	}
	return c
}

func compileConfig(opts []CompileOption) config {
	c := defaultConfig()
	for _, o := range opts {
		if o != nil {
			o(&c)
		}
	}
	return c
}

// Join returns the option that applies opts in order: what a package that configures a
// guard in more than one way (such as mcpvalidate's OpenTelemetry module) hands its user.
func Join(opts ...Option) Option {
	return guardOption(func(c *config) {
		for _, o := range opts {
			if o != nil {
				o.apply(c)
			}
		}
	})
}

// WithFullEngine validates every schema with the full JSON Schema engine
// (santhosh-tekuri/jsonschema) rather than the subset that otherwise validates every
// schema: many times slower, with violations of the same kinds in the same order. It is
// there to compare the two engines, and as a way around a fault of the subset until it is
// fixed.
//
// The engine is linked only into a program that imports package
// [github.com/mcpvalidate/mcpvalidate/guard/fullengine]; elsewhere Compile fails under
// WithFullEngine with a *SchemaError that says so.
func WithFullEngine() CompileOption { return func(c *config) { c.fullEngine = compileFull } }

// WithFormatAssertion makes "format" an assertion rather than an annotation: date-time,
// date, time, email, uuid, ipv4, ipv6, uri and the other formats the full engine knows are
// checked; unknown format names are still ignored. Schemas of draft 7 and earlier assert
// formats whatever this option says, as those drafts require.
func WithFormatAssertion() CompileOption { return func(c *config) { c.assertFormat = true } }

// WithMaxDepth bounds how deeply the arguments may nest (default 64, at most 10,000, which
// is also where mcp-go's decoder stops). Deeper arguments get one violation, of
// [KindTooDeep].
func WithMaxDepth(n int) CompileOption {
	return func(c *config) {
		if n > 0 {
			c.maxDepth = min(n, maxDepthLimit)
		}
	}
}

// maxDepthLimit keeps validation's recursion well inside a goroutine's stack.
const maxDepthLimit = 10000

// WithMaxViolations bounds how many violations are listed (default 20); the rest are
// counted in one closing violation of [KindTruncated].
func WithMaxViolations(n int) CompileOption {
	return func(c *config) {
		if n > 0 {
			c.maxViolations = n
		}
	}
}

// WithFormatter chooses how the guard's refusals put violations into words. The default
// is [DefaultFormat]; [GatewayFormat] and [DetailedFormat] are the other built-in styles.
// A formatter chosen here is given what [WithHints] finds, so that DetailedFormat, or a
// formatter of your own, tells the model the name or value it meant.
func WithFormatter(f Formatter) Option {
	return guardOption(func(c *config) {
		if f != nil {
			c.formatter = f
			c.hints = true
		}
	})
}

// WithHints makes validation find, on each refusal, what the model needs to see what it
// sent wrong and [DetailedFormat] tells: [Violation.Near], Declared, Optional and Sent. It
// reads the arguments again, on refused calls only, within a bounded amount of work per
// refusal. A guard given [WithFormatter] finds them already.
func WithHints() CompileOption { return func(c *config) { c.hints = true } }

// WithViolationMeta makes each refusal, of arguments or of a result, carry its violations
// as data in the result's _meta, under [MetaKey], for clients that act on them rather than
// read the text: each violation's JSON Pointer, kind, keyword and what the schema asks,
// never a value that was sent. It is off by default because the data is several times
// the size of the text, and a refusal should cost no more than the framework's own.
func WithViolationMeta() Option { return guardOption(func(c *config) { c.meta = true }) }

// WithCacheBudget bounds the memory, in bytes, that a guard's compiled schemas may hold
// (default [DefaultCacheBudget], 64 MiB). A schema is compiled once per distinct text and
// shared by every tool and session that declares it; past the budget, the schemas called
// least recently are dropped one at a time, to be compiled again if called again. The
// bytes are what each compiled schema holds, counted as it is compiled (its size
// estimates them until then).
func WithCacheBudget(bytes int64) Option {
	return guardOption(func(c *config) {
		if bytes > 0 {
			c.cacheBudget = bytes
		}
	})
}

// WithReportOnly lets every call reach its handler: a call that would be refused is only
// reported, to the observers ([WithObserver]), the logger ([WithLogger]) and
// [Guard.Stats], as it would be in enforcing mode, and marked as having run
// ([Event.ReportOnly], [ToolStats.Unenforced]). It is the first step of a
// rollout on a live server: see which calls would be refused, and why, before refusing them.
// A framework's own check that an adapter replaces when it enforces (go-sdk's, on the typed
// tools of gosdk.AddTool) stays in place meanwhile, so that a server never protects less
// than its framework alone.
func WithReportOnly() Option { return guardOption(func(c *config) { c.reportOnly = true }) }

// WithOutputValidation checks every successful result of a tool that declares an
// outputSchema, after its handler ran, on the regular and the task path. A result whose
// structuredContent does not match, or that has none, is replaced by an isError result
// telling the model that the tool failed on the server's side and that calling it again
// will not help; the bad result never reaches the client. The operator hears of it as the
// outcome [ResultRefused], and [ToolStats.ResultRefused] counts it. An outputSchema that does not
// compile fails closed, as an input schema does: the tool is not called.
func WithOutputValidation() Option { return guardOption(func(c *config) { c.outputs = true }) }
