package proxy

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The test binary runs again as a child in these roles, chosen by the variable role.
const role = "MCPVALIDATE_PROXY_TEST_ROLE"

func TestMain(m *testing.M) {
	switch os.Getenv(role) {
	case "exit3": // a server that reads one line and exits with status 3
		_, _ = bufio.NewReader(os.Stdin).ReadString('\n')
		os.Exit(3)
	case "stubborn": // a server that outlives its stdin, until a signal ends it
		_, _ = io.Copy(io.Discard, os.Stdin)
		select {}
	case "cat": // a server that echoes what it reads until its stdin ends
		_, _ = io.Copy(os.Stdout, os.Stdin)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// runProxy runs Run in front of the test binary in role r, over pipes the test holds.
func runProxy(t *testing.T, r string) (clientSend *io.PipeWriter, clientGot *bufio.Reader, result chan [2]any) {
	return runProxyContext(t, context.Background(), r)
}

// runProxyContext is runProxy under ctx.
func runProxyContext(t *testing.T, ctx context.Context, r string) (clientSend *io.PipeWriter, clientGot *bufio.Reader, result chan [2]any) {
	t.Helper()
	p, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	cr, cw := io.Pipe()
	or, ow := io.Pipe()
	server := exec.Command(os.Args[0])
	server.Env = append(os.Environ(), role+"="+r)
	result = make(chan [2]any, 1)
	go func() {
		code, err := p.Run(ctx, server, cr, ow)
		ow.Close()
		result <- [2]any{code, err}
	}()
	t.Cleanup(func() {
		cw.Close()
		go io.Copy(io.Discard, or)
	})
	return cw, bufio.NewReader(or), result
}

// TestRunServerExits answers the call in flight when the server exits, and exits with
// the server's status.
func TestRunServerExits(t *testing.T) {
	send, got, result := runProxy(t, "exit3")
	io.WriteString(send, `{"jsonrpc":"2.0","id":"x","method":"tools/call","params":{"name":"a","arguments":{}}}`+"\n")
	line, err := got.ReadString('\n')
	if err != nil || !strings.Contains(line, `{"jsonrpc":"2.0","id":"x","error":{"code":-32603,"message":"mcpvalidate proxy: the MCP server exited with status 3`) {
		t.Fatalf("the client got %q, %v", line, err)
	}
	if r := <-result; r[0] != 3 || r[1] != nil {
		t.Fatalf("Run returned %v, %v", r[0], r[1])
	}
}

// TestRunClientEnds stops the server when the client's input ends, and returns its
// status, after passing what the server still had to say, its last line ended.
func TestRunClientEnds(t *testing.T) {
	send, got, result := runProxy(t, "cat")
	io.WriteString(send, `{"jsonrpc":"2.0","method":"first"}`+"\n")
	if line, err := got.ReadString('\n'); line != `{"jsonrpc":"2.0","method":"first"}`+"\n" || err != nil {
		t.Fatalf("the client got %q, %v", line, err)
	}
	io.WriteString(send, `{"jsonrpc":"2.0","method":"x"}`)
	send.Close()
	if line, err := got.ReadString('\n'); line != `{"jsonrpc":"2.0","method":"x"}`+"\n" || err != nil {
		t.Fatalf("the client got %q, %v", line, err)
	}
	if rest, err := got.ReadString('\n'); rest != "" || err != io.EOF {
		t.Fatalf("then %q, %v", rest, err)
	}
	if r := <-result; r[0] != 0 || r[1] != nil {
		t.Fatalf("Run returned %v, %v", r[0], r[1])
	}
}

// TestRunStopsStubbornServer: a server that outlives its stdin is sent SIGTERM, and Run
// returns with the status the signal gave it. It waits out the grace period, 5 seconds.
func TestRunStopsStubbornServer(t *testing.T) {
	if testing.Short() {
		t.Skip("full tier: runs without -short")
	}
	send, got, result := runProxy(t, "stubborn")
	send.Close()
	if _, err := got.ReadString('\n'); err != io.EOF {
		t.Fatalf("the client got %v, want the end", err)
	}
	if r := <-result; r[0] != 128+15 || r[1] != nil {
		t.Fatalf("Run returned %v, %v; want 143 (SIGTERM)", r[0], r[1])
	}
}

// TestRunStopped: told to stop, Run sends the server SIGTERM at once, and returns the
// status it gave the server.
func TestRunStopped(t *testing.T) {
	ctx, stop := context.WithCancel(context.Background())
	send, got, result := runProxyContext(t, ctx, "stubborn")
	io.WriteString(send, "{}\n")
	stop()
	if _, err := got.ReadString('\n'); err != io.EOF {
		t.Fatalf("the client got %v, want the end", err)
	}
	if r := <-result; r[0] != 128+15 || r[1] != nil {
		t.Fatalf("Run returned %v, %v; want 143 (SIGTERM)", r[0], r[1])
	}
}

// TestRunBadCommand reports a server that cannot start.
func TestRunBadCommand(t *testing.T) {
	p, _ := New(Options{})
	_, err := p.Run(context.Background(), exec.Command(filepath.Join(t.TempDir(), "missing")), strings.NewReader(""), io.Discard)
	if err == nil || !strings.Contains(err.Error(), "starting the server") {
		t.Fatalf("got %v", err)
	}
	cmd := exec.Command(os.Args[0])
	cmd.Stdout = io.Discard
	if _, err := p.Run(context.Background(), cmd, strings.NewReader(""), io.Discard); err == nil {
		t.Fatal("Run took a command whose stdout was set")
	}
}

// TestRunLogsExit logs a server's exit: at Info when it exits with status 0, at Warn with
// the error otherwise.
func TestRunLogsExit(t *testing.T) {
	for _, tc := range []struct {
		role, want string
	}{
		{"cat", `{"level":"INFO","msg":"mcpvalidate proxy: the MCP server exited with status 0"}`},
		{"exit3", `{"level":"WARN","msg":"mcpvalidate proxy: the MCP server exited with status 3","error":"exit status 3"}`},
	} {
		t.Run(tc.role, func(t *testing.T) {
			var logged bytes.Buffer
			p, err := New(Options{Logger: slog.New(slog.NewJSONHandler(&logged, &slog.HandlerOptions{
				ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
					if a.Key == slog.TimeKey {
						return slog.Attr{}
					}
					return a
				}}))})
			if err != nil {
				t.Fatal(err)
			}
			server := exec.Command(os.Args[0])
			server.Env = append(os.Environ(), role+"="+tc.role)
			if _, err := p.Run(context.Background(), server, strings.NewReader("{}\n"), io.Discard); err != nil {
				t.Fatal(err)
			}
			if got := strings.TrimSpace(logged.String()); got != tc.want {
				t.Fatalf("logged\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
}
