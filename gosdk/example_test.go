package gosdk_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpvalidate/mcpvalidate/gosdk"
	"github.com/mcpvalidate/mcpvalidate/guard"
)

// weatherTool is a raw tool: go-sdk passes its arguments to the handler unchecked.
var weatherTool = &mcp.Tool{
	Name:        "weather",
	Description: "Forecast for a city",
	InputSchema: json.RawMessage(`{
		"type": "object",
		"properties": {
			"location": {"type": "string"},
			"days": {"type": "integer", "minimum": 1, "maximum": 7}
		},
		"required": ["location"],
		"additionalProperties": false
	}`),
}

// forecast answers every call it is given with the location it was asked about.
func forecast(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var in struct{ Location string }
	if err := json.Unmarshal(req.Params.Arguments, &in); err != nil {
		return nil, err
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "Sunny in " + in.Location}}}, nil
}

// callTool connects a client to srv in memory, calls the tool with raw JSON arguments and
// prints what the client receives: "refused:" and the text of an isError result, or the
// result's text.
func callTool(srv *mcp.Server, tool, args string) {
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		panic(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "example", Version: "v1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		panic(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: json.RawMessage(args)})
	if err != nil {
		panic(err)
	}
	var texts []string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			texts = append(texts, tc.Text)
		}
	}
	if res.IsError {
		fmt.Print("refused: ")
	}
	fmt.Println(strings.Join(texts, "\n"))
}

// A go-sdk server binds each raw tool's handler to a guard where it registers it; the
// model then reads every mistake of a call at once, and the handler runs only on valid
// arguments.
func Example() {
	guard := gosdk.New()
	srv := mcp.NewServer(&mcp.Implementation{Name: "weather", Version: "v1"}, nil)
	srv.AddTool(weatherTool, guard.Handler(weatherTool, forecast))

	callTool(srv, "weather", `{"days": "two", "city": "Paris"}`)
	callTool(srv, "weather", `{"location": "Paris", "days": 2}`)
	// Output:
	// refused: Invalid arguments: missing required property 'location'; property 'days' must be integer; unexpected property 'city'
	// Sunny in Paris
}

// New takes the options the mcp-go adapter takes, under the same names: here the hints
// and the formatter that tell the model what it most likely meant, and an observer told
// of every call.
func ExampleNew() {
	guard := gosdk.New(
		guard.WithHints(),
		guard.WithFormatter(guard.DetailedFormat),
		guard.WithObserver(func(e guard.Event) {
			fmt.Printf("observed: %s %s, %d violations\n", e.Tool, e.Outcome, len(e.Violations))
		}),
	)
	srv := mcp.NewServer(&mcp.Implementation{Name: "weather", Version: "v1"}, nil)
	srv.AddTool(weatherTool, guard.Handler(weatherTool, forecast))

	callTool(srv, "weather", `{"locaton": "Paris", "days": 10}`)
	// Output:
	// observed: weather refused, 3 violations
	// refused: Invalid arguments: missing required property 'location'; unexpected property 'locaton' (did you mean 'location'?); property 'days' must be at most 7
}

// Handler binds a raw tool's handler to the tool's inputSchema: a call whose arguments
// the schema refuses is answered with an isError result, and the handler does not run.
func ExampleGuard_Handler() {
	guard := gosdk.New()
	srv := mcp.NewServer(&mcp.Implementation{Name: "weather", Version: "v1"}, nil)
	ran := 0
	srv.AddTool(weatherTool, guard.Handler(weatherTool, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		ran++
		return forecast(ctx, req)
	}))

	callTool(srv, "weather", `{"location": ["Paris"]}`)
	fmt.Println("handler ran", ran, "times")
	callTool(srv, "weather", `{"location": "Oslo"}`)
	fmt.Println("handler ran", ran, "times")
	// Output:
	// refused: Invalid arguments: property 'location' must be string
	// handler ran 0 times
	// Sunny in Oslo
	// handler ran 1 times
}

// AddTool registers a typed tool in place of mcp.AddTool: the guard checks the arguments
// against the schema inferred from In before they are decoded, so the model reads the
// guard's message and every violation at once.
func ExampleAddTool() {
	type order struct {
		SKU      string `json:"sku"`
		Quantity int    `json:"quantity" jsonschema:"how many to order"`
	}
	type receipt struct {
		Ordered int `json:"ordered"`
	}
	guard := gosdk.New()
	srv := mcp.NewServer(&mcp.Implementation{Name: "shop", Version: "v1"}, nil)
	gosdk.AddTool(guard, srv, &mcp.Tool{Name: "order", Description: "Order an item"},
		func(_ context.Context, _ *mcp.CallToolRequest, in order) (*mcp.CallToolResult, receipt, error) {
			return nil, receipt{Ordered: in.Quantity}, nil
		})

	callTool(srv, "order", `{"sku": 42, "quantity": 1.5}`)
	callTool(srv, "order", `{"sku": "tea", "quantity": 3}`)
	// Output:
	// refused: Invalid arguments: property 'sku' must be string; property 'quantity' must be integer
	// {"ordered":3}
}

// CheckTools compiles every tool's schema before the server starts, so that a broken
// schema stops the server rather than refuses each call to its tool.
func ExampleGuard_CheckTools() {
	guard := gosdk.New()
	station := &mcp.Tool{Name: "station", InputSchema: json.RawMessage(`{"type": "objet"}`)}
	if err := guard.CheckTools(weatherTool, station); err != nil {
		fmt.Println(err)
	}
	fmt.Println(guard.CheckTools(weatherTool) == nil)
	// Output:
	// tool station: invalid schema at #/type: unknown type "objet" (known: null, boolean, object, array, number, integer, string)
	// true
}

// Compile checks values against a schema outside any server, with the messages a refused
// call carries.
func ExampleCompile() {
	v, err := guard.Compile([]byte(`{
		"type": "object",
		"properties": {"units": {"type": "array", "items": {"enum": ["c", "f"]}, "maxItems": 2}},
		"additionalProperties": false
	}`))
	if err != nil {
		panic(err)
	}
	for _, msg := range guard.Messages(v.Validate([]byte(`{"units": ["c", "k", "f"], "x": 1}`)), nil) {
		fmt.Println(msg)
	}
	fmt.Println(v.Validate([]byte(`{"units": ["f"]}`)) == nil)
	// Output:
	// property 'units[1]' must be one of ['c', 'f']
	// property 'units' must have at most 2 items
	// unexpected property 'x'
	// true
}
