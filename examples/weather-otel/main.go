// Command weather-otel is examples/weather with OpenTelemetry: the same two tools behind
// the same guard, whose calls are recorded by mcpvalidate's otel module and served in
// Prometheus' text format at /metrics with -metrics 127.0.0.1:PORT, through the
// OpenTelemetry Prometheus exporter, and pushed over OTLP/HTTP with -otlp URL (such as
// http://127.0.0.1:4318, sent to its /v1/metrics; "env" for the endpoint the
// OTEL_EXPORTER_OTLP_* variables say), the last of them at exit. It serves streamable HTTP at /mcp with -http
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
	"net/url"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/mark3labs/mcp-go/server"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetrichttp"
	otelprom "go.opentelemetry.io/otel/exporters/prometheus"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"

	"github.com/mcpvalidate/mcpvalidate"
	"github.com/mcpvalidate/mcpvalidate/examples/internal/weathertools"
	"github.com/mcpvalidate/mcpvalidate/guard"
	mcpvalidateotel "github.com/mcpvalidate/mcpvalidate/otel"
)

func main() {
	addr := flag.String("http", "", "serve streamable HTTP at /mcp on this address (such as 127.0.0.1:8080) instead of stdio")
	metrics := flag.String("metrics", "", "serve Prometheus' text format at /metrics on this address (such as 127.0.0.1:9464)")
	otlp := flag.String("otlp", "", "push the metrics over OTLP/HTTP to this endpoint (such as http://127.0.0.1:4318), or \"env\" for OTEL_EXPORTER_OTLP_ENDPOINT's")
	reportOnly := flag.Bool("report-only", false, "run every call; log to stderr the calls that would be refused")
	detailed := flag.Bool("detailed", false, "refusals also say what was sent: its type, the name or value meant")
	flag.Parse()

	reg := prometheus.NewRegistry()
	exporter, err := otelprom.New(otelprom.WithRegisterer(reg))
	if err != nil {
		log.Fatal(err)
	}
	readers := []sdkmetric.Option{sdkmetric.WithReader(exporter)}
	if *otlp != "" {
		readers = append(readers, sdkmetric.WithReader(sdkmetric.NewPeriodicReader(otlpExporter(*otlp))))
	}
	mp := sdkmetric.NewMeterProvider(readers...)
	defer mp.Shutdown(context.Background()) // the OTLP exporter sends what it has not yet sent
	inst, err := mcpvalidateotel.New(mcpvalidateotel.WithMeterProvider(mp))
	if err != nil {
		log.Fatal(err)
	}
	opts := []mcpvalidate.Option{inst.Option(), guard.WithOutputValidation(), guard.WithViolationMeta(),
		guard.WithLogger(slog.New(slog.NewTextHandler(os.Stderr, nil)))}
	if *reportOnly {
		opts = append(opts, guard.WithReportOnly())
	}
	if *detailed {
		opts = append(opts, guard.WithFormatter(guard.DetailedFormat), guard.WithHints())
	}
	g := mcpvalidate.New(opts...)
	if err := inst.ObserveCache(g.Guard()); err != nil {
		log.Fatal(err)
	}
	srv := weathertools.NewServer(g)
	if err := g.CheckServer(srv); err != nil {
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
			log.Print(err)
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

// otlpExporter returns the OTLP/HTTP metric exporter to the endpoint base (its
// /v1/metrics), or to the endpoint the OTEL_EXPORTER_OTLP_* variables say when base is
// "env"; the exporter reads their headers, compression and timeout either way.
func otlpExporter(base string) sdkmetric.Exporter {
	var opts []otlpmetrichttp.Option
	if base != "env" {
		u, err := url.Parse(base)
		if err != nil || u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
			log.Fatalf("-otlp: %s is not an http or https URL", base)
		}
		u.Path = strings.TrimSuffix(u.Path, "/") + "/v1/metrics"
		opts = append(opts, otlpmetrichttp.WithEndpointURL(u.String()))
	}
	exporter, err := otlpmetrichttp.New(context.Background(), opts...)
	if err != nil {
		log.Fatal(err)
	}
	return exporter
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
