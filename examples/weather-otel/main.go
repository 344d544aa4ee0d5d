// Command weather-otel is examples/weather with OpenTelemetry: the same two tools behind
// the same guard, whose calls are recorded by mcpvalidate's otel module and served in
// Prometheus' text format at /metrics with -metrics 127.0.0.1:PORT, through the
// OpenTelemetry Prometheus exporter. It serves streamable HTTP at /mcp with -http
// 127.0.0.1:PORT, else stdio. Either address may end in :0; the addresses served are
// logged to stderr. It is a module of its own, so that the root module, which holds
// examples/weather, needs no OpenTelemetry.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"

	"github.com/mark3labs/mcp-go/server"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	otelprom "go.opentelemetry.io/otel/exporters/prometheus"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"

	"github.com/mcpvalidate/mcpvalidate"
	"github.com/mcpvalidate/mcpvalidate/examples/internal/weathertools"
	mcpvalidateotel "github.com/mcpvalidate/mcpvalidate/otel"
)

func main() {
	addr := flag.String("http", "", "serve streamable HTTP at /mcp on this address (such as 127.0.0.1:8080) instead of stdio")
	metrics := flag.String("metrics", "", "serve Prometheus' text format at /metrics on this address (such as 127.0.0.1:9464)")
	reportOnly := flag.Bool("report-only", false, "run every call; log to stderr the calls that would be refused")
	detailed := flag.Bool("detailed", false, "refusals also say what was sent: its type, the name or value meant")
	flag.Parse()

	reg := prometheus.NewRegistry()
	exporter, err := otelprom.New(otelprom.WithRegisterer(reg))
	if err != nil {
		log.Fatal(err)
	}
	inst, err := mcpvalidateotel.New(mcpvalidateotel.WithMeterProvider(sdkmetric.NewMeterProvider(sdkmetric.WithReader(exporter))))
	if err != nil {
		log.Fatal(err)
	}
	opts := []mcpvalidate.Option{inst.Option(), mcpvalidate.WithOutputValidation(), mcpvalidate.WithViolationMeta(),
		mcpvalidate.WithLogger(slog.New(slog.NewTextHandler(os.Stderr, nil)))}
	if *reportOnly {
		opts = append(opts, mcpvalidate.WithReportOnly())
	}
	if *detailed {
		opts = append(opts, mcpvalidate.WithFormatter(mcpvalidate.DetailedFormat), mcpvalidate.WithHints())
	}
	guard := mcpvalidate.New(opts...)
	if err := inst.ObserveCache(guard.Share()); err != nil {
		log.Fatal(err)
	}
	srv := weathertools.NewServer(guard)
	if err := guard.CheckServer(srv); err != nil {
		log.Fatal(err)
	}

	var servers []*http.Server
	if *metrics != "" {
		mux := http.NewServeMux()
		mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
		servers = append(servers, serve(*metrics, "metrics", "/metrics", mux))
	}
	if *addr == "" {
		if err := server.ServeStdio(srv); err != nil {
			log.Fatal(err)
		}
		return
	}
	mcpHTTP := server.NewStreamableHTTPServer(srv, server.WithEndpointPath("/mcp"))
	servers = append(servers, serve(*addr, "streamable HTTP", "/mcp", mcpHTTP))
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, os.Interrupt, syscall.SIGTERM)
	<-stop
	_ = mcpHTTP.Shutdown(context.Background())
	for _, s := range servers {
		_ = s.Shutdown(context.Background())
	}
}

// serve serves h on addr in the background and logs the address it listens on.
func serve(addr, what, path string, h http.Handler) *http.Server {
	l, err := net.Listen("tcp", addr)
	if err != nil {
		log.Fatal(err)
	}
	s := &http.Server{Handler: h}
	go func() {
		if err := s.Serve(l); err != nil && err != http.ErrServerClosed {
			log.Fatal(err)
		}
	}()
	fmt.Fprintf(os.Stderr, "weather-otel: serving %s at http://%s%s\n", what, l.Addr(), path)
	return s
}
