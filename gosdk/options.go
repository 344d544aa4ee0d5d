// Code generated from the root package's options.go by TestMirrorsTheRootPackage; DO NOT EDIT.

package gosdk

// The functional options of Compile and New, as the core package defines them.

import (
	"log/slog"

	"github.com/mcpvalidate/mcpvalidate/internal/core"
)

// An Option configures [Compile] and [New]. Options that concern only the guard are
// ignored by Compile.
type Option = core.Option

// DefaultCacheBudget is the memory, in bytes, that one guard's compiled schemas may hold
// unless [WithCacheBudget] says otherwise.
const DefaultCacheBudget = core.DefaultCacheBudget

// WithObserver calls fn after every validated call, on the caller's goroutine. See
// [core.WithObserver].
func WithObserver(fn func(Event)) Option { return core.WithObserver(fn) }

// WithCallEnd calls fn when a validated call ends, after its handler returned or the guard
// answered in its place, with the call's context and duration. See [core.WithCallEnd].
func WithCallEnd(fn func(CallEnd)) Option { return core.WithCallEnd(fn) }

// WithSchemaChanges calls fn with each change of a server's tools an adapter tells of
// (the proxy's, from one tool list to the next). See [core.WithSchemaChanges].
func WithSchemaChanges(fn func(SchemaChange)) Option { return core.WithSchemaChanges(fn) }

// WithLogger logs refusals of arguments (at Info), of results (at Warn) and broken schemas
// (at Error) to l, saying so when they only report (WithReportOnly); accepted calls that
// repair refusals at Info, the others at Debug. See [core.WithLogger].
func WithLogger(l *slog.Logger) Option { return core.WithLogger(l) }

// WithFullEngine validates every schema with the full JSON Schema engine
// (santhosh-tekuri/jsonschema) rather than the subset that otherwise validates every
// schema. See [core.WithFullEngine].
func WithFullEngine() Option { return core.WithFullEngine() }

// WithFormatAssertion makes "format" an assertion rather than an annotation. See
// [core.WithFormatAssertion].
func WithFormatAssertion() Option { return core.WithFormatAssertion() }

// WithMaxDepth bounds how deeply the arguments may nest (default 64, at most 10,000). See
// [core.WithMaxDepth].
func WithMaxDepth(n int) Option { return core.WithMaxDepth(n) }

// WithMaxViolations bounds how many violations are listed (default 20). See
// [core.WithMaxViolations].
func WithMaxViolations(n int) Option { return core.WithMaxViolations(n) }

// WithFormatter chooses how violations become text; [DetailedFormat] goes with
// [WithHints]. See [core.WithFormatter].
func WithFormatter(f Formatter) Option { return core.WithFormatter(f) }

// WithHints makes the guard find, on each refusal, what [DetailedFormat] tells besides the
// default style: the name or value meant, whether a member may be left out. See
// [core.WithHints].
func WithHints() Option { return core.WithHints() }

// WithViolationMeta makes each refusal carry its violations as data in the result's
// _meta, under [MetaKey]. See [core.WithViolationMeta].
func WithViolationMeta() Option { return core.WithViolationMeta() }

// WithCacheBudget bounds the memory, in bytes, that a guard's compiled schemas may hold
// (default [DefaultCacheBudget], 64 MiB). See [core.WithCacheBudget].
func WithCacheBudget(bytes int64) Option { return core.WithCacheBudget(bytes) }

// WithReportOnly lets every call reach its handler: a call that would be refused is only
// reported, to observers, the logger and the counters. See [core.WithReportOnly].
func WithReportOnly() Option { return core.WithReportOnly() }

// WithOutputValidation checks every successful result of a tool that declares an
// outputSchema, after its handler ran, on the regular and the task path. See
// [core.WithOutputValidation].
func WithOutputValidation() Option { return core.WithOutputValidation() }

// WithEnumMisses makes the logger's line of a refused call ([WithLogger]) carry the values
// sent outside an enum, escaped and bounded: model output, so it is off by default, and the
// values go to the log alone. See [core.WithEnumMisses].
func WithEnumMisses() Option { return core.WithEnumMisses() }
