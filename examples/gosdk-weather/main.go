// Command gosdk-weather is examples/weather on the official Go SDK
// (github.com/modelcontextprotocol/go-sdk) instead of mcp-go: an MCP server with two tools
// whose calls are validated by mcpvalidate before the handlers run: weather, the
// forecast, and station, a station's current reading, whose results are also checked
// against its output schema. The tools, their schemas and their answers are those of
// examples/weather, character for character; the tools are registered raw, with
// hand-written schemas, each handler bound to its tool's schemas by Guard.Handler. It
// serves stdio by default, or streamable HTTP at /mcp with -http 127.0.0.1:PORT. With
// -report-only, no call or result is refused: those that would be are logged to stderr, the
// first step of switching validation on for a live server. With -detailed, refusals use
// DetailedFormat.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log"
	"log/slog"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"syscall"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpvalidate/mcpvalidate/gosdk"
	"github.com/mcpvalidate/mcpvalidate/guard"
)

func main() {
	addr := flag.String("http", "", "serve streamable HTTP at /mcp on this address (such as 127.0.0.1:8080) instead of stdio")
	reportOnly := flag.Bool("report-only", false, "run every call; log to stderr the calls that would be refused")
	detailed := flag.Bool("detailed", false, "refusals also say what was sent: its type, the name or value meant")
	flag.Parse()

	// Refusals carry their violations as data too, for clients that act on them.
	opts := []gosdk.Option{guard.WithOutputValidation(), guard.WithViolationMeta(),
		guard.WithLogger(slog.New(slog.NewTextHandler(os.Stderr, nil)))}
	if *reportOnly {
		opts = append(opts, guard.WithReportOnly())
	}
	if *detailed {
		opts = append(opts, guard.WithFormatter(guard.DetailedFormat), guard.WithHints())
	}
	g := gosdk.New(opts...)
	srv := newServer(g)
	if err := g.CheckServer(srv); err != nil {
		log.Fatal(err)
	}

	// SIGINT or SIGTERM ends the server: the stdio session is closed, or the HTTP server
	// shut down.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if *addr == "" {
		if err := srv.Run(ctx, &mcp.StdioTransport{}); err != nil && ctx.Err() == nil {
			log.Fatal(err)
		}
		return
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
	httpSrv := &http.Server{Addr: *addr, Handler: mux}
	go func() {
		<-ctx.Done()
		_ = httpSrv.Shutdown(context.Background())
	}()
	log.Printf("weather: serving streamable HTTP at http://%s/mcp", *addr)
	if err := httpSrv.ListenAndServe(); err != nil && !errors.Is(err, http.ErrServerClosed) {
		log.Fatal(err)
	}
}

// newServer builds the server, each handler wrapped in one call: the weather tool, and
// station.
func newServer(g *gosdk.Guard) *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: "weather", Version: "1.0.0"}, nil)
	weather := &mcp.Tool{
		Name:        "weather",
		Description: "Weather forecast for a city",
		InputSchema: json.RawMessage(forecastSchema),
	}
	srv.AddTool(weather, g.Handler(weather, forecast))
	station := &mcp.Tool{
		Name:         "station",
		Description:  "Current reading of a weather station",
		InputSchema:  json.RawMessage(stationSchema),
		OutputSchema: json.RawMessage(readingSchema),
	}
	srv.AddTool(station, g.Handler(station, reading))
	return srv
}

// forecastSchema and stationSchema are the inputSchemas mcp-go builds for examples/weather
// from its mcp.With... options (mcp.WithSchemaAdditionalProperties(false) included).
const forecastSchema = `{"type":"object","additionalProperties":false,"required":["location"],
	"properties":{
		"location":{"type":"string","description":"City name"},
		"days":{"type":"integer","description":"Days to forecast"},
		"units":{"type":"string","enum":["c","f"],"description":"c for Celsius, f for Fahrenheit"}}}`

const stationSchema = `{"type":"object","additionalProperties":false,"required":["id"],
	"properties":{"id":{"type":"string","description":"Station name, such as Orly"}}}`

// readingSchema is what station promises to return.
const readingSchema = `{"type":"object","additionalProperties":false,"required":["station","celsius"],
	"properties":{"station":{"type":"string"},"celsius":{"type":"number"}}}`

// reading answers from stations whose sensors may be offline. Its bug: an offline sensor
// is passed on as a null temperature, which the output schema does not allow, so the
// guard withholds that result and tells the model the tool failed.
func reading(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	id := getString(req, "id", "")
	var celsius any = 14.5
	if id == "Bouvet" { // a remote island; its sensor is offline
		celsius = nil
	}
	return &mcp.CallToolResult{
		Content:           []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf("%s: %v °C", id, celsius)}},
		StructuredContent: map[string]any{"station": id, "celsius": celsius},
	}, nil
}

func forecast(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	location := getString(req, "location", "")
	days := getInt(req, "days", 1)
	units := getString(req, "units", "c")
	temp := 21
	if units == "f" {
		temp = 70
	}
	text := fmt.Sprintf("%s: sunny, %d°%s, for the next %d day(s)", location, temp, units, days)
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil
}

// arguments decodes a raw tool's arguments, which go-sdk hands over as JSON text; nil when
// they are not an object (only under -report-only does a handler see such a call).
func arguments(req *mcp.CallToolRequest) map[string]any {
	var args map[string]any
	if req.Params != nil {
		_ = json.Unmarshal(req.Params.Arguments, &args)
	}
	return args
}

// getString and getInt read an argument as mcp-go's CallToolRequest.GetString and GetInt
// do, so that a call that runs under -report-only gets examples/weather's answer: a value
// of another type is the default, except that getInt truncates a number and parses a
// string as strconv.Atoi does.
func getString(req *mcp.CallToolRequest, key, def string) string {
	if s, ok := arguments(req)[key].(string); ok {
		return s
	}
	return def
}

func getInt(req *mcp.CallToolRequest, key string, def int) int {
	switch v := arguments(req)[key].(type) {
	case float64:
		return int(v)
	case string:
		if i, err := strconv.Atoi(v); err == nil {
			return i
		}
	}
	return def
}
