// Command weather is an MCP server with two tools whose calls are validated by mcpvalidate
// before the handlers run: weather, the forecast, and station, a station's current
// reading, whose results are also checked against its output schema. It serves stdio by
// default, or streamable HTTP at /mcp with -http 127.0.0.1:PORT. With -report-only, no call
// or result is refused: those that would be are logged to stderr, the first step of
// switching validation on for a live server. With -detailed, refusals use DetailedFormat.
package main

import (
	"context"
	"flag"
	"log"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpvalidate/mcpvalidate"
	"github.com/mcpvalidate/mcpvalidate/examples/internal/weathertools"
	"github.com/mcpvalidate/mcpvalidate/guard"
)

func main() {
	addr := flag.String("http", "", "serve streamable HTTP at /mcp on this address (such as 127.0.0.1:8080) instead of stdio")
	reportOnly := flag.Bool("report-only", false, "run every call; log to stderr the calls that would be refused")
	detailed := flag.Bool("detailed", false, "refusals also say what was sent: its type, the name or value meant")
	flag.Parse()

	// Refusals carry their violations as data too, for clients that act on them.
	opts := []mcpvalidate.Option{guard.WithOutputValidation(), guard.WithViolationMeta(),
		guard.WithLogger(slog.New(slog.NewTextHandler(os.Stderr, nil)))}
	if *reportOnly {
		opts = append(opts, guard.WithReportOnly())
	}
	if *detailed {
		opts = append(opts, guard.WithFormatter(guard.DetailedFormat), guard.WithHints())
	}
	g := mcpvalidate.New(opts...)
	srv := weathertools.NewServer(g)
	if err := g.CheckServer(srv); err != nil {
		log.Fatal(err)
	}
	if *addr == "" {
		if err := server.ServeStdio(srv); err != nil {
			log.Fatal(err)
		}
		return
	}
	httpSrv := server.NewStreamableHTTPServer(srv, server.WithEndpointPath("/mcp"))
	go func() {
		stop := make(chan os.Signal, 1)
		signal.Notify(stop, os.Interrupt, syscall.SIGTERM)
		<-stop
		_ = httpSrv.Shutdown(context.Background())
	}()
	log.Printf("weather: serving streamable HTTP at http://%s/mcp", *addr)
	if err := httpSrv.Start(*addr); err != nil {
		log.Fatal(err)
	}
}
