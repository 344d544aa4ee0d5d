package mcpvalidate_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpvalidate/mcpvalidate"
	"github.com/mcpvalidate/mcpvalidate/guard"
)

func ExampleMiddleware() {
	srv := server.NewMCPServer("weather", "1.0.0",
		server.WithToolHandlerMiddleware(mcpvalidate.Middleware()))
	srv.AddTool(mcp.NewTool("weather",
		mcp.WithString("location", mcp.Required()),
		mcp.WithInteger("days"),
	), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("sunny"), nil
	})

	resp := srv.HandleMessage(context.Background(), []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call",
		"params":{"name":"weather","arguments":{"location":"Paris","days":"two"}}}`))
	out, _ := json.Marshal(resp)
	fmt.Println(string(out))
	// Output:
	// {"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"Invalid arguments: property 'days' must be integer"}],"isError":true}}
}

// Under WithViolationMeta a client reads a refusal's violations as data from the result's
// _meta.
func Example_violationMeta() {
	g := mcpvalidate.New(guard.WithViolationMeta())
	srv := server.NewMCPServer("shop", "1.0.0", server.WithToolHandlerMiddleware(g.Middleware()))
	srv.AddTool(mcp.NewTool("order",
		mcp.WithString("sku", mcp.Required()),
		mcp.WithNumber("quantity", mcp.Min(1)),
	), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("ordered"), nil
	})
	resp := srv.HandleMessage(context.Background(), []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call",
		"params":{"name":"order","arguments":{"quantity":0}}}`))
	res := resp.(mcp.JSONRPCResponse).Result.(*mcp.CallToolResult)
	var data struct {
		Violations []struct {
			Pointer, Kind, Keyword string
			Limit                  json.Number
		}
	}
	_ = json.Unmarshal(res.Meta.AdditionalFields[guard.MetaKey].(json.RawMessage), &data)
	for _, v := range data.Violations {
		fmt.Printf("%q %s %s limit=%s\n", v.Pointer, v.Kind, v.Keyword, v.Limit)
	}
	// Output:
	// "/sku" required required limit=
	// "/quantity" minimum minimum limit=1
}

func Example_outputValidation() {
	g := mcpvalidate.New(guard.WithOutputValidation())
	srv := server.NewMCPServer("weather", "1.0.0", server.WithToolHandlerMiddleware(g.Middleware()))
	srv.AddTool(mcp.NewTool("weather",
		mcp.WithString("location", mcp.Required()),
		mcp.WithRawOutputSchema(json.RawMessage(`{"type":"object","properties":{"celsius":{"type":"number"}},"required":["celsius"]}`)),
	), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		res := mcp.NewToolResultText("warm")
		res.StructuredContent = map[string]any{"celsius": "warm"} // a bug: not a number
		return res, nil
	})
	resp := srv.HandleMessage(context.Background(), []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call",
		"params":{"name":"weather","arguments":{"location":"Paris"}}}`))
	res := resp.(mcp.JSONRPCResponse).Result.(*mcp.CallToolResult)
	fmt.Println(res.IsError, res.StructuredContent == nil)
	fmt.Println(res.Content[0].(mcp.TextContent).Text)
	fmt.Println(g.Guard().Stats()[0].ResultRefused)
	// Output:
	// true true
	// The tool failed on the server's side: its result does not match the tool's output schema, so it was withheld. The arguments were not the problem, and calling the tool again the same way will not help. The server's operator has been told.
	// 1
}

func ExampleGuard_Guard() {
	g := mcpvalidate.New(guard.WithFormatter(guard.GatewayFormat))
	srv := server.NewMCPServer("shop", "1.0.0", server.WithToolHandlerMiddleware(g.Middleware()))
	srv.AddTool(mcp.NewTool("lookup", mcp.WithString("id", mcp.Required())),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText("found"), nil
		})
	for _, args := range []string{`{}`, `{"id": 7}`, `{"id": "7"}`} {
		resp := srv.HandleMessage(context.Background(), []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"lookup","arguments":`+args+`}}`))
		r := resp.(mcp.JSONRPCResponse).Result.(*mcp.CallToolResult)
		fmt.Println(r.Content[0].(mcp.TextContent).Text)
	}
	st := g.Guard().Stats()[0]
	calls, _ := st.CallsPerAccepted()
	fmt.Printf("%s: %d accepted, %d refused, %.1f calls per accepted call\n", st.Tool, st.Accepted, st.Refused, calls)
	// Output:
	// Invalid arguments: Missing required parameter: `id`
	// Invalid arguments: Invalid type for `id`: expected string
	// found
	// lookup: 1 accepted, 2 refused, 3.0 calls per accepted call
}

// A server checks its tools' schemas at start-up with the guard it serves through: it
// refuses to start with a broken tool, and its first calls find every schema compiled.
func ExampleGuard_CheckServer() {
	g := mcpvalidate.New()
	srv := server.NewMCPServer("shop", "1.0.0", server.WithToolHandlerMiddleware(g.Middleware()))
	ok := func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("done"), nil
	}
	srv.AddTool(mcp.NewTool("lookup", mcp.WithString("id", mcp.Required())), ok)
	srv.AddTool(mcp.NewToolWithRawSchema("refund", "Refund an order", json.RawMessage(
		`{"type":"object","properties":{"amount_cents":{"type":"integr"}}}`)), ok)
	srv.AddTool(mcp.NewToolWithRawSchema("find", "Find a product", json.RawMessage(
		`{"type":"object","properties":{"sku":{"type":"string","maxLength":-1}}}`)), ok)
	if err := g.CheckServer(srv); err != nil {
		fmt.Println(err) // a server would log.Fatal(err)
	}
	// Output:
	// tool find: invalid schema at #/properties/sku/maxLength: must be a non-negative integer
	// tool refund: invalid schema at #/properties/amount_cents/type: unknown type "integr" (known: null, boolean, object, array, number, integer, string)
}

// A tool registered with AddTaskTool runs without tool middleware: its handler is wrapped
// instead. A call with invalid arguments completes its task at once with the refusal.
func ExampleGuard_TaskHandler() {
	g := mcpvalidate.New()
	srv := server.NewMCPServer("reports", "1.0.0",
		server.WithToolHandlerMiddleware(g.Middleware()), server.WithTaskCapabilities(true, true, true))
	tool := mcp.NewTool("report", mcp.WithString("quarter", mcp.Required(), mcp.Enum("Q1", "Q2", "Q3", "Q4")),
		mcp.WithTaskSupport(mcp.TaskSupportRequired))
	srv.AddTaskTool(tool, g.TaskHandler(tool, func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CreateTaskResult, error) {
		return &mcp.CreateTaskResult{Content: []mcp.Content{mcp.NewTextContent("report for " + req.GetString("quarter", ""))}}, nil
	}))

	ctx := context.Background()
	for _, args := range []string{`{"quarter": "q3"}`, `{"quarter": "Q3"}`} {
		resp := srv.HandleMessage(ctx, []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call",
			"params":{"name":"report","arguments":`+args+`,"task":{}}}`))
		var created struct {
			Result struct{ Task struct{ TaskID string } }
		}
		out, _ := json.Marshal(resp)
		_ = json.Unmarshal(out, &created)
		// tasks/result waits for the task to end.
		resp = srv.HandleMessage(ctx, []byte(`{"jsonrpc":"2.0","id":2,"method":"tasks/result",
			"params":{"taskId":"`+created.Result.Task.TaskID+`"}}`))
		var result struct {
			Result struct {
				Content []struct{ Text string }
				IsError bool
			}
		}
		out, _ = json.Marshal(resp)
		_ = json.Unmarshal(out, &result)
		fmt.Println(result.Result.IsError, result.Result.Content[0].Text)
	}
	// Output:
	// true Invalid arguments: property 'quarter' must be one of ['Q1', 'Q2', 'Q3', 'Q4']
	// false report for Q3
}

// An observer hears of every validated call: what became of it, and why a refused one was
// refused, without the values sent.
func Example_observer() {
	g := mcpvalidate.New(guard.WithObserver(func(e guard.Event) {
		fmt.Println(e.Tool, e.Outcome)
		for _, v := range e.Violations {
			fmt.Printf("  %s at %q (keyword %q)\n", v.Kind, v.Path, v.Keyword)
		}
	}))
	srv := server.NewMCPServer("weather", "1.0.0", server.WithToolHandlerMiddleware(g.Middleware()))
	srv.AddTool(mcp.NewTool("weather",
		mcp.WithString("location", mcp.Required()),
		mcp.WithInteger("days", mcp.Min(1)),
	), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("sunny"), nil
	})
	for _, args := range []string{`{"days": 0}`, `{"location": "Paris", "days": 2}`} {
		srv.HandleMessage(context.Background(), []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call",
			"params":{"name":"weather","arguments":`+args+`}}`))
	}
	// Output:
	// weather refused
	//   required at "location" (keyword "required")
	//   minimum at "days" (keyword "minimum")
	// weather accepted
}
