package main

import (
	"bufio"
	"io"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	colmetricpb "go.opentelemetry.io/proto/otlp/collector/metrics/v1"
	"google.golang.org/protobuf/proto"
)

// TestOTLPFromTheExample runs this example as a process with -otlp, in front of a receiver
// of OTLP/HTTP on 127.0.0.1 written here; the mix of calls that the Prometheus test
// sends, then SIGTERM: what the example pushed, the last of it as it exits, counts the
// calls the client made.
func TestOTLPFromTheExample(t *testing.T) {
	var mu sync.Mutex
	got := map[string]int64{}
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, err := io.ReadAll(r.Body)
		var req colmetricpb.ExportMetricsServiceRequest
		if err == nil && r.URL.Path == "/v1/metrics" {
			err = proto.Unmarshal(b, &req)
		}
		if err != nil || r.URL.Path != "/v1/metrics" {
			http.Error(w, "not OTLP/HTTP metrics", http.StatusBadRequest)
			return
		}
		mu.Lock()
		for _, rm := range req.ResourceMetrics {
			for _, sm := range rm.ScopeMetrics {
				for _, m := range sm.Metrics {
					for _, dp := range m.GetSum().GetDataPoints() {
						var attrs []string
						for _, kv := range dp.Attributes {
							attrs = append(attrs, kv.Key+"="+kv.GetValue().GetStringValue())
						}
						slices.Sort(attrs)
						got[m.Name+"{"+strings.Join(attrs, ",")+"}"] = dp.GetAsInt() // cumulative
					}
				}
			}
		}
		mu.Unlock()
		out, _ := proto.Marshal(&colmetricpb.ExportMetricsServiceResponse{})
		w.Header().Set("Content-Type", "application/x-protobuf")
		w.Write(out)
	}))
	defer receiver.Close()

	bin := filepath.Join(t.TempDir(), "weather-otel")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	cmd := exec.Command(bin, "-http", "127.0.0.1:0", "-otlp", receiver.URL)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stop(cmd) })
	lines := bufio.NewScanner(stderr)
	mcpURL := ""
	for mcpURL == "" && lines.Scan() {
		if _, u, ok := strings.Cut(lines.Text(), " at "); ok && strings.HasSuffix(u, "/mcp") {
			mcpURL = u
		}
	}
	if mcpURL == "" {
		t.Fatalf("the example logged no address (%v)", lines.Err())
	}
	go func() { _, _ = io.Copy(io.Discard, stderr) }()

	sendTheMix(t, mcpURL)
	stop(cmd)
	mu.Lock()
	defer mu.Unlock()
	calls := func(tool, outcome string) string {
		return "mcpvalidate.calls{gen_ai.tool.name=" + tool + ",mcpvalidate.outcome=" + outcome + ",mcpvalidate.report_only=}"
	}
	for k, want := range map[string]int64{
		calls("weather", "refused"):                     3,
		calls("weather", "accepted"):                    4,
		calls("station", "accepted"):                    2,
		calls("station", "result_refused"):              1,
		"mcpvalidate.repairs{gen_ai.tool.name=weather}": 1,
		"mcpvalidate.retries{gen_ai.tool.name=weather}": 2,
	} {
		if got[k] != want {
			t.Errorf("%s: %d; want %d", k, got[k], want)
		}
	}
}
