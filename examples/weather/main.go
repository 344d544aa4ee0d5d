// Command weather is an MCP server with two tools whose calls are validated by mcpvalidate
// before the handlers run: weather, the forecast, and station, a station's current
// reading, whose results are also checked against its output schema. It serves stdio by
// default, or streamable HTTP at /mcp with -http 127.0.0.1:PORT. With -report-only, no call
// or result is refused: those that would be are logged to stderr, the first step of
// switching validation on for a live server. With -detailed, refusals use DetailedFormat.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpvalidate/mcpvalidate"
)

func main() {
	addr := flag.String("http", "", "serve streamable HTTP at /mcp on this address (such as 127.0.0.1:8080) instead of stdio")
	reportOnly := flag.Bool("report-only", false, "run every call; log to stderr the calls that would be refused")
	detailed := flag.Bool("detailed", false, "refusals also say what was sent: its type, the name or value meant")
	flag.Parse()

	// Refusals carry their violations as data too, for clients that act on them.
	opts := []mcpvalidate.Option{mcpvalidate.WithOutputValidation(), mcpvalidate.WithViolationMeta(),
		mcpvalidate.WithLogger(slog.New(slog.NewTextHandler(os.Stderr, nil)))}
	if *reportOnly {
		opts = append(opts, mcpvalidate.WithReportOnly())
	}
	if *detailed {
		opts = append(opts, mcpvalidate.WithFormatter(mcpvalidate.DetailedFormat), mcpvalidate.WithHints())
	}
	guard := mcpvalidate.New(opts...)
	srv := newServer(guard)
	if err := guard.CheckServer(srv); err != nil {
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

// newServer builds the server, wrapped in one line: the weather tool, and station.
func newServer(guard *mcpvalidate.Guard) *server.MCPServer {
	srv := server.NewMCPServer("weather", "1.0.0",
		server.WithToolHandlerMiddleware(guard.Middleware()))
	srv.AddTool(mcp.NewTool("weather",
		mcp.WithDescription("Weather forecast for a city"),
		mcp.WithString("location", mcp.Required(), mcp.Description("City name")),
		mcp.WithInteger("days", mcp.Description("Days to forecast")),
		mcp.WithString("units", mcp.Enum("c", "f"), mcp.Description("c for Celsius, f for Fahrenheit")),
		mcp.WithSchemaAdditionalProperties(false),
	), forecast)
	srv.AddTool(mcp.NewTool("station",
		mcp.WithDescription("Current reading of a weather station"),
		mcp.WithString("id", mcp.Required(), mcp.Description("Station name, such as Orly")),
		mcp.WithSchemaAdditionalProperties(false),
		mcp.WithRawOutputSchema(json.RawMessage(readingSchema)),
	), reading)
	return srv
}

// readingSchema is what station promises to return.
const readingSchema = `{"type":"object","additionalProperties":false,"required":["station","celsius"],
	"properties":{"station":{"type":"string"},"celsius":{"type":"number"}}}`

// reading answers from stations whose sensors may be offline. Its bug: an offline sensor
// is passed on as a null temperature, which the output schema does not allow, so the
// middleware withholds that result and tells the model the tool failed.
func reading(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	id := req.GetString("id", "")
	var celsius any = 14.5
	if id == "Bouvet" { // a remote island; its sensor is offline
		celsius = nil
	}
	res := mcp.NewToolResultText(fmt.Sprintf("%s: %v °C", id, celsius))
	res.StructuredContent = map[string]any{"station": id, "celsius": celsius}
	return res, nil
}

func forecast(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	location := req.GetString("location", "")
	days := req.GetInt("days", 1)
	units := req.GetString("units", "c")
	temp := 21
	if units == "f" {
		temp = 70
	}
	return mcp.NewToolResultText(fmt.Sprintf("%s: sunny, %d°%s, for the next %d day(s)", location, temp, units, days)), nil
}
