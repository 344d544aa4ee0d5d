package soak

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpvalidate/mcpvalidate/gosdk"
	"github.com/mcpvalidate/mcpvalidate/guard"
)

// gosdkServer is a go-sdk streamable-HTTP handler with a server per session: go-sdk has no
// tools of one session on a shared server, so a session's tools are its server's, and the
// server tools are registered again on every live session's server. go-sdk asks for the
// server on every request, not only on a session's first, so a session's server is kept
// by the variant its client's requests carry.
type gosdkServer struct {
	g     *gosdk.Guard
	front *front
	url   string
	h     *harness

	mu      sync.Mutex
	shared  []sharedTool        // the server tools as last registered
	servers map[int]*perSession // by variant
}

type perSession struct {
	srv     *mcp.Server
	started atomic.Bool // its session has been initialized
}

type sharedTool struct {
	tool    *mcp.Tool
	handler mcp.ToolHandler
}

func newGoSDK(h *harness) *gosdkServer {
	s := &gosdkServer{g: gosdk.New(guard.WithCacheBudget(cacheBudget)), h: h, servers: map[int]*perSession{}}
	s.register(0)
	s.front = serve(h.t, mcp.NewStreamableHTTPHandler(s.serverFor, &mcp.StreamableHTTPOptions{SessionTimeout: idleTTL}))
	s.url = s.front.URL
	return s
}

func (s *gosdkServer) handle(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	s.h.ran.Add(1)
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: ranText}}}, nil
}

// serverFor returns the server of the request's session, made with the tools of its
// variant on the session's first request.
func (s *gosdkServer) serverFor(r *http.Request) *mcp.Server {
	n, err := strconv.Atoi(r.Header.Get(variantHeader))
	if err != nil {
		s.h.fail(fmt.Errorf("go-sdk: a request without its variant: %w", err))
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if p, ok := s.servers[n]; ok {
		return p.srv
	}
	p := &perSession{}
	p.srv = mcp.NewServer(&mcp.Implementation{Name: "soak", Version: "1.0.0"}, &mcp.ServerOptions{
		InitializedHandler: func(context.Context, *mcp.InitializedRequest) { p.started.Store(true) },
	})
	for _, spec := range sessionTools {
		t := &mcp.Tool{Name: spec.name, InputSchema: json.RawMessage(spec.schema(n))}
		p.srv.AddTool(t, s.g.Handler(t, s.handle))
	}
	for _, st := range s.shared {
		p.srv.AddTool(st.tool, st.handler)
	}
	s.servers[n] = p
	return p.srv
}

// register registers the server tools again on every live server, and forgets the
// servers whose session has ended.
func (s *gosdkServer) register(version int) {
	shared := make([]sharedTool, len(serverTools))
	for i, spec := range serverTools {
		t := &mcp.Tool{Name: spec.name, InputSchema: json.RawMessage(spec.schema(version))}
		shared[i] = sharedTool{t, s.g.Handler(t, s.handle)}
	}
	s.mu.Lock()
	s.shared = shared
	var live []*mcp.Server
	for n, p := range s.servers {
		if p.started.Load() && !hasSession(p.srv) {
			delete(s.servers, n)
			continue
		}
		live = append(live, p.srv)
	}
	s.mu.Unlock()
	for _, srv := range live {
		for _, st := range shared {
			srv.AddTool(st.tool, st.handler)
		}
	}
}

func hasSession(srv *mcp.Server) bool {
	for range srv.Sessions() {
		return true
	}
	return false
}

func (s *gosdkServer) guard() *guard.Guard { return s.g.Guard() }

func (s *gosdkServer) stop() {
	s.front.CloseClientConnections()
	s.front.Close()
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, p := range s.servers {
		for ss := range p.srv.Sessions() {
			_ = ss.Close() // abandoned, and not yet timed out
		}
	}
	clear(s.servers)
}

func (s *gosdkServer) open(ctx context.Context, n int) (clientSession, error) {
	c := mcp.NewClient(&mcp.Implementation{Name: "soak", Version: "1.0.0"}, nil)
	cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: s.url, HTTPClient: s.h.loop.client(n)}, nil)
	if err != nil {
		return nil, err
	}
	return gosdkSession{cs}, nil
}

type gosdkSession struct{ cs *mcp.ClientSession }

func (s gosdkSession) id() string   { return s.cs.ID() }
func (s gosdkSession) close() error { return s.cs.Close() }

func (s gosdkSession) tools(ctx context.Context) ([]string, error) {
	res, err := s.cs.ListTools(ctx, nil)
	if err != nil {
		return nil, err
	}
	names := make([]string, len(res.Tools))
	for i, t := range res.Tools {
		names[i] = t.Name
	}
	return names, nil
}

func (s gosdkSession) call(ctx context.Context, tool, args string) (string, bool, error) {
	res, err := s.cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: json.RawMessage(args)})
	if err != nil {
		return "", false, err
	}
	if len(res.Content) != 1 {
		return "", res.IsError, fmt.Errorf("%d contents, want 1", len(res.Content))
	}
	text, ok := res.Content[0].(*mcp.TextContent)
	if !ok {
		return "", res.IsError, fmt.Errorf("content of type %T", res.Content[0])
	}
	return text.Text, res.IsError, nil
}
