package mcpvalidate

// The guard of an mcp-go server: a guard.Guard, with what the adapter knows of where its
// middleware stands and of its servers' sessions.

import (
	"sync"

	"github.com/mcpvalidate/mcpvalidate/guard"
)

// A Guard validates the tool calls of mcp-go servers before their handlers run: the
// adapter of a [guard.Guard], which holds the compiled schemas and the counters, so create
// it once per server. [Middleware] does; [New] gives access to the counters
// ([Guard.Guard], then [guard.Guard.Stats]) and to [Guard.CheckServer], which compiles
// every tool's schema at start-up into the guard's cache. A Guard is safe for concurrent
// use.
//
// A process that serves through mcp-go and go-sdk shares one guard.Guard, its cache and its
// counters, between [Adapt] and gosdk.Adapt.
type Guard struct {
	core      *guard.Guard
	placement placement
	hooked    sync.Map // *server.MCPServer -> struct{}: servers that tell the guard of sessions' ends
	versions  versions // the protocol version of sessions that do not tell it
}

// New returns a Guard over a new [guard.Guard] configured by opts.
func New(opts ...Option) *Guard { return Adapt(guard.New(opts...)) }

// Adapt returns a Guard for mcp-go servers over g, which may serve other frameworks'
// servers of the same process too.
func Adapt(g *guard.Guard) *Guard { return &Guard{core: g} }

// Guard returns the framework-free guard under g: its counters, its cache, its
// configuration.
func (g *Guard) Guard() *guard.Guard { return g.core }
