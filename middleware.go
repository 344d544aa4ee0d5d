package mcpvalidate

// The guard of an mcp-go server: the core package's Guard, with what the adapter knows of
// where its middleware stands; its events, outcomes and counters.

import (
	"sync"

	"github.com/mcpvalidate/mcpvalidate/internal/core"
)

// A Guard validates tool calls before their handlers run. It holds the compiled schemas
// and the counters, so create it once per server: [Middleware] does; [New] gives access
// to [Guard.Stats] and to [Guard.CheckServer], which compiles every tool's schema at
// start-up into the guard's cache. A Guard is safe for concurrent use.
//
// Its core ([Guard.Share], then gosdk's Wrap) can serve a go-sdk server of the same process too, with the same
// cache and counters (package gosdk).
type Guard struct {
	core      *core.Guard
	placement placement
	hooked    sync.Map // *server.MCPServer -> struct{}: servers that tell the guard of sessions' ends
	versions  versions // the protocol version of sessions that do not tell it
}

// New returns a Guard configured by opts.
func New(opts ...Option) *Guard { return &Guard{core: core.New(opts...)} }

// Wrap returns a Guard for mcp-go servers around another framework's guard, shared with
// [Guard.Share] there: one cache, one set of counters and the same options, for a process
// that serves through both. With a go-sdk server's guard s, mcpvalidate.Wrap(s.Share()).
// The zero Shared gives a guard with the default options.
func Wrap(s Shared) *Guard {
	if g := core.Unshare(s); g != nil {
		return &Guard{core: g}
	}
	return New()
}

// Share returns the guard as [Wrap] of another framework's adapter takes it.
func (g *Guard) Share() Shared { return g.core.Share() }

// Stats returns a snapshot of every tool's counters, sorted by tool name. See
// [core.Guard.Stats].
func (g *Guard) Stats() []ToolStats { return g.core.Stats() }

// SessionsAwaitingRepair reports how many sessions have refusals that no accepted call
// has repaired yet, at most 10,000: a gauge of models stuck on a tool, and of sessions
// whose end the server did not report.
func (g *Guard) SessionsAwaitingRepair() int { return g.core.SessionsAwaitingRepair() }
