// Code generated from the root package's events.go by TestMirrorsTheRootPackage; DO NOT EDIT.

package gosdk

// Event, Outcome, ToolStats and ToolError: what the guard tells its operator, as the core
// package defines them.

import "github.com/mcpvalidate/mcpvalidate/internal/core"

// An Event reports one validated call to an observer ([WithObserver]): Tool, Outcome,
// SessionID, ClientName and ClientVersion, Violations (never argument values), Err (why a
// schema is broken), Duration (of the check), ReportOnly, Retries (the refusals an
// accepted call repairs), Context and ProtocolVersion. See [core.Event].
type Event = core.Event

// A CallEnd reports the end of one validated call to [WithCallEnd]: its context, tool,
// duration and whether its result is an error. See [core.CallEnd].
type CallEnd = core.CallEnd

// A SchemaChange reports a change of the tools a server lists to [WithSchemaChanges]: the
// tools added, removed and changed (each a [ToolChange]). See [core.SchemaChange].
type SchemaChange = core.SchemaChange

// A ToolChange is one tool whose schemas changed: content hashes before and after, and
// where they differ. See [core.ToolChange].
type ToolChange = core.ToolChange

// Outcome is what became of a tool call.
type Outcome = core.Outcome

// The outcomes of a call (see [core.Outcome]).
const (
	Accepted      = core.Accepted
	Refused       = core.Refused
	SchemaBroken  = core.SchemaBroken
	ResultRefused = core.ResultRefused
)

// ToolStats are one tool's counters: Accepted, Refused, SchemaBroken, Repaired, Retries,
// ResultRefused and Unenforced, with its repair ratio (CallsPerAccepted and
// RefusalsPerRepair). See [core.ToolStats].
type ToolStats = core.ToolStats

// Shared is a guard as one framework's adapter hands it to another's (Share, then Wrap),
// so that a process serving through both shares one cache and one set of counters. It is
// opaque.
type Shared = core.Shared

// A ToolError is a tool whose inputSchema or outputSchema does not compile, as
// the guard's start-up check reports it. See [core.ToolError].
type ToolError = core.ToolError
