package gosdk

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/mcpvalidate/mcpvalidate/guard"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// benchWeatherSchema is the weather tool's input schema.
const benchWeatherSchema = `{"type":"object","properties":{"location":{"type":"string"},"days":{"type":"integer"},
"units":{"type":"string","enum":["c","f"]}},"required":["location"],"additionalProperties":false}`

// benchWeatherIn is the typed weather tool's input.
type benchWeatherIn struct {
	Location string `json:"location"`
	Days     int    `json:"days,omitempty"`
	Units    string `json:"units,omitempty"`
}

// benchWeatherTypedSchema is benchWeatherSchema as a *jsonschema.Schema, given explicitly
// to the typed tools. Inference from benchWeatherIn gives the same schema but for the enum
// on units (location required, additionalProperties false); giving it here makes both
// typed variants check the same constraints as the raw ones.
func benchWeatherTypedSchema() *jsonschema.Schema {
	return &jsonschema.Schema{
		Type: "object",
		Properties: map[string]*jsonschema.Schema{
			"location": {Type: "string"},
			"days":     {Type: "integer"},
			"units":    {Type: "string", Enum: []any{"c", "f"}},
		},
		Required:             []string{"location"},
		AdditionalProperties: &jsonschema.Schema{Not: &jsonschema.Schema{}},
	}
}

var (
	benchValidArgs   = json.RawMessage(`{"location":"Paris","days":3,"units":"c"}`)
	benchInvalidArgs = json.RawMessage(`{"location":"Paris","days":"three","units":"kelvin","detail":"high"}`)
)

func benchWeatherRaw(_ context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "Sunny in Paris"}}}, nil
}

func benchWeatherTyped(_ context.Context, _ *mcp.CallToolRequest, in benchWeatherIn) (*mcp.CallToolResult, any, error) {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "Sunny in " + in.Location}}}, nil, nil
}

// BenchmarkGoSDKToolCall times a tools/call of the weather tool from a go-sdk client to a
// go-sdk server in process: a raw tool bare (go-sdk never validates raw tools) and through
// Handler, and a typed tool with go-sdk's own validation, through AddTool, and through
// AddTool under report-only (go-sdk's validation behind the guard's report).
func BenchmarkGoSDKToolCall(b *testing.B) {
	rawTool := func() *mcp.Tool {
		return &mcp.Tool{Name: "weather", InputSchema: json.RawMessage(benchWeatherSchema)}
	}
	typedTool := func() *mcp.Tool {
		return &mcp.Tool{Name: "weather", InputSchema: benchWeatherTypedSchema()}
	}
	const (
		ok      = iota // a result that is not isError
		refused        // our refusal
		isError        // any isError result
	)
	variants := []struct {
		name string
		add  func(*mcp.Server)
		args json.RawMessage
		want int
	}{
		{"bare", func(s *mcp.Server) { s.AddTool(rawTool(), benchWeatherRaw) }, benchValidArgs, ok},
		{"mcpvalidate", func(s *mcp.Server) {
			t := rawTool()
			s.AddTool(t, New().Handler(t, benchWeatherRaw))
		}, benchValidArgs, ok},
		{"mcpvalidate-invalid", func(s *mcp.Server) {
			t := rawTool()
			s.AddTool(t, New().Handler(t, benchWeatherRaw))
		}, benchInvalidArgs, refused},
		{"typed-builtin", func(s *mcp.Server) { mcp.AddTool(s, typedTool(), benchWeatherTyped) }, benchValidArgs, ok},
		{"typed-builtin-invalid", func(s *mcp.Server) { mcp.AddTool(s, typedTool(), benchWeatherTyped) }, benchInvalidArgs, isError},
		{"typed-mcpvalidate", func(s *mcp.Server) { AddTool(New(), s, typedTool(), benchWeatherTyped) }, benchValidArgs, ok},
		{"typed-mcpvalidate-invalid", func(s *mcp.Server) { AddTool(New(), s, typedTool(), benchWeatherTyped) }, benchInvalidArgs, refused},
		{"typed-report-only", func(s *mcp.Server) { AddTool(New(guard.WithReportOnly()), s, typedTool(), benchWeatherTyped) }, benchValidArgs, ok},
		{"typed-report-only-invalid", func(s *mcp.Server) { AddTool(New(guard.WithReportOnly()), s, typedTool(), benchWeatherTyped) }, benchInvalidArgs, isError},
	}
	for _, v := range variants {
		b.Run(v.name, func(b *testing.B) {
			srv := mcp.NewServer(&mcp.Implementation{Name: "bench", Version: "v1"}, nil)
			v.add(srv)
			cs := connect(b, srv)
			ctx := context.Background()
			params := &mcp.CallToolParams{Name: "weather", Arguments: v.args}

			res, err := cs.CallTool(ctx, params)
			if err != nil {
				b.Fatal(err)
			}
			var text string
			if len(res.Content) > 0 {
				if tc, ok := res.Content[0].(*mcp.TextContent); ok {
					text = tc.Text
				}
			}
			switch v.want {
			case ok:
				if res.IsError || !strings.HasPrefix(text, "Sunny in Paris") {
					b.Fatalf("want the handler's result, got isError %v: %q", res.IsError, text)
				}
			case refused:
				if !res.IsError || !strings.HasPrefix(text, "Invalid arguments: ") {
					b.Fatalf("want a refusal, got isError %v: %q", res.IsError, text)
				}
			case isError:
				if !res.IsError {
					b.Fatalf("want an isError result, got %q", text)
				}
			}

			b.ReportAllocs()
			for b.Loop() {
				if _, err := cs.CallTool(ctx, params); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
