// Command rawserver is an MCP server on go-sdk whose tools validate nothing (raw AddTool)
// and count the calls their handlers get, for the proxy's tests. Over stdio by default;
// with -http ADDR over streamable HTTP at http://ADDR/mcp, printing the address it
// listens on as its first line.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"strconv"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

var calls atomic.Int64

const weatherSchema = `{"type":"object","properties":{"location":{"type":"string","minLength":1},` +
	`"days":{"type":"integer","minimum":1,"maximum":7},"units":{"enum":["c","f"]}},` +
	`"required":["location"],"additionalProperties":false}`

func newServer() *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: "rawserver", Version: "1.0.0"}, nil)
	srv.AddTool(&mcp.Tool{Name: "weather", Description: "the forecast", InputSchema: json.RawMessage(weatherSchema)},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			calls.Add(1)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "forecast for " + string(req.Params.Arguments)}}}, nil
		})
	srv.AddTool(&mcp.Tool{Name: "broken", Description: "a tool whose schema does not compile",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"x":{"type":"nonsense"}}}`)},
		func(_ context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			calls.Add(1)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ran"}}}, nil
		})
	srv.AddTool(&mcp.Tool{Name: "calls", Description: "how many calls the other tools' handlers got",
		InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(_ context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: strconv.FormatInt(calls.Load(), 10)}}}, nil
		})
	return srv
}

func main() {
	addr := flag.String("http", "", "serve streamable HTTP on this address")
	flag.Parse()
	if *addr == "" {
		if err := newServer().Run(context.Background(), &mcp.StdioTransport{}); err != nil {
			log.Fatal(err)
		}
		return
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(ln.Addr().String())
	srv := newServer()
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil)
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	go func() {
		// The test stops the server by closing its stdin.
		buf := make([]byte, 1)
		for {
			if _, err := os.Stdin.Read(buf); err != nil {
				os.Exit(0)
			}
		}
	}()
	log.Fatal(http.Serve(ln, mux))
}
