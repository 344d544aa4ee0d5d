package gosdk

import (
	"context"
	"fmt"
	"log/slog"
	"runtime"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// go-sdk v1.8.0 runs a tool's handler without recovering its panics, so one panicking
// handler ends the whole server. Every handler bound here recovers them instead: a deferred
// call with nothing to recover costs no allocation on a call that does not panic.

// failedText answers a call whose handler panicked.
const failedText = "The tool failed on the server's side, so it returned no result. The server's operator has been told."

// recovering returns h, answering a call on which h panics with an isError result, and
// logging the panic to slog's default logger. The log line names the tool, the type of the
// panic's value and where it was raised, but not the value, whose text may quote the
// arguments.
func recovering(tool string, h mcp.ToolHandler) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (res *mcp.CallToolResult, err error) {
		defer func() {
			if r := recover(); r != nil {
				slog.Default().Error("mcpvalidate: tool handler panicked; the client was told the tool failed",
					"tool", tool, "panic", fmt.Sprintf("%T", r), "at", panicSite())
				res = &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: failedText}}, IsError: true}
				err = nil
			}
		}()
		return h(ctx, req)
	}
}

// panicSite names the function, file and line that raised the panic being recovered.
func panicSite() string {
	pcs := make([]uintptr, 64)
	frames := runtime.CallersFrames(pcs[:runtime.Callers(1, pcs)])
	raised := false
	for {
		f, more := frames.Next()
		if raised && !strings.HasPrefix(f.Function, "runtime.") {
			return fmt.Sprintf("%s (%s:%d)", f.Function, f.File, f.Line)
		}
		raised = raised || f.Function == "runtime.gopanic"
		if !more {
			return "unknown"
		}
	}
}
