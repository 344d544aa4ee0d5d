package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"syscall"

	"github.com/mcpvalidate/mcpvalidate/guard/proxy"
)

func interceptCommand(fs *flag.FlagSet) action {
	flags := defineGuardFlags(fs, false)
	toolsFile := fs.String("tools", "", "the tools: a tools/list result, or a JSON-RPC response holding one (a JSON file)")
	gateway := fs.String("gateway", "", "the tools: listed by the streamable HTTP endpoint at this URL, such as the gateway's own")
	listen := fs.String("listen", "", "serve the before:http: interceptor at http://ADDR/ instead of reading one call on stdin")
	telemetryFlags := defineTelemetryFlags(fs)
	return func(stdin io.Reader, stdout, stderr io.Writer) (int, error) {
		if (*toolsFile == "") == (*gateway == "") || fs.NArg() > 0 {
			return 0, fmt.Errorf("%w: intercept needs -tools FILE or -gateway URL, and no arguments", errUsage)
		}
		if flags.o.Output {
			return 0, fmt.Errorf("%w: intercept -output: the gateway's before hook hands an interceptor the call, never its result, so no result would be checked", errUsage)
		}
		o, closeLog, err := flags.options(stderr, "intercept")
		if err != nil {
			return 0, err
		}
		defer closeLog()
		tel, err := telemetryFlags.start(stderr, "intercept", flags.serviceName("intercept"))
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
		var tools []byte
		if *toolsFile != "" {
			tools, err = os.ReadFile(*toolsFile)
		} else {
			tools, err = proxy.ListTools(context.Background(), *gateway, nil)
			if err != nil {
				err = fmt.Errorf("listing the tools of %s: %w", *gateway, err)
			}
		}
		if err != nil {
			return 0, err
		}
		in, err := p.Interceptor(tools)
		if err != nil {
			return 0, err
		}
		if *listen == "" {
			msg, err := io.ReadAll(stdin)
			if err != nil {
				return 0, err
			}
			out, err := in.Intercept(msg)
			if err != nil {
				return 0, err
			}
			_, err = stdout.Write(out)
			return 0, err
		}
		ln, err := net.Listen("tcp", *listen)
		if err != nil {
			return 0, err
		}
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		defer stop()
		fmt.Fprintf(stderr, "mcpvalidate intercept: serving http://%s/\n", ln.Addr())
		return 0, serve(ctx, ln, "/", in, defaultLimits)
	}
}
