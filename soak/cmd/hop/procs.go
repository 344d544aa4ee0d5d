//go:build linux

package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime/pprof"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/mcpvalidate/mcpvalidate/guard/proxy"
)

// roleArg, first on a command line, makes this program one of the fleet's servers.
const roleArg = "-hop-role"

// The processes, in the order of the CPU times a sample holds; the client is this one.
const (
	upstreamProc = iota
	reverseProc
	mcpvalidateProc
	baselineProc // with -baseline
	clientProc
	procs
)

// A fleet is the processes a run starts, and the temporary directory it builds in.
type fleet struct {
	log    io.Writer
	tmp    string
	commit string
	urls   [endpoints]string
	mu     sync.Mutex // guards tmp and procs, which stop reads at any time
	procs  []*child
}

// A child is a process the fleet started.
type child struct {
	name string
	cmd  *exec.Cmd
	done chan struct{} // closed when it exits
	err  error         // how it exited, once done is closed
}

func (f *fleet) start(ctx context.Context, c config) error {
	tmp, err := os.MkdirTemp("", "mcpvalidate-hop-")
	if err != nil {
		return err
	}
	f.mu.Lock()
	f.tmp = tmp
	f.mu.Unlock()
	self, err := os.Executable()
	if err != nil {
		return err
	}
	root, err := checkout(ctx)
	if err != nil {
		return err
	}
	f.commit = commitOf(ctx, root)
	up, err := f.spawn(ctx, "upstream", "", exec.Command(self, roleArg, "upstream"))
	if err != nil {
		return err
	}
	rp, err := f.spawn(ctx, "reverse proxy", "", exec.Command(self, roleArg, "reverse", up))
	if err != nil {
		return err
	}
	var mv string
	if c.cpuprofile != "" {
		mv, err = f.spawn(ctx, "mcpvalidate", "", exec.Command(self, roleArg, "proxy", up))
	} else {
		bin := c.mcpvalidate
		if bin == "" {
			bin = filepath.Join(tmp, "mcpvalidate")
			fmt.Fprintln(f.log, "hop: building cmd/mcpvalidate")
			build := exec.CommandContext(ctx, "go", "build", "-o", bin, ".")
			build.Dir = filepath.Join(root, "cmd", "mcpvalidate")
			build.Env = append(os.Environ(), "GOWORK=off") // a module out of go.work
			build.Stdout, build.Stderr = f.log, f.log
			if err := build.Run(); err != nil {
				return fmt.Errorf("building cmd/mcpvalidate: %w", err)
			}
		}
		mv, err = f.spawn(ctx, "mcpvalidate", "serving ", exec.Command(bin, "proxy", "-upstream", up, "-listen", "127.0.0.1:0"))
	}
	if err != nil {
		return err
	}
	f.urls = [endpoints]string{up, rp, mv, ""}
	if c.baseline != "" {
		if f.urls[baseline], err = f.spawn(ctx, "mcpvalidate baseline", "serving ", exec.Command(c.baseline, "proxy", "-upstream", up, "-listen", "127.0.0.1:0")); err != nil {
			return err
		}
	}
	return nil
}

// checkout returns the directory of the module github.com/mcpvalidate/mcpvalidate, which
// soak's go.mod replaces with the checkout's root.
func checkout(ctx context.Context) (string, error) {
	out, err := exec.CommandContext(ctx, "go", "list", "-m", "-f", "{{.Dir}}", "github.com/mcpvalidate/mcpvalidate").Output()
	dir := strings.TrimSpace(string(out))
	if err != nil || dir == "" {
		return "", fmt.Errorf("finding the checkout (go list -m github.com/mcpvalidate/mcpvalidate, run from within it): %v", err)
	}
	return dir, nil
}

// commitOf names the checkout's commit, marked when files differ from it.
func commitOf(ctx context.Context, root string) string {
	out, err := exec.CommandContext(ctx, "git", "-C", root, "rev-parse", "--short", "HEAD").Output()
	if err != nil {
		return "unknown"
	}
	commit := strings.TrimSpace(string(out))
	if changed, err := exec.CommandContext(ctx, "git", "-C", root, "status", "--porcelain", "--untracked-files=no").Output(); err == nil && len(changed) > 0 {
		commit += " with uncommitted changes"
	}
	return commit
}

// spawn starts cmd and returns its endpoint's URL, which it writes first on stdout
// (http://ADDR/mcp), or, when marker is not empty, on the stderr line that holds marker.
// Its stderr goes on to the fleet's log; it is killed if this process dies.
func (f *fleet) spawn(ctx context.Context, name, marker string, cmd *exec.Cmd) (string, error) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return "", err
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return "", err
	}
	if err := cmd.Start(); err != nil {
		return "", fmt.Errorf("starting %s: %w", name, err)
	}
	ch := &child{name: name, cmd: cmd, done: make(chan struct{})}
	f.mu.Lock()
	f.procs = append(f.procs, ch)
	f.mu.Unlock()
	found := make(chan string, 1)
	scan := func(r io.Reader, announces, logged bool) {
		s := bufio.NewScanner(r)
		for s.Scan() {
			if announces {
				if u, ok := announced(s.Text(), marker); ok {
					found <- u
					announces = false
					continue
				}
			}
			if logged {
				fmt.Fprintf(f.log, "%s: %s\n", name, s.Text())
			}
		}
	}
	var wg sync.WaitGroup
	wg.Go(func() { scan(stdout, marker == "", false) })
	wg.Go(func() { scan(stderr, marker != "", true) })
	go func() {
		wg.Wait() // the pipes are read to their end before Wait closes them
		ch.err = cmd.Wait()
		close(ch.done)
	}()
	select {
	case u := <-found:
		if !strings.HasPrefix(u, "http://127.0.0.1:") {
			return "", fmt.Errorf("%s: announced %q, not an endpoint on 127.0.0.1", name, u)
		}
		return u, nil
	case <-ch.done:
		return "", fmt.Errorf("%s exited before serving: %v", name, ch.err)
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

// announced returns the URL that line announces: the whole line when marker is empty,
// else the word after marker.
func announced(line, marker string) (string, bool) {
	i := strings.Index(line, marker)
	if i < 0 {
		return "", false
	}
	u, _, _ := strings.Cut(strings.TrimSpace(line[i+len(marker):]), " ")
	return u, u != ""
}

// pid returns the process id of the process i (upstreamProc, ...), 0 for one not started
// (the baseline without -baseline).
func (f *fleet) pid(i int) int {
	if i == clientProc {
		return os.Getpid()
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if i >= len(f.procs) {
		return 0
	}
	return f.procs[i].cmd.Process.Pid
}

// endpoints returns the endpoints the run measures, in the order of f.urls.
func (f *fleet) endpoints() []int {
	var es []int
	for e, u := range f.urls {
		if u != "" {
			es = append(es, e)
		}
	}
	return es
}

// stopChecked stops the processes, failing if one had exited before.
func (f *fleet) stopChecked() error {
	var errs []error
	f.mu.Lock()
	for _, ch := range f.procs {
		select {
		case <-ch.done:
			errs = append(errs, fmt.Errorf("%s exited during the run: %v", ch.name, ch.err))
		default:
		}
	}
	f.mu.Unlock()
	f.stop()
	return errors.Join(errs...)
}

// stop ends every process the fleet started, politely first (the profiled proxy writes its
// profile then), and removes the temporary directory. It may be called more than once,
// and at once with start.
func (f *fleet) stop() {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, ch := range f.procs {
		ch.cmd.Process.Signal(syscall.SIGTERM)
	}
	for _, ch := range f.procs {
		select {
		case <-ch.done:
		case <-time.After(15 * time.Second):
			ch.cmd.Process.Kill()
			<-ch.done
		}
	}
	if f.tmp != "" {
		os.RemoveAll(f.tmp)
		f.tmp = ""
	}
}

// profileTo makes the profiled mcpvalidate proxy write its CPU profile from now on to
// path, a file of its own: the one it wrote before is complete when it answers.
func (f *fleet) profileTo(ctx context.Context, path string) error {
	u, err := url.Parse(f.urls[mcpvalidate])
	if err != nil {
		return err
	}
	u.Path, u.RawQuery = profilePath, url.Values{"to": {path}}.Encode()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u.String(), nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<10))
		return fmt.Errorf("profiling to %s: %s %s", path, resp.Status, b)
	}
	return nil
}

// profilePath is where the profiled proxy is told which file to write its profile to.
const profilePath = "/hop/profile"

// A profiler writes this process's CPU profile to the file it is last told to (POST
// profilePath?to=FILE), one file at a time.
type profiler struct {
	mu   sync.Mutex
	file *os.File // nil while none is written
}

func (p *profiler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if err := p.to(r.FormValue("to")); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
	}
}

// to ends the profile written, if any, and starts one in the file path.
func (p *profiler) to(path string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if err := p.stopLocked(); err != nil {
		return err
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return err
	}
	p.file = f
	return nil
}

// stop ends the profile written, if any.
func (p *profiler) stop() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.stopLocked()
}

func (p *profiler) stopLocked() error {
	if p.file == nil {
		return nil
	}
	pprof.StopCPUProfile()
	err := p.file.Close()
	p.file = nil
	return err
}

// serveRole runs one of the fleet's servers: "upstream", "reverse UPSTREAM", or
// "proxy UPSTREAM" (profiled as the run says: profileTo).
func serveRole(role string, args []string) error {
	switch {
	case role == "upstream" && len(args) == 0:
		return serve(mcpAt(newUpstream()), nil)
	case role == "reverse" && len(args) == 1:
		target, err := url.Parse(args[0])
		if err != nil {
			return err
		}
		rp := httputil.NewSingleHostReverseProxy(&url.URL{Scheme: target.Scheme, Host: target.Host})
		rp.Transport = upstreamTransport()
		rp.ErrorHandler = func(w http.ResponseWriter, r *http.Request, err error) {
			if r.Context().Err() == nil { // not a client gone, such as a GET stream closed
				fmt.Fprintln(os.Stderr, "http: proxy error:", err)
				w.WriteHeader(http.StatusBadGateway)
			}
		}
		return serve(mcpAt(rp), nil)
	case role == "proxy" && len(args) == 1:
		p, err := proxy.New(proxy.Options{})
		if err != nil {
			return err
		}
		h, err := p.Handler(args[0])
		if err != nil {
			return err
		}
		mux, prof := mcpAt(h), &profiler{}
		mux.Handle("POST "+profilePath, prof)
		return serve(mux, prof.stop)
	}
	return fmt.Errorf("unknown role %q %q", role, args)
}

// upstreamTransport is the reverse proxy's way to the server: net/http's default
// transport keeping 256 idle connections, as mcpvalidate proxy's does (guard/proxy/http.go),
// with no bound on all hosts' idle connections. (Under the default bound of 100, more
// than 100 requests at once make net/http close idle connections, and a bodiless answer,
// such as a notification's 202, whose connection is closed so before the answer is
// handed over, fails with "putIdleConn: too many idle connections".)
func upstreamTransport() *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConnsPerHost = 256
	t.MaxIdleConns = 0
	return t
}

// mcpAt returns a mux that serves h at /mcp.
func mcpAt(h http.Handler) *http.ServeMux {
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	return mux
}

// serve serves mux on a port of 127.0.0.1, with the limits the mcpvalidate command sets,
// writing the URL of its /mcp on stdout, until SIGTERM; then it runs done, if any.
func serve(mux *http.ServeMux, done func() error) error {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 30 * time.Second, IdleTimeout: 2 * time.Minute, MaxHeaderBytes: 64 << 10}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	fmt.Printf("http://%s/mcp\n", ln.Addr())
	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	srv.Close()
	if done != nil {
		return done()
	}
	return nil
}

// newUpstream is the server measured: mcp-go over streamable HTTP with two tools whose
// answers the client can predict from the arguments.
func newUpstream() http.Handler {
	srv := server.NewMCPServer("hop-upstream", "1.0.0", server.WithToolCapabilities(false))
	for _, t := range upstreamTools {
		srv.AddTool(mcp.NewToolWithRawSchema(t.name, t.description, json.RawMessage(t.schema)), func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText(t.answer(req.GetArguments())), nil
		})
	}
	return server.NewStreamableHTTPServer(srv, server.WithStreamableHTTPLogger(slog.New(slog.DiscardHandler)))
}
