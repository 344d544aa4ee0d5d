// Package proxy puts mcpvalidate in front of any MCP server, whatever its language: it
// sits between a client and a server, checks each tools/call's arguments against the
// inputSchema the server itself lists for the tool, and answers a call with invalid
// arguments itself, with the same isError result (text, and violations under _meta) the
// Go adapters give. The call never reaches the server.
//
// Everything else passes unchanged: responses, notifications, progress, cancellations,
// pings, the server's requests to the client (sampling, elicitation, roots) and methods
// the proxy does not know reach the other side with the same bytes, in the same order.
// A client's message that is not JSON (over stdio, a line that is not one message) is
// answered with a parse error and not sent on, so that no lenient server reads, or
// reassembles, a call the proxy did not check. A message is never re-serialised; only a
// JSON-RPC batch from which a refused call is taken out is rebuilt, of its other
// members' own bytes, and the refusals go back to the client as a batch of their own. A
// request under the id of one still in flight is answered with a JSON-RPC error and not
// sent on, and an answer is read only as the answer to the request it answers: a
// tools/list result without a tools array is never taken for the list.
//
// The tools come from the server's tools/list answers to the client, page by page, and
// are marked stale by notifications/tools/list_changed. A call of a tool not seen listed
// since (a client that cached the list, or a protocol version without initialize) makes
// the proxy ask the server for every page of the list itself, under request ids of its
// own that the client never sees answered. Over HTTP, while the client has no stream
// open on which the server would say its list changed, the proxy asks for the list before
// each call it checks. A call of a tool the server does not list is refused with the
// JSON-RPC error the MCP specification gives (-32602, "Unknown tool: " and the name,
// bounded), or with [PassUnknown] passed on unchecked; either way it is logged and told to
// the guard's observers. A call of a tool the proxy could not look up, because fetching
// the list failed or the session asked for it too often, is refused: it could not be
// checked. A tool whose inputSchema does not compile, or listed twice with different
// schemas, is refused on every call, as in the library. Sessions that got the same list
// share it, within [Options.CacheBudget].
//
// The fronts share one [Proxy]: [Proxy.Serve] and [Proxy.Run] for stdio, [Proxy.Handler]
// for streamable HTTP, and [Proxy.Interceptor] for Docker's MCP Gateway, which hands each
// call to an interceptor before the tool runs. Command mcpvalidate's proxy and intercept
// subcommands are thin shells over them:
//
//	mcpvalidate proxy -- npx -y @modelcontextprotocol/server-filesystem /data
//
// A task-augmented call (params.task) is checked as any other; a refused one is answered
// with the isError result at once, as a server that does not run the call as a task
// answers. Under [Options.Output], a task's result is checked too: the session remembers
// which tool each task runs, from the server's answer to the call (a CreateTaskResult),
// and checks the answer to the client's tasks/result against that tool's outputSchema,
// replacing a result that does not match as on the regular path. An isError result, an
// error, or a task's status in place of a result pass. A session keeps at most 1024
// tasks, and forgets a task once it is cancelled. A task is delivered once its result
// was checked and sent; to make room, the earliest delivered task is forgotten, never
// one not delivered. The result of a task the session does not know (forgotten, made
// through another proxy or before a restart, another session's) cannot be checked against
// the tool that made it: one holding structuredContent is withheld, unless no tool of the
// session's whole list declares an outputSchema. When 1024 tasks await their results (calls in flight included), the proxy
// refuses a new task-augmented call of a tool whose results it checks, saying so; the
// call never reaches the server. Task status notifications pass unchanged.
package proxy
