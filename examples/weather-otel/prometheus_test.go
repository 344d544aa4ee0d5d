package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
)

// TestPrometheusScrapesTheExample runs this example as a process, serving /mcp and
// /metrics on 127.0.0.1, and a real Prometheus (the binary MCPVALIDATE_PROMETHEUS names,
// such as Debian's /usr/bin/prometheus) scraping it every second; an mcp-go client sends a
// known mix of valid, invalid and repaired calls over streamable HTTP, and Prometheus'
// HTTP API must then give the counts the client caused, from the first scrape taken after
// the last call. It waits for that scrape however long the machine takes (go test's
// -timeout is the net against a hang). .ci/run sets the variable; without it the test is
// skipped.
func TestPrometheusScrapesTheExample(t *testing.T) {
	promBin := os.Getenv("MCPVALIDATE_PROMETHEUS")
	if promBin == "" {
		t.Skip("MCPVALIDATE_PROMETHEUS names no prometheus binary")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "weather-otel")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	mcpURL, metricsURL := startExample(t, bin)

	promAddr := freeAddr(t)
	config := filepath.Join(dir, "prometheus.yml")
	target := strings.TrimSuffix(strings.TrimPrefix(metricsURL, "http://"), "/metrics")
	writeFile(t, config, fmt.Sprintf("global:\n  scrape_interval: 1s\nscrape_configs:\n  - job_name: weather\n    static_configs:\n      - targets: [%q]\n", target))
	prom := exec.Command(promBin, "--config.file="+config, "--storage.tsdb.path="+filepath.Join(dir, "data"),
		"--web.listen-address="+promAddr, "--log.level=warn")
	prom.Stdout, prom.Stderr = io.Discard, os.Stderr
	if err := prom.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stop(prom) })

	sendTheMix(t, mcpURL)
	sent := float64(time.Now().UnixNano()) / 1e9 // every count is final once the last answer came

	// What the mix caused, by query.
	want := map[string]float64{
		`sum(mcpvalidate_calls_total{gen_ai_tool_name="weather",mcpvalidate_outcome="refused"})`:        3,
		`sum(mcpvalidate_calls_total{gen_ai_tool_name="weather",mcpvalidate_outcome="accepted"})`:       4,
		`sum(mcpvalidate_calls_total{gen_ai_tool_name="station",mcpvalidate_outcome="accepted"})`:       2,
		`sum(mcpvalidate_calls_total{gen_ai_tool_name="station",mcpvalidate_outcome="result_refused"})`: 1,
		`sum(mcpvalidate_repairs_total{gen_ai_tool_name="weather"})`:                                    1,
		`sum(mcpvalidate_retries_total{gen_ai_tool_name="weather"})`:                                    2,
		`sum(mcp_server_operation_duration_seconds_count{error_type="tool_error"})`:                     4,
		`sum(mcp_server_operation_duration_seconds_count)`:                                              9,
		// The check's time: a series of each series of calls; its longest, since the
		// scrape before, in the scrape after each call.
		`count(mcpvalidate_check_time_seconds_total)`:             4,
		`count(max_over_time(mcpvalidate_check_max_seconds[1h]))`: 4,
		// The repair ratio: calls per accepted call.
		`sum(mcpvalidate_calls_total{gen_ai_tool_name="weather",mcpvalidate_outcome=~"accepted|refused"}) / sum(mcpvalidate_calls_total{gen_ai_tool_name="weather",mcpvalidate_outcome="accepted"})`: 1.75,
	}
	for {
		if at, ok := query(promAddr, `timestamp(up{job="weather"} == 1)`); ok && at > sent {
			break
		}
		time.Sleep(100 * time.Millisecond) // the next scrape is due within a second
	}
	got := map[string]float64{}
	for q := range want {
		if v, ok := query(promAddr, q); ok {
			got[q] = v
		}
	}
	for q, w := range want {
		if g, ok := got[q]; !ok || g != w {
			t.Errorf("%s = %v (present %v), want %v", q, g, ok, w)
		}
	}
}

// sendTheMix sends, over streamable HTTP: on one MCP session two invalid weather calls and
// the valid call that repairs them, three more valid ones, and two station calls, one of
// whose results breaks the output schema; on another, one invalid call never repaired.
func sendTheMix(t *testing.T, mcpURL string) {
	t.Helper()
	session := func() *client.Client {
		c, err := client.NewStreamableHttpClient(mcpURL)
		if err != nil {
			t.Fatal(err)
		}
		return initialized(t, c, "2025-06-18")
	}
	call := func(c *client.Client, tool string, args map[string]any, isError bool) {
		req := mcp.CallToolRequest{}
		req.Params.Name, req.Params.Arguments = tool, args
		res, err := c.CallTool(context.Background(), req)
		if err != nil || res.IsError != isError {
			t.Fatalf("%s %v: %+v, %v; want isError %v", tool, args, res, err, isError)
		}
	}
	a, b := session(), session()
	call(a, "weather", map[string]any{"days": "two"}, true)
	call(a, "weather", map[string]any{"location": "Paris", "units": "k"}, true)
	call(a, "weather", map[string]any{"location": "Paris"}, false)
	for _, city := range []string{"Oslo", "Lima", "Kyiv"} {
		call(a, "weather", map[string]any{"location": city, "days": 2}, false)
	}
	call(a, "station", map[string]any{"id": "Orly"}, false)
	call(a, "station", map[string]any{"id": "Bouvet"}, true)
	call(b, "weather", map[string]any{}, true)
}

// startExample runs bin serving both addresses on 127.0.0.1 and returns its URLs, read
// from the lines it logs; the process is stopped when the test ends.
func startExample(t *testing.T, bin string) (mcpURL, metricsURL string) {
	t.Helper()
	cmd := exec.Command(bin, "-http", "127.0.0.1:0", "-metrics", "127.0.0.1:0")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stop(cmd) })
	lines := bufio.NewScanner(stderr)
	for (mcpURL == "" || metricsURL == "") && lines.Scan() {
		if _, u, ok := strings.Cut(lines.Text(), " at "); ok && strings.HasPrefix(lines.Text(), "weather-otel: serving") {
			if strings.HasSuffix(u, "/mcp") {
				mcpURL = u
			} else {
				metricsURL = u
			}
		}
	}
	if mcpURL == "" || metricsURL == "" {
		t.Fatalf("the example logged no addresses (%v)", lines.Err())
	}
	go func() { _, _ = io.Copy(io.Discard, stderr) }()
	return mcpURL, metricsURL
}

// stop ends a process the test started and waits for it.
func stop(cmd *exec.Cmd) {
	_ = cmd.Process.Signal(syscall.SIGTERM)
	_ = cmd.Wait()
}

// freeAddr returns an address on 127.0.0.1 that was free a moment ago.
func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

func writeFile(t *testing.T, name, text string) {
	t.Helper()
	if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// query asks Prometheus at addr for the instant value of q: false while it has none.
func query(addr, q string) (float64, bool) {
	resp, err := http.Get("http://" + addr + "/api/v1/query?query=" + url.QueryEscape(q))
	if err != nil {
		return 0, false
	}
	defer resp.Body.Close()
	var r struct {
		Status string
		Data   struct {
			Result []struct {
				Value [2]any
			}
		}
	}
	if json.NewDecoder(resp.Body).Decode(&r) != nil || r.Status != "success" || len(r.Data.Result) != 1 {
		return 0, false
	}
	s, _ := r.Data.Result[0].Value[1].(string)
	var v float64
	if _, err := fmt.Sscan(s, &v); err != nil {
		return 0, false
	}
	return v, true
}
