package mcpvalidate

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// The MCP protocol version of a call, for the observers (Event.ProtocolVersion,
// CallEnd.ProtocolVersion). mcp-go tells it in different places by transport and release:
// in the request's _meta (2026-07-28 on), in the session (v1.1 on), in the
// MCP-Protocol-Version header (streamable HTTP); before v1.1, a stdio or in-process session
// tells it nowhere, so the guard remembers what initialize answered, through a hook
// CheckServer adds, until the session ends.

// metaProtocolVersion is the _meta key in which a request of protocol 2026-07-28 or later
// declares its version.
const metaProtocolVersion = "io.modelcontextprotocol/protocolVersion"

// maxVersionSessions bounds the sessions whose negotiated version the guard remembers.
const maxVersionSessions = 10000

// versions holds the protocol version each session negotiated at initialize, for the
// releases of mcp-go whose sessions do not tell it.
type versions struct {
	sessions sync.Map     // session ID -> string
	held     atomic.Int64 // entries in sessions, or for a moment more
}

func (v *versions) set(id, version string) {
	if v.held.Load() >= maxVersionSessions {
		v.sessions.Range(func(k, _ any) bool { // make room: any one will do
			v.forget(k.(string))
			return false
		})
	}
	if _, loaded := v.sessions.Swap(id, version); !loaded {
		v.held.Add(1)
	}
}

func (v *versions) of(id string) string {
	if v.held.Load() == 0 {
		return ""
	}
	s, _ := v.sessions.Load(id)
	version, _ := s.(string)
	return version
}

func (v *versions) forget(id string) {
	if _, ok := v.sessions.LoadAndDelete(id); ok {
		v.held.Add(-1)
	}
}

// protocolVersion returns the MCP protocol version of the call req in session, "" when
// nothing tells it.
func (g *Guard) protocolVersion(session server.ClientSession, req *mcp.CallToolRequest) string {
	if m := req.Params.Meta; m != nil {
		if v, ok := m.AdditionalFields[metaProtocolVersion].(string); ok && v != "" {
			return v
		}
	}
	if s, ok := session.(interface{ ProtocolVersion() string }); ok {
		if v := s.ProtocolVersion(); v != "" {
			return v
		}
	}
	if v := req.Header[server.HeaderKeyProtocolVersion]; len(v) > 0 && v[0] != "" { // the key is canonical
		return v[0]
	}
	if session == nil {
		return ""
	}
	return g.versions.of(session.SessionID())
}

// rememberVersions adds to hooks what keeps the negotiated version of the sessions that
// do not tell it themselves, forgotten when they end.
func (g *Guard) rememberVersions(hooks *server.Hooks) {
	hooks.AddAfterInitialize(func(ctx context.Context, _ any, _ *mcp.InitializeRequest, res *mcp.InitializeResult) {
		s := server.ClientSessionFromContext(ctx)
		if s == nil || res == nil || !g.core.Observed() {
			return
		}
		if _, told := s.(interface{ ProtocolVersion() string }); told {
			return
		}
		g.versions.set(s.SessionID(), res.ProtocolVersion)
	})
}
