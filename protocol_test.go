package mcpvalidate

import (
	"context"
	"io"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/mcpvalidate/mcpvalidate/guard"
)

// versionProtocol is the protocol version the clients of TestProtocolVersion negotiate:
// one both mcp-go releases the tests run against know, and neither's default.
const versionProtocol = "2025-03-26"

// TestProtocolVersion: the observers are told the protocol version each session
// negotiated, on every transport, whichever mcp-go release: over streamable HTTP (the
// MCP-Protocol-Version header), stdio and in process (the session, or, on releases whose
// sessions do not tell it, what initialize answered, seen through CheckServer's hook),
// and on a request that declares it in _meta. A session's version is forgotten when the
// session ends.
func TestProtocolVersion(t *testing.T) {
	transports := []struct {
		name    string
		connect func(t *testing.T, srv *server.MCPServer) *client.Client
	}{
		{"in-process", func(t *testing.T, srv *server.MCPServer) *client.Client {
			// With a handler, so that the client has a session on every release.
			c, err := client.NewInProcessClientWithSamplingHandler(srv, noSampling{})
			if err != nil {
				t.Fatal(err)
			}
			return c
		}},
		{"stdio", func(t *testing.T, srv *server.MCPServer) *client.Client {
			toServer, fromClient := io.Pipe()
			toClient, fromServer := io.Pipe()
			ctx, cancel := context.WithCancel(context.Background())
			var wg sync.WaitGroup
			wg.Go(func() { _ = server.NewStdioServer(srv).Listen(ctx, toServer, fromServer) })
			t.Cleanup(func() {
				cancel()
				fromClient.Close()
				toServer.Close()
				toClient.Close()
				wg.Wait()
			})
			return client.NewClient(transport.NewIO(toClient, fromClient, nil))
		}},
		{"streamable HTTP", func(t *testing.T, srv *server.MCPServer) *client.Client {
			hs := httptest.NewServer(server.NewStreamableHTTPServer(srv))
			t.Cleanup(hs.Close)
			c, err := client.NewStreamableHttpClient(hs.URL + "/mcp")
			if err != nil {
				t.Fatal(err)
			}
			return c
		}},
	}
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			var mu sync.Mutex
			var told []string
			g := New(guard.WithObserver(func(e guard.Event) {
				mu.Lock()
				defer mu.Unlock()
				told = append(told, "event "+e.ProtocolVersion)
			}), guard.WithCallEnd(func(e guard.CallEnd) {
				mu.Lock()
				defer mu.Unlock()
				told = append(told, "end "+e.ProtocolVersion)
			}))
			srv, _ := weatherServer(t, g)
			if err := g.CheckServer(srv); err != nil {
				t.Fatal(err)
			}
			if tr.name != "streamable HTTP" { // its sessions end when the client says so, or never
				t.Cleanup(func() { // after the transport's end
					if held := g.versions.held.Load(); held != 0 {
						t.Errorf("%d sessions' versions remembered after the session ended", held)
					}
				})
			}
			c := tr.connect(t, srv)
			ctx := context.Background()
			if err := c.Start(ctx); err != nil {
				t.Fatal(err)
			}
			init := mcp.InitializeRequest{}
			init.Params.ProtocolVersion = versionProtocol
			init.Params.ClientInfo = mcp.Implementation{Name: "versions", Version: "1"}
			if res, err := c.Initialize(ctx, init); err != nil {
				t.Fatal(err)
			} else if res.ProtocolVersion != versionProtocol {
				t.Fatalf("negotiated %s, want %s", res.ProtocolVersion, versionProtocol)
			}
			req := mcp.CallToolRequest{}
			req.Params.Name = "weather"
			for _, args := range []map[string]any{{"location": "Paris"}, {"days": 2}} {
				req.Params.Arguments = args
				if _, err := c.CallTool(ctx, req); err != nil {
					t.Fatal(err)
				}
			}
			mu.Lock()
			got := told
			mu.Unlock()
			want := []string{"event " + versionProtocol, "end " + versionProtocol, "event " + versionProtocol, "end " + versionProtocol}
			if len(got) != len(want) {
				t.Fatalf("told %q, want %q", got, want)
			}
			for i := range want {
				if got[i] != want[i] {
					t.Fatalf("told %q, want %q", got, want)
				}
			}
			if err := c.Close(); err != nil {
				t.Log(err)
			}
		})
	}
	t.Run("_meta", func(t *testing.T) {
		var got []string
		g := New(guard.WithCallEnd(func(e guard.CallEnd) { got = append(got, e.ProtocolVersion) }))
		srv, _ := weatherServer(t, g)
		call(t, srv, true, "weather", `{"location":"Paris"}`)
		if len(got) != 1 || got[0] != modernProtocol {
			t.Errorf("told %q, want %s", got, modernProtocol)
		}
	})
}

// noSampling is a client's sampling handler that samples nothing.
type noSampling struct{}

func (noSampling) CreateMessage(context.Context, mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
	return nil, io.EOF
}

// TestVersionsBounded: however many sessions initialize without ending, the guard
// remembers the versions of at most maxVersionSessions, the latest among them.
func TestVersionsBounded(t *testing.T) {
	var v versions
	for i := range maxVersionSessions + 100 {
		v.set(strconv.Itoa(i), "2025-06-18")
	}
	if held := v.held.Load(); held != maxVersionSessions {
		t.Errorf("%d versions held, want %d", held, maxVersionSessions)
	}
	if got := v.of(strconv.Itoa(maxVersionSessions + 99)); got != "2025-06-18" {
		t.Errorf("the latest session's version: %q", got)
	}
	v.forget(strconv.Itoa(maxVersionSessions + 99))
	if got := v.of(strconv.Itoa(maxVersionSessions + 99)); got != "" {
		t.Errorf("a forgotten session's version: %q", got)
	}
}
