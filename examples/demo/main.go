// Command demo replays a scripted session of an assistant calling tools on an MCP server
// guarded by mcpvalidate: good calls, bad calls, the model repairing a call after a
// refusal, and a tool whose own result breaks its output schema. It prints each call and
// answer, the violations a client receives as data for two refusals, then the guard's
// counters. It needs no network.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"os"
	"strings"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpvalidate/mcpvalidate"
	"github.com/mcpvalidate/mcpvalidate/guard"
)

const refundSchema = `{
  "type": "object",
  "additionalProperties": false,
  "required": ["order_id", "amount_cents", "reason"],
  "properties": {
    "order_id": {"type": "string", "pattern": "^ord_[a-zA-Z0-9]{20}$"},
    "amount_cents": {"type": "integer", "minimum": 1, "maximum": 1000000},
    "reason": {"type": "string", "enum": ["duplicate_charge", "cancellation", "damaged_goods", "other"]}
  }
}`

const searchSchema = `{
  "type": "object",
  "additionalProperties": false,
  "required": ["query"],
  "properties": {
    "query": {"type": "string", "minLength": 1},
    "filter": {"$ref": "#/$defs/condition"}
  },
  "$defs": {
    "condition": {
      "oneOf": [
        {"type": "object", "additionalProperties": false, "required": ["field", "op", "value"],
         "properties": {
           "field": {"type": "string", "pattern": "^[a-z_]{1,32}$"},
           "op": {"enum": ["eq", "neq", "gt", "gte", "lt", "lte", "contains"]},
           "value": {"type": ["string", "number", "boolean"]}}},
        {"type": "object", "additionalProperties": false, "required": ["logic", "children"],
         "properties": {
           "logic": {"enum": ["and", "or", "not"]},
           "children": {"type": "array", "minItems": 1, "maxItems": 10, "items": {"$ref": "#/$defs/condition"}}}}
      ]
    }
  }
}`

const customerSchema = `{
  "type": "object",
  "additionalProperties": false,
  "required": ["name", "addresses"],
  "properties": {
    "name": {"type": "string", "minLength": 1},
    "email": {"type": "string", "format": "email"},
    "addresses": {
      "type": "array", "minItems": 1,
      "items": {
        "type": "object", "additionalProperties": false, "required": ["street", "zip_code", "country"],
        "properties": {
          "street": {"type": "string"},
          "zip_code": {"type": "string", "pattern": "^[0-9]{5}$"},
          "country": {"type": "string", "enum": ["US", "CA", "MX"]}
        }
      }
    }
  }
}`

const orderSchema = `{
  "type": "object",
  "additionalProperties": false,
  "required": ["order_id"],
  "properties": {"order_id": {"type": "string", "pattern": "^ord_[a-zA-Z0-9]{20}$"}}
}`

// orderStatusSchema is what get_order promises to return.
const orderStatusSchema = `{
  "type": "object",
  "additionalProperties": false,
  "required": ["order_id", "status", "total_cents"],
  "properties": {
    "order_id": {"type": "string"},
    "status": {"enum": ["open", "shipped", "delivered"]},
    "total_cents": {"type": "integer", "minimum": 0}
  }
}`

// step is one call of the scripted session.
type step struct {
	say   string // what the assistant is trying to do
	tool  string
	args  string
	valid bool
	data  bool // print the violations the refusal carries as data
}

var script = []step{
	{"asks for the weather the right way", "weather", `{"location": "Paris", "days": 3}`, true, false},
	{"writes the number of days as a word", "weather", `{"location": "Paris", "days": "three"}`, false, true},
	{"repairs the call after reading the refusal", "weather", `{"location": "Paris", "days": 3}`, true, false},
	{"invents a unit and an extra argument", "weather", `{"location": "Oslo", "units": "kelvin", "detail": "high"}`, false, false},
	{"repairs it", "weather", `{"location": "Oslo", "units": "c"}`, true, false},
	{"refunds $29.99 as a decimal string with a made-up order id", "refund_order", `{"order_id": "12345", "amount_cents": "29.99", "reason": "customer asked"}`, false, false},
	{"fixes the id and the reason but sends dollars", "refund_order", `{"order_id": "ord_A1b2C3d4E5f6G7h8I9j0", "amount_cents": 29.99, "reason": "other"}`, false, false},
	{"sends cents as an integer", "refund_order", `{"order_id": "ord_A1b2C3d4E5f6G7h8I9j0", "amount_cents": 2999, "reason": "other"}`, true, false},
	{"searches with a nested filter", "search_orders", `{"query": "late", "filter": {"logic": "and", "children": [{"field": "status", "op": "eq", "value": "open"}, {"field": "total", "op": "gt", "value": 100}]}}`, true, false},
	{"uses an operator the filter does not know, deep in the tree", "search_orders", `{"query": "late", "filter": {"logic": "or", "children": [{"field": "status", "op": "eq", "value": "open"}, {"logic": "not", "children": [{"field": "total", "op": "between", "value": 100}]}]}}`, false, false},
	{"repairs the operator", "search_orders", `{"query": "late", "filter": {"logic": "or", "children": [{"field": "status", "op": "eq", "value": "open"}, {"logic": "not", "children": [{"field": "total", "op": "gte", "value": 100}]}]}}`, true, false},
	{"creates a customer with a numeric zip code", "create_customer", `{"name": "Ada", "addresses": [{"street": "1 Main St", "zip_code": "10001", "country": "US"}, {"street": "2 Side St", "zip_code": 94105, "country": "USA"}]}`, false, false},
	{"quotes the zip code and uses the country code", "create_customer", `{"name": "Ada", "addresses": [{"street": "1 Main St", "zip_code": "10001", "country": "US"}, {"street": "2 Side St", "zip_code": "94105", "country": "US"}]}`, true, false},
	{"looks up an order", "get_order", `{"order_id": "ord_A1b2C3d4E5f6G7h8I9j0"}`, true, false},
	{"looks up an order that the backend returns in a shape the tool never promised", "get_order", `{"order_id": "ord_Z9y8X7w6V5u4T3s2R1q0"}`, false, true},
}

func main() {
	if err := run(os.Stdout); err != nil {
		log.Fatal(err)
	}
}

// run replays the script and prints the session; it fails when an answer is not the one
// the script expects.
func run(out io.Writer) error {
	g := mcpvalidate.New(guard.WithFormatAssertion(), guard.WithOutputValidation(), guard.WithViolationMeta())
	srv := newServer(g)
	if err := g.CheckServer(srv); err != nil {
		return err
	}
	ctx := context.Background()
	c, err := client.NewInProcessClient(srv)
	if err != nil {
		return err
	}
	defer c.Close()
	if err := c.Start(ctx); err != nil {
		return err
	}
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	init.Params.ClientInfo = mcp.Implementation{Name: "demo-assistant", Version: "1.0"}
	if _, err := c.Initialize(ctx, init); err != nil {
		return err
	}

	for i, s := range script {
		fmt.Fprintf(out, "%2d. The assistant %s.\n    → %s %s\n", i+1, s.say, s.tool, s.args)
		req := mcp.CallToolRequest{}
		req.Params.Name = s.tool
		req.Params.Arguments = json.RawMessage(s.args)
		res, err := c.CallTool(ctx, req)
		if err != nil {
			return fmt.Errorf("step %d: %w", i+1, err)
		}
		if res.IsError == s.valid {
			return fmt.Errorf("step %d: expected valid=%v, got %q", i+1, s.valid, text(res))
		}
		switch {
		case res.IsError:
			fmt.Fprintf(out, "    ✗ refused: %s\n", text(res))
		default:
			fmt.Fprintf(out, "    ✓ %s\n", text(res))
		}
		if s.data && res.Meta != nil {
			data, _ := json.Marshal(res.Meta.AdditionalFields[guard.MetaKey])
			fmt.Fprintf(out, "    the same as data, in _meta[%q]:\n      %s\n", guard.MetaKey, data)
		}
		fmt.Fprintln(out)
	}

	fmt.Fprintln(out, "Counters (mcpvalidate.Guard.Stats):")
	fmt.Fprintf(out, "  %-16s %8s %8s %17s %18s %15s\n", "tool", "accepted", "refused", "calls per accept", "refusals per fix", "results refused")
	var accepted, refused, bad uint64
	for _, st := range g.Guard().Stats() {
		accepted += st.Accepted
		refused += st.Refused
		bad += st.ResultRefused
		fmt.Fprintf(out, "  %-16s %8d %8d %17s %18s %15d\n", st.Tool, st.Accepted, st.Refused,
			ratio(st.CallsPerAccepted()), ratio(st.RefusalsPerRepair()), st.ResultRefused)
	}
	fmt.Fprintf(out, "  %-16s %8d %8d %17.2f %18s %15d\n", "all tools", accepted, refused, float64(accepted+refused)/float64(max(accepted, 1)), "", bad)
	fmt.Fprintln(out, "No handler ever saw invalid arguments: each refusal above was answered before the tool ran.")
	fmt.Fprintln(out, "No client ever saw a result that breaks its tool's output schema: get_order's was withheld.")
	return nil
}

// ratio shows a ratio of the counters, or a dash where there is none.
func ratio(r float64, ok bool) string {
	if !ok {
		return "-"
	}
	return fmt.Sprintf("%.2f", r)
}

func newServer(g *mcpvalidate.Guard) *server.MCPServer {
	srv := server.NewMCPServer("shop", "1.0.0", server.WithToolHandlerMiddleware(g.Middleware()))
	srv.AddTool(mcp.NewTool("weather",
		mcp.WithDescription("Weather forecast for a city"),
		mcp.WithString("location", mcp.Required()),
		mcp.WithInteger("days"),
		mcp.WithString("units", mcp.Enum("c", "f")),
		mcp.WithSchemaAdditionalProperties(false),
	), reply(func(args map[string]any) string {
		return fmt.Sprintf("forecast for %v: sunny", args["location"])
	}))
	srv.AddTool(mcp.NewToolWithRawSchema("refund_order", "Refund a completed order", json.RawMessage(refundSchema)),
		reply(func(args map[string]any) string {
			return fmt.Sprintf("refunded %v cents on %v", args["amount_cents"], args["order_id"])
		}))
	srv.AddTool(mcp.NewToolWithRawSchema("search_orders", "Search orders with a filter tree", json.RawMessage(searchSchema)),
		reply(func(args map[string]any) string { return "3 orders found" }))
	srv.AddTool(mcp.NewToolWithRawSchema("create_customer", "Create a customer", json.RawMessage(customerSchema)),
		reply(func(args map[string]any) string {
			return fmt.Sprintf("customer %v created with %d address(es)", args["name"], len(args["addresses"].([]any)))
		}))
	order := mcp.NewToolWithRawSchema("get_order", "Look up an order", json.RawMessage(orderSchema))
	order.RawOutputSchema = json.RawMessage(orderStatusSchema)
	srv.AddTool(order, getOrder)
	return srv
}

// getOrder answers from a backend that, for one order, has the total as a decimal string
// and the status in capitals: a server-side bug that output validation catches.
func getOrder(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	id := req.GetString("order_id", "")
	status := map[string]any{"order_id": id, "status": "shipped", "total_cents": 2999}
	if id == "ord_Z9y8X7w6V5u4T3s2R1q0" {
		status = map[string]any{"order_id": id, "status": "SHIPPED", "total_cents": "29.99"}
	}
	res := mcp.NewToolResultText(fmt.Sprintf("order %s: %v", id, status["status"]))
	res.StructuredContent = status
	return res, nil
}

// reply builds a handler; it only ever runs on arguments the guard accepted.
func reply(f func(map[string]any) string) server.ToolHandlerFunc {
	return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText(f(req.GetArguments())), nil
	}
}

func text(r *mcp.CallToolResult) string {
	var parts []string
	for _, c := range r.Content {
		if t, ok := c.(mcp.TextContent); ok {
			parts = append(parts, t.Text)
		}
	}
	return strings.Join(parts, " ")
}
