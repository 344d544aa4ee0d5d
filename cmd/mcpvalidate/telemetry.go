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
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetrichttp"
	otelprom "go.opentelemetry.io/otel/exporters/prometheus"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/resource"

	mcpvalidateotel "github.com/mcpvalidate/mcpvalidate/otel"
	"github.com/mcpvalidate/mcpvalidate/proxy"
)

// telemetryFlags are the flags of the metrics, shared by proxy and intercept.
type telemetryFlags struct {
	metrics, otlp *string
}

func defineTelemetryFlags(fs *flag.FlagSet) *telemetryFlags {
	return &telemetryFlags{
		metrics: fs.String("metrics", "", "serve the calls' metrics in Prometheus' text format at http://ADDR/metrics, such as 127.0.0.1:9464"),
		otlp: fs.String("otlp", "", "push the calls' metrics over OTLP/HTTP to this endpoint, such as http://127.0.0.1:4318 (sent to its /v1/metrics),\n"+
			"or \"env\" for the endpoint OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_METRICS_ENDPOINT says"),
	}
}

// telemetry is the instrumentation the flags ask for: nil when they ask for none.
type telemetry struct {
	inst    *mcpvalidateotel.Instrumentation
	mp      *sdkmetric.MeterProvider
	metrics *http.Server
}

// start makes the instrumentation the flags ask for, and starts serving /metrics; nil
// when they ask for none.
func (f *telemetryFlags) start(stderr io.Writer, command string) (*telemetry, error) {
	if *f.metrics == "" && *f.otlp == "" {
		return nil, nil
	}
	res, err := resource.Merge(resource.Default(), resource.NewSchemaless(attribute.String("service.name", "mcpvalidate-"+command)))
	if err != nil {
		res = resource.Default()
	}
	// resource.Default reads OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES; they win.
	if env, err := resource.New(context.Background(), resource.WithFromEnv()); err == nil {
		if merged, err := resource.Merge(res, env); err == nil {
			res = merged
		}
	}
	opts := []sdkmetric.Option{sdkmetric.WithResource(res)}
	var reg *prometheus.Registry
	if *f.metrics != "" {
		reg = prometheus.NewRegistry()
		exporter, err := otelprom.New(otelprom.WithRegisterer(reg))
		if err != nil {
			return nil, err
		}
		opts = append(opts, sdkmetric.WithReader(exporter))
	}
	if *f.otlp != "" {
		var eopts []otlpmetrichttp.Option
		if *f.otlp != "env" {
			endpoint, err := signalURL(*f.otlp, "/v1/metrics")
			if err != nil {
				return nil, fmt.Errorf("%w: -otlp: %v", errUsage, err)
			}
			eopts = append(eopts, otlpmetrichttp.WithEndpointURL(endpoint))
		}
		exporter, err := otlpmetrichttp.New(context.Background(), eopts...)
		if err != nil {
			return nil, err
		}
		// The interval and timeout are OTEL_METRIC_EXPORT_INTERVAL's and _TIMEOUT's,
		// or a minute and 30 seconds; whatever is left goes at exit.
		opts = append(opts, sdkmetric.WithReader(sdkmetric.NewPeriodicReader(exporter)))
	}
	t := &telemetry{mp: sdkmetric.NewMeterProvider(opts...)}
	if t.inst, err = mcpvalidateotel.New(mcpvalidateotel.WithMeterProvider(t.mp)); err != nil {
		return nil, err
	}
	if reg != nil {
		ln, err := net.Listen("tcp", *f.metrics)
		if err != nil {
			return nil, err
		}
		mux := http.NewServeMux()
		mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
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

// instrument has the proxy's checks recorded.
func (t *telemetry) instrument(o *proxy.Options) {
	if t != nil {
		o.Guard = append(o.Guard, t.inst.Option())
	}
}

// observeCache reports p's schema cache.
func (t *telemetry) observeCache(p *proxy.Proxy) error {
	if t == nil {
		return nil
	}
	return t.inst.ObserveCache(p.Share())
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
	if err := t.mp.Shutdown(ctx); err != nil {
		fmt.Fprintf(stderr, "mcpvalidate: sending the last metrics: %v\n", err)
	}
}
