package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/mcpvalidate/mcpvalidate/guard"
	"github.com/mcpvalidate/mcpvalidate/guard/proxy"
)

// guardFlags are the flags of the checks, shared by proxy and intercept.
type guardFlags struct {
	o        proxy.Options
	format   *string
	logTo    *string
	debug    *bool
	refuseAs *string
	unknown  *string
	service  *string
}

func defineGuardFlags(fs *flag.FlagSet, refuseAs bool) *guardFlags {
	g := &guardFlags{}
	fs.BoolVar(&g.o.ReportOnly, "report-only", false, "let invalid calls through, only logging them")
	g.format = fs.String("format", "default", "the refusals' style: default, gateway or detailed")
	fs.BoolVar(&g.o.FormatAssertion, "format-assertion", false, "check \"format\" (date-time, email, uuid, ...) as an assertion")
	fs.BoolVar(&g.o.Output, "output", false, "check successful results' structuredContent against the tools' outputSchema")
	fs.IntVar(&g.o.MaxDepth, "max-depth", 0, "how deeply arguments may nest (0: 64)")
	fs.IntVar(&g.o.MaxViolations, "max-violations", 0, "how many violations a refusal lists (0: 20)")
	fs.Int64Var(&g.o.MaxMessage, "max-message", 0, "the largest message read, in bytes, either way; one over it is answered with an error (0: 64 MiB)")
	fs.Int64Var(&g.o.CacheBudget, "cache-budget", 0, "the bytes the servers' tool lists may hold, and again their compiled schemas (0: 64 MiB)")
	g.logTo = fs.String("log", "", "log refusals as JSON lines to this file, or to stderr with \"-\"; never argument values")
	g.debug = fs.Bool("log-accepted", false, "also log every accepted call, at Debug, so that report can count calls per accepted call")
	fs.BoolVar(&g.o.LogEnumValues, "log-enum-values", false, "log the values sent outside an enum (model output), escaped and bounded")
	if refuseAs {
		g.refuseAs = fs.String("refuse-as", "result", "answer a refused call with an isError \"result\", or a JSON-RPC \"error\" -32602")
	}
	g.service = fs.String("service", "", "the name of the service the checks stand for, in every log line (\"service\") and metric (OTel's service.name;\n"+
		"Prometheus' service_name); default $OTEL_SERVICE_NAME, else mcpvalidate-COMMAND")
	g.unknown = fs.String("unknown", "refuse", "a call of a tool the server does not list: \"refuse\" it (\"Unknown tool\", as the MCP specification has a server answer it), or \"pass\" it on unchecked")
	return g
}

// serviceName is the name of the service the checks of command stand for: -service's,
// else $OTEL_SERVICE_NAME, else mcpvalidate-command.
func (g *guardFlags) serviceName(command string) string {
	if *g.service != "" {
		return *g.service
	}
	if env := os.Getenv("OTEL_SERVICE_NAME"); env != "" {
		return env
	}
	return "mcpvalidate-" + command
}

// options returns the options the flags of command say, and what closes the log file, if
// any.
func (g *guardFlags) options(stderr io.Writer, command string) (proxy.Options, func(), error) {
	o := g.o
	switch *g.format {
	case "default":
	case "gateway":
		o.Guard = append(o.Guard, guard.WithFormatter(guard.GatewayFormat))
	case "detailed":
		o.Guard = append(o.Guard, guard.WithFormatter(guard.DetailedFormat))
	default:
		return o, nil, fmt.Errorf("%w: -format is default, gateway or detailed, not %q", errUsage, *g.format)
	}
	if g.refuseAs != nil {
		switch *g.refuseAs {
		case "result":
		case "error":
			o.RefuseAsError = true
		default:
			return o, nil, fmt.Errorf("%w: -refuse-as is result or error, not %q", errUsage, *g.refuseAs)
		}
	}
	switch *g.unknown {
	case "refuse":
	case "pass":
		o.Unknown = proxy.PassUnknown
	default:
		return o, nil, fmt.Errorf("%w: -unknown is pass or refuse, not %q", errUsage, *g.unknown)
	}
	if (*g.debug || o.LogEnumValues) && *g.logTo == "" {
		return o, nil, fmt.Errorf("%w: -log-accepted and -log-enum-values need -log", errUsage)
	}
	level := &slog.HandlerOptions{}
	if *g.debug {
		level.Level = slog.LevelDebug
	}
	switch *g.logTo {
	case "":
	case "-":
		o.Logger = slog.New(slog.NewJSONHandler(stderr, level)).With("service", g.serviceName(command))
	default:
		f, err := os.OpenFile(*g.logTo, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
		if err != nil {
			return o, nil, err
		}
		o.Logger = slog.New(slog.NewJSONHandler(f, level)).With("service", g.serviceName(command))
		return o, func() { f.Close() }, nil
	}
	return o, func() {}, nil
}

func proxyCommand(fs *flag.FlagSet) action {
	flags := defineGuardFlags(fs, true)
	upstream := fs.String("upstream", "", "the streamable HTTP server's endpoint URL, to front over HTTP instead of running a command")
	listen := fs.String("listen", "", "with -upstream, the address to serve http://ADDR/mcp on, such as 127.0.0.1:8080")
	var allowHosts, allowOrigins listFlag
	fs.Var(&allowHosts, "allow-host", "with -listen, a host name (or name:port) clients reach the proxy by, besides loopback names;\n"+
		"repeated or comma-separated; needed when -listen is not a loopback address")
	fs.Var(&allowOrigins, "allow-origin", "with -listen, an origin (https://app.example.com) whose web pages may call the proxy, besides loopback names;\n"+
		"repeated or comma-separated")
	schemasFor := fs.String("schemas-for", "", "serve each tool's inputSchema as this model provider takes it, where that loses nothing the proxy\n"+
		"does not check itself: "+targetNames())
	telemetryFlags := defineTelemetryFlags(fs)
	return func(stdin io.Reader, stdout, stderr io.Writer) (int, error) {
		if _, isFile := stderr.(*os.File); !isFile {
			stderr = &lockedWriter{w: stderr} // the log and the server's stderr write to it at once
		}
		o, closeLog, err := flags.options(stderr, "proxy")
		if err != nil {
			return 0, err
		}
		defer closeLog()
		o.AllowHosts, o.AllowOrigins = allowHosts, allowOrigins
		if *schemasFor != "" {
			if !slices.Contains(guard.Targets(), guard.Target(*schemasFor)) {
				return 0, fmt.Errorf("%w: -schemas-for is one of %s, not %q", errUsage, targetNames(), *schemasFor)
			}
			o.SchemasFor = guard.Target(*schemasFor)
		}
		switch {
		case *upstream != "" && (*listen == "" || fs.NArg() > 0):
			return 0, fmt.Errorf("%w: -upstream needs -listen, and no command", errUsage)
		case *upstream == "" && *listen != "":
			return 0, fmt.Errorf("%w: -listen needs -upstream", errUsage)
		case *upstream == "" && fs.NArg() == 0:
			return 0, fmt.Errorf("%w: proxy needs the server's command after --, or -upstream and -listen", errUsage)
		}
		tel, err := telemetryFlags.start(stderr, "proxy", flags.serviceName("proxy"))
		if err != nil {
			return 0, err
		}
		defer tel.shutdown(stderr)
		tel.instrument(&o)
		p, err := proxy.New(o)
		if err != nil {
			return 0, fmt.Errorf("%w: %v", errUsage, err)
		}
		if err := tel.observeCache(p); err != nil {
			return 0, err
		}
		if *upstream != "" {
			h, err := p.Handler(*upstream)
			if err != nil {
				return 0, fmt.Errorf("%w: %v", errUsage, err)
			}
			ln, err := net.Listen("tcp", *listen)
			if err != nil {
				return 0, err
			}
			if addr, ok := ln.Addr().(*net.TCPAddr); ok && !addr.IP.IsLoopback() && len(allowHosts) == 0 {
				ln.Close()
				return 0, fmt.Errorf("%w: -listen %s is not a loopback address: name the hosts clients reach the proxy by with -allow-host", errUsage, *listen)
			}
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			fmt.Fprintf(stderr, "mcpvalidate proxy: serving http://%s/mcp in front of %s\n", ln.Addr(), *upstream)
			return 0, serve(ctx, ln, "/mcp", h, defaultLimits)
		}
		server := exec.Command(fs.Arg(0), fs.Args()[1:]...)
		server.Stderr = stderr
		dieWithProxy(server)
		// Told to stop, the proxy passes it on to the server, and exits when it does.
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		defer stop()
		return p.Run(ctx, server, stdin, stdout)
	}
}

// A lockedWriter serialises writes to w.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

// Write writes b to w, alone.
func (l *lockedWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(b)
}

// A listFlag is a flag that may be given many times, each a comma-separated list.
type listFlag []string

func (l *listFlag) String() string { return strings.Join(*l, ",") }

// Set adds the values of one flag.
func (l *listFlag) Set(v string) error {
	for e := range strings.SplitSeq(v, ",") {
		if e = strings.TrimSpace(e); e != "" {
			*l = append(*l, e)
		}
	}
	return nil
}

// serverLimits bound what a client of the listener may hold: the time its headers may
// take, a connection idle between requests, and its headers' size. (A POST's body is
// bounded by the proxy's Options.BodyTimeout; an SSE stream may stay open.)
type serverLimits struct {
	header, idle time.Duration
	maxHeader    int
}

var defaultLimits = serverLimits{header: 30 * time.Second, idle: 2 * time.Minute, maxHeader: 64 << 10}

// serve serves h at path on ln until ctx ends, then lets the requests in progress finish.
func serve(ctx context.Context, ln net.Listener, path string, h http.Handler, lim serverLimits) error {
	mux := http.NewServeMux()
	mux.Handle(path, h)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: lim.header, IdleTimeout: lim.idle, MaxHeaderBytes: lim.maxHeader}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdown); err != nil {
		return srv.Close()
	}
	return nil
}
