package gosdk

import (
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpvalidate/mcpvalidate/guard"
)

// A session's refusals await the accepted call that repairs them; when the session ends,
// none will, and the guard forgets them. go-sdk reports a session's end only to those
// waiting on it, so a session that has had a refusal is waited on, once per guard.

type watchKey struct {
	guard   *guard.Guard
	session *mcp.ServerSession
}

// watched holds the sessions being waited on.
var watched sync.Map // watchKey -> struct{}

// forgetWhenEnded makes g forget ss's refusals when ss ends.
func forgetWhenEnded(g *guard.Guard, ss *mcp.ServerSession) {
	if ss == nil {
		return
	}
	k := watchKey{g, ss}
	if _, waiting := watched.LoadOrStore(k, struct{}{}); waiting {
		return
	}
	go func() {
		_ = ss.Wait()
		g.ForgetSession(ss.ID())
		watched.Delete(k)
	}()
}
