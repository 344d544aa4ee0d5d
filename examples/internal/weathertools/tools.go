// Package weathertools is the example servers' mcp-go server: the weather tool, a
// forecast, and station, a station's current reading, whose results are also checked
// against its output schema. examples/weather and examples/weather-otel serve it.
package weathertools

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpvalidate/mcpvalidate"
)

// NewServer builds the example server, wrapped in one line: the weather tool, and station.
func NewServer(guard *mcpvalidate.Guard) *server.MCPServer {
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
