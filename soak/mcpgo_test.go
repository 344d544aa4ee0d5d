package soak

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpvalidate/mcpvalidate"
	"github.com/mcpvalidate/mcpvalidate/guard"
)

// mcpgoServer is an mcp-go streamable-HTTP server behind the guard's middleware. A
// session's tools are added when mcp-go registers the session, from the variant its
// client's requests carry; sessions abandoned by their client are swept after idleTTL.
type mcpgoServer struct {
	g     *mcpvalidate.Guard
	srv   *server.MCPServer
	http  *server.StreamableHTTPServer
	front *front
	url   string
	h     *harness
}

func newMCPGo(h *harness) *mcpgoServer {
	m := &mcpgoServer{g: mcpvalidate.New(guard.WithCacheBudget(cacheBudget)), h: h}
	hooks := &server.Hooks{}
	hooks.AddOnRegisterSession(m.addSessionTools)
	m.srv = server.NewMCPServer("soak", "1.0.0", server.WithToolCapabilities(true),
		server.WithHooks(hooks), server.WithToolHandlerMiddleware(m.g.Middleware()))
	m.register(0)
	if err := m.g.CheckServer(m.srv); err != nil { // and the guard hears of sessions' ends
		h.t.Fatal(err)
	}
	m.http = server.NewStreamableHTTPServer(m.srv, server.WithSessionIdleTTL(idleTTL),
		server.WithStreamableHTTPLogger(slog.New(slog.DiscardHandler)),
		server.WithHTTPContextFunc(func(ctx context.Context, r *http.Request) context.Context {
			return context.WithValue(ctx, variantKey{}, r.Header.Get(variantHeader))
		}))
	m.front = serve(h.t, m.http)
	m.url = m.front.URL + "/mcp"
	return m
}

type variantKey struct{}

func (m *mcpgoServer) handle(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	m.h.ran.Add(1)
	return mcp.NewToolResultText(ranText), nil
}

func (m *mcpgoServer) addSessionTools(ctx context.Context, s server.ClientSession) {
	n, err := strconv.Atoi(fmt.Sprint(ctx.Value(variantKey{})))
	if err != nil {
		m.h.fail(fmt.Errorf("mcp-go: a session without its variant: %w", err))
		return
	}
	tools := make([]server.ServerTool, len(sessionTools))
	for i, spec := range sessionTools {
		tools[i] = server.ServerTool{Tool: mcp.NewToolWithRawSchema(spec.name, "", json.RawMessage(spec.schema(n))), Handler: m.handle}
	}
	if err := m.srv.AddSessionTools(s.SessionID(), tools...); err != nil {
		m.h.fail(fmt.Errorf("mcp-go: AddSessionTools: %w", err))
	}
}

func (m *mcpgoServer) register(version int) {
	tools := make([]server.ServerTool, len(serverTools))
	for i, spec := range serverTools {
		tools[i] = server.ServerTool{Tool: mcp.NewToolWithRawSchema(spec.name, "", json.RawMessage(spec.schema(version))), Handler: m.handle}
	}
	m.srv.AddTools(tools...)
}

func (m *mcpgoServer) guard() *guard.Guard { return m.g.Guard() }

func (m *mcpgoServer) stop() {
	m.front.CloseClientConnections()
	m.front.Close()
	_ = m.http.Shutdown(context.Background()) // stops the sweeper; there is no http.Server of its own
}

func (m *mcpgoServer) open(ctx context.Context, n int) (clientSession, error) {
	c, err := client.NewStreamableHttpClient(m.url, transport.WithHTTPBasicClient(m.h.loop.client(n)))
	if err != nil {
		return nil, err
	}
	if err := c.Start(ctx); err != nil {
		return nil, err
	}
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	init.Params.ClientInfo = mcp.Implementation{Name: "soak", Version: "1.0.0"}
	if _, err := c.Initialize(ctx, init); err != nil {
		_ = c.Close()
		return nil, err
	}
	return mcpgoSession{c}, nil
}

type mcpgoSession struct{ c *client.Client }

func (s mcpgoSession) id() string   { return s.c.GetSessionId() }
func (s mcpgoSession) close() error { return s.c.Close() }

func (s mcpgoSession) tools(ctx context.Context) ([]string, error) {
	res, err := s.c.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil {
		return nil, err
	}
	names := make([]string, len(res.Tools))
	for i, t := range res.Tools {
		names[i] = t.Name
	}
	return names, nil
}

func (s mcpgoSession) call(ctx context.Context, tool, args string) (string, bool, error) {
	req := mcp.CallToolRequest{}
	req.Params.Name = tool
	req.Params.Arguments = json.RawMessage(args)
	res, err := s.c.CallTool(ctx, req)
	if err != nil {
		return "", false, err
	}
	if len(res.Content) != 1 {
		return "", res.IsError, fmt.Errorf("%d contents, want 1", len(res.Content))
	}
	text, ok := res.Content[0].(mcp.TextContent)
	if !ok {
		return "", res.IsError, fmt.Errorf("content of type %T", res.Content[0])
	}
	return text.Text, res.IsError, nil
}

// idleTTL is how long a session abandoned by its client lives on the server.
const idleTTL = 2 * time.Second
