package main

import (
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"sync"

	"github.com/mcpvalidate/mcpvalidate/proxy"
)

func proxyCommand(fs *flag.FlagSet) action {
	var o proxy.Options
	fs.BoolVar(&o.ReportOnly, "report-only", false, "let invalid calls through, only logging them")
	format := fs.String("format", "default", "the refusals' style: default, gateway or detailed")
	fs.BoolVar(&o.FormatAssertion, "format-assertion", false, "check \"format\" (date-time, email, uuid, ...) as an assertion")
	fs.BoolVar(&o.Output, "output", false, "check successful results' structuredContent against the tools' outputSchema")
	fs.IntVar(&o.MaxDepth, "max-depth", 0, "how deeply arguments may nest (0: 64)")
	fs.IntVar(&o.MaxViolations, "max-violations", 0, "how many violations a refusal lists (0: 20)")
	logTo := fs.String("log", "", "log refusals as JSON lines to this file, or to stderr with \"-\"; never argument values")
	refuseAs := fs.String("refuse-as", "result", "answer a refused call with an isError \"result\", or a JSON-RPC \"error\" -32602")
	unknown := fs.String("unknown", "pass", "a call of a tool the server does not list: \"pass\" it on, or \"refuse\" it")
	return func(stdin io.Reader, stdout, stderr io.Writer) (int, error) {
		if _, isFile := stderr.(*os.File); !isFile {
			stderr = &lockedWriter{w: stderr} // the log and the server's stderr write to it at once
		}
		o.Format = proxy.Format(*format)
		switch *refuseAs {
		case "result":
		case "error":
			o.RefuseAsError = true
		default:
			return 0, fmt.Errorf("%w: -refuse-as is result or error, not %q", errUsage, *refuseAs)
		}
		switch *unknown {
		case "pass":
		case "refuse":
			o.Unknown = proxy.RefuseUnknown
		default:
			return 0, fmt.Errorf("%w: -unknown is pass or refuse, not %q", errUsage, *unknown)
		}
		switch *logTo {
		case "":
		case "-":
			o.Logger = slog.New(slog.NewJSONHandler(stderr, nil))
		default:
			f, err := os.OpenFile(*logTo, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
			if err != nil {
				return 0, err
			}
			defer f.Close()
			o.Logger = slog.New(slog.NewJSONHandler(f, nil))
		}
		if fs.NArg() == 0 {
			return 0, fmt.Errorf("%w: proxy needs the server's command after --", errUsage)
		}
		p, err := proxy.New(o)
		if err != nil {
			return 0, fmt.Errorf("%w: %v", errUsage, err)
		}
		server := exec.Command(fs.Arg(0), fs.Args()[1:]...)
		server.Stderr = stderr
		return p.Run(server, stdin, stdout)
	}
}

// A lockedWriter serialises writes to w.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(b)
}
