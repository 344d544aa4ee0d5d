package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetrichttp"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	otelprom "go.opentelemetry.io/otel/exporters/prometheus"
	"go.opentelemetry.io/otel/propagation"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	oteltrace "go.opentelemetry.io/otel/trace"

	"github.com/mcpvalidate/mcpvalidate/guard/proxy"
	mcpvalidateotel "github.com/mcpvalidate/mcpvalidate/otel"
)

// telemetryFlags are the flags of the metrics, shared by proxy and intercept.
type telemetryFlags struct {
	metrics, otlp *string
}

func defineTelemetryFlags(fs *flag.FlagSet) *telemetryFlags {
	return &telemetryFlags{
		metrics: fs.String("metrics", "", "serve the calls' metrics in Prometheus' text format at http://ADDR/metrics, such as 127.0.0.1:9464"),
		otlp: fs.String("otlp", "", "push the calls' metrics and spans over OTLP/HTTP to this endpoint, such as http://127.0.0.1:4318\n"+
			"(its /v1/metrics and /v1/traces), or \"env\" for the endpoints the OTEL_EXPORTER_OTLP_* variables say"),
	}
}

// telemetry is the instrumentation the flags ask for: nil when they ask for none.
type telemetry struct {
	inst    *mcpvalidateotel.Instrumentation
	mp      *sdkmetric.MeterProvider
	tp      *sdktrace.TracerProvider // nil without -otlp
	tracer  oteltrace.Tracer
	metrics *http.Server
}

// start makes the instrumentation the flags of command ask for, as the service named
// service, and starts serving /metrics; nil when they ask for none.
func (f *telemetryFlags) start(stderr io.Writer, command, service string) (*telemetry, error) {
	if *f.metrics == "" && *f.otlp == "" {
		return nil, nil
	}
	// resource.Default reads OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES; service, which
	// -service or OTEL_SERVICE_NAME gives, wins.
	res := resource.Default()
	if env, err := resource.New(context.Background(), resource.WithFromEnv()); err == nil {
		if merged, err := resource.Merge(res, env); err == nil {
			res = merged
		}
	}
	if merged, err := resource.Merge(res, resource.NewSchemaless(attribute.String("service.name", service))); err == nil {
		res = merged
	}
	opts := []sdkmetric.Option{sdkmetric.WithResource(res)}
	var reg *prometheus.Registry
	if *f.metrics != "" {
		reg = prometheus.NewRegistry()
		// Every series names its service: service_name, beside the scrape's job and instance.
		exporter, err := otelprom.New(otelprom.WithRegisterer(reg),
			otelprom.WithResourceAsConstantLabels(attribute.NewAllowKeysFilter("service.name")))
		if err != nil {
			return nil, err
		}
		opts = append(opts, sdkmetric.WithReader(exporter))
	}
	t := &telemetry{}
	if *f.otlp != "" {
		var mopts []otlpmetrichttp.Option
		var topts []otlptracehttp.Option
		if *f.otlp != "env" {
			metrics, err := signalURL(*f.otlp, "/v1/metrics")
			if err != nil {
				return nil, fmt.Errorf("%w: -otlp: %v", errUsage, err)
			}
			traces, _ := signalURL(*f.otlp, "/v1/traces")
			mopts = append(mopts, otlpmetrichttp.WithEndpointURL(metrics))
			topts = append(topts, otlptracehttp.WithEndpointURL(traces))
		}
		// Headers, compression, timeouts and certificates: the OTEL_EXPORTER_OTLP_*
		// variables', as the exporters read them.
		exporter, err := otlpmetrichttp.New(context.Background(), mopts...)
		if err != nil {
			return nil, err
		}
		// The interval and timeout are OTEL_METRIC_EXPORT_INTERVAL's and _TIMEOUT's,
		// or a minute and 30 seconds; whatever is left goes at exit.
		opts = append(opts, sdkmetric.WithReader(sdkmetric.NewPeriodicReader(exporter)))
		spans, err := otlptracehttp.New(context.Background(), topts...)
		if err != nil {
			return nil, err
		}
		t.tp = sdktrace.NewTracerProvider(sdktrace.WithBatcher(spans), sdktrace.WithResource(res))
		t.tracer = t.tp.Tracer(mcpvalidateotel.ScopeName)
	}
	t.mp = sdkmetric.NewMeterProvider(opts...)
	var err error
	if t.inst, err = mcpvalidateotel.New(mcpvalidateotel.WithMeterProvider(t.mp)); err != nil {
		return nil, err
	}
	if reg != nil {
		ln, err := net.Listen("tcp", *f.metrics)
		if se := (*os.SyscallError)(nil); errors.As(err, &se) {
			// The address is taken or refused: the checks go on, the metrics without a reader.
			fmt.Fprintf(stderr, "mcpvalidate %s: not serving metrics: %v\n", command, err)
			return t, nil
		}
		if err != nil {
			return nil, err
		}
		mux := http.NewServeMux()
		mux.Handle("/metrics", byAddress(promhttp.HandlerFor(reg, promhttp.HandlerOpts{})))
		t.metrics = &http.Server{Handler: mux, ReadHeaderTimeout: 30 * time.Second}
		go t.metrics.Serve(ln)
		fmt.Fprintf(stderr, "mcpvalidate %s: serving metrics at http://%s/metrics\n", command, ln.Addr())
	}
	return t, nil
}

// signalURL returns the endpoint of one signal (path) of the OTLP/HTTP endpoint base,
// as OTEL_EXPORTER_OTLP_ENDPOINT is read.
func signalURL(base, path string) (string, error) {
	u, err := url.Parse(base)
	if err != nil || u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return "", errors.New(base + " is not an http or https URL")
	}
	u.Path = strings.TrimSuffix(u.Path, "/") + path
	return u.String(), nil
}

// instrument has the proxy's checks recorded, and with -otlp, each call traced.
func (t *telemetry) instrument(o *proxy.Options) {
	if t == nil {
		return
	}
	o.Guard = append(o.Guard, t.inst.Option())
	if t.tp != nil {
		o.Trace = t.trace
	}
}

// trace starts the server span of a tools/call, the child of the client's span when the
// call's _meta carries its traceparent, as the MCP semantic conventions propagate it.
func (t *telemetry) trace(meta proxy.Meta) (context.Context, func(tool string, isError bool)) {
	ctx := propagation.TraceContext{}.Extract(context.Background(), meta)
	ctx, span := t.tracer.Start(ctx, "tools/call", oteltrace.WithSpanKind(oteltrace.SpanKindServer),
		oteltrace.WithAttributes(mcpvalidateotel.KeyMethodName.String("tools/call")))
	return ctx, func(tool string, isError bool) {
		span.SetName("tools/call " + tool)
		span.SetAttributes(mcpvalidateotel.KeyToolName.String(tool), mcpvalidateotel.KeyOperationName.String("execute_tool"))
		if isError {
			span.SetAttributes(mcpvalidateotel.KeyErrorType.String(mcpvalidateotel.ToolError))
			span.SetStatus(codes.Error, mcpvalidateotel.ToolError)
		}
		span.End()
	}
}

// observeCache reports p's schema cache.
func (t *telemetry) observeCache(p *proxy.Proxy) error {
	if t == nil {
		return nil
	}
	return t.inst.ObserveCache(p.Guard())
}

// shutdown stops serving /metrics and pushes what the OTLP exporter has not sent yet.
func (t *telemetry) shutdown(stderr io.Writer) {
	if t == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if t.metrics != nil {
		_ = t.metrics.Shutdown(ctx)
	}
	if t.tp != nil {
		if err := t.tp.Shutdown(ctx); err != nil {
			fmt.Fprintf(stderr, "mcpvalidate: sending the last spans: %v\n", err)
		}
	}
	if err := t.mp.Shutdown(ctx); err != nil {
		fmt.Fprintf(stderr, "mcpvalidate: sending the last metrics: %v\n", err)
	}
}

// byAddress serves h to requests whose Host is an IP address or localhost, as a scraper
// reaches the metrics: a web page that rebinds a name of its own to their address (DNS
// rebinding) gets 403 and reads nothing of the tools and their calls.
func byAddress(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		host := r.Host
		if name, _, err := net.SplitHostPort(host); err == nil {
			host = name
		}
		if net.ParseIP(strings.Trim(host, "[]")) == nil && !strings.EqualFold(host, "localhost") {
			http.Error(w, "mcpvalidate: the metrics are served to a scrape by address or localhost, not by another name", http.StatusForbidden)
			return
		}
		h.ServeHTTP(w, r)
	})
}
