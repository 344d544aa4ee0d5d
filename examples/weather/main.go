// Command weather is an MCP server with one tool, weather, whose calls are validated by
// mcpvalidate before the handler runs. It serves stdio by default, or streamable HTTP at
// /mcp with -http 127.0.0.1:PORT. With -report-only, no call is refused: calls that would be
// are logged to stderr, the first step of switching validation on for a live server.
package main

import (
	"context"
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
	flag.Parse()

	opts := []mcpvalidate.Option{mcpvalidate.WithLogger(slog.New(slog.NewTextHandler(os.Stderr, nil)))}
	if *reportOnly {
		opts = append(opts, mcpvalidate.WithReportOnly())
	}
	srv := newServer(opts...)
	if err := mcpvalidate.CheckServer(srv); err != nil {
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

// newServer builds the seed's server: the weather tool, wrapped in one line.
func newServer(opts ...mcpvalidate.Option) *server.MCPServer {
	srv := server.NewMCPServer("weather", "1.0.0",
		server.WithToolHandlerMiddleware(mcpvalidate.Middleware(opts...)))
	srv.AddTool(mcp.NewTool("weather",
		mcp.WithDescription("Weather forecast for a city"),
		mcp.WithString("location", mcp.Required(), mcp.Description("City name")),
		mcp.WithInteger("days", mcp.Description("Days to forecast")),
		mcp.WithString("units", mcp.Enum("c", "f"), mcp.Description("c for Celsius, f for Fahrenheit")),
		mcp.WithSchemaAdditionalProperties(false),
	), forecast)
	return srv
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
